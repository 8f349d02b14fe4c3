"""The paper's numbering (Theorems 4.1, 4.2, 4.3, Corollary 4.5) everywhere: no "Theorem 3" or
"Thm 1" in the Python sources, the docs, the README, the check rows or the bound-check JSON."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OLD = re.compile(r"\b(Theorem|Thm|Corollary|Cor)\.? [0-9](?![.0-9])")


def _files() -> list[Path]:
    out = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for d in ("pycheck", "experiments", "tests", "benchmarks"):
        out += sorted(p for p in (ROOT / d).rglob("*.py") if "__pycache__" not in p.parts)
    return out


def test_no_old_theorem_numbers_in_sources_and_docs() -> None:
    bad = []
    for p in _files():
        if p.name == "test_paper_numbering.py":     # this file quotes the old numbers on purpose
            continue
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            if OLD.search(line):
                bad.append(f"{p.relative_to(ROOT)}:{i}: {line.strip()}")
    assert not bad, "old theorem numbers:\n" + "\n".join(bad)


def test_the_pattern_catches_old_numbers_only() -> None:
    assert OLD.search("Theorem 3 on 100 fresh pairs") and OLD.search("(Thm 1)")
    assert not OLD.search("Theorem 4.3 on 100 fresh pairs") and not OLD.search("Corollary 4.5")


def test_check_rows_use_paper_numbers() -> None:
    from pycheck.report import run_checks

    rows = run_checks(["bounds", "theorem2"])
    assert rows and all(r.claim.startswith(("Thm 4.2", "Thm 4.3")) for r in rows)


def test_bound_check_json_names_theorem_4_3() -> None:
    torch = pytest.importorskip("torch")
    from lejepa_experiments.metrics import bound_check

    g = torch.Generator().manual_seed(0)
    z = torch.randn(400, 2, generator=g, dtype=torch.float64)
    z2 = 0.9 * z + (1 - 0.81) ** 0.5 * torch.randn(400, 2, generator=g, dtype=torch.float64)
    res = bound_check(z, z, z2, 0.9, n_boot=20)
    assert res["claim"].startswith("Theorem 4.3") and res["verdict"] in ("holds", "violated", "inconclusive")
