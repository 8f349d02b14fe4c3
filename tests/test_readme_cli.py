"""The README, as a newcomer reads it: the check table's legend explains every column the table
prints and every relation a row can carry; the two commands state time, size and result."""

from __future__ import annotations

import re
from pathlib import Path

from pycheck.report import CheckRow, format_table

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _legend() -> str:
    i = README.index("### Reading the check table")
    return README[i: README.index("\n#", i + 5)]


def _relations_in_code() -> set[str]:
    """Every ``relation`` a check row can get: the row helpers' and every relation-like string
    literal in the check modules (a superset: a literal used elsewhere is also asked for)."""
    rels = {"==", "<=", ">=", "skipped"}                 # close_row, le_row, ge_row, run_checks' SKIP
    for p in [*(ROOT / "pycheck" / "checks").glob("*.py"), ROOT / "experiments" / "lejepa_experiments" / "checks_trained.py"]:
        rels.update(re.findall(r'"((?:[<>]=?|==|in CI)(?: \(CI\))?)"', p.read_text(encoding="utf-8")))
    return rels


def test_legend_names_every_column_of_the_table() -> None:
    header = format_table([CheckRow("c", "q", 1.0, 1.0, 0.0, True)]).splitlines()[0].split()
    legend = _legend()
    for col in header:
        assert f"| `{col}` |" in legend, col


def test_legend_explains_every_relation() -> None:
    legend = _legend()
    rels = _relations_in_code()
    assert {"in CI", "<= (CI)", ">= (CI)", ">"} <= rels       # the scan finds the literal ones
    for rel in rels:
        assert f"`{rel}`" in legend, rel


def test_the_two_commands_state_time_size_and_result() -> None:
    i = README.index("## The two commands")
    section = README[i: README.index("### Reading the check table")]
    assert re.search(r"\d+(\.\d+)? GB", section) and re.search(r"\d+ MB", section)   # environment size
    assert re.search(r"`lejepa check` \d+ s", section)                             # how long
    assert re.search(r"`\d+ passed, 0 failed", section)                            # what it prints
    assert "exit 0" in section
