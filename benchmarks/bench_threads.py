"""Training speed and bitwise reproducibility with 1 vs 2 threads (``runtime.threads``), load recorded.

Each trial is a fresh process (thread pools are set up once per process) that trains the config for
``--steps`` steps with ``--set runtime.threads=T`` and prints: steps/s, process CPU seconds, the
1-minute load average before and after, and a SHA-256 of the final encoder weights and of the
final metrics (``repr`` of every float). Trials alternate 1, 2, 2, 1, ... so that a change of the
machine's load hits both thread counts alike. ``--concurrent`` also runs two 2-thread trials at the
same time (4 threads on the 2 cores: a load the run itself creates), to see whether load alone
changes the numbers.

The summary gives per thread count the median steps/s, the load averages seen, and the number of
distinct weight/metric hashes (1 = bitwise reproducible across those trials).

Usage::

    .venv/bin/python benchmarks/bench_threads.py [--config experiments/configs/spiral2d_fast.yaml]
        [--steps 300] [--repeats 2] [--concurrent] [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

_CHILD = r"""
import hashlib, json, os, resource, sys, time
from lejepa_experiments.config import load_config
from lejepa_experiments.engine import train
cfg_file, threads, steps, eval_size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
cfg = load_config(cfg_file, None, [f"runtime.threads={threads}", f"train.steps={steps}", "runtime.progress=false",
                                   "runtime.device=cpu", f"eval.size={eval_size}", f"eval.every={steps}"])
load0 = os.getloadavg()[0]
r0 = resource.getrusage(resource.RUSAGE_SELF)
res = train(cfg, 0)
r1 = resource.getrusage(resource.RUSAGE_SELF)
w = hashlib.sha256()
for k, v in sorted(res.encoder.state_dict().items()):
    w.update(k.encode()); w.update(v.detach().cpu().contiguous().numpy().tobytes())
m = hashlib.sha256(json.dumps({k: repr(v) for k, v in sorted(res.metrics.items())}).encode()).hexdigest()
print(json.dumps({"threads": threads, "torch_threads": res.info["threads"], "steps_per_second": res.steps_per_second,
                  "cpu_s": (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime), "seconds": res.seconds,
                  "load_before": load0, "load_after": os.getloadavg()[0], "weights": w.hexdigest()[:16],
                  "metrics": m[:16], "orthogonality": repr(res.metrics["orthogonality"]),
                  "recovery_error": repr(res.metrics["recovery_error"])}))
"""


def _start(cfg: str, threads: int, steps: int, eval_size: int) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", _CHILD, cfg, str(threads), str(steps), str(eval_size)],
                            stdout=subprocess.PIPE, text=True)


def _finish(p: subprocess.Popen[str]) -> dict:
    out, _ = p.communicate()
    if p.returncode:
        raise SystemExit(f"trial failed with exit status {p.returncode}")
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="experiments/configs/spiral2d_fast.yaml")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--eval-size", type=int, default=10000)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--concurrent", action="store_true", help="also two 2-thread trials at the same time")
    ap.add_argument("--json", default=None, help="write every trial as JSON here")
    args = ap.parse_args()

    trials = []
    for i in range(args.repeats):
        for t in ((1, 2) if i % 2 == 0 else (2, 1)):
            r = _finish(_start(args.config, t, args.steps, args.eval_size))
            r["mode"] = "alone"
            trials.append(r)
            print(json.dumps(r), flush=True)
    if args.concurrent:
        ps = [_start(args.config, 2, args.steps, args.eval_size) for _ in range(2)]
        for p in ps:
            r = _finish(p)
            r["mode"] = "concurrent"
            trials.append(r)
            print(json.dumps(r), flush=True)
    print(f"\n{args.steps} steps of {args.config}; 1-minute load average before/after each trial")
    for t in (1, 2):
        for mode in ("alone", "concurrent"):
            rs = [r for r in trials if r["threads"] == t and r["mode"] == mode]
            if not rs:
                continue
            print(f"threads={t} {mode:10s}: median {statistics.median(r['steps_per_second'] for r in rs):7.1f} steps/s, "
                  f"CPU {statistics.median(r['cpu_s'] for r in rs):6.1f} s, load "
                  + ", ".join(f"{r['load_before']:.1f}->{r['load_after']:.1f}" for r in rs))
        rs = [r for r in trials if r["threads"] == t]
        print(f"threads={t}: {len({r['weights'] for r in rs})} distinct weight hash(es), "
              f"{len({r['metrics'] for r in rs})} distinct metric hash(es) over {len(rs)} trials")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(trials, f, indent=2)


if __name__ == "__main__":
    main()
