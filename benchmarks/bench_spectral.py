"""spectral_weights: speed and accuracy, against a naive per-coefficient baseline, side by side.

1-D, degree 60: :func:`pycheck.spectral.spectral_weights` (adaptive Gauss-Legendre, all degrees in
one vectorised pass) against the naive route: one ``scipy.integrate.quad`` call per coefficient
``b_n = E[f(z) h_n(z)]`` on [-L, L] (same truncation L), plus one for E f and one for E f^2,
without being told where f jumps. Accuracy: largest error over the weights w_1..w_60 against
closed forms (sign, a step at 1/pi, |z|) or, for tanh, against Gauss-Hermite with 360 nodes.

3-D, degree 10 (286 multi-indices): spectral_weights (tensor Gauss-Hermite, axis-by-axis
contraction, plus a coarser grid for the error estimate) against the naive route on the same
grid: one pass over all N^3 points per multi-index alpha. Accuracy: for f(z) = g(u.z) with |u| = 1
the degree weights equal the 1-D weights of g (rotation invariance), computed in 1-D.

Timings are medians over repeats (wall clock, the process limited to the given threads).

Usage: ``.venv/bin/python benchmarks/bench_spectral.py [--repeats 5] [--threads 2] [--json]``
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import time
from typing import Any, Callable

import numpy as np


def _timed(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def naive_1d(f: Callable[[np.ndarray], np.ndarray], D: int, L: float) -> np.ndarray:
    """Weights by one scipy.integrate.quad per coefficient (limit 200 subintervals)."""
    from scipy.integrate import quad

    from pycheck.hermite import hermite_e_normalized
    from pycheck.quadrature import normal_pdf

    def E(g: Callable[[float], float]) -> float:
        return quad(lambda x: g(x) * normal_pdf(x), -L, L, limit=200)[0]

    fs = lambda x: float(f(np.array([x]))[0])  # noqa: E731
    mean = E(fs)
    var = E(lambda x: fs(x) ** 2) - mean ** 2
    b = [E(lambda x, n=n: fs(x) * float(hermite_e_normalized(n, x))) for n in range(1, D + 1)]
    return np.concatenate([[0.0], np.square(b) / var])


def naive_3d(f: Callable[[np.ndarray], np.ndarray], D: int, n_nodes: int) -> np.ndarray:
    """Weights on a tensor Gauss-Hermite grid, one full pass over the grid per multi-index."""
    from pycheck.hermite import hermite_e_normalized, multi_indices_upto
    from pycheck.quadrature import gauss_hermite_grid

    pts, w = gauss_hermite_grid(n_nodes, 3)
    v = f(pts)
    mean = w @ v
    var = w @ v ** 2 - mean ** 2
    out = np.zeros(D + 1)
    for alpha in multi_indices_upto(3, D):
        if sum(alpha) == 0:
            continue
        h = np.ones(len(w))
        for i, a in enumerate(alpha):
            h = h * hermite_e_normalized(a, pts[:, i])
        out[sum(alpha)] += (w @ (v * h)) ** 2
    return out / var


def reference_1d(name: str, D: int) -> np.ndarray:
    from scipy.stats import norm

    from pycheck.hermite import hermite_e_normalized
    from pycheck.spectral import spectral_weights

    w = np.zeros(D + 1)
    if name == "sign":
        for n in range(1, D + 1, 2):
            k = (n - 1) // 2
            w[n] = 2 / math.pi * math.prod(range(2 * k - 1, 0, -2)) ** 2 / math.factorial(n)
    elif name == "step(1/pi)":
        a = 1 / math.pi
        p = norm.sf(a)
        for n in range(1, D + 1):
            w[n] = (norm.pdf(a) * hermite_e_normalized(n - 1, a)) ** 2 / n / (p * (1 - p))
    elif name == "|z|":
        for n in range(2, D + 1, 2):
            k = n // 2
            w[n] = 2 / math.pi * math.prod(range(2 * k - 3, 0, -2)) ** 2 / math.factorial(n)
        w /= 1 - 2 / math.pi
    else:  # tanh: Gauss-Hermite with 360 nodes (exact to degree 719 for polynomials; tanh is analytic)
        w = spectral_weights(np.tanh, 1, D, method="gauss-hermite", n_nodes=360).weights
    return w


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--no-naive", action="store_true", help="skip the slow naive 1-D baseline")
    args = ap.parse_args()
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)

    from pycheck.spectral import spectral_weights

    rows: list[dict[str, Any]] = []
    D1 = 60
    L1 = max(10.0, math.sqrt(4 * D1 + 2) + 8.0)
    funcs_1d = {"sign": np.sign, "step(1/pi)": lambda x: (x > 1 / math.pi).astype(float),
                "|z|": np.abs, "tanh": np.tanh}
    for name, f in funcs_1d.items():
        ref = reference_1d(name, D1)
        t, sw = _timed(lambda: spectral_weights(f, 1, D1), args.repeats)
        row = {"dim": 1, "degree": D1, "f": name, "pycheck_s": t,
               "pycheck_err": float(np.max(np.abs(sw.weights - ref))), "pycheck_est": sw.error,
               "residual": sw.residual, "n_evals": sw.n_evals}
        if not args.no_naive:
            ff = (lambda z, f=f: f(z))
            tn, wn = _timed(lambda: naive_1d(ff, D1, L1), 1)
            row.update(naive_s=tn, naive_err=float(np.max(np.abs(wn - ref))))
        rows.append(row)

    D3 = 10
    u = np.array([1.0, 2.0, 3.0]) / math.sqrt(14.0)
    funcs_3d = {"tanh(u.z)": lambda t: np.tanh(t), "max(u.z,0)": lambda t: np.maximum(t, 0.0),
                "u.z + (u.z)^3/3": lambda t: t + t ** 3 / 3}
    for name, g in funcs_3d.items():
        ref = spectral_weights(lambda z, g=g: g(z[:, 0]), 1, D3).weights
        f3 = (lambda z, g=g: g(z @ u))
        t, sw = _timed(lambda: spectral_weights(f3, 3, D3), args.repeats)
        n_nodes = 48
        tn, wn = _timed(lambda: naive_3d(f3, D3, n_nodes), 1)
        rows.append({"dim": 3, "degree": D3, "f": name, "pycheck_s": t,
                     "pycheck_err": float(np.max(np.abs(sw.weights - ref))), "pycheck_est": sw.error,
                     "residual": sw.residual, "n_evals": sw.n_evals, "naive_s": tn,
                     "naive_err": float(np.max(np.abs(wn - ref)))})

    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    head = f"{'dim':>3} {'deg':>3}  {'f':<16} {'pycheck s':>10} {'max |dw|':>9} {'est.':>9} " \
           f"{'residual':>9} {'naive s':>9} {'naive |dw|':>10}"
    print(head)
    print("-" * len(head))
    for r in rows:
        ns = f"{r['naive_s']:9.3f}" if "naive_s" in r else f"{'-':>9}"
        ne = f"{r['naive_err']:10.1e}" if "naive_err" in r else f"{'-':>10}"
        print(f"{r['dim']:>3} {r['degree']:>3}  {r['f']:<16} {r['pycheck_s']:10.4f} "
              f"{r['pycheck_err']:9.1e} {r['pycheck_est']:9.1e} {r['residual']:9.2e} {ns} {ne}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
