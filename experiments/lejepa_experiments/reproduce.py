"""The ``lejepa reproduce`` subcommand: every sweep behind the paper's evidence, then the report.

``lejepa reproduce --preset quick|full|smoke|FILE.yaml --out DIR [--executor local|slurm] [--jobs K]
[--threads T] [--partition P] [--time-min M] [--gpus G] [--cpus-per-task C] [--with-reacher | --no-reacher]
[--dry-run] [--no-report]``

A preset is data (``experiments/configs/reproduce/<name>.yaml``): a list of sweeps, each
``{name, config, grid, seeds, set, preset}`` run by :mod:`.sweep` into ``DIR/<name>/`` (one
``<run>.json``/``.pt`` per run and ``summary.json``/``.csv``), a ``planning`` section (which sweeps'
checkpoints ``lejepa plan`` evaluates, into ``DIR/planning/``), an optional ``reacher`` section (the
pixel Reacher planning experiment, :mod:`.reacher`, into ``DIR/reacher/``: ``{preset, default, seed,
estimate_s, note}``; ``default: false`` makes it opt-in, ``--with-reacher``) and an optional ``slurm``
section.
Config paths are relative to the preset file. Sweep names shared with ``lejepa report``:
``twod_<mixing>``, ``scaling_<objective>`` (gridded over ``latent.dim``), ``gennorm`` (objective x
alpha), ``lam_rho`` (lambda x rho), ``planning/`` and ``reacher/``.

Before training it validates every run of every sweep, prints the number of runs (done before /
to train) and the estimated compute from :func:`estimate_run_seconds`; then it trains the pending
runs through the chosen executor (:mod:`.executors`) with an overall progress bar (runs done /
total, ETA from the cost model rescaled by the measured speed) and one status line per finished run.
Resumable like ``lejepa sweep``: finished runs (and planning results) are kept. Every sweep's summary
is rebuilt from its verified result files (:func:`.sweep.verified_rows`) before training, after
each run and at the end, so a run that finished after the last summary write of an interrupted call
is in the summaries and the report; the final status line counts the runs with verified results.
SIGTERM, SIGINT and SIGHUP end a local pool's workers with the command (exit status 128 + signal),
and a worker whose parent dies exits (:mod:`.executors`). A sweep whose config
file does not exist (yet) is skipped with a note. After the sweeps and planning comes the Reacher step
(when the preset has one and it is switched on): ``reacher.prerender``, ``train_all`` and ``run_plan``
with the named ``lejepa reacher`` preset, in this process (after a SLURM array too); it is skipped
when ``DIR/reacher/plan.json`` holds that preset's settings and seed (prerendering and training
resume on their own), and skipped with a one-line note when Reacher rendering is unavailable
(:func:`.reacher.reacher_available`). At the end ``lejepa_experiments.report.build_report``
writes the figures and tables, when that module is installed.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .commands import atomic_write
from ._checks import is_safe_name
from .report import REACHER_DIR  # the Reacher step's folder under DIR (lejepa reacher --out), read by the report

PRESET_DIR = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "configs", "reproduce"))
"""Where ``--preset NAME`` looks for ``NAME.yaml`` (a folder of its own: the training configs one
level up are each loadable by ``lejepa train``, presets are not)."""

PRESET_KEYS = {"description", "reduced", "sweeps", "planning", "reacher", "slurm", "cost_model"}
SWEEP_KEYS = {"name", "config", "grid", "seeds", "set", "preset", "note"}
PLANNING_KEYS = {"from", "episodes", "horizon", "candidates", "step", "seed", "max_dim"}
REACHER_KEYS = {"preset", "default", "seed", "estimate_s", "estimate_basis", "note"}
GUESS = "a guess, not measured"
"""What the Reacher estimate is called when the preset does not say how it was obtained."""
RESERVED = ("planning", "report", REACHER_DIR)
"""Directory names under ``DIR`` that no sweep may take."""

# ----------------------------------------------------------------------------------------------
# cost model
# ----------------------------------------------------------------------------------------------

COST_MODEL = {"step_overhead_s": 7.0e-3, "flops_per_s": 2.0e10, "run_overhead_s": 4.0}
"""Per-step cost model of one run on one CPU thread: ``seconds/step = step_overhead_s + flops(step) /
flops_per_s`` plus ``run_overhead_s`` per run (evaluation set, final bootstrap check on 10^5 pairs,
files); ``flops`` counts the multiply-adds of :func:`step_flops`. Constants fitted to the quick
preset's runs on this project's shared 2-core machine (1 thread a run, load average 3-10:
2-D MLP 128 x 4 ~13 ms/step, coupling N = 2 / 64 ~8 / 12 ms/step) and to N = 1024 (~53-100 ms/step,
``docs/training.md``); good to a factor of about 2 there (``docs/reproduce.md``). Small tensors are
overhead-bound, hence the large per-step constant; a GPU changes both constants. A preset may
override them (``cost_model:``)."""


def step_flops(cfg: dict[str, Any]) -> float:
    """Multiply-add count of one training step of a resolved config: encoder (forward + backward ~ 3x
    forward) on 2 x batch points (MLP: width^2 (depth-1) + 2 dim width per point; matched coupling:
    layers (dim/2)^2), the mixing's forward pass (coupling: layers (dim/2)^2), and the objective (3x)
    (SIGReg: projections 2 batch dim slices + characteristic function 2 batch slices knots;
    whitening/VICReg: covariance batch dim^2; InfoNCE: the batch x batch kernel, batch^2 dim)."""
    n, b = cfg["latent"]["dim"], cfg["train"]["batch"]
    e, lo, mx = cfg["encoder"], cfg["loss"], cfg["mixing"]
    pts = 2 * b
    if e["kind"] == "mlp":
        enc = e["width"] ** 2 * max(0, e["depth"] - 1) + 2 * n * e["width"]
    else:
        enc = mx["layers"] * (n / 2) ** 2
    mix = mx["layers"] * (n / 2) ** 2 if mx["kind"] == "coupling" else 20 * n
    k = lo["kind"]
    if k == "sigreg":
        obj = pts * lo["slices"] * (n + lo["knots"])
    elif k in ("whitening", "vicreg"):
        obj = pts * n * n
    else:
        obj = b * b * n * 2
    return 3.0 * (pts * enc + obj) + pts * mix        # the mixing runs forward only (data)


def estimate_run_seconds(cfg: dict[str, Any], model: dict[str, float] | None = None) -> float:
    """Estimated seconds of one run (one thread) under :data:`COST_MODEL`."""
    m = dict(COST_MODEL, **(model or {}))
    per_step = m["step_overhead_s"] + step_flops(cfg) / m["flops_per_s"]
    return cfg["train"]["steps"] * per_step + m["run_overhead_s"]


def parallel_runs(executor: str, jobs: int, slurm: dict[str, Any], cores: int | None = None) -> tuple[int, str | None]:
    """``(k, warning)``: how many runs really proceed at once, for the wall-time estimate. Local:
    ``min(jobs, cores)`` with ``cores`` the CPUs this process may use (``os.sched_getaffinity``, else
    ``os.cpu_count``; :func:`.executors.available_cores`), since each run needs at least one core
    (more jobs than cores share them and finish no sooner), and a warning when ``jobs > cores``;
    SLURM: the array's ``array_parallelism`` (default 256)."""
    if executor != "local":
        return int(slurm.get("array_parallelism", 256)), None
    from .executors import available_cores

    cores = available_cores() if cores is None else cores
    if jobs <= cores:
        return jobs, None
    return cores, (f"warning: --jobs {jobs} is more than the {cores} core(s) this process may use; the "
                   f"runs share them (1 thread each) and the wall estimate below assumes {cores} in parallel")


