"""Honest estimates in ``lejepa reproduce`` (issue 19, item 6): ``--jobs`` above the cores this
process may use is warned about and the wall estimate uses ``min(jobs, cores)``; an estimate that
was not measured says it is a guess. On main before this change ``--jobs 16 --dry-run`` on 2 cores
promised 8x less wall time than ``--jobs 2``, and the full preset called its Reacher guess "2.0 h
wall (on this project's machine)"."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("torch")
pytest.importorskip("yaml")

from lejepa_experiments import executors, reproduce  # noqa: E402


def _dry_run(monkeypatch, tmp_path, preset: str, jobs: int, cores: int, **kw) -> list[str]:
    monkeypatch.setattr(executors, "available_cores", lambda: cores)
    lines: list[str] = []
    reproduce.reproduce(preset, str(tmp_path / "out"), jobs=jobs, dry_run=True, progress=False,
                        log=lines.append, **kw)
    return lines


def _wall(lines: list[str]) -> str:
    m = re.search(r"about (\S+ \S+) wall with (\d+) in parallel", "\n".join(lines))
    assert m, lines
    return m.group(1)


def test_jobs_above_cores_is_warned_and_the_wall_estimate_uses_the_cores(monkeypatch, tmp_path) -> None:
    over = _dry_run(monkeypatch, tmp_path, "quick", jobs=16, cores=2)
    fair = _dry_run(monkeypatch, tmp_path, "quick", jobs=2, cores=2)
    assert _wall(over) == _wall(fair)                         # 16 jobs on 2 cores finish no sooner than 2
    warn = [line for line in over if line.startswith("warning: --jobs 16")]
    assert len(warn) == 1 and "2 core(s)" in warn[0]
    assert not any(line.startswith("warning:") for line in fair)
    # with enough cores the jobs do run in parallel: the estimate shrinks
    many = _dry_run(monkeypatch, tmp_path, "quick", jobs=4, cores=8)
    assert "with 4 in parallel" in "\n".join(many) and not any(line.startswith("warning:") for line in many)


def test_parallel_runs_is_min_of_jobs_and_cores() -> None:
    assert reproduce.parallel_runs("local", 16, {}, cores=2)[0] == 2
    assert reproduce.parallel_runs("local", 2, {}, cores=16) == (2, None)
    assert reproduce.parallel_runs("slurm", 1, {"array_parallelism": 7}, cores=2) == (7, None)


def test_a_guess_says_it_is_a_guess(monkeypatch, tmp_path) -> None:
    full = "\n".join(_dry_run(monkeypatch, tmp_path, "full", jobs=1, cores=2))
    line = next(x for x in full.splitlines() if x.startswith("Reacher step"))
    assert "guess" in line and "not measured" in line and "on this project's machine" not in line
    quick = "\n".join(_dry_run(monkeypatch, tmp_path, "quick", jobs=1, cores=2, reacher=True))
    line = next(x for x in quick.splitlines() if x.startswith("Reacher step"))
    assert "measured on this project's 2-core machine" in line


def test_a_reacher_estimate_without_a_basis_is_called_a_guess(tmp_path) -> None:
    spec = reproduce._reacher_spec({"preset": "smoke", "estimate_s": 5}, "test")
    assert spec is not None and "guess" in spec.estimate_basis
    with pytest.raises(ValueError, match="estimate_basis"):
        reproduce._reacher_spec({"preset": "smoke", "estimate_basis": ""}, "test")
