"""SIGReg forward+backward: the fast implementation against a plain one, side by side.

Plain baseline (written here, not imported): project, multiply by every knot, evaluate cos and
sin on the full ``(views, m, slices, knots)`` tensor, let autograd do the backward. The fast one
is :func:`lejepa_experiments.losses.sigreg` (angle-addition recurrence, closed-form backward).

Both see the same input ``(2 views, 256, N)`` and the same slice matrix (256 slices, 17 knots on
[0, 3]); the timing is the median over repeats of one forward+backward, the two
implementations timed alternately so that a fluctuating machine load hits both alike. Values are compared in
float64 (relative difference) and in float32.

Usage: ``.venv/bin/python benchmarks/bench_sigreg.py [--threads 2] [--repeats 30] [--dims 2 64 1024]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import torch

from lejepa_experiments.losses import random_slices, sigreg, sigreg_knots


def sigreg_plain(h: torch.Tensor, a: torch.Tensor, knots: int = 17, t_max: float = 3.0) -> torch.Tensor:
    """Direct formula: cos and sin evaluated at every knot, autograd backward."""
    t, w = sigreg_knots(knots, t_max, dtype=h.dtype, device=h.device)
    phi = torch.exp(-t.square() / 2)
    xt = (h @ a).unsqueeze(-1) * t                     # (V, m, S, K)
    err = (xt.cos().mean(-3) - phi).square() + xt.sin().mean(-3).square()   # (V, S, K)
    return (err @ w).mean() * h.shape[-2]


CLOCK = time.perf_counter


def _once(fn, h: torch.Tensor) -> float:
    x = h.detach().requires_grad_(True)
    t0 = CLOCK()
    fn(x).backward()
    return CLOCK() - t0


def time_interleaved(fa, fb, h: torch.Tensor, repeats: int) -> tuple[float, float]:
    """Median fwd+bwd seconds of fa and fb, timed alternately (fair under a fluctuating load)."""
    for _ in range(3):
        _once(fa, h), _once(fb, h)
    ta, tb = [], []
    for _ in range(repeats):
        ta.append(_once(fa, h))
        tb.append(_once(fb, h))
    return statistics.median(ta), statistics.median(tb)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=30)
    ap.add_argument("--dims", type=int, nargs="+", default=[2, 64, 1024])
    ap.add_argument("--json", default=None, help="also write the results here")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="wall: perf_counter; cpu: this process's CPU time (robust to other processes "
                         "on a shared machine; meaningful with --threads 1)")
    args = ap.parse_args()
    global CLOCK
    CLOCK = time.perf_counter if args.clock == "wall" else time.process_time
    torch.set_num_threads(args.threads)
    gen = torch.Generator().manual_seed(0)
    out = []
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}, clock {args.clock}, "
          f"load avg {os.getloadavg()}")
    print(f"{'N':>6} {'plain ms':>9} {'fast ms':>8} {'speedup':>8} {'rel diff f64':>13} {'rel diff f32':>13} {'grad rel f64':>13}")
    for n in args.dims:
        h = torch.randn(2, 256, n, generator=gen)
        a = random_slices(n, 256, generator=gen)
        # values and gradients in float64
        h64, a64 = h.double(), a.double()
        x1 = h64.clone().requires_grad_(True)
        x2 = h64.clone().requires_grad_(True)
        v1 = sigreg_plain(x1, a64)
        v2 = sigreg(x2, a64)
        v1.backward()
        v2.backward()
        v1, v2 = v1.detach(), v2.detach()
        rel64 = abs(float(v1) - float(v2)) / abs(float(v1))
        grel = float((x1.grad - x2.grad).norm() / x1.grad.norm())
        rel32 = abs(float(sigreg_plain(h, a)) - float(sigreg(h, a))) / abs(float(sigreg_plain(h, a)))
        tp, tf = time_interleaved(lambda x: sigreg_plain(x, a), lambda x: sigreg(x, a), h, args.repeats)
        row = dict(N=n, plain_ms=1e3 * tp, fast_ms=1e3 * tf, speedup=tp / tf, rel_diff_f64=rel64,
                   rel_diff_f32=rel32, grad_rel_diff_f64=grel)
        out.append(row)
        print(f"{n:>6} {1e3 * tp:>9.2f} {1e3 * tf:>8.2f} {tp / tf:>7.2f}x {rel64:>13.2e} {rel32:>13.2e} {grel:>13.2e}")
    print(f"load avg after: {os.getloadavg()}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"threads": args.threads, "clock": args.clock, "rows": out, "torch": torch.__version__}, f, indent=2)


if __name__ == "__main__":
    main()