def format_duration(s: float) -> str:
    s = max(0.0, float(s))
    if s < 90:
        return f"{s:.0f} s"
    if s < 5400:
        return f"{s / 60:.1f} min"
    return f"{s / 3600:.1f} h"


# ----------------------------------------------------------------------------------------------
# presets
# ----------------------------------------------------------------------------------------------


@dataclass
class SweepSpec:
    name: str
    config: str
    grid: list[str]
    seeds: list[int]
    overrides: list[str] = field(default_factory=list)
    preset: str | None = None
    note: str | None = None


@dataclass
class Preset:
    path: str
    description: str
    reduced: bool
    sweeps: list[SweepSpec]
    planning: dict[str, Any]
    slurm: dict[str, Any]
    cost_model: dict[str, float]
    reacher: ReacherSpec | None = None


@dataclass
class ReacherSpec:
    """The preset's ``reacher:`` section: run ``lejepa reacher all --preset <preset> --seed <seed>``
    into ``DIR/reacher/``; on unless ``default`` is False (then only with ``--with-reacher``);
    ``estimate_s``: its wall time for the dry run's estimate; ``estimate_basis``: where that number
    comes from, printed beside it (the preset's ``estimate_basis``, e.g. "measured on this project's
    2-core machine"; without one it is called a guess)."""

    preset: str
    default: bool = True
    seed: int = 0
    estimate_s: float = 0.0
    note: str | None = None
    estimate_basis: str = GUESS


def preset_path(preset: str) -> str:
    """``quick`` -> ``experiments/configs/reproduce/quick.yaml``; a path to a YAML file is kept."""
    if preset.endswith((".yaml", ".yml", ".json")) or os.sep in preset:
        return preset
    return os.path.join(PRESET_DIR, f"{preset}.yaml")


def _str_list(v: Any, where: str) -> list[str]:
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, list) or not all(isinstance(x, str) and x for x in v):
        raise ValueError(f"{where} must be a list of strings, got {v!r}")
    return list(v)


