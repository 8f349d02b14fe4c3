"""``lejepa reproduce``: presets as data, the CI smoke end to end, resuming, executors, bad input."""

from __future__ import annotations

import importlib.util
import json
import os

import pytest

torch = pytest.importorskip("torch")

from lejepa_experiments import cli, executors, reacher, reproduce  # noqa: E402
from lejepa_experiments.config import load_config  # noqa: E402
from lejepa_experiments.executors import Task  # noqa: E402

CONFIGS = os.path.dirname(reproduce.PRESET_DIR)        # experiments/configs
HAS_REPORT = importlib.util.find_spec("lejepa_experiments.report") is not None
REACHER_OK, REACHER_WHY = reacher.reacher_available("cpu")

TINY = ["train.steps=20", "eval.size=256", "eval.every=10", "loss.slices=8"]


def _preset(tmp_path, body: str) -> str:
    p = tmp_path / "preset.yaml"
    p.write_text(body)
    return str(p)


def _tiny_preset(tmp_path) -> str:
    """Two sweeps (1 + 2 runs), one whose config does not exist, planning on the 2-D run."""
    return _preset(tmp_path, f"""\
description: test preset
reduced: true
sweeps:
  - {{name: twod_spiral, config: {CONFIGS}/spiral2d_fast.yaml, grid: [mixing.kind=spiral], seeds: [0],
     set: [{', '.join(TINY)}, encoder.width=16, encoder.depth=2]}}
  - {{name: scaling_sigreg, config: {CONFIGS}/scaling.yaml, grid: ["latent.dim=2,4"], seeds: [0], set: [{', '.join(TINY)}]}}
  - {{name: scaling_nothere, config: {CONFIGS}/no_such_config.yaml, grid: ["latent.dim=2"], note: "added later"}}
planning: {{from: [twod_spiral], episodes: 8, candidates: 8, horizon: 3}}
""")


def _rows(out, name):
    with open(os.path.join(out, name, "summary.json")) as f:
        return json.load(f)


