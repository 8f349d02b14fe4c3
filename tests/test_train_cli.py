"""``lejepa train``: outputs, atomic writes, checkpoint round trip, bad input (exit 2, key named)."""

from __future__ import annotations

import json
import os

import pytest

torch = pytest.importorskip("torch")

from lejepa_experiments import cli  # noqa: E402
from lejepa_experiments.commands import atomic_write, load_checkpoint  # noqa: E402
from tiny_config import tiny_yaml  # noqa: E402

TINY_YAML = tiny_yaml(width=16, steps=10, log_every=5, eval_size=256, eval_every=5, runtime=None,
                      tail="presets:\n  cpu:\n    train: {steps: 6}\n")


@pytest.fixture()
def cfg_file(tmp_path):
    p = tmp_path / "tiny.yaml"
    p.write_text(TINY_YAML)
    return p


def test_train_writes_result_and_checkpoint(cfg_file, tmp_path, capsys):
    out = tmp_path / "out"
    rc = cli.main(["train", "--config", str(cfg_file), "--run", "r1", "--seed", "2", "--out", str(out),
                   "--preset", "cpu", "--set", "loss.lam=0.1", "--no-progress"])
    assert rc == 0
    assert "r1: 6 steps" in capsys.readouterr().out
    assert sorted(os.listdir(out)) == ["r1.json", "r1.pt"]  # no temporary files left
    res = json.loads((out / "r1.json").read_text())
    for key in ("config", "metrics", "curves", "versions", "device", "seconds", "pair", "seed", "threads"):
        assert key in res
    assert res["config"]["train"]["steps"] == 6 and res["config"]["loss"]["lam"] == 0.1
    assert res["config"]["name"] == "r1" and res["seed"] == 2
    assert res["pair"] == {"kind": "ou", "rho": 0.9, "pair_correlation": 0.9,
                           "description": res["pair"]["description"]}
    assert res["versions"]["torch"] == torch.__version__
    assert res["curves"]["step"] == [5, 6]
    # checkpoint round trip: the rebuilt encoder reproduces the recorded metrics
    from lejepa_experiments.engine import evaluate, make_eval_set

    cfg, mix, enc = load_checkpoint(str(out / "r1.pt"))
    m = evaluate(enc, mix, make_eval_set(cfg, 2, torch.device("cpu")))
    assert m["r2_h_to_z"] == pytest.approx(res["metrics"]["r2_h_to_z"], rel=1e-9)
    assert m["bound"] == pytest.approx(res["metrics"]["bound"], rel=1e-9)


@pytest.mark.parametrize("args,needle", [
    (["--seed", "-1"], "--seed"),
    (["--run", "a/b"], "--run"),
    (["--set", "train.lr=-3"], "train.lr"),
    (["--set", "train.wat=3"], "train.wat"),
    (["--set", "encoder.kind=matched"], "encoder.kind"),
    (["--preset", "gpu"], "preset 'gpu'"),
    (["--set", "nonsense"], "section.key=value"),
    (["--time-limit", "0"], "--time-limit"),
])
def test_train_bad_input_exit_2_names_problem(cfg_file, tmp_path, capsys, args, needle):
    base = {"--config": str(cfg_file), "--run": "r", "--seed": "0", "--out": str(tmp_path / "o")}
    for i in range(0, len(args), 2):
        base[args[i]] = args[i + 1] if i + 1 < len(args) else None
    argv = ["train", "--no-progress"]
    for k, v in base.items():
        argv += [k, v] if k != "--set" else ["--set", v]
    rc = cli.main(argv)
    assert rc == 2
    err = capsys.readouterr().err
    assert needle in err
    assert not (tmp_path / "o" / "r.json").exists()


def test_train_rejects_unknown_key_in_file(tmp_path, capsys):
    p = tmp_path / "bad.yaml"
    p.write_text("train: {steps: 5, learning_rate: 0.1}\n")
    rc = cli.main(["train", "--config", str(p), "--run", "r", "--out", str(tmp_path), "--no-progress"])
    assert rc == 2 and "train.learning_rate" in capsys.readouterr().err
    rc = cli.main(["train", "--config", str(tmp_path / "none.yaml"), "--run", "r", "--out", str(tmp_path)])
    assert rc == 2 and "does not exist" in capsys.readouterr().err


def test_train_missing_required_argument_is_usage_error(cfg_file):
    with pytest.raises(SystemExit) as e:
        cli.main(["train", "--config", str(cfg_file), "--run", "r"])
    assert e.value.code == 2


def test_atomic_write_leaves_nothing_on_failure(tmp_path):
    target = tmp_path / "x.json"
    target.write_text("old")

    def boom(f):
        f.write("partial")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atomic_write(str(target), boom)
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["x.json"]
    atomic_write(str(target), lambda f: f.write("new"))
    assert target.read_text() == "new" and os.listdir(tmp_path) == ["x.json"]


def test_load_checkpoint_rejects_foreign_file(tmp_path):
    p = tmp_path / "w.pt"
    torch.save({"weights": torch.zeros(2)}, p)
    with pytest.raises(ValueError, match="not a lejepa training checkpoint"):
        load_checkpoint(str(p))


def test_shipped_configs_and_cpu_presets_are_valid():
    from lejepa_experiments.config import load_config

    here = os.path.join(os.path.dirname(__file__), "..", "experiments", "configs")
    files = sorted(f for f in os.listdir(here) if f.endswith((".yaml", ".yml", ".json")))
    assert files, "no experiment configs shipped"
    for f in files:
        load_config(os.path.join(here, f))
        cpu = load_config(os.path.join(here, f), "cpu")
        assert cpu["runtime"]["device"] in ("auto", "cpu")


def test_checks_trained_rows_on_checkpoints(cfg_file, tmp_path):
    """``lejepa check --checkpoints DIR`` rows: one bound row and one delta_tr row per Gaussian checkpoint."""
    from lejepa_experiments import checks_trained

    ck = tmp_path / "ck"
    assert cli.main(["train", "--config", str(cfg_file), "--run", "g", "--out", str(ck), "--no-progress"]) == 0
    assert cli.main(["train", "--config", str(cfg_file), "--run", "lap", "--out", str(ck), "--no-progress",
                     "--set", "latent.dist=laplace"]) == 0
    rows = checks_trained._checkpoint_rows(str(ck))
    names = [r.quantity for r in rows]
    assert any(q.startswith("g.pt: err <= bound") for q in names)
    assert any(q.startswith("g.pt: delta_tr >= 0") for q in names)
    assert not any(q.startswith("lap.pt:") for q in names)
    assert any("checkpoints skipped, non-Gaussian or n > 128 (1)" in q for q in names)
    assert all(r.passed for r in rows)
    empty = tmp_path / "empty"
    empty.mkdir()
    (r,) = checks_trained._checkpoint_rows(str(empty))
    assert not r.passed and "no *.pt" in r.note
    (r,) = checks_trained._checkpoint_rows(str(tmp_path / "nope"))   # a FAIL row, not an exception
    assert not r.passed and "does not exist" in r.note