def load_preset(preset: str) -> Preset:
    """Read and validate a reproduce preset (module docstring); errors name the key."""
    import yaml

    path = preset_path(preset)
    if not os.path.isfile(path):
        known = sorted(f[:-5] for f in os.listdir(PRESET_DIR) if f.endswith(".yaml"))
        raise ValueError(f"preset {preset!r}: no file {path!r} (presets: {', '.join(known)})")
    with open(path, encoding="utf-8") as f:
        try:
            raw = yaml.safe_load(f)
        except yaml.YAMLError as exc:
            raise ValueError(f"preset file {path!r} could not be parsed: {exc}") from None
    if not isinstance(raw, dict):
        raise ValueError(f"preset file {path!r} must hold a mapping")
    unknown = sorted(set(raw) - PRESET_KEYS)
    if unknown:
        raise ValueError(f"preset {path!r}: unknown key(s) {unknown} (known: {sorted(PRESET_KEYS)})")
    base = os.path.dirname(os.path.abspath(path))
    sweeps = []
    items = raw.get("sweeps")
    if not isinstance(items, list) or not items:
        raise ValueError(f"preset {path!r}: 'sweeps' must be a non-empty list")
    for i, s in enumerate(items):
        where = f"preset {path!r}: sweeps[{i}]"
        if not isinstance(s, dict):
            raise ValueError(f"{where} must be a mapping")
        bad = sorted(set(s) - SWEEP_KEYS)
        if bad:
            raise ValueError(f"{where}: unknown key(s) {bad} (known: {sorted(SWEEP_KEYS)})")
        for k in ("name", "config", "grid"):
            if k not in s:
                raise ValueError(f"{where}: missing key {k!r}")
        if not is_safe_name(s["name"]) or s["name"] in RESERVED:
            raise ValueError(f"{where}: 'name' must be a file-name-safe name other than "
                             f"{'/'.join(RESERVED)}, got {s['name']!r}")
        seeds = s.get("seeds", [0])
        if not isinstance(seeds, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in seeds):
            raise ValueError(f"{where}: 'seeds' must be a list of integers, got {seeds!r}")
        if not isinstance(s["config"], str):
            raise ValueError(f"{where}: 'config' must be a path, got {s['config']!r}")
        sweeps.append(SweepSpec(s["name"], os.path.normpath(os.path.join(base, s["config"])),
                                _str_list(s["grid"], f"{where}.grid"), seeds,
                                _str_list(s.get("set", []), f"{where}.set") if s.get("set") else [],
                                s.get("preset"), s.get("note")))
    names = [s.name for s in sweeps]
    if len(set(names)) != len(names):
        raise ValueError(f"preset {path!r}: two sweeps share a name")
    planning = raw.get("planning") or {}
    if not isinstance(planning, dict) or sorted(set(planning) - PLANNING_KEYS):
        raise ValueError(f"preset {path!r}: 'planning' must be a mapping with keys among {sorted(PLANNING_KEYS)}")
    missing = [n for n in _str_list(planning.get("from", []), "planning.from") if n not in names] \
        if planning.get("from") else []
    if missing:
        raise ValueError(f"preset {path!r}: planning.from names unknown sweep(s) {missing}")
    from .executors import check_slurm_options

    slurm = check_slurm_options(raw.get("slurm") or {})
    cm = raw.get("cost_model") or {}
    if not isinstance(cm, dict) or sorted(set(cm) - set(COST_MODEL)):
        raise ValueError(f"preset {path!r}: 'cost_model' keys must be among {sorted(COST_MODEL)}")
    return Preset(path, str(raw.get("description", "")).strip(), bool(raw.get("reduced", False)), sweeps,
                  planning, slurm, {k: float(v) for k, v in cm.items()},
                  _reacher_spec(raw.get("reacher"), f"preset {path!r}: reacher"))