def test_smoke_preset_cli_end_to_end(tmp_path, capsys, monkeypatch):
    """The shipped CI smoke preset: 3 runs, summaries with the right counts, planning, the Reacher
    smoke step (or its one-line note where rendering is unavailable), report or its note; a second
    call keeps every run and the finished Reacher step."""
    out = str(tmp_path / "out")
    assert cli.main(["reproduce", "--preset", "smoke", "--out", out, "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "3 runs: 0 done before, 3 to train" in text
    assert [r["run"] for r in _rows(out, "twod_spiral")] == ["kind=spiral_s0"]
    rows = _rows(out, "scaling_sigreg")
    assert [r["run"] for r in rows] == ["dim=2_s0", "dim=4_s0"] and all(r["steps_done"] == 20 for r in rows)
    for r in rows:
        res = json.load(open(os.path.join(out, "scaling_sigreg", r["run"] + ".json")))
        assert res["config"]["latent"]["dim"] == int(r["dim"]) and res["metrics"]["r2_h_to_z"] == r["r2_h_to_z"]
    plan_rows = _rows(out, "planning")
    assert sorted(r["representation"] for r in plan_rows) == ["encoder", "observation", "oracle"]
    with open(os.path.join(out, "planning", "twod_spiral_kind=spiral_s0.json")) as f:
        payload = json.load(f)                          # lejepa plan --out's format, as lejepa report reads it
    assert payload["run"] == "kind=spiral_s0" and payload["episodes"] == 8
    assert sorted(payload["results"]) == ["encoder", "observation", "oracle"]
    oracle = next(r for r in plan_rows if r["representation"] == "oracle")
    assert oracle["ratio_to_oracle"] == 1.0 and oracle["first_action_agreement"] == 1.0
    if HAS_REPORT:
        assert "report written to" in text
    else:
        assert "lejepa report is not available" in text
    rdir = os.path.join(out, "reacher")
    if not REACHER_OK:
        notes = [line for line in text.splitlines() if line.startswith("note: Reacher")]
        assert len(notes) == 1 and "unavailable" in notes[0] and not os.path.exists(rdir)
        return
    # the Reacher step: lejepa reacher's smoke preset into OUT/reacher, and the report's section
    with open(os.path.join(rdir, "plan.json")) as f:
        rplan = json.load(f)
    assert rplan["preset_settings"] == json.loads(json.dumps(reacher.PRESETS["smoke"])) and rplan["seed"] == 0
    assert set(rplan["results"]) == {"oracle", "ou", "traj", "ou_shear", "pixels"}
    assert all(os.path.isfile(os.path.join(rdir, f)) for f in ("ou.pt", "traj.pt", "plan.md", "reacher.png"))
    assert f"ou {rplan['results']['ou']['ratio_to_oracle']:.3f}" in text        # the status line
    if HAS_REPORT:
        md = open(os.path.join(out, "report", "report.md")).read()
        assert f"{rplan['results']['ou']['ratio_to_oracle']:.3f} [{rplan['results']['ou']['ratio_ci'][0]:.3f}" in md
    # second call: everything kept, the Reacher step too (nothing of it runs again)
    def boom(*a, **k):
        raise AssertionError("the finished Reacher step ran again")

    for fn in ("prerender", "train_all", "run_plan"):
        monkeypatch.setattr(reacher, fn, boom)
    mtime = os.stat(os.path.join(rdir, "plan.json")).st_mtime_ns
    assert cli.main(["reproduce", "--preset", "smoke", "--out", out, "--no-progress", "--no-report"]) == 0
    text = capsys.readouterr().out
    assert "3 runs: 3 done before, 0 to train" in text and "reacher: kept" in text and "Reacher step kept" in text
    assert os.stat(os.path.join(rdir, "plan.json")).st_mtime_ns == mtime


def test_resume_skips_finished_runs_and_missing_configs(tmp_path, monkeypatch):
    preset = _tiny_preset(tmp_path)
    out = str(tmp_path / "out")
    logs: list[str] = []
    first = reproduce.reproduce(preset, out, report=False, progress=False, log=logs.append)
    assert first["runs"] == 3 and first["trained"] == 3 and first["done_before"] == 0 and not first["failed"]
    assert first["skipped"] == ["scaling_nothere"] and first["planning"] == 3
    assert any("scaling_nothere skipped" in line and "does not exist" in line and "added later" in line
               for line in logs)
    assert not os.path.exists(os.path.join(out, "scaling_nothere"))
    # default --jobs 1 on this machine: cores // 1 threads, recorded in the run's config
    res = json.load(open(os.path.join(out, "twod_spiral", "kind=spiral_s0.json")))
    assert res["config"]["runtime"]["threads"] == executors.threads_per_job(1)

    calls: list[str] = []
    real = executors.execute

    def counting(task):
        calls.append(task.run)
        return real(task)

    monkeypatch.setattr(executors, "execute", counting)
    plan_file = os.path.join(out, "planning", "twod_spiral_kind=spiral_s0.json")
    mtime = os.stat(plan_file).st_mtime_ns
    # another thread count (runtime section) still counts as the same run
    again = reproduce.reproduce(preset, out, threads=1, report=False, progress=False, log=lambda s: None)
    assert calls == [] and again["trained"] == 0 and again["done_before"] == 3
    assert os.stat(plan_file).st_mtime_ns == mtime                      # planning result kept too
    os.remove(os.path.join(out, "scaling_sigreg", "dim=4_s0.json"))      # as if interrupted
    third = reproduce.reproduce(preset, out, threads=1, report=False, progress=False, log=lambda s: None)
    assert calls == ["dim=4_s0"] and third["trained"] == 1 and third["done_before"] == 2
    assert [r["run"] for r in _rows(out, "scaling_sigreg")] == ["dim=2_s0", "dim=4_s0"]


def test_a_failed_run_is_reported_and_the_others_finish(tmp_path, monkeypatch):
    preset = _tiny_preset(tmp_path)
    out = str(tmp_path / "out")
    real = executors.execute

    def fail_one(task):
        if task.run == "dim=2_s0":
            raise FloatingPointError("training loss became non-finite at step 3")
        return real(task)

    monkeypatch.setattr(executors, "execute", fail_one)
    res = reproduce.reproduce(preset, out, report=False, progress=False, log=lambda s: None)
    assert res["trained"] == 2 and len(res["failed"]) == 1 and "scaling_sigreg/dim=2_s0" in res["failed"][0]
    assert [r["run"] for r in _rows(out, "scaling_sigreg")] == ["dim=4_s0"]


def test_reacher_step_is_opt_in_for_quick_and_on_for_full(tmp_path, capsys):
    """quick: the dry run lists the Reacher step (and adds its estimate) only with --with-reacher;
    full: on by default, --no-reacher drops it; the flags are exclusive; a preset without a
    ``reacher:`` section refuses --with-reacher."""
    out = str(tmp_path / "out")
    q = reproduce.load_preset("quick")
    assert q.reacher is not None and q.reacher.preset == "quick" and not q.reacher.default
    assert "--with-reacher" in q.description
    runs: dict[str, tuple[dict, list[str]]] = {}
    for key, flag in (("off", None), ("on", True), ("dropped", False)):
        logs: list[str] = []
        runs[key] = (reproduce.reproduce("quick", out, dry_run=True, progress=False, log=logs.append, reacher=flag), logs)
    off, on = runs["off"], runs["on"]
    listed = [line for line in on[1] if line.strip().startswith("reacher:")]
    assert len(listed) == 1 and "--preset quick" in listed[0] and on[0]["reacher"] == "planned"
    assert on[0]["estimate_s"] == pytest.approx(off[0]["estimate_s"] + q.reacher.estimate_s)
    for key in ("off", "dropped"):
        res, logs = runs[key]
        assert res["reacher"] is None and not [line for line in logs if line.strip().startswith("reacher:")]
    assert any("--with-reacher adds ~7.0 min" in line for line in off[1])
    assert not os.path.exists(out)
    # the CLI flags
    assert cli.main(["reproduce", "--preset", "quick", "--out", out, "--dry-run", "--with-reacher"]) == 0
    assert "  reacher: lejepa reacher all --preset quick" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        cli.main(["reproduce", "--preset", "quick", "--out", out, "--with-reacher", "--no-reacher"])
    capsys.readouterr()
    # full: on by default
    logs = []
    full = reproduce.reproduce("full", out, dry_run=True, progress=False, log=logs.append)
    assert full["reacher"] == "planned" and any(line.strip().startswith("reacher: lejepa reacher all --preset full")
                                                for line in logs)
    assert reproduce.reproduce("full", out, dry_run=True, progress=False, log=lambda s: None,
                               reacher=False)["reacher"] is None
    # a preset without the section
    with pytest.raises(ValueError, match="no 'reacher:' section"):
        reproduce.reproduce(_tiny_preset(tmp_path), out, dry_run=True, progress=False, log=lambda s: None, reacher=True)


def test_reacher_step_skipped_with_a_note_when_rendering_is_unavailable(tmp_path, monkeypatch):
    preset = _preset(tmp_path, f"""sweeps:
  - {{name: scaling_sigreg, config: {CONFIGS}/scaling.yaml, grid: ["latent.dim=2"], seeds: [0], set: [{', '.join(TINY)}]}}
reacher: {{preset: smoke}}
""")
    monkeypatch.setattr(reacher, "reacher_available", lambda device="cpu": (False, "Reacher rendering is unavailable (test)"))
    logs: list[str] = []
    reproduce.reproduce(preset, str(tmp_path / "out"), dry_run=True, progress=False, log=logs.append)
    assert "note: the Reacher step would be skipped here: Reacher rendering is unavailable (test)" in logs
    logs.clear()
    res = reproduce.reproduce(preset, str(tmp_path / "out"), report=False, progress=False, log=logs.append)
    assert res["reacher"] == "skipped" and res["trained"] == 1 and not res["failed"]
    notes = [line for line in logs if line.startswith("note: Reacher")]
    assert notes == ["note: Reacher step skipped: Reacher rendering is unavailable (test)"]
    assert not (tmp_path / "out" / "reacher").exists()


def test_reacher_done_needs_the_same_settings_and_seed(tmp_path):
    spec = reproduce.ReacherSpec("smoke", seed=1)
    d = tmp_path / "reacher"
    d.mkdir()
    assert not reproduce.reacher_done(str(d), spec)
    for f in ("plan.md", "metrics.json", "reacher.png"):
        (d / f).write_text("x")
    (d / "plan.json").write_text(json.dumps({"preset_settings": reacher.PRESETS["smoke"], "seed": 1}))
    assert reproduce.reacher_done(str(d), spec)
    assert not reproduce.reacher_done(str(d), reproduce.ReacherSpec("smoke", seed=0))       # another seed
    assert not reproduce.reacher_done(str(d), reproduce.ReacherSpec("quick", seed=1))       # another preset
    (d / "reacher.png").unlink()
    assert not reproduce.reacher_done(str(d), spec)                                         # incomplete
    (d / "reacher.png").write_text("x")
    (d / "plan.json").write_text("{trunc")
    assert not reproduce.reacher_done(str(d), spec)                                         # damaged


def test_dry_run_prints_the_cost_and_writes_nothing(tmp_path):
    logs: list[str] = []
    out = tmp_path / "out"
    res = reproduce.reproduce("full", str(out), dry_run=True, progress=False, log=logs.append)
    assert not out.exists()
    assert res["trained"] == 0 and res["estimate_s"] > 3600 * 24          # the paper's settings: days of CPU
    assert any("to train; estimated" in line for line in logs)
    assert any(line.strip().startswith("scaling_sigreg: 50 runs") for line in logs)


def test_full_preset_has_the_papers_settings():
    pr = reproduce.load_preset("full")
    assert not pr.reduced
    by = {s.name: s for s in pr.sweeps}
    assert {f"twod_{m}" for m in ("spiral", "banana", "sinusoid", "coupling")} <= set(by)
    assert {f"scaling_{o}" for o in ("sigreg", "whitening", "vicreg", "infonce")} <= set(by)
    assert {"gennorm", "lam_rho"} <= set(by) and pr.planning["from"]
    for s in pr.sweeps:
        assert s.seeds == [0, 1, 2, 3, 4], s.name
        if os.path.isfile(s.config):
            cfg = load_config(s.config, s.preset, s.overrides + [g.split(",")[0] for g in s.grid])
            assert cfg["train"]["steps"] == 20000 and cfg["train"]["batch"] == 256, s.name
    dims = by["scaling_infonce"].grid[0].split("=")[1].split(",")
    assert dims[-1] == "1024" and by["scaling_infonce"].config.endswith("scaling_infonce.yaml")
    for o in ("whitening", "vicreg", "infonce"):
        assert by[f"scaling_{o}"].config == os.path.join(CONFIGS, f"scaling_{o}.yaml")
    quick = reproduce.load_preset("quick")
    assert quick.reduced and {s.name for s in quick.sweeps} == set(by)   # same sweeps, reduced


def test_cost_model_grows_with_steps_and_dimension():
    base = load_config(os.path.join(CONFIGS, "scaling.yaml"))
    big = load_config(os.path.join(CONFIGS, "scaling.yaml"), overrides=["latent.dim=1024"])
    long = load_config(os.path.join(CONFIGS, "scaling.yaml"), overrides=["train.steps=20000"])
    e = reproduce.estimate_run_seconds
    assert e(big) > 10 * e(base) and e(long) > 10 * e(base)
    nce = load_config(os.path.join(CONFIGS, "scaling.yaml"), overrides=["latent.dim=1024", "loss.kind=infonce"])
    assert reproduce.step_flops(nce) != reproduce.step_flops(big)


def test_threads_per_job_never_oversubscribes():
    assert executors.threads_per_job(1, cores=2) == 2
    assert executors.threads_per_job(2, cores=2) == 1
    assert executors.threads_per_job(3, cores=2) == 1
    assert executors.threads_per_job(4, cores=16) == 4
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="--jobs"):
            executors.threads_per_job(bad, cores=2)


def test_local_pool_runs_tasks_in_worker_processes(tmp_path):
    d = tmp_path / "pool"
    d.mkdir()
    cfg = os.path.join(CONFIGS, "scaling.yaml")
    tasks = [Task(cfg, f"r{s}", s, str(d), None, tuple(TINY + ["latent.dim=2"])) for s in (0, 1)]
    pool = executors.LocalPool(2)
    assert pool.threads == executors.threads_per_job(2)
    got = dict((t.run, r) for t, r in pool(tasks))
    assert sorted(got) == ["r0", "r1"]
    for run, res in got.items():
        assert not isinstance(res, BaseException), res
        assert res["threads"] == pool.threads and res["config"]["runtime"]["threads"] == pool.threads
        assert os.path.isfile(d / f"{run}.json") and os.path.isfile(d / f"{run}.pt")
    assert got["r0"]["metrics"] != got["r1"]["metrics"]                  # two seeds, two trainings


@pytest.mark.parametrize("body,needle", [
    ("sweeps: []\n", "non-empty list"),
    ("sweeps: [{name: a, config: x.yaml}]\n", "missing key 'grid'"),
    ("sweeps: [{name: a, config: x.yaml, grid: [a=1], sed: [0]}]\n", "unknown key"),
    ("sweeps: [{name: planning, config: x.yaml, grid: [a=1]}]\n", "other than planning"),
    ("sweeps: [{name: a, config: x.yaml, grid: [a=1]}, {name: a, config: y.yaml, grid: [a=1]}]\n", "share a name"),
    ("sweeps: [{name: a, config: x.yaml, grid: [a=1]}]\nplanning: {from: [b]}\n", "unknown sweep"),
    ("sweeps: [{name: a, config: x.yaml, grid: [a=1]}]\nslurm: {partitoin: gpu}\n", "unknown slurm option"),
    ("sweeps: [{name: a, config: x.yaml, grid: [a=1]}]\nslurm: {time_min: 0}\n", "time_min"),
    ("sweepz: []\n", "unknown key"),
    ("sweeps: [{name: reacher, config: x.yaml, grid: [a=1]}]\n", "other than planning/report/reacher"),
    ("sweeps: [{name: a, config: x.yaml, grid: [a=1]}]\nreacher: {preset: huge}\n", "reacher.preset must be one of"),
    ("sweeps: [{name: a, config: x.yaml, grid: [a=1]}]\nreacher: {preset: [quick]}\n", "reacher.preset must be one of"),
    ("sweeps: [{name: a, config: x.yaml, grid: [a=1]}]\nreacher: quick\n", "reacher must be a mapping"),
    ("sweeps: [{name: a, config: x.yaml, grid: [a=1]}]\nreacher: {preset: smoke, seeds: 1}\n", "reacher: unknown key"),
    ("sweeps: [{name: a, config: x.yaml, grid: [a=1]}]\nreacher: {preset: smoke, default: maybe}\n", "reacher.default"),
    ("sweeps: [{name: a, config: x.yaml, grid: [a=1]}]\nreacher: {preset: smoke, estimate_s: -1}\n", "estimate_s"),
])
def test_bad_presets_are_named(tmp_path, body, needle):
    with pytest.raises(ValueError, match=needle):
        reproduce.reproduce(_preset(tmp_path, body), str(tmp_path / "out"), progress=False, log=lambda s: None)
    assert not (tmp_path / "out").exists()


def test_bad_grid_in_a_preset_fails_before_anything_trains(tmp_path, capsys):
    preset = _preset(tmp_path, f"sweeps: [{{name: a, config: {CONFIGS}/scaling.yaml, grid: ['loss.lamb=1']}}]\n")
    assert cli.main(["reproduce", "--preset", preset, "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    assert "sweep a: grid point" in capsys.readouterr().err and not (tmp_path / "out").exists()
    assert cli.main(["reproduce", "--preset", "nosuch", "--out", str(tmp_path / "out")]) == 2
    assert "presets: " in capsys.readouterr().err
    assert cli.main(["reproduce", "--preset", "smoke", "--out", str(tmp_path / "o"), "--jobs", "0"]) == 2
    assert "--jobs" in capsys.readouterr().err
