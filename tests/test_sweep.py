"""``lejepa sweep``: grid runs, summary rows, resuming without retraining, bad input named."""

from __future__ import annotations

import json
import os

import pytest

torch = pytest.importorskip("torch")

from lejepa_experiments import cli, sweep  # noqa: E402
from tiny_config import tiny_yaml  # noqa: E402

TINY_YAML = tiny_yaml(runtime=None)


@pytest.fixture()
def cfg_file(tmp_path):
    p = tmp_path / "tiny.yaml"
    p.write_text(TINY_YAML)
    return str(p)


def test_sweep_runs_grid_and_writes_summary(cfg_file, tmp_path):
    out = str(tmp_path / "out")
    rows = sweep.run_sweep(cfg_file, "g", out, ["loss.lam=0.01,0.2", "pair.rho=0.8"], [0, 3], log=lambda s: None)
    names = [r["run"] for r in rows]
    assert names == ["lam=0.01_rho=0.8_s0", "lam=0.01_rho=0.8_s3", "lam=0.2_rho=0.8_s0", "lam=0.2_rho=0.8_s3"]
    d = os.path.join(out, "g")
    assert sorted(os.listdir(d)) == sorted([n + ".json" for n in names] + [n + ".pt" for n in names]
                                           + ["summary.json", "summary.csv"])
    assert json.load(open(os.path.join(d, "summary.json"))) == rows
    for r in rows:
        res = json.load(open(os.path.join(d, r["run"] + ".json")))
        assert res["config"]["loss"]["lam"] == float(r["lam"]) and res["config"]["pair"]["rho"] == 0.8
        assert res["seed"] == r["seed"] and r["r2_h_to_z"] == res["metrics"]["r2_h_to_z"]
    csv_lines = open(os.path.join(d, "summary.csv")).read().splitlines()
    assert len(csv_lines) == 5 and csv_lines[0].startswith("lam,rho,seed,run,r2_h_to_z")


def test_sweep_resumes_without_retraining(cfg_file, tmp_path, monkeypatch):
    out = str(tmp_path / "out")
    calls = []
    real = sweep.run_training

    def counting(*a, **k):
        calls.append(a[1])
        return real(*a, **k)

    monkeypatch.setattr(sweep, "run_training", counting)
    first = sweep.run_sweep(cfg_file, "g", out, ["loss.lam=0.01,0.2"], [0], log=lambda s: None)
    assert calls == ["lam=0.01_s0", "lam=0.2_s0"]
    os.remove(os.path.join(out, "g", "lam=0.2_s0.json"))       # as if interrupted before it was written
    again = sweep.run_sweep(cfg_file, "g", out, ["loss.lam=0.01,0.2"], [0], log=lambda s: None)
    assert calls == ["lam=0.01_s0", "lam=0.2_s0", "lam=0.2_s0"]  # only the missing run trained again
    assert again[0] == first[0]


def test_interrupted_sweep_keeps_finished_runs(cfg_file, tmp_path, monkeypatch):
    out = str(tmp_path / "out")
    real = sweep.run_training

    def fail_second(config, run, *a, **k):
        if run == "lam=0.2_s0":
            raise KeyboardInterrupt
        return real(config, run, *a, **k)

    monkeypatch.setattr(sweep, "run_training", fail_second)
    with pytest.raises(KeyboardInterrupt):
        sweep.run_sweep(cfg_file, "g", out, ["loss.lam=0.01,0.2"], [0], log=lambda s: None)
    d = os.path.join(out, "g")
    assert [r["run"] for r in json.load(open(os.path.join(d, "summary.json")))] == ["lam=0.01_s0"]
    assert not [f for f in os.listdir(d) if f.endswith(".tmp")]


def test_sweep_refuses_stale_results(cfg_file, tmp_path):
    out = str(tmp_path / "out")
    sweep.run_sweep(cfg_file, "g", out, ["loss.lam=0.01"], [0], log=lambda s: None)
    with pytest.raises(ValueError, match="lam=0.01_s0.json.*another config"):
        sweep.run_sweep(cfg_file, "g", out, ["loss.lam=0.01"], [0], overrides=["train.steps=5"], log=lambda s: None)


@pytest.mark.parametrize("grid,seeds,needle", [
    (["loss.lamb=0.1"], [0], "unknown config key 'loss.lamb'"),
    (["pair.rho=0.5,1.5"], [0], "pair.rho"),
    (["loss.lam"], [0], "must look like"),
    (["loss.lam=0.1,"], [0], "empty key or value"),
    (["loss.lam=0.1", "loss.lam=0.2"], [0], "given twice"),
    (["loss.lam=0.1,0.1"], [0], "repeats a value"),
    ([], [0], "at least one --grid"),
    (["loss.lam=0.1"], [-1], "seeds"),
    (["loss.lam=0.1"], [1, 1], "repeats a seed"),
])
def test_sweep_rejects_bad_input(cfg_file, tmp_path, grid, seeds, needle):
    with pytest.raises(ValueError, match=needle):
        sweep.run_sweep(cfg_file, "g", str(tmp_path / "out"), grid, seeds, log=lambda s: None)
    assert not (tmp_path / "out").exists()   # validated before anything is written


