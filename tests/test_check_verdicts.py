"""``lejepa check`` has three verdicts for a statistical row (issue 19, item 4): a bootstrap CI that
straddles the threshold is UNDECIDED, not FAIL; the summary counts PASS / FAIL / UNDECIDED; the exit
status is 1 only for a decided failure; ``--checkpoints`` is validated before any training (exit 2,
one line); progress per checkpoint goes to stderr (``--quiet`` silences it).

On main before this change an exactly linear encoder (the bound's margin is then a difference of
two noisy averages around 0) was printed as FAIL and ``lejepa check`` exited 1; a missing
``--checkpoints`` directory was found only after the on-the-spot training."""

from __future__ import annotations

import json
import math

import pytest

import pycheck.report as report
from pycheck.report import CheckRow, close_row, format_json, format_table

torch = pytest.importorskip("torch")

from lejepa_experiments import checks_trained, cli, commands  # noqa: E402
from lejepa_experiments.config import make_config  # noqa: E402


def test_ci_row_is_three_valued() -> None:
    assert report.ci_row("c", "q", 0.0, 1.0, 0.01, 0.5).verdict == "PASS"
    assert report.ci_row("c", "q", 0.0, 1.0, -0.5, -0.01).verdict == "FAIL"
    straddle = report.ci_row("c", "q", 2.055e-05, 0.000940706, -0.008, 0.0099)      # issue 19's example
    assert straddle.verdict == "UNDECIDED" and not straddle.passed
    assert report.ci_row("c", "q", 0.0, 1.0, math.nan, 0.5).verdict == "UNDECIDED"   # no interval: not decided


def test_summary_counts_three_verdicts_and_keeps_the_ci_line() -> None:
    rows = [close_row("a", "x", 1.0, 1.0, 0.0), close_row("b", "y", 2.0, 1.0, 0.1),
            report.ci_row("c", "z", 0.0, 0.0, -1.0, 1.0),
            CheckRow("d", "w", math.nan, math.nan, math.nan, True, "skipped")]
    assert format_table(rows).splitlines()[-1] == "1 passed, 1 failed, 1 undecided, 1 skipped"
    assert report.count_verdicts(rows) == {"passed": 1, "failed": 1, "undecided": 1, "skipped": 1}
    data = json.loads(format_json(rows))
    assert [r["verdict"] for r in data["rows"]] == ["PASS", "FAIL", "UNDECIDED", "SKIP"]
    assert (data["passed"], data["failed"], data["undecided"], data["skipped"]) == (1, 1, 1, 1)
    # without undecided or skipped rows the last line is exactly "N passed, M failed"
    assert format_table(rows[:2]).splitlines()[-1] == "1 passed, 1 failed"


@pytest.fixture
def identity_checkpoints(tmp_path, monkeypatch: pytest.MonkeyPatch):
    """Two ``*.pt`` files (one in a subdirectory) that "load" as h = f(g(z)) = z exactly (identity
    mixing, a linear identity encoder), no on-the-spot training, 5000 pairs per checkpoint."""
    cfg = make_config({"latent": {"dim": 2}, "mixing": {"kind": "identity"}})

    def load(path: str, device: str = "cpu"):
        enc = torch.nn.Linear(2, 2, bias=False)
        with torch.no_grad():
            enc.weight.copy_(torch.eye(2))
        return cfg, torch.nn.Identity(), enc

    monkeypatch.setattr(commands, "load_checkpoint", load)
    monkeypatch.setattr(checks_trained, "ON_THE_SPOT", {})
    monkeypatch.setattr(checks_trained, "checkpoint_pairs", lambda n: 5000)
    (tmp_path / "a.pt").write_bytes(b"x")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.pt").write_bytes(b"x")
    return tmp_path


def test_inconclusive_bootstrap_is_undecided_and_exit_0(identity_checkpoints, capsys) -> None:
    rc = cli.main(["check", "--only", "checks_trained", "--checkpoints", str(identity_checkpoints), "--quiet"])
    captured = capsys.readouterr()
    out = captured.out.splitlines()
    bound_rows = [line for line in out if "err <= bound" in line and line.startswith("Thm 4.3")]
    assert len(bound_rows) == 2                                       # a.pt and sub/b.pt (recursive)
    assert all(line.rstrip().endswith("UNDECIDED") for line in bound_rows), bound_rows
    assert out[-1] == "2 passed, 0 failed, 2 undecided"              # delta_tr rows pass, bound rows undecided
    assert any(line.startswith("UNDECIDED: ") and "straddles 0" in line for line in out)   # the reason
    assert rc == 0                                                    # undecided is not a failure
    assert captured.err == ""                                         # --quiet: no progress


def test_undecided_with_a_decided_failure_exits_1(monkeypatch, capsys) -> None:
    import pycheck.report

    rows = [report.ci_row("c", "undecided", 0.0, 0.0, -1.0, 1.0), report.ci_row("c", "refuted", 0.0, 0.0, -2.0, -1.0)]
    monkeypatch.setattr(pycheck.report, "run_checks", lambda *a, **k: rows)
    assert cli.main(["check", "--only", "bounds", "--quiet"]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == "0 passed, 1 failed, 1 undecided"
    monkeypatch.setattr(pycheck.report, "run_checks", lambda *a, **k: rows[:1])
    assert cli.main(["check", "--only", "bounds", "--quiet"]) == 0


def test_progress_per_checkpoint_on_stderr(identity_checkpoints, capsys) -> None:
    cli.main(["check", "--only", "checks_trained", "--checkpoints", str(identity_checkpoints)])
    err = capsys.readouterr().err
    assert "2 checkpoint(s) under" in err
    assert "checkpoint 1/2 a.pt: UNDECIDED/PASS" in err and "checkpoint 2/2 sub/b.pt: UNDECIDED/PASS" in err


@pytest.mark.parametrize("case, reason", [("missing", "does not exist"), ("file", "is not a directory"),
                                          ("empty", "holds no *.pt checkpoint")])
def test_bad_checkpoints_dir_is_a_usage_error_before_training(tmp_path, monkeypatch, capsys, case, reason) -> None:
    trained: list[str] = []

    def spy(name: str, log=None):
        trained.append(name)
        return []

    monkeypatch.setattr(checks_trained, "_train_on_spot", spy)
    path = tmp_path / case
    if case == "file":
        path.write_text("x")
    elif case == "empty":
        (path / "sub").mkdir(parents=True)
        (path / "sub" / "r.resume.ckpt").write_bytes(b"x")         # not a finished checkpoint
    rc = cli.main(["check", "--only", "checks_trained", "--checkpoints", str(path), "--quiet"])
    captured = capsys.readouterr()
    assert rc == 2 and trained == [] and captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lejepa check: error: --checkpoints") and reason in lines[0]


def test_confidence_level_is_stated() -> None:
    assert checks_trained.CONFIDENCE == pytest.approx(0.9973, abs=1e-4)   # 2 Phi(3) - 1
    assert "99.73%" in checks_trained.__doc__.replace(" %", "%")
