"""Issue #13 rerun as a new user would: Ctrl-C is one line (no traceback) and a damaged checkpoint is
named in one line without torch's advice to retry with ``weights_only=False``."""

from __future__ import annotations

import os

import pytest

torch = pytest.importorskip("torch")

from lejepa_experiments import cli, commands, engine  # noqa: E402
from tiny_config import tiny_yaml  # noqa: E402

TINY_YAML = tiny_yaml(train="checkpoint_every: 2")


@pytest.fixture()
def cfg_file(tmp_path):
    p = tmp_path / "tiny.yaml"
    p.write_text(TINY_YAML)
    return str(p)


def _argv(cfg_file, out, *extra):
    return ["train", "--config", cfg_file, "--run", "r", "--out", str(out), "--no-progress", *extra]


def test_ctrl_c_during_training_is_one_line_and_exit_130(cfg_file, tmp_path, monkeypatch, capsys):
    def interrupted(*_a, **_k):
        raise KeyboardInterrupt

    monkeypatch.setattr(engine, "train", interrupted)
    try:
        rc = cli.main(_argv(cfg_file, tmp_path / "o"))
    except KeyboardInterrupt:
        pytest.fail("Ctrl-C escaped lejepa's main as a KeyboardInterrupt traceback")
    assert rc == 130
    err = capsys.readouterr().err
    assert err.startswith("lejepa train: interrupted;") and "--resume" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_corrupt_resume_checkpoint_is_named_in_one_line(cfg_file, tmp_path, capsys):
    out = tmp_path / "o"
    out.mkdir()
    (out / ("r" + commands.RESUME_SUFFIX)).write_bytes(b"garbage")
    assert cli.main(_argv(cfg_file, out, "--resume")) == 2
    err = capsys.readouterr().err
    assert "r.resume.ckpt' is corrupt (not a PyTorch checkpoint" in err
    assert "weights_only" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("blob", [b"garbage", b"", b"PK\x03\x04truncated zip"])
def test_load_error_is_one_line_without_unsafe_advice(tmp_path, blob):
    p = tmp_path / "x.pt"
    p.write_bytes(blob)
    with pytest.raises(Exception) as info:
        torch.load(str(p), map_location="cpu", weights_only=True)
    msg = commands.load_error(info.value)
    assert "\n" not in msg and "weights_only" not in msg and msg


def test_reproduce_out_under_a_regular_file_is_one_error_line(tmp_path, capsys):
    (tmp_path / "afile").write_text("x")
    try:
        rc = cli.main(["reproduce", "--preset", "smoke", "--out", str(tmp_path / "afile" / "x"), "--no-progress"])
    except OSError as exc:
        pytest.fail(f"lejepa reproduce raised {type(exc).__name__}: {exc}")
    assert rc == 2
    assert "lejepa reproduce: error: --out" in capsys.readouterr().err


def test_sweep_into_an_existing_unwritable_sweep_dir_is_one_error_line(cfg_file, tmp_path, monkeypatch, capsys):
    (tmp_path / "o" / "s").mkdir(parents=True)
    real_open = os.open

    def no_write(path, flags, *a, **k):   # as on a read-only or immutable directory (root ignores chmod)
        if str(path).startswith(str(tmp_path / "o" / "s")) and flags & os.O_CREAT:
            raise PermissionError(1, "Operation not permitted", str(path))
        return real_open(path, flags, *a, **k)

    monkeypatch.setattr(os, "open", no_write)
    try:
        rc = cli.main(["sweep", "--config", cfg_file, "--name", "s", "--out", str(tmp_path / "o"),
                       "--grid", "train.lr=1e-3,2e-3"])
    except OSError as exc:
        pytest.fail(f"lejepa sweep raised {type(exc).__name__}: {exc}")
    assert rc == 2
    assert "cannot write the sweep lock" in capsys.readouterr().err


def test_second_train_onto_the_same_run_started_together_is_refused(cfg_file, tmp_path, capsys):
    """Two ``lejepa train --run r`` at once both passed the "no result yet" check and the later one
    silently replaced the other's result (both exit 0); now the run is locked while it trains."""
    import subprocess
    import sys

    out = tmp_path / "o"
    out.mkdir()
    holder = subprocess.Popen(   # stands in for the first training, holding its run lock
        [sys.executable, "-c", "import sys\nfrom lejepa_experiments.commands import exclusive_lock\n"
         f"with exclusive_lock({str(out / '.r.lock')!r}, str):\n    print('locked', flush=True)\n"
         "    sys.stdin.read()\n"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        assert cli.main(_argv(cfg_file, out)) == 2
        err = capsys.readouterr().err
        assert f"is being trained by another lejepa process (pid {holder.pid} on host" in err
        assert not (out / "r.json").exists() and not (out / "r.pt").exists()
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)
    assert cli.main(_argv(cfg_file, out)) == 0 and (out / "r.json").exists()   # free again afterwards
    assert not (out / ".r.lock").exists()


def test_second_reproduce_into_the_same_out_is_refused(tmp_path, capsys):
    """Two ``lejepa reproduce --out X`` at once trained the same runs side by side and both wrote the
    summaries; the second is now refused before any training, naming the holder."""
    import subprocess
    import sys

    out = tmp_path / "X"
    out.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys\nfrom lejepa_experiments.commands import exclusive_lock\n"
         f"with exclusive_lock({str(out / '.reproduce.lock')!r}, str):\n    print('locked', flush=True)\n"
         "    sys.stdin.read()\n"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        assert cli.main(["reproduce", "--preset", "smoke", "--out", str(out), "--no-progress", "--no-report"]) == 2
        assert f"is in use by another lejepa reproduce (pid {holder.pid} on host" in capsys.readouterr().err
        assert not list(out.rglob("*.json"))                      # nothing trained
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)
