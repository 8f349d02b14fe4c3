"""``lejepa plan --out FILE`` is checked before planning (issue 19, item 5): a directory, a missing
parent or an unwritable parent is one error line and exit 2, and no planning is done. On main before
this change planning ran first and the write ended in a traceback."""

from __future__ import annotations

import os

import pytest

from lejepa_experiments import cli, planning


@pytest.fixture
def no_planning(tmp_path, monkeypatch: pytest.MonkeyPatch):
    """A checkpoint path that exists, and a planner that records whether it was called."""
    calls: list[str] = []

    def reps(path: str, device: str = "cpu"):
        calls.append(path)
        return {"oracle": lambda z: z}, 2, {"mixing": {"kind": "identity"}}

    def plan(reps, dim, **kw):
        calls.append("plan")
        return {"oracle": {"final_distance": 1.0, "final_distance_se": 0.1, "ratio_to_oracle": 1.0,
                           "first_action_agreement": 1.0, "cost_error": 0.0}}

    monkeypatch.setattr(planning, "reps_from_checkpoint", reps)
    monkeypatch.setattr(planning, "plan", plan)
    ck = tmp_path / "c.pt"
    ck.write_bytes(b"x")
    return ck, calls


def _run(ck, out) -> int:
    try:
        return cli.main(["plan", "--checkpoint", str(ck), "--out", str(out), "--episodes", "2"])
    except OSError as exc:
        pytest.fail(f"lejepa plan raised {type(exc).__name__}: {exc}")


@pytest.mark.parametrize("case, reason", [("dir", "is a directory"), ("missing_parent", "does not exist")])
def test_bad_out_is_one_line_before_planning(tmp_path, no_planning, capsys, case, reason) -> None:
    ck, calls = no_planning
    out = tmp_path / "d" if case == "dir" else tmp_path / "nope" / "p.json"
    if case == "dir":
        out.mkdir()
    assert _run(ck, out) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lejepa plan: error: --out") and reason in lines[0]
    assert calls == [] and captured.out == ""
    assert not (tmp_path / "nope").exists()                            # a missing parent is not created


def test_read_only_out_dir_is_one_line_before_planning(tmp_path, no_planning, monkeypatch, capsys) -> None:
    ck, calls = no_planning
    ro = tmp_path / "ro"
    ro.mkdir()
    real_open = os.open

    def no_write(path, flags, *a, **k):   # as on a read-only directory (root ignores chmod)
        if str(path).startswith(str(ro)) and flags & os.O_CREAT:
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *a, **k)

    monkeypatch.setattr(os, "open", no_write)
    assert _run(ck, ro / "p.json") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is not writable: Permission denied" in err[0] and str(ro) in err[0]
    assert calls == []


def test_good_out_is_written(tmp_path, no_planning) -> None:
    ck, calls = no_planning
    assert _run(ck, tmp_path / "p.json") == 0
    assert calls == [str(ck), "plan"] and (tmp_path / "p.json").is_file()
    assert [p for p in os.listdir(tmp_path) if p.startswith(".")] == []   # no probe or temporary left
