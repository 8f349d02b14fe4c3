"""`lejepa check`: the table and JSON carry every row, the exit status follows the verdicts, and
a module that raises becomes a failing row instead of hiding the others. Also: .ci/run runs the
README's test command."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lejepa_experiments import cli
from pycheck.report import CheckRow, close_row, format_table, le_row, run_checks

ROOT = Path(__file__).resolve().parents[1]


def test_row_helpers_decide_verdicts() -> None:
    assert close_row("c", "q", 1.0, 1.0 + 1e-9, 1e-8).passed
    assert not close_row("c", "q", 1.0, 1.1, 1e-8).passed
    assert not close_row("c", "q", float("nan"), 0.0, 1.0).passed
    assert le_row("c", "q", 0.5, 0.5).passed
    assert not le_row("c", "q", 0.6, 0.5, 0.05).passed


def test_table_summary_counts_failures() -> None:
    rows = [close_row("a", "x", 1.0, 1.0, 0.0), close_row("b", "y", 2.0, 1.0, 0.1)]
    text = format_table(rows)
    assert text.splitlines()[-1] == "1 passed, 1 failed"
    assert "FAIL" in text and "PASS" in text


def test_raising_module_is_a_failing_row() -> None:
    rows = run_checks(["pycheck.checks.does_not_exist", "bounds"])
    assert not rows[0].passed and "module raised" in rows[0].quantity
    assert len(rows) > 1 and all(isinstance(r, CheckRow) for r in rows)


def test_check_json_and_exit_status(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["check", "--only", "bounds", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["failed"] == 0 and data["passed"] == len(data["rows"]) > 0
    assert {"claim", "quantity", "value", "reference", "tolerance", "verdict"} <= set(data["rows"][0])
    # an unknown module is a usage error (exit 2); run_checks itself still turns it into a FAIL row
    assert cli.main(["check", "--only", "pycheck.checks.does_not_exist"]) == 2


def test_ci_runs_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    m = re.search(r"pip install -e '\.\[all\]' && (pytest [^\n`]+)", readme)
    assert m, "README has no test command"
    assert "python -m pip install --quiet -e '.[all]'" in ci.splitlines()     # the same extras
    assert m.group(1).strip() in ci.splitlines()
    assert "torch==2.13.0" in ci


def test_missing_torch_is_a_skip_not_a_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    real = importlib.import_module

    def fake(name: str, *args: object):
        if name == "lejepa_experiments.checks_trained":
            raise ModuleNotFoundError("No module named 'torch'", name="torch")
        if name == "lejepa_experiments.other":
            raise ModuleNotFoundError("No module named 'scipy'", name="scipy")
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", fake)
    rows = run_checks(["lejepa_experiments.checks_trained", "lejepa_experiments.other"])
    assert [r.verdict for r in rows] == ["SKIP", "FAIL"]
    assert format_table(rows).splitlines()[-1] == "0 passed, 1 failed, 1 skipped"
