"""Results on disk (issue #13): sweep lock, failure records, write probe, the .pt/.json pair invariant,
--overwrite, file modes, empty configs, and verified sweep resume (corrupt files named)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

from lejepa_experiments import cli, commands, engine, sweep  # noqa: E402
from lejepa_experiments.config import load_config  # noqa: E402
from tiny_config import tiny_yaml  # noqa: E402

TINY_YAML = tiny_yaml()


def quiet(_: str) -> None:
    pass


@pytest.fixture()
def cfg_file(tmp_path):
    p = tmp_path / "tiny.yaml"
    p.write_text(TINY_YAML)
    return str(p)


def _train_argv(cfg_file, out, run="r", *extra):
    return ["train", "--config", cfg_file, "--run", run, "--out", str(out), "--no-progress", *extra]


# ------------------------------------------------------------------------------ concurrent sweeps

def test_second_sweep_with_the_same_name_is_refused_naming_the_holder(cfg_file, tmp_path):
    d = tmp_path / "out" / "g"
    d.mkdir(parents=True)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys\nfrom lejepa_experiments.sweep import sweep_lock\n"
         f"with sweep_lock({str(d)!r}):\n    print('locked', flush=True)\n    sys.stdin.read()\n"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(ValueError, match=rf"in use by another lejepa sweep \(pid {holder.pid} on host .+ since "):
            sweep.run_sweep(cfg_file, "g", str(tmp_path / "out"), ["loss.lam=0.05"], [0], log=quiet)
        assert not (d / "lam=0.05_s0.json").exists()          # refused before training anything
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)
    assert holder.returncode == 0 and not (d / ".lock").exists()   # released and removed
    rows = sweep.run_sweep(cfg_file, "g", str(tmp_path / "out"), ["loss.lam=0.05"], [0], log=quiet)
    assert [r["run"] for r in rows] == ["lam=0.05_s0"] and not (d / ".lock").exists()


def test_sweep_lock_is_exclusive_within_one_process_too(tmp_path):
    with sweep.sweep_lock(str(tmp_path)):
        with pytest.raises(ValueError, match=f"pid {os.getpid()} "):
            with sweep.sweep_lock(str(tmp_path)):
                pass
    with sweep.sweep_lock(str(tmp_path)):   # free again after release
        pass


# ------------------------------------------------------------------------------ non-finite loss

@pytest.fixture()
def nan_at_lam(monkeypatch):
    """Make the objective NaN for runs whose loss.lam is in the returned set."""
    bad: set[float] = set()
    real = engine.objective

    def objective(cfg_loss, h1, h2, lam=None):
        out = real(cfg_loss, h1, h2, lam)
        return out * float("nan") if cfg_loss["lam"] in bad else out

    monkeypatch.setattr(engine, "objective", objective)
    return bad


def test_sweep_records_a_failed_run_goes_on_and_skips_it_on_rerun(cfg_file, tmp_path, nan_at_lam, monkeypatch):
    nan_at_lam.add(0.2)
    out, d = str(tmp_path / "out"), tmp_path / "out" / "g"
    lines: list[str] = []
    rows = sweep.run_sweep(cfg_file, "g", out, ["loss.lam=0.2,0.01"], [0], log=lines.append)
    assert [r["run"] for r in rows] == ["lam=0.01_s0"]                 # the sweep went on
    assert [f["run"] for f in rows.failures] == ["lam=0.2_s0"]
    rec = json.loads((d / "lam=0.2_s0.json").read_text())
    assert rec["status"] == "failed" and rec["step"] == 2 and "non-finite" in rec["reason"]
    assert rec["config"]["loss"]["lam"] == 0.2 and rec["seed"] == 0
    assert not (d / "lam=0.2_s0.pt").exists()
    assert any(ln.startswith("[1/2] lam=0.2_s0: FAILED at step 2") for ln in lines)
    assert "1 run(s) failed: lam=0.2_s0 (step 2" in lines[-1]
    assert json.loads((d / "summary.json").read_text()) == rows

    calls: list[str] = []
    real = sweep.run_training
    monkeypatch.setattr(sweep, "run_training", lambda *a, **k: (calls.append(a[1]), real(*a, **k))[1])
    lines.clear()
    rows = sweep.run_sweep(cfg_file, "g", out, ["loss.lam=0.2,0.01"], [0], log=lines.append)
    assert calls == [] and [f["run"] for f in rows.failures] == ["lam=0.2_s0"]
    assert "failed before at step 2" in lines[0] and "--retry-failed" in lines[0]
    nan_at_lam.clear()                                                 # e.g. the cause was fixed
    rows = sweep.run_sweep(cfg_file, "g", out, ["loss.lam=0.2,0.01"], [0], retry_failed=True, log=quiet)
    assert calls == ["lam=0.2_s0"] and not rows.failures and len(rows) == 2
    assert json.loads((d / "lam=0.2_s0.json").read_text())["status"] == "ok" and (d / "lam=0.2_s0.pt").exists()


def test_sweep_cli_exit_status_1_lists_failures(cfg_file, tmp_path, nan_at_lam, capsys):
    nan_at_lam.add(0.2)
    rc = cli.main(["sweep", "--config", cfg_file, "--name", "g", "--out", str(tmp_path), "--grid", "loss.lam=0.2,0.1"])
    out = capsys.readouterr().out
    assert rc == 1 and "2 runs, 1 finished; summary in" in out and "1 failed" in out and "Traceback" not in out


def test_train_non_finite_loss_one_line_error_and_record(cfg_file, tmp_path, nan_at_lam, capsys):
    nan_at_lam.add(0.05)
    rc = cli.main(_train_argv(cfg_file, tmp_path / "o"))
    err = capsys.readouterr().err
    assert rc == 1
    assert err.count("\n") == 1 and "non-finite" in err and "step 2" in err and "Traceback" not in err
    rec = json.loads((tmp_path / "o" / "r.json").read_text())
    assert rec["status"] == "failed" and rec["step"] == 2 and rec["run"] == "r"
    assert sorted(os.listdir(tmp_path / "o")) == ["r.json"]


# ------------------------------------------------------------------------------ --out checks and the pair

def test_unwritable_out_is_found_before_training(cfg_file, tmp_path, monkeypatch, capsys):
    import tempfile

    out = tmp_path / "ro"
    out.mkdir()
    real = tempfile.mkstemp

    def mkstemp(*a, **k):
        if os.path.abspath(str(k.get("dir", ""))) == str(out):
            raise PermissionError(13, "Permission denied")
        return real(*a, **k)

    trained = []
    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    monkeypatch.setattr(engine, "train", lambda *a, **k: trained.append(1))
    rc = cli.main(_train_argv(cfg_file, out))
    err = capsys.readouterr().err
    assert rc == 2 and trained == []
    assert f"--out {str(out)!r} is not writable: Permission denied" in err and "Traceback" not in err


def test_full_out_is_found_before_training(cfg_file, tmp_path, monkeypatch, capsys):
    import shutil
    from collections import namedtuple

    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda p: usage(10**9, 10**9 - 100, 100))
    monkeypatch.setattr(engine, "train", lambda *a, **k: pytest.fail("trained"))
    assert cli.main(_train_argv(cfg_file, tmp_path / "o")) == 2
    assert "has only 100 bytes free" in capsys.readouterr().err
    # 1 MiB + 1 kB free: enough for the tiny encoder, not for a 256 x 4 MLP (0.8 MB of weights, written twice)
    free = commands.MIN_FREE_BYTES + 1000
    monkeypatch.setattr(shutil, "disk_usage", lambda p: usage(10**9, 10**9 - free, free))
    assert cli.main(_train_argv(cfg_file, tmp_path / "o", "r", "--set", "encoder.width=256", "--set",
                                "encoder.depth=4")) == 2
    assert f"has only {free} bytes free" in capsys.readouterr().err


def test_failed_json_write_leaves_neither_file(cfg_file, tmp_path, monkeypatch):
    out = tmp_path / "o"
    assert cli.main(_train_argv(cfg_file, out, "old")) == 0
    before = {f: (out / f).read_bytes() for f in os.listdir(out)}
    real = json.dump

    def dump(obj, f, *a, **k):
        if isinstance(obj, dict) and "metrics" in obj:
            raise OSError(28, "No space left on device")
        return real(obj, f, *a, **k)

    monkeypatch.setattr(json, "dump", dump)
    with pytest.raises(ValueError, match="could not write the results of run 'r'.*No space left"):
        commands.run_training(cfg_file, "r", 0, str(out), progress=False)
    with pytest.raises(ValueError, match="No space left"):                 # an existing pair survives intact
        commands.run_training(cfg_file, "old", 0, str(out), progress=False, overwrite=True)
    assert {f: (out / f).read_bytes() for f in os.listdir(out)} == before   # no r.pt alone, no temporaries


def test_failed_checkpoint_write_is_a_clear_error_leaving_nothing(cfg_file, tmp_path, monkeypatch, capsys):
    def save(obj, f, *a, **k):
        raise RuntimeError("[enforce fail at inline_container.cc:664] . PytorchStreamWriter failed writing file")

    monkeypatch.setattr(torch, "save", save)
    assert cli.main(_train_argv(cfg_file, tmp_path / "o")) == 2
    err = capsys.readouterr().err
    assert "could not write the results of run 'r'" in err and "Traceback" not in err
    assert os.listdir(tmp_path / "o") == []
    assert cli.main(_train_argv(cfg_file, tmp_path / "o", "r", "--set", "train.checkpoint_every=2")) == 2
    assert "could not write the resume checkpoint" in capsys.readouterr().err


def test_pt_without_json_counts_as_not_done(cfg_file, tmp_path, monkeypatch):
    out = str(tmp_path / "out")
    sweep.run_sweep(cfg_file, "g", out, ["loss.lam=0.05"], [0], log=quiet)
    d = tmp_path / "out" / "g"
    (d / "lam=0.05_s0.json").unlink()
    (d / "lam=0.05_s0.pt").write_bytes(b"half a checkpoint")
    lines: list[str] = []
    sweep.run_sweep(cfg_file, "g", out, ["loss.lam=0.05"], [0], log=lines.append)
    assert "done before" not in lines[0]
    sweep.verify_result(str(d / "lam=0.05_s0.json"), dict(load_config(cfg_file, None, ["loss.lam=0.05"]),
                                                           name="lam=0.05_s0"), 0)   # a good pair again


# ------------------------------------------------------------------------------ overwrite, modes, empty config

def test_train_refuses_an_existing_run_unless_overwrite(cfg_file, tmp_path, capsys):
    out = tmp_path / "o"
    assert cli.main(_train_argv(cfg_file, out)) == 0
    first = (out / "r.json").read_bytes()
    assert cli.main(_train_argv(cfg_file, out, "r", "--seed", "1")) == 2
    err = capsys.readouterr().err
    assert "already has a result" in err and "--overwrite" in err
    assert (out / "r.json").read_bytes() == first
    assert cli.main(_train_argv(cfg_file, out, "r", "--seed", "1", "--overwrite")) == 0
    assert json.loads((out / "r.json").read_text())["seed"] == 1


@pytest.mark.parametrize("mask", [0o022, 0o077])
def test_result_files_follow_the_umask(cfg_file, tmp_path, mask):
    old = os.umask(mask)
    try:
        assert cli.main(_train_argv(cfg_file, tmp_path / "o")) == 0
    finally:
        os.umask(old)
    for f in ("r.json", "r.pt"):
        assert (tmp_path / "o" / f).stat().st_mode & 0o777 == 0o666 & ~mask


@pytest.mark.parametrize("text,suffix", [("", ".yaml"), ("# only a comment\n", ".yaml"), ("\n\n", ".yaml"),
                                         ("{}", ".yaml"), ("{}\n", ".json")])
def test_empty_config_file_is_refused(tmp_path, text, suffix):
    p = tmp_path / f"empty{suffix}"
    p.write_text(text)
    with pytest.raises(ValueError, match="is empty"):
        load_config(str(p))


# ------------------------------------------------------------------------------ verified sweep resume

def _break_pt(d):
    (d / "lam=0.05_s0.pt").write_bytes(b"\x00not a checkpoint")


def _empty_json(d):
    (d / "lam=0.05_s0.json").write_text("{}")


def _no_metrics(d):
    p = d / "lam=0.05_s0.json"
    res = json.loads(p.read_text())
    del res["metrics"]
    p.write_text(json.dumps(res))


def _foreign_pt(d):
    torch.save({"weights": torch.zeros(2)}, d / "lam=0.05_s0.pt")


def _missing_pt(d):
    (d / "lam=0.05_s0.pt").unlink()


@pytest.mark.parametrize("damage,needle", [
    (_break_pt, r"lam=0.05_s0.pt' is corrupt \(does not load"),
    (_foreign_pt, r"lam=0.05_s0.pt' is corrupt \(not a lejepa training checkpoint"),
    (_empty_json, r"lam=0.05_s0.json' is corrupt \(not a complete run record: missing \['run', 'seed', 'config', 'metrics'\]"),
    (_no_metrics, r"lam=0.05_s0.json' is corrupt \(not a complete run record: missing \['metrics'\]"),
    (_missing_pt, r"lam=0.05_s0.json' is corrupt \(its checkpoint 'lam=0.05_s0.pt' is missing"),
])
def test_sweep_resume_names_a_corrupt_file(cfg_file, tmp_path, monkeypatch, damage, needle):
    out = str(tmp_path / "out")
    sweep.run_sweep(cfg_file, "g", out, ["loss.lam=0.05"], [0], log=quiet)
    damage(tmp_path / "out" / "g")
    monkeypatch.setattr(sweep, "run_training", lambda *a, **k: pytest.fail("trained"))
    lines: list[str] = []
    with pytest.raises(ValueError, match=needle):
        sweep.run_sweep(cfg_file, "g", out, ["loss.lam=0.05"], [0], log=lines.append)
    assert lines == []                                     # not "done before"
    assert cli.main(["sweep", "--config", cfg_file, "--name", "g", "--out", out, "--grid", "loss.lam=0.05"]) == 2


def test_divergence_seen_first_at_an_evaluation_is_a_failure_record(cfg_file, tmp_path, nan_at_lam):
    """eval.every = 3 before the first log at step 4: the NaN weights must not reach the metrics
    (which would raise 'h contains non-finite values', exit 2, no record)."""
    nan_at_lam.add(0.05)
    with pytest.raises(commands.TrainingFailed, match="at step 3"):
        commands.run_training(cfg_file, "r", 0, str(tmp_path), progress=False,
                              overrides=["train.log_every=4", "eval.every=3", "train.steps=8"])
    rec = json.loads((tmp_path / "r.json").read_text())
    assert rec["status"] == "failed" and rec["step"] == 3


def test_divergence_before_a_time_limited_final_evaluation(cfg_file, tmp_path, nan_at_lam):
    """A time limit stops after step 1, before any log step: the final evaluation checks first."""
    nan_at_lam.add(0.05)
    with pytest.raises(commands.TrainingFailed, match="at step 1"):
        commands.run_training(cfg_file, "r", 0, str(tmp_path), progress=False, time_limit_s=1e-9,
                              overrides=["train.log_every=5", "eval.every=5", "train.steps=8"])