def test_sweep_cli_exit_status(cfg_file, tmp_path, capsys):
    out = str(tmp_path / "out")
    assert cli.main(["sweep", "--config", cfg_file, "--name", "g", "--out", out, "--grid", "loss.lam=0.05"]) == 0
    assert "1 runs, 1 finished; summary in" in capsys.readouterr().out
    assert cli.main(["sweep", "--config", cfg_file, "--name", "g", "--out", out, "--grid", "loss.nope=1"]) == 2
    assert "unknown config key 'loss.nope'" in capsys.readouterr().err


def test_sweep_table_pivot_mean_and_best_align():
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[1] / "experiments" / "figures" / "sweep_table.py"
    spec = importlib.util.spec_from_file_location("sweep_table", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rows = [
        {"lam": "0.1", "rho": "0.8", "seed": 0, "align": 0.5, "r2_h_to_z": 0.2},
        {"lam": "0.1", "rho": "0.8", "seed": 1, "align": 0.3, "r2_h_to_z": 0.9},
        {"lam": "0.02", "rho": "0.8", "seed": 0, "align": 0.1, "r2_h_to_z": 0.5},
    ]
    mean = mod.pivot(rows, "lam", "rho", "r2_h_to_z").splitlines()
    assert mean[0] == "| r2_h_to_z: lam \\ rho | 0.8 |"
    assert mean[2:] == ["| 0.02 | 0.5 |", "| 0.1 | 0.55 |"]          # numeric order, seeds averaged
    best = mod.pivot(rows, "lam", "rho", "r2_h_to_z", "best-align").splitlines()
    assert best[3] == "| 0.1 | 0.9 |"                                 # the seed with the smaller alignment loss
    with pytest.raises(ValueError, match="no key 'mu'"):
        mod.pivot(rows, "mu", "rho", "r2_h_to_z")


def test_sweep_time_limited_runs_are_kept_only_under_the_same_limit(cfg_file, tmp_path, monkeypatch):
    out = str(tmp_path / "out")
    calls = []
    real = sweep.run_training

    def counting(*a, **k):
        calls.append(k.get("time_limit_s"))
        return real(*a, **k)

    monkeypatch.setattr(sweep, "run_training", counting)
    rows = sweep.run_sweep(cfg_file, "g", out, ["loss.lam=0.05"], [0], time_limit_s=1e-9, log=lambda s: None)
    assert rows[0]["stopped_early"] is True and rows[0]["steps_done"] < 4
    sweep.run_sweep(cfg_file, "g", out, ["loss.lam=0.05"], [0], time_limit_s=1e-9, log=lambda s: None)
    assert calls == [1e-9]                                        # same limit: kept
    rows = sweep.run_sweep(cfg_file, "g", out, ["loss.lam=0.05"], [0], log=lambda s: None)
    assert calls == [1e-9, None] and rows[0]["stopped_early"] is False and rows[0]["steps_done"] == 4


def test_sweep_names_a_corrupt_result_file(cfg_file, tmp_path):
    d = tmp_path / "out" / "g"
    d.mkdir(parents=True)
    (d / "lam=0.05_s0.json").write_text("{not json")
    with pytest.raises(ValueError, match="lam=0.05_s0.json.*could not be read"):
        sweep.run_sweep(cfg_file, "g", str(tmp_path / "out"), ["loss.lam=0.05"], [0], log=lambda s: None)


@pytest.mark.parametrize("grid,needle", [
    (["mixing.seed=0,1"], "clash with summary columns"),
    (["loss.lam=0." + "1" * 250], "longer than"),
])
def test_sweep_rejects_clashing_or_long_names(cfg_file, tmp_path, grid, needle):
    with pytest.raises(ValueError, match=needle):
        sweep.run_sweep(cfg_file, "g", str(tmp_path / "out"), grid, [0], log=lambda s: None)


def test_sweep_rejects_a_key_in_both_set_and_grid(cfg_file, tmp_path):
    with pytest.raises(ValueError, match="both as --set and as --grid"):
        sweep.run_sweep(cfg_file, "g", str(tmp_path / "out"), ["loss.lam=0.1"], [0],
                        overrides=["loss.lam=0.2"], log=lambda s: None)


def test_sweep_rejects_non_integer_seeds(cfg_file, tmp_path):
    with pytest.raises(ValueError, match="seeds"):
        sweep.run_sweep(cfg_file, "g", str(tmp_path / "out"), ["loss.lam=0.1"], [0.5], log=lambda s: None)
