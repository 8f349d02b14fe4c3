"""SIGReg forward+backward: the fast implementation against a plain one, side by side.

Plain baseline (written here, not imported): project, multiply by every knot, evaluate cos and
sin on the full ``(views, m, slices, knots)`` tensor (all 17 knots; the fast versions skip t = 0,
whose term is identically 0), let autograd do the backward. The fast one
is :func:`lejepa_experiments.losses.sigreg` (angle-addition recurrence, closed-form backward) with
each of its backends: ``torch`` (any device) and ``numba`` (fused CPU kernels, when installed).

Both see the same input ``(2 views, 256, N)`` and the same slice matrix (256 slices, 17 knots on
[0, 3]); the timing is the median over repeats of one forward+backward, the two
implementations timed in turn so that a fluctuating machine load hits both alike. Values are compared in
float64 (relative difference) and in float32, after all timings.

Page faults: the plain version allocates several ``(2, 256, 256, 17)`` float32 tensors (8.9 MB
each) per call. glibc serves blocks that large with fresh ``mmap`` pages unless its dynamic mmap
threshold has been raised by freeing a still larger block, so in a plain float32 process the plain
version pays ~4300 minor page faults per call (the ``faults`` column), and much less once a float64
run of the same shapes has raised the threshold. The fast versions allocate nothing that large.
Both regimes are real: ``--keep-heap`` selects the one without faults for every version (glibc's
``mallopt``), the default measures a plain float32 process as it is; the table reports the faults
so that a reader can tell which regime a row is in.

Usage: ``.venv/bin/python benchmarks/bench_sigreg.py [--threads 2] [--repeats 30] [--rounds 3] [--dims 2 64 1024] [--keep-heap]``
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import resource
import statistics
import time

import torch

from lejepa_experiments import cf_kernels
from lejepa_experiments.losses import random_slices, sigreg, sigreg_knots


def sigreg_plain(h: torch.Tensor, a: torch.Tensor, knots: int = 17, t_max: float = 3.0) -> torch.Tensor:
    """Direct formula: cos and sin evaluated at every knot, autograd backward."""
    t, w = sigreg_knots(knots, t_max, dtype=h.dtype, device=h.device)
    phi = torch.exp(-t.square() / 2)
    xt = (h @ a).unsqueeze(-1) * t                     # (V, m, S, K)
    err = (xt.cos().mean(-3) - phi).square() + xt.sin().mean(-3).square()   # (V, S, K)
    return (err @ w).mean() * h.shape[-2]


CLOCK = time.perf_counter


def keep_heap() -> None:
    """Ask glibc (``mallopt``) to serve blocks up to 32 MB from the heap and to trim it only above
    1 GiB of free top, so freed pages are reused instead of faulted in again; applies to every
    version alike."""
    libc = ctypes.CDLL("libc.so.6")
    m_trim_threshold, m_mmap_threshold = -1, -3
    if not (libc.mallopt(m_mmap_threshold, 32 << 20) and libc.mallopt(m_trim_threshold, 1 << 30)):
        raise RuntimeError("mallopt refused the settings")


def _faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _once(fn, h: torch.Tensor) -> tuple[float, int]:
    x = h.detach().requires_grad_(True)
    f0 = _faults()
    t0 = CLOCK()
    fn(x).backward()
    return CLOCK() - t0, _faults() - f0


def time_interleaved(fns: dict, h: torch.Tensor, repeats: int) -> dict[str, tuple[float, float]]:
    """(median fwd+bwd seconds, median minor page faults) of each function, timed in turn (fair
    under a fluctuating load)."""
    for _ in range(3):
        for fn in fns.values():
            _once(fn, h)
    runs: dict[str, list[tuple[float, int]]] = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            runs[name].append(_once(fn, h))
    return {name: (statistics.median(r[0] for r in rs), statistics.median(r[1] for r in rs))
            for name, rs in runs.items()}


def rel_diffs(h: torch.Tensor, a: torch.Tensor, backend: str) -> tuple[float, float, float]:
    """(value rel. diff in float64, value rel. diff in float32, gradient rel. diff in float64) vs plain."""
    h64, a64 = h.double(), a.double()
    x1 = h64.clone().requires_grad_(True)
    x2 = h64.clone().requires_grad_(True)
    v1 = sigreg_plain(x1, a64)
    v2 = sigreg(x2, a64, backend=backend)
    v1.backward()
    v2.backward()
    rel64 = abs(float(v1.detach()) - float(v2.detach())) / abs(float(v1.detach()))
    grel = float((x1.grad - x2.grad).norm() / x1.grad.norm())
    p32 = float(sigreg_plain(h, a))
    rel32 = abs(p32 - float(sigreg(h, a, backend=backend))) / abs(p32)
    return rel64, rel32, grel


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=1,
                    help="independent timing rounds per N (each a median over --repeats); the table "
                         "shows every round, so the spread of a noisy machine is visible")
    ap.add_argument("--dims", type=int, nargs="+", default=[2, 64, 1024])
    ap.add_argument("--json", default=None, help="also write the results here")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="wall: perf_counter; cpu: this process's CPU time (robust to other processes "
                         "on a shared machine; meaningful with --threads 1)")
    ap.add_argument("--keep-heap", action="store_true",
                    help="glibc keeps freed memory (see keep_heap): the regime without page faults")
    args = ap.parse_args()
    if args.keep_heap:
        keep_heap()
    global CLOCK
    CLOCK = time.perf_counter if args.clock == "wall" else time.process_time
    torch.set_num_threads(args.threads)
    cf_kernels.set_threads(args.threads)
    gen = torch.Generator().manual_seed(0)
    backends = ["torch"] + (["numba"] if cf_kernels.available() else [])
    out = []
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}, clock {args.clock}, "
          f"backends {backends}, keep heap {args.keep_heap}, load avg {os.getloadavg()}")
    head = f"{'N':>6} {'round':>5} {'plain ms':>9} {'faults':>6}"
    head += "".join(f" {b + ' ms':>9} {'faults':>6} {'speedup':>8}" for b in backends)
    print(head)
    rows = []
    for n in args.dims:
        h = torch.randn(2, 256, n, generator=gen)
        a = random_slices(n, 256, generator=gen)
        fns = {"plain": lambda x: sigreg_plain(x, a)}
        fns.update({b: (lambda x, b=b: sigreg(x, a, backend=b)) for b in backends})
        for r in range(args.rounds):
            med = time_interleaved(fns, h, args.repeats)
            row = dict(N=n, round=r, plain_ms=1e3 * med["plain"][0], plain_faults=med["plain"][1])
            line = f"{n:>6} {r:>5} {1e3 * med['plain'][0]:>9.2f} {med['plain'][1]:>6.0f}"
            for b in backends:
                row[f"{b}_ms"] = 1e3 * med[b][0]
                row[f"{b}_faults"] = med[b][1]
                row[f"{b}_speedup"] = med["plain"][0] / med[b][0]
                line += f" {1e3 * med[b][0]:>9.2f} {med[b][1]:>6.0f} {med['plain'][0] / med[b][0]:>7.2f}x"
            out.append(row)
            print(line, flush=True)
        rows.append((n, h, a))
    # Accuracy after all timings: the float64 runs allocate larger buffers, which changes how glibc
    # serves the plain version's later allocations (see the module docstring).
    print("\nvalues and gradients against plain:  " + "  ".join(f"{b}: rel f64 / rel f32 / grad rel f64" for b in backends))
    for n, h, a in rows:
        diffs = {b: rel_diffs(h, a, b) for b in backends}
        print(f"{n:>6}   " + "   ".join("{:.1e} / {:.1e} / {:.1e}".format(*diffs[b]) for b in backends))
        for row in out:
            if row["N"] == n:
                for b in backends:
                    row[f"{b}_rel_diff_f64"], row[f"{b}_rel_diff_f32"], row[f"{b}_grad_rel_diff_f64"] = diffs[b]
    print(f"load avg after: {os.getloadavg()}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"threads": args.threads, "clock": args.clock, "keep_heap": args.keep_heap, "rows": out,
                       "torch": torch.__version__}, f, indent=2)


if __name__ == "__main__":
    main()