def _reacher_spec(raw: Any, where: str) -> ReacherSpec | None:
    """Validate a preset's ``reacher:`` section (None when absent)."""
    if raw is None:
        return None
    from .reacher import PRESETS as REACHER_PRESETS

    if not isinstance(raw, dict):
        raise ValueError(f"{where} must be a mapping with keys among {sorted(REACHER_KEYS)}, got {raw!r}")
    bad = sorted(set(raw) - REACHER_KEYS)
    if bad:
        raise ValueError(f"{where}: unknown key(s) {bad} (known: {sorted(REACHER_KEYS)})")
    if not isinstance(raw.get("preset"), str) or raw["preset"] not in REACHER_PRESETS:
        raise ValueError(f"{where}.preset must be one of {sorted(REACHER_PRESETS)}, got {raw.get('preset')!r}")
    default, seed, est = raw.get("default", True), raw.get("seed", 0), raw.get("estimate_s", 0.0)
    if not isinstance(default, bool):
        raise ValueError(f"{where}.default must be true or false, got {default!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"{where}.seed must be an integer >= 0, got {seed!r}")
    if isinstance(est, bool) or not isinstance(est, (int, float)) or not est >= 0 or est == float("inf"):
        raise ValueError(f"{where}.estimate_s must be a finite number >= 0, got {est!r}")
    basis = raw.get("estimate_basis", GUESS)
    if not isinstance(basis, str) or not basis.strip():
        raise ValueError(f"{where}.estimate_basis must be a non-empty string, got {basis!r}")
    return ReacherSpec(raw["preset"], default, seed, float(est), raw.get("note"), basis)


# ----------------------------------------------------------------------------------------------
# sweeps: lejepa sweep's grid, names, results and summaries, trained through an executor
# ----------------------------------------------------------------------------------------------


@dataclass
class SweepPlan:
    """A validated sweep (:func:`.sweep.plan`): its runs in grid order and the results already on disk."""

    name: str
    out_dir: str
    runs: list[tuple[str, dict[str, str], int, list[str], dict[str, Any]]]
    done: dict[str, dict[str, Any]]
    config: str
    preset: str | None

    def pending(self, threads: int | None = None):
        """:class:`.executors.Task` for each run not finished yet, in grid order."""
        from .executors import Task

        return [Task(self.config, run, seed, self.out_dir, self.preset, tuple(ov), None, threads)
                for run, _, seed, ov, _ in self.runs if run not in self.done]

    def rows(self, log: Callable[[str], None] | None = None) -> list[dict[str, Any]]:
        """Summary rows (``lejepa sweep``'s columns) of every verified result in the sweep's folder,
        the planned runs first in grid order; ``summary.json``/``.csv`` are rewritten when they differ
        (:func:`.sweep.verified_rows`)."""
        from .sweep import verified_rows

        return verified_rows(self.out_dir, [r[0] for r in self.runs], self.done, log)

    def record(self, run: str, res: dict[str, Any], log: Callable[[str], None] | None = None) -> None:
        """Add a finished run and bring ``summary.json``/``.csv`` up to date (atomically)."""
        self.done[run] = res
        self.rows(log)


def _finished(path: str, cfg: dict[str, Any], seed: int) -> dict[str, Any] | None:
    """The finished result at ``path`` for ``cfg``/``seed``, None when it must be trained (again):
    a failure record or a run cut short by a time limit. A run with another config or seed raises
    (as in ``lejepa sweep``). The ``runtime`` section (device, threads, progress) may differ: it
    says where a run ran, not what was trained, so ``--jobs``/``--threads``/SLURM can change
    between resumptions. Uses ``lejepa sweep``'s own check (``verify_result``: a complete record
    whose checkpoint loads) where this version has it."""
    from . import sweep as S

    raw = S._load_result(path)
    want = json.loads(json.dumps(cfg))
    stored = raw.get("config")
    if isinstance(stored, dict) and isinstance(stored.get("runtime"), dict):
        want["runtime"] = stored["runtime"]
    if hasattr(S, "verify_result"):
        res = S.verify_result(path, want, seed)
    else:
        if stored != want or raw.get("seed") != seed:
            raise ValueError(f"{path!r} holds a run with another config or seed; "
                             "give the changed preset another --out")
        res = raw
    if res.get("status", "ok") != "ok" or res.get("stopped_early"):
        return None
    return res


def prepare_sweep(s: SweepSpec, out: str, create: bool = True) -> SweepPlan:
    """Validate every run of ``s`` and collect its finished results under ``out/s.name`` (created
    unless ``create`` is False); errors name the sweep."""
    from .sweep import parse_grid, plan

    try:
        runs = plan(s.config, parse_grid(s.grid), s.seeds, s.preset, list(s.overrides))
        out_dir = os.path.join(out, s.name)
        if os.path.exists(out_dir) and not os.path.isdir(out_dir):
            raise ValueError(f"{out_dir!r} exists and is not a directory")
        done: dict[str, dict[str, Any]] = {}
        for run, _, seed, _, cfg in runs:
            path = os.path.join(out_dir, run + ".json")
            if os.path.exists(path):
                res = _finished(path, dict(cfg, name=run), seed)
                if res is not None:
                    done[run] = res
    except ValueError as exc:
        raise ValueError(f"sweep {s.name}: {exc}") from None
    if create:
        os.makedirs(out_dir, exist_ok=True)
    return SweepPlan(s.name, out_dir, runs, done, s.config, s.preset)


# ----------------------------------------------------------------------------------------------
# planning
# ----------------------------------------------------------------------------------------------


def run_planning(out: str, plans: dict[str, Any], opts: dict[str, Any], log: Callable[[str], None]) -> list[dict[str, Any]]:
    """``lejepa plan`` on every finished checkpoint of the sweeps in ``opts['from']`` (latent dim at
    most ``opts['max_dim']``, default 2); results in ``out/planning/<sweep>_<run>.json`` (``lejepa plan
    --out``'s format plus ``sweep`` and ``run``; kept when present with the same settings) and one row
    per (run, representation) in ``planning/summary.json``/``.csv``."""
    from .planning import plan, reps_from_checkpoint
    from .sweep import _write_summary

    settings = {k: opts[k] for k in ("episodes", "horizon", "candidates", "step", "seed") if k in opts}
    settings = {"episodes": 200, "horizon": 10, "candidates": 64, "step": 0.3, "seed": 0, **settings}
    max_dim = int(opts.get("max_dim", 2))
    pdir = os.path.join(out, "planning")
    rows: list[dict[str, Any]] = []
    for sname in opts.get("from", []) or []:
        sp = plans.get(sname)
        if sp is None:
            continue
        for run, _, _, _, cfg in sp.runs:
            if run not in sp.done or cfg["latent"]["dim"] > max_dim:
                continue
            target = os.path.join(pdir, f"{sname}_{run}.json")
            ckpt = os.path.join(sp.out_dir, run + ".pt")
            payload = None
            if os.path.exists(target):
                try:
                    with open(target, encoding="utf-8") as f:
                        old = json.load(f)
                    if all(old.get(k) == v for k, v in settings.items()):
                        payload = old
                except (OSError, json.JSONDecodeError):
                    payload = None
            if payload is None:
                t0 = time.perf_counter()
                try:
                    reps, dim, _ = reps_from_checkpoint(ckpt)
                except ValueError as exc:
                    log(f"planning {sname}/{run}: skipped ({exc})")
                    continue
                res = plan(reps, dim, **settings)
                payload = {"checkpoint": os.path.abspath(ckpt), "sweep": sname, "run": run, **settings,
                           "results": res, "seconds": time.perf_counter() - t0}
                os.makedirs(pdir, exist_ok=True)
                text = json.dumps(payload, indent=2)
                atomic_write(target, lambda f: f.write(text))
                log(f"planning {sname}/{run}: encoder / oracle = {res['encoder']['ratio_to_oracle']:.3f}, "
                    f"cost error {res['encoder']['cost_error']:.3g}")
            m = sp.done[run]["metrics"]
            for rep, r in payload["results"].items():
                rows.append({"sweep": sname, "run": run, "representation": rep, "r2_h_to_z": m.get("r2_h_to_z"),
                             "epsilon": m.get("epsilon"), **{k: r[k] for k in ("final_distance", "final_distance_se",
                                                                                 "ratio_to_oracle",
                                                                                 "first_action_agreement",
                                                                                 "cost_error")}})
    if rows:
        os.makedirs(pdir, exist_ok=True)
        _write_summary(pdir, rows)
    return rows


# ----------------------------------------------------------------------------------------------
# Reacher
# ----------------------------------------------------------------------------------------------


def reacher_config(spec: ReacherSpec) -> dict[str, Any]:
    """The :mod:`.reacher` preset settings the step runs with (a copy)."""
    import copy

    from .reacher import PRESETS as REACHER_PRESETS

    return copy.deepcopy(REACHER_PRESETS[spec.preset])


def reacher_done(rdir: str, spec: ReacherSpec) -> bool:
    """True when ``rdir`` holds a finished Reacher step of ``spec``: ``plan.json`` with the same preset
    settings and seed, and ``plan.md``, ``metrics.json``, ``reacher.png`` beside it."""
    path = os.path.join(rdir, "plan.json")
    try:
        with open(path, encoding="utf-8") as f:
            old = json.load(f)
    except (OSError, json.JSONDecodeError):
        return False
    want = json.loads(json.dumps(reacher_config(spec)))
    return (isinstance(old, dict) and old.get("preset_settings") == want and old.get("seed") == spec.seed
            and all(os.path.isfile(os.path.join(rdir, f)) for f in ("plan.md", "metrics.json", "reacher.png")))


def run_reacher(out: str, spec: ReacherSpec, log: Callable[[str], None], progress: bool = True) -> str:
    """The Reacher step into ``out/reacher``: ``"kept"`` (finished before, :func:`reacher_done`),
    ``"skipped"`` (rendering unavailable; one note logged) or ``"done"`` (prerender, train, plan:
    the first two resume from what is on disk). Errors propagate (the caller records them)."""
    from . import reacher as R

    rdir = os.path.join(out, REACHER_DIR)
    if reacher_done(rdir, spec):
        log(f"reacher: kept ({os.path.join(rdir, 'plan.json')} holds preset {spec.preset}, seed {spec.seed})")
        return "kept"
    cfg = reacher_config(spec)
    ok, why = R.reacher_available(str(R._device(cfg["train"]["device"])))
    if not ok:
        log(f"note: Reacher step skipped: {why}")
        return "skipped"
    t0 = time.perf_counter()
    log(f"reacher: lejepa reacher all --preset {spec.preset} --seed {spec.seed} --out {rdir} "
        f"(~{format_duration(spec.estimate_s)})")
    os.makedirs(rdir, exist_ok=True)
    R.prerender(rdir, cfg, spec.seed, progress)
    R.train_all(rdir, cfg, spec.seed, progress)
    payload = R.run_plan(rdir, cfg, spec.seed, progress)
    res = payload["results"]
    log("reacher: normalised cost (final distance / oracle's) "
        + ", ".join(f"{k} {r['ratio_to_oracle']:.3f}" for k, r in res.items() if k != "oracle")
        + f"; {time.perf_counter() - t0:.0f} s; {os.path.join(rdir, 'plan.md')}")
    return "done"


# ----------------------------------------------------------------------------------------------
# the command
# ----------------------------------------------------------------------------------------------


def _closing(it: Any) -> Any:
    """``it`` closed on leaving the ``for`` loop, also by an exception (a local pool then ends its
    workers at once rather than when the generator is collected)."""
    return contextlib.closing(it) if hasattr(it, "close") else contextlib.nullcontext(it)


def make_executor(kind: str, out: str, jobs: int, threads: int | None, slurm: dict[str, Any]):
    from .executors import Inline, LocalPool, Slurm, threads_per_job

    if kind == "local":
        t = threads_per_job(jobs) if threads is None else threads
        return Inline(t) if jobs == 1 else LocalPool(jobs, t)
    if kind == "slurm":
        return Slurm(os.path.join(out, ".slurm"), slurm)
    raise ValueError(f"--executor must be 'local' or 'slurm', got {kind!r}")


def reproduce(preset: str, out: str, *, executor: str = "local", jobs: int = 1, threads: int | None = None,
              slurm: dict[str, Any] | None = None, dry_run: bool = False, report: bool = True,
              progress: bool = True, log: Callable[[str], None] | None = None,
              reacher: bool | None = None) -> dict[str, Any]:
    """Run (or resume) a reproduce preset into ``out``; see the module docstring. ``reacher``: run the
    preset's Reacher step (True, ``--with-reacher``), drop it (False, ``--no-reacher``) or follow its
    ``default`` (None). Returns ``{"runs", "done_before", "trained", "failed", "skipped", "estimate_s",
    "planning", "reacher", "report"}`` (``reacher``: None when off, else ``"planned"`` on a dry run,
    ``"kept"``, ``"skipped"``, ``"done"`` or ``"failed"``). ``out/.reproduce.lock`` is held from the
    first write on: a second reproduce into the same ``out`` is refused, naming the holder (two at
    once trained the same runs and wrote the same summaries)."""
    with contextlib.ExitStack() as stack:
        return _reproduce(preset, out, stack, executor=executor, jobs=jobs, threads=threads, slurm=slurm,
                          dry_run=dry_run, report=report, progress=progress, log=log, reacher=reacher)


def _reproduce(preset: str, out: str, stack: contextlib.ExitStack, *, executor: str = "local", jobs: int = 1,
               threads: int | None = None, slurm: dict[str, Any] | None = None, dry_run: bool = False,
               report: bool = True, progress: bool = True,
               log: Callable[[str], None] | None = None, reacher: bool | None = None) -> dict[str, Any]:
    if log is None:
        def log(line: str) -> None:
            print(line, flush=True)     # status lines appear as runs finish, also when piped to a file
    pr = load_preset(preset)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"--jobs must be an integer >= 1, got {jobs!r}")
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
        raise ValueError(f"--threads must be an integer >= 1, got {threads!r}")
    if reacher is not None and not isinstance(reacher, bool):
        raise ValueError(f"reacher must be True, False or None, got {reacher!r}")
    if reacher and pr.reacher is None:
        raise ValueError(f"--with-reacher: preset {os.path.relpath(pr.path)} has no 'reacher:' section")
    rspec = pr.reacher if (pr.reacher is not None and (pr.reacher.default if reacher is None else reacher)) else None
    from .executors import check_slurm_options

    slurm_opts = dict(pr.slurm, **check_slurm_options(dict(slurm or {})))
    log(f"preset {os.path.relpath(pr.path)}" + (" (a REDUCED reproduction: fewer steps, seeds and grid points "
                                                  "than the paper)" if pr.reduced else ""))
    if pr.description:
        log(pr.description)
    if os.path.exists(out) and not os.path.isdir(out):
        raise ValueError(f"--out {out!r} exists and is not a directory")
    # validate everything first (no file written on a bad preset), then create the sweep folders
    skipped: list[str] = []
    specs = []
    for s in pr.sweeps:
        if not os.path.isfile(s.config):
            skipped.append(s.name)
            log(f"note: sweep {s.name} skipped: config {os.path.relpath(s.config)} does not exist in this "
                "checkout" + (f" ({s.note})" if s.note else ""))
            continue
        specs.append(s)
    plans = {s.name: prepare_sweep(s, out, create=False) for s in specs}   # validates everything first
    if not dry_run:
        from .commands import check_out_dir, exclusive_lock

        check_out_dir(out)   # creates it; ValueError naming the reason when it cannot be written
        lock = os.path.join(out, ".reproduce.lock")
        stack.enter_context(exclusive_lock(lock, lambda holder: (
            f"--out {out!r} is in use by another lejepa reproduce ({holder}; lock file {lock!r}); wait for it "
            "to finish (rerunning afterwards resumes) or choose another --out"), what="the reproduce lock"))
        for sp in plans.values():
            os.makedirs(sp.out_dir, exist_ok=True)
            sp.rows(log)     # a summary is a cache: repaired from the verified results before training
    cost = {}
    for sp in plans.values():
        for run, _, _, _, cfg in sp.runs:
            cost[(sp.out_dir, run)] = estimate_run_seconds(cfg, pr.cost_model)
    total = len(cost)
    done_before = sum(len(sp.done) for sp in plans.values())
    todo = [(sp, t) for sp in plans.values() for t in sp.pending()]
    est_todo = sum(cost[(t.out_dir, t.run)] for _, t in todo)
    par, too_many = parallel_runs(executor, jobs, slurm_opts)
    if too_many:
        log(too_many)
    log(f"{len(plans)} sweeps, {total} runs: {done_before} done before, {len(todo)} to train; estimated "
        f"{format_duration(est_todo)} of single-thread compute on this project's reference CPU (cost model, "
        "good to a factor of about 2 there)"
        + (f" (about {format_duration(est_todo / min(par, max(1, len(todo))))} wall with {par} in parallel)"
           if par > 1 and todo else "")
        + "; measured cost per run is in each result's 'seconds'")
    est_reacher, kept = 0.0, False
    if rspec is not None:
        kept = reacher_done(os.path.join(out, REACHER_DIR), rspec)
        est_reacher = 0.0 if kept else rspec.estimate_s
        log(f"Reacher step (lejepa reacher --preset {rspec.preset}, into {os.path.join(out, REACHER_DIR)}): "
            + ("done before" if kept else f"estimated {format_duration(est_reacher)} wall ({rspec.estimate_basis})")
            + (f"; with the sweeps' estimate {format_duration(est_todo + est_reacher)}" if not kept else ""))
    elif pr.reacher is not None:
        log(f"Reacher step off (lejepa reacher --preset {pr.reacher.preset}; --with-reacher adds "
            f"~{format_duration(pr.reacher.estimate_s)}, {pr.reacher.estimate_basis})")
    summary: dict[str, Any] = {"runs": total, "done_before": done_before, "trained": 0, "failed": [],
                               "skipped": skipped, "estimate_s": est_todo + est_reacher, "planning": 0,
                               "reacher": None, "report": None, "finished": done_before}
    if dry_run:
        for sp in plans.values():
            est = sum(cost[(sp.out_dir, r[0])] for r in sp.runs if r[0] not in sp.done)
            log(f"  {sp.name}: {len(sp.runs)} runs, {len(sp.runs) - len(sp.done)} to train, ~{format_duration(est)}")
        if rspec is not None:
            log(f"  {REACHER_DIR}: lejepa reacher all --preset {rspec.preset} --seed {rspec.seed}, "
                + ("done before" if kept else f"~{format_duration(est_reacher)} ({rspec.estimate_basis})")
                + (f" ({rspec.note})" if rspec.note else ""))
            summary["reacher"] = "planned"
            if not kept:
                from . import reacher as R

                ok, why = R.reacher_available(str(R._device(reacher_config(rspec)["train"]["device"])))
                if not ok:
                    log(f"note: the Reacher step would be skipped here: {why}")
        return summary
    ex = make_executor(executor, out, jobs, threads, slurm_opts)
    by_dir = {sp.out_dir: sp for sp in plans.values()}
    bar = None
    write = log
    if progress and todo:
        from tqdm import tqdm

        bar = tqdm(total=total, initial=done_before, desc="reproduce", unit="run", file=sys.stderr,
                   dynamic_ncols=True)
        write = bar.write
    t0 = time.perf_counter()
    est_done = 0.0
    try:
        with _closing(ex([t for _, t in todo])) as results:
            for task, res in results:
                sp = by_dir[task.out_dir]
                est_done += cost[(task.out_dir, task.run)]
                if isinstance(res, BaseException):
                    summary["failed"].append(f"{sp.name}/{task.run}: {type(res).__name__}: {res}")
                    write(f"{sp.name}/{task.run}: FAILED ({type(res).__name__}: {res})")
                else:
                    sp.record(task.run, res)
                    summary["trained"] += 1
                    m = res["metrics"]
                    write(f"{sp.name}/{task.run}: R2(h->z) = {m['r2_h_to_z']:.6f}, eps = {m['epsilon']:.3g}, "
                          f"{res['steps_done']} steps in {res['seconds']:.1f} s ({res['threads']} threads)")
                if bar is not None:
                    elapsed = time.perf_counter() - t0
                    eta = elapsed / max(est_done, 1e-9) * (est_todo - est_done)
                    bar.set_postfix_str(f"ETA {format_duration(eta)}", refresh=False)
                    bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    # the status from the files: every summary rebuilt from its verified results (a run a killed
    # earlier call finished after its last summary write counts, and is in the report)
    summary["finished"] = sum(len({r["run"] for r in sp.rows(log)} & {x[0] for x in sp.runs})
                              for sp in plans.values())
    if pr.planning.get("from"):
        summary["planning"] = len(run_planning(out, plans, pr.planning, log))
    if rspec is not None:
        try:
            summary["reacher"] = run_reacher(out, rspec, log, progress)
        except Exception as exc:  # noqa: BLE001 - the sweeps' results stay; say what failed and how to resume
            summary["reacher"] = "failed"
            summary["failed"].append(f"reacher: {type(exc).__name__}: {exc}")
            log(f"reacher FAILED ({type(exc).__name__}: {exc}); resume with the same command or "
                f"lejepa reacher all --preset {rspec.preset} --seed {rspec.seed} --out {os.path.join(out, REACHER_DIR)}")
    if report:
        if importlib.util.find_spec("lejepa_experiments.report") is not None:
            mod = importlib.import_module("lejepa_experiments.report")
            rdir = os.path.join(out, "report")
            try:
                summary["report"] = mod.build_report(out, rdir, label=os.path.splitext(os.path.basename(pr.path))[0])
            except Exception as exc:  # noqa: BLE001 - the results stay on disk; say what failed
                summary["failed"].append(f"report: {type(exc).__name__}: {exc}")
                log(f"report FAILED ({type(exc).__name__}: {exc}); the results are in {out}, "
                    f"rerun with: lejepa report {out} --out {rdir}")
            else:
                log(f"report written to {rdir}")
        else:
            log("note: lejepa report is not available in this install (no lejepa_experiments.report); "
                f"the results and summaries are in {out}")
    log(f"{summary['trained']} runs trained, {done_before} kept, {len(summary['failed'])} failed; "
        f"{summary['finished']} of {total} runs have verified results"
        + (f", {len(skipped)} sweeps skipped ({', '.join(skipped)})" if skipped else "")
        + (f", Reacher step {summary['reacher']}" if summary["reacher"] else "")
        + f"; {time.perf_counter() - t0:.0f} s")
    return summary


