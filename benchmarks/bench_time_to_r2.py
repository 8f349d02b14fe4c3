"""Time to the paper's published R^2 at N = 64 (SIGReg, matched encoder): ours vs a naive baseline.

Target: R^2(h -> z) >= 0.999966 on the 10 000 held-out points (the paper's mean over 5 seeds at
N = 64, coupling world with 4 layers, matched inverse-coupling encoder, lambda = 1e-6). The authors'
code took about 18 min 42 s for one seed on this machine kind (issue 10); the aim is <= 1/10 of that.

Two configurations of *our* engine (:func:`lejepa_experiments.engine.train`), run in turn in the
same session, seeds alternating, each evaluated every ``--eval-every`` steps and stopped at the
first evaluation reaching the target (``on_eval``) or at ``--time-limit``:

* ``ours``: ``experiments/configs/scaling.yaml`` (lr 1e-2, constant half then cosine, SIGReg 256
  slices through the fused numba kernels, one torch thread) with batch 1024 (:data:`OURS`),
  ``train.steps`` = ``--steps`` (6000);
* ``baseline_steps``: the baseline's hyperparameters with our SIGReg (same values to rounding),
  one thread: the number of steps the baseline needs, at our speed. The baseline's projected time
  to the target is this step count at the plain run's steps/s (reported when the plain run itself
  is stopped by the time limit first);
* ``baseline``: the authors' setup as published: lr 3e-3, batch 256, 20 000 steps, constant then
  cosine (30 % constant), two torch threads, and a *plain* SIGReg: ``cos``/``sin`` of
  ``t_k a_s . h`` materialised as a ``(views, batch, slices, knots)`` tensor and differentiated by
  autograd (no fused kernel, no custom backward). This is not their code (never copied); it is our
  engine configured the way a direct implementation of their description runs. The plain
  statistic is checked against ours on one batch before timing (same value to 1e-10, float64).

Reported per run: seconds and steps to the target (or R^2 reached at the limit), steps/s, the
process CPU time, and the 1-minute load average before and after (the machine is shared; wall
times are pessimistic under load). The evaluation time is included in the wall time.

Usage::

    .venv/bin/python benchmarks/bench_time_to_r2.py --seeds 0 1 --time-limit 300 --out runs/bench_r2.json
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from typing import Any

TARGET = 0.999966
WHICH = ("ours", "baseline", "baseline_steps")
OURS = ("train.batch=1024",)
"""Our configuration on top of ``scaling.yaml``: batch 1024 (4x less gradient noise at the end of the
cosine phase, where the last digits of R^2 are won; the step costs ~1.7x batch 256's here)."""
AUTHORS_SECONDS = 18 * 60 + 42


def plain_sigreg(h, slices: int = 256, knots: int = 17, t_max: float = 3.0, a=None):
    """Direct autograd SIGReg: ``m * mean_{b,s} sum_k w_k [(mean_j cos(t_k u) - e^{-t_k^2/2})^2 +
    (mean_j sin(t_k u))^2]`` with ``u = h a`` (the formula of :func:`lejepa_experiments.losses.sigreg`),
    written the straightforward way: the full ``(B, m, S, K)`` cos/sin tensors, autograd backward."""
    import torch
    from lejepa_experiments.losses import random_slices, sigreg_knots

    if h.ndim == 2:
        h = h.unsqueeze(0)
    if a is None:
        a = random_slices(h.shape[-1], slices, dtype=h.dtype, device=h.device)
    t, w = sigreg_knots(knots, t_max, dtype=h.dtype, device=h.device)
    u = (h @ a).unsqueeze(-1) * t                                  # (B, m, S, K)
    ecf_re = torch.cos(u).mean(1)                                  # (B, S, K)
    ecf_im = torch.sin(u).mean(1)
    err = (ecf_re - torch.exp(-0.5 * t * t)).square() + ecf_im.square()
    return h.shape[1] * (err * w).sum(-1).mean()


def _check_plain_matches_ours() -> float:
    import torch
    from lejepa_experiments.losses import random_slices, sigreg

    g = torch.Generator().manual_seed(0)
    h = torch.randn(2, 256, 64, generator=g, dtype=torch.float64)
    a = random_slices(64, 256, generator=g, dtype=torch.float64)
    diff = abs(float(plain_sigreg(h, a=a)) - float(sigreg(h, a)))
    if diff > 1e-10:
        raise AssertionError(f"plain SIGReg differs from lejepa's by {diff}")
    return diff


def run_one(which: str, seed: int, steps: int, eval_every: int, time_limit: float, dim: int,
            baseline_threads: int = 2, ours_set: tuple[str, ...] = ()) -> dict[str, Any]:
    import torch
    from lejepa_experiments import engine
    from lejepa_experiments.config import load_config

    here = os.path.dirname(os.path.abspath(__file__))
    cfg_path = os.path.join(here, "..", "experiments", "configs", "scaling.yaml")
    common = [f"latent.dim={dim}", f"eval.every={eval_every}", "runtime.progress=false"]
    if which == "ours":
        over = common + [f"train.steps={steps}", "runtime.threads=1"] + list(OURS) + list(ours_set)
    elif which == "baseline":
        over = common + ["train.steps=20000", "train.lr=3.0e-3", "train.constant_frac=0.3",
                         f"runtime.threads={baseline_threads}"]
    else:   # "baseline_steps": the baseline's hyperparameters with our SIGReg (same values, fast)
        over = common + ["train.steps=20000", "train.lr=3.0e-3", "train.constant_frac=0.3", "runtime.threads=1"]
    cfg = load_config(cfg_path, None, over)
    cfg["name"] = f"{which}_s{seed}"
    hits: list[tuple[int, float, float]] = []
    curve: list[tuple[int, float]] = []

    def on_eval(step: int, m: dict[str, float]) -> bool:
        curve.append((step, m["r2_h_to_z"]))
        if m["r2_h_to_z"] >= TARGET:
            hits.append((step, m["r2_h_to_z"], time.perf_counter()))
            return True
        return False

    real_objective = engine.objective
    if which == "baseline":
        def naive(cfg_loss, h1, h2, lam=None):
            lam = cfg_loss["lam"] if lam is None else lam
            reg = plain_sigreg(torch.stack((h1, h2)), cfg_loss["slices"], cfg_loss["knots"], cfg_loss["t_max"])
            return lam * reg + (1.0 - lam) * engine.alignment_loss(h1, h2)
        engine.objective = naive
    load0 = os.getloadavg()[0]
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    try:
        res = engine.train(cfg, seed, progress=False, on_eval=on_eval, time_limit_s=time_limit)
    finally:
        engine.objective = real_objective
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    out = {"which": which, "seed": seed, "threads": res.info["threads"], "lr": cfg["train"]["lr"],
           "steps_planned": cfg["train"]["steps"], "steps_done": res.info["steps_done"],
           "train_s": res.seconds, "wall_s": wall, "steps_per_s": res.steps_per_second,
           "cpu_s": (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime),
           "load1_before": load0, "load1_after": os.getloadavg()[0],
           "final_r2": res.metrics["r2_h_to_z"], "best_r2": max([r for _, r in curve] + [res.metrics["r2_h_to_z"]]),
           "reached": bool(hits), "curve": curve}
    if hits:
        out["steps_to_target"] = hits[0][0]
        out["seconds_to_target"] = hits[0][2] - t0
    elif res.metrics["r2_h_to_z"] >= TARGET:          # reached at the final evaluation
        out["reached"] = True
        out["steps_to_target"] = res.info["steps_done"]
        out["seconds_to_target"] = wall
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--steps", type=int, default=6000, help="ours: train.steps (the schedule's length)")
    ap.add_argument("--eval-every", type=int, default=100)
    ap.add_argument("--time-limit", type=float, default=300.0, help="seconds per run")
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--baseline-time-limit", type=float, default=None,
                    help="seconds for the plain-SIGReg baseline run (default --time-limit)")
    ap.add_argument("--baseline-threads", type=int, default=2)
    ap.add_argument("--set", action="append", default=[], dest="ours_set", metavar="KEY=VALUE",
                    help="extra config override for the 'ours' runs (repeatable), e.g. train.batch=1024")
    ap.add_argument("--only", nargs="+", choices=WHICH, default=list(WHICH))
    ap.add_argument("--out", default=None, help="write the results as JSON")
    args = ap.parse_args()
    diff = _check_plain_matches_ours()
    print(f"plain SIGReg == lejepa SIGReg on a float64 batch (|diff| = {diff:.1e})")
    results = []
    for seed in args.seeds:
        for which in args.only:
            limit = args.baseline_time_limit if which == "baseline" and args.baseline_time_limit else args.time_limit
            r = run_one(which, seed, args.steps, args.eval_every, limit, args.dim, args.baseline_threads,
                        tuple(args.ours_set))
            r["overrides"] = list(args.ours_set) if which == "ours" else []
            results.append(r)
            if r["reached"]:
                msg = (f"R2 {TARGET} reached at step {r['steps_to_target']} after {r['seconds_to_target']:.1f} s "
                       f"({r['seconds_to_target'] / AUTHORS_SECONDS:.3f} of the authors' 18 min 42 s)")
            else:
                msg = f"target not reached in {r['steps_done']} steps / {r['train_s']:.0f} s: best R2 {r['best_r2']:.6f}"
            print(f"{which:>8} seed {seed}: {r['steps_per_s']:.1f} steps/s ({r['threads']} threads), {msg}; "
                  f"load {r['load1_before']:.2f} -> {r['load1_after']:.2f}", flush=True)
    # the baseline's time to the target: its steps to the target (baseline hyperparameters, measured
    # with our SIGReg, which computes the same values) at the plain implementation's speed
    for seed in args.seeds:
        b = next((r for r in results if r["which"] == "baseline" and r["seed"] == seed), None)
        bs = next((r for r in results if r["which"] == "baseline_steps" and r["seed"] == seed), None)
        if b and bs and bs["reached"]:
            b["projected_seconds_to_target"] = bs["steps_to_target"] / b["steps_per_s"]
            print(f"baseline seed {seed}: projected {b['projected_seconds_to_target']:.0f} s to the target "
                  f"({bs['steps_to_target']} steps at {b['steps_per_s']:.2f} steps/s)")
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump({"target": TARGET, "authors_seconds": AUTHORS_SECONDS, "dim": args.dim,
                       "results": results}, f, indent=2)


if __name__ == "__main__":
    main()
