"""Periodic checkpoints and ``lejepa train --resume`` (issue #13): a resumed run equals the
uninterrupted one bit for bit (model, optimizer, scheduler, lambda ramp, curves, all RNG states)."""

from __future__ import annotations

import io
import json
import os
import random

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from lejepa_experiments import cli, commands, sweep  # noqa: E402
from lejepa_experiments.config import make_config  # noqa: E402
from lejepa_experiments.engine import lam_at, train  # noqa: E402
from tiny_config import tiny_yaml  # noqa: E402

# lambda ramp 0.05 -> 0.3 after step 6, warm-up, cosine decay: the interruption falls inside all of them
OVER = {"encoder": {"width": 16, "depth": 2}, "loss": {"slices": 8, "lam_end": 0.3},
        "train": {"steps": 20, "batch": 32, "log_every": 3, "checkpoint_every": 7, "constant_frac": 0.3,
                  "warmup_steps": 3},
        "eval": {"size": 256, "every": 5}, "runtime": {"progress": False, "device": "cpu", "threads": 1}}


def assert_same(a, b, path="state"):
    """Recursive bitwise equality of nested dicts/lists/tensors/numbers."""
    if isinstance(a, torch.Tensor):
        assert isinstance(b, torch.Tensor) and a.dtype == b.dtype and torch.equal(a, b), path
    elif isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), path
        for k in a:
            assert_same(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{path}[{i}]")
    else:
        assert a == b, (path, a, b)


def test_resumed_training_equals_uninterrupted_bit_for_bit():
    cfg = make_config(OVER)
    full = train(cfg, 3)

    saved: list[bytes] = []

    def crash_after_second(state):
        buf = io.BytesIO()
        torch.save(state, buf)              # what lejepa train writes to NAME.resume.ckpt
        saved.append(buf.getvalue())
        if len(saved) == 2:
            raise KeyboardInterrupt         # the run dies right after its step-14 checkpoint

    with pytest.raises(KeyboardInterrupt):
        train(cfg, 3, checkpoint=crash_after_second)
    state = torch.load(io.BytesIO(saved[1]), weights_only=True)
    assert state["step"] == 14 and lam_at(14, 20, 0.05, 0.3, 0.3) not in (0.05, 0.3)   # mid-ramp
    # another process, other RNG states: everything must come from the checkpoint
    torch.manual_seed(12345)
    np.random.seed(6789)
    random.seed(42)
    res = train(cfg, 3, resume=state)
    a, b = dict(full.state), dict(res.state)
    assert a.pop("seconds") >= 0 and b.pop("seconds") >= 0
    assert_same(a, b)                       # encoder, optimizer, scheduler, curves, loss accumulator, RNGs
    assert set(a["rng"]) >= {"torch", "numpy", "python"}
    assert full.metrics == res.metrics and full.curves == res.curves
    assert_same(full.encoder.state_dict(), res.encoder.state_dict())
    # and the RNG states really are restored (not just never used): numpy/python continue identically
    assert np.random.get_state(legacy=False)["state"]["pos"] == b["rng"]["numpy"]["pos"]


def test_resume_state_of_another_config_or_seed_is_refused():
    cfg = make_config(OVER)
    saved = []
    with pytest.raises(KeyboardInterrupt):
        train(cfg, 3, checkpoint=lambda s: (saved.append(io.BytesIO()), torch.save(s, saved[-1]),
                                            (_ for _ in ()).throw(KeyboardInterrupt)))
    saved[0].seek(0)
    state = torch.load(saved[0], weights_only=True)
    with pytest.raises(ValueError, match="another config or seed"):
        train(cfg, 4, resume=state)
    with pytest.raises(ValueError, match="another config or seed"):
        train(make_config(dict(OVER, loss={"slices": 9})), 3, resume=state)


def test_checkpoint_every_is_validated():
    with pytest.raises(ValueError, match="train.checkpoint_every"):
        make_config({"train": {"checkpoint_every": -1}})
    with pytest.raises(ValueError, match="train.checkpoint_every"):
        make_config({"train": {"checkpoint_every": 2.5}})
    assert make_config({})["train"]["checkpoint_every"] == 0


TINY_YAML = tiny_yaml(width=16, steps=12, log_every=3, eval_size=256, eval_every=6,
                      loss="lam_end: 0.2", train="checkpoint_every: 4",
                      runtime="progress: false, device: cpu, threads: 1")


@pytest.fixture()
def cfg_file(tmp_path):
    p = tmp_path / "tiny.yaml"
    p.write_text(TINY_YAML)
    return str(p)


@pytest.fixture()
def crash_at_second_checkpoint(monkeypatch):
    """``atomic_write`` that dies (KeyboardInterrupt) right after writing the 2nd resume checkpoint."""
    real = commands.atomic_write
    seen = []

    def aw(path, write, binary=False):
        real(path, write, binary)
        if path.endswith(commands.RESUME_SUFFIX):
            seen.append(path)
            if len(seen) == 2:
                raise KeyboardInterrupt

    monkeypatch.setattr(commands, "atomic_write", aw)
    return monkeypatch, real


def _argv(cfg_file, out, *extra):
    return ["train", "--config", cfg_file, "--run", "r", "--seed", "5", "--out", str(out), "--no-progress", *extra]


def test_lejepa_train_resume_equals_uninterrupted_run(cfg_file, tmp_path, crash_at_second_checkpoint, capsys):
    mp, real = crash_at_second_checkpoint
    assert cli.main(_argv(cfg_file, tmp_path / "a")) == 130        # Ctrl-C: one line, exit 130
    assert "interrupted" in capsys.readouterr().err
    assert sorted(os.listdir(tmp_path / "a")) == ["r" + commands.RESUME_SUFFIX]   # no result yet
    mp.setattr(commands, "atomic_write", real)
    # without --resume the interrupted run is not silently restarted
    assert cli.main(_argv(cfg_file, tmp_path / "a")) == 2
    assert "pass --resume" in capsys.readouterr().err
    # with another config it is refused, naming the checkpoint
    assert cli.main(_argv(cfg_file, tmp_path / "a", "--resume", "--set", "train.lr=0.01")) == 2
    assert "another config or seed" in capsys.readouterr().err
    assert cli.main(_argv(cfg_file, tmp_path / "a", "--resume")) == 0
    assert cli.main(_argv(cfg_file, tmp_path / "b")) == 0                          # uninterrupted
    assert sorted(os.listdir(tmp_path / "a")) == ["r.json", "r.pt"]                 # checkpoint removed
    ra, rb = (json.loads((tmp_path / d / "r.json").read_text()) for d in "ab")
    assert ra["resumed_from_step"] == 8 and rb["resumed_from_step"] is None
    for k in ("metrics", "curves", "bound_check", "steps_done", "config"):
        assert ra[k] == rb[k], k
    pa, pb = (torch.load(tmp_path / d / "r.pt", weights_only=True) for d in "ab")
    assert_same(pa["encoder"], pb["encoder"])
    assert cli.main(_argv(cfg_file, tmp_path / "b", "--resume")) == 2              # finished: nothing to resume
    assert "already has a result" in capsys.readouterr().err


def test_sweep_continues_an_interrupted_run_from_its_checkpoint(cfg_file, tmp_path, crash_at_second_checkpoint):
    mp, real = crash_at_second_checkpoint
    with pytest.raises(KeyboardInterrupt):
        sweep.run_sweep(cfg_file, "g", str(tmp_path / "a"), ["loss.lam=0.05"], [0], log=lambda s: None)
    mp.setattr(commands, "atomic_write", real)
    lines: list[str] = []
    rows = sweep.run_sweep(cfg_file, "g", str(tmp_path / "a"), ["loss.lam=0.05"], [0], log=lines.append)
    assert "resumed from step 8" in lines[0]
    ref = sweep.run_sweep(cfg_file, "g", str(tmp_path / "b"), ["loss.lam=0.05"], [0], log=lambda s: None)
    drop = ("seconds",)
    assert [{k: v for k, v in r.items() if k not in drop} for r in rows] == \
        [{k: v for k, v in r.items() if k not in drop} for r in ref]
