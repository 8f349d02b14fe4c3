"""Packaging and code health: the MIT licence in PEP 639 form (with a build backend that knows it),
project URLs, py.typed markers shipped as package data, numba and matplotlib as their own extras,
sympy imported lazily by pycheck.hermite, and CI running ruff, mypy and a torch-less install."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_license_is_an_spdx_expression_with_its_file() -> None:
    proj = PYPROJECT["project"]
    assert proj["license"] == "MIT" and proj["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    # PEP 639 (license = "<SPDX>", license-files) needs setuptools >= 77
    req = [r for r in PYPROJECT["build-system"]["requires"] if r.startswith("setuptools")]
    assert req == ["setuptools>=77"]


def test_urls_typed_markers_and_extras() -> None:
    proj = PYPROJECT["project"]
    assert proj["urls"] and all(u.startswith("https://") for u in proj["urls"].values())
    data = PYPROJECT["tool"]["setuptools"]["package-data"]
    assert data == {"pycheck": ["py.typed"], "lejepa_experiments": ["py.typed"]}
    assert (ROOT / "pycheck" / "py.typed").is_file()
    assert (ROOT / "experiments" / "lejepa_experiments" / "py.typed").is_file()
    extras = proj["optional-dependencies"]
    assert [d.split(">")[0] for d in extras["fast"]] == ["numba"]
    assert [d.split(">")[0] for d in extras["plot"]] == ["matplotlib"]
    assert not any(d.startswith(("numba", "matplotlib")) for d in extras["train"])
    assert any(d.startswith("torch") for d in extras["train"])


def test_sympy_is_not_imported_by_the_numerical_modules() -> None:
    code = ("import sys, pycheck.hermite, pycheck.spectral, pycheck.bounds, pycheck.quadrature\n"
            "print('sympy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "False"
    from pycheck.hermite import hermite_e_sympy            # the exact version still works

    assert str(hermite_e_sympy(3)) == "x**3 - 3*x"


def test_ci_runs_ruff_mypy_and_a_torchless_install() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert "ruff check ." in ci and "mypy" in ci
    assert PYPROJECT["tool"]["ruff"]["lint"]["select"] == ["F"]
    assert PYPROJECT["tool"]["mypy"]["files"] == ["pycheck", "experiments/lejepa_experiments"]
    # the torch-less venv: installed without the train extra, then lejepa check and pytest pycheck
    i = next(k for k, line in enumerate(ci) if "-m venv .ci-venv-notorch" in line)
    rest = ci[i:]
    installs = [line for line in rest if "pip install" in line and "--upgrade pip" not in line]
    assert installs == ["python -m pip install --quiet -e '.[test]'"]
    assert "lejepa check --quiet" in rest and "pytest pycheck -q" in rest
