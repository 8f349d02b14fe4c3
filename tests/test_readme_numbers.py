"""The README's numbers stay true (issue 19, item 7).

* The row counts of ``lejepa check`` that the README quotes (command 1 and the pycheck-only install)
  are recomputed here from the check modules: the rows without torch are run (a few seconds), the
  trained-encoder module contributes two rows per on-the-spot encoder.
* Numbers that cannot be recomputed in a test (the test-suite count, times) carry the commit and
  date they were measured at, and the skipped tests are listed with their reasons.

On main before this change the README said ``83 passed`` where ``lejepa check`` printed 86 rows,
``79 passed`` for the pycheck-only install (82 rows) and ``439 passed`` (undated) for the tests."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from pycheck import checks
from pycheck.report import run_checks

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DATED = r"at commit ([0-9a-f]{7,40}) \((\d{4}-\d{2}-\d{2})"
"""How a measured number carries its origin: ``at commit abc1234 (2026-12-06``."""


def _expect_table() -> list[str]:
    i = README.index("| command | installs |")
    return README[i: README.index("\n\n", i)].splitlines()


def _row(start: str) -> str:
    rows = [r for r in _expect_table() if r.startswith(start)]
    assert len(rows) == 1, start
    return rows[0]


@pytest.fixture(scope="module")
def rows_without_torch() -> int:
    return len(run_checks([m for m in checks.MODULES if not m.endswith("checks_trained")]))


def test_readme_check_counts_equal_the_rows_lejepa_check_prints(rows_without_torch: int) -> None:
    trained = checks.MODULES[-1]
    assert trained.endswith("checks_trained")
    ct = pytest.importorskip("lejepa_experiments.checks_trained")  # its module needs no torch at import
    full = rows_without_torch + 2 * len(ct.ON_THE_SPOT)               # _rows_for gives two rows per encoder
    m = re.search(r"`(\d+) passed, 0 failed`", _row("| 1 |"))
    assert m and int(m.group(1)) == full, (m and m.group(0), full)
    m = re.search(r"`(\d+) passed, 0 failed, 1 skipped`", _row("| pycheck only"))
    assert m and int(m.group(1)) == rows_without_torch, (m and m.group(0), rows_without_torch)


def test_measured_numbers_carry_commit_and_date() -> None:
    for start in ("| 1 |", "| 2 |", "| pycheck only"):
        row = _row(start)
        assert re.search(DATED, row), f"{start} row: its times carry no 'at commit X (date' marker"
    assert re.search(r"`\d+ passed, \d+ skipped` " + DATED, _row("| 2 |"))


def test_dated_commits_exist() -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the commits named in the README cannot be looked up")
    shas = set(re.findall(DATED, README))
    assert shas
    for sha, _date in shas:
        r = subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{sha}^{{commit}}"], capture_output=True)
        if r.returncode != 0 and subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--is-shallow-repository"],
                                                capture_output=True, text=True).stdout.strip() == "true":
            pytest.skip("shallow clone: older commits are not here")
        assert r.returncode == 0, f"README names commit {sha}, which is not in this repository"


def test_skipped_tests_are_explained() -> None:
    """The README's skip count is followed by the list of skipped tests and why they skip."""
    m = re.search(r"`\d+ passed, (\d+) skipped`", _row("| 2 |"))
    assert m
    i = README.index("Skipped tests")
    section = README[i: README.index("\n\n", i)]
    counts = [int(n) for n in re.findall(r"\((\d+)\)", section)]
    assert sum(counts) == int(m.group(1)), (counts, m.group(1))
