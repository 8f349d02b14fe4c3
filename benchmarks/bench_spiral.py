"""2-D spiral: time and quality of one ``lejepa train`` run (the 3-minute goal), load recorded.

Runs :func:`lejepa_experiments.commands.run_training` (the code behind ``lejepa train``) on a config
and reports: wall seconds of the whole command, training seconds, steps/s, the process CPU time
(user + sys, a load-robust figure: on an idle 2-core machine wall ~ CPU / 2 at best), the load
average before and after, the first evaluation step at which R^2(h -> z) >= --target, and the final
metrics. The machine may be shared: read the wall figures together with the load average.

Usage::

    .venv/bin/python benchmarks/bench_spiral.py --config experiments/configs/spiral2d_fast.yaml \
        --out runs/bench --run spiral_fast [--preset P] [--set k=v ...] [--time-limit 900]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="experiments/configs/spiral2d_fast.yaml")
    ap.add_argument("--run", default="bench_spiral")
    ap.add_argument("--out", default="runs/bench")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--preset", default=None)
    ap.add_argument("--set", action="append", default=[], dest="overrides")
    ap.add_argument("--time-limit", type=float, default=None)
    ap.add_argument("--target", type=float, default=0.986)
    args = ap.parse_args()

    from lejepa_experiments.commands import run_training

    load0 = os.getloadavg()
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    res = run_training(args.config, args.run, args.seed, args.out, preset=args.preset,
                       overrides=args.overrides, progress=False, time_limit_s=args.time_limit)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    load1 = os.getloadavg()
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    first = next((s for s, e in zip(res["curves"]["eval_step"], res["curves"]["eval"])
                  if e["r2_h_to_z"] >= args.target), None)
    m = res["metrics"]
    summary = {
        "config": args.config, "preset": args.preset, "overrides": args.overrides, "seed": args.seed,
        "threads": res["threads"], "wall_s": wall, "train_s": res["seconds"], "cpu_s": cpu,
        "steps": res["steps_done"], "steps_per_s": res["steps_per_second"],
        "loadavg_before": load0, "loadavg_after": load1, "first_eval_step_r2_ge_target": first,
        "target": args.target, "r2_h_to_z": m["r2_h_to_z"], "r2_z_to_h": m["r2_z_to_h"],
        "orthogonality": m["orthogonality"], "epsilon": m["epsilon"], "delta_tr": m["delta_tr"],
        "recovery_error": m["recovery_error"], "bound": m["bound"],
        "bound_check": {k: res["bound_check"][k] for k in ("verdict", "err", "bound", "margin", "m", "method")},
        "eval_curve": [(s, e["r2_h_to_z"]) for s, e in zip(res["curves"]["eval_step"], res["curves"]["eval"])],
    }
    print(json.dumps(summary, indent=2))
    with open(os.path.join(args.out, args.run + ".bench.json"), "w") as f:
        json.dump(summary, f, indent=2)


if __name__ == "__main__":
    main()