def _reproduce_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--preset", required=True, metavar="NAME|FILE",
                   help="quick (reduced, < 10 min on 2 cores), full (the paper's settings), smoke, or a preset YAML")
    p.add_argument("--out", required=True, metavar="DIR", help="results directory (created; resumable)")
    p.add_argument("--executor", choices=("local", "slurm"), default="local")
    p.add_argument("--jobs", type=int, default=1, metavar="K", help="local: runs in parallel (default 1)")
    p.add_argument("--threads", type=int, default=None, metavar="T",
                   help="local: torch threads per run (default cores // jobs)")
    p.add_argument("--partition", default=None, help="slurm: partition")
    p.add_argument("--time-min", type=int, default=None, metavar="M", help="slurm: time limit per run, minutes")
    p.add_argument("--gpus", type=int, default=None, metavar="G", help="slurm: GPUs per job")
    p.add_argument("--cpus-per-task", type=int, default=None, metavar="C", help="slurm: CPUs (= threads) per job")
    p.add_argument("--array-parallelism", type=int, default=None, metavar="A",
                   help="slurm: at most A array tasks at a time")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--with-reacher", dest="reacher", action="store_const", const=True, default=None,
                   help="also run the preset's pixel Reacher step into DIR/reacher (quick: adds ~7 min on 2 cores)")
    g.add_argument("--no-reacher", dest="reacher", action="store_const", const=False,
                   help="drop the Reacher step (on by default in full and smoke)")
    p.add_argument("--dry-run", action="store_true", help="validate, print the runs and the estimated cost, stop")
    p.add_argument("--no-report", action="store_true", help="do not build the report at the end")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (status lines only)")


def _reproduce_run(args: argparse.Namespace) -> int:
    slurm = {k: v for k, v in (("partition", args.partition), ("time_min", args.time_min),
                               ("gpus_per_node", args.gpus), ("cpus_per_task", args.cpus_per_task),
                               ("array_parallelism", args.array_parallelism)) if v is not None}
    from .executors import signals_interrupt

    try:
        with signals_interrupt():
            res = reproduce(args.preset, args.out, executor=args.executor, jobs=args.jobs, threads=args.threads,
                            slurm=slurm, dry_run=args.dry_run, report=not args.no_report,
                            progress=not args.no_progress, reacher=args.reacher)
    except ValueError as exc:
        print(f"lejepa reproduce: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:   # SIGINT, or SIGTERM/SIGHUP (executors.Terminated): workers ended
        print(f"lejepa reproduce: interrupted ({str(exc) or 'SIGINT'}); finished runs are kept, the same command "
              "resumes", file=sys.stderr)
        return 128 + getattr(exc, "signum", 2)
    if res["failed"]:
        print(f"lejepa reproduce: {len(res['failed'])} run(s) failed:\n  " + "\n  ".join(res["failed"]),
              file=sys.stderr)
        return 1
    return 0

