"""``lejepa check`` rows for Theorem 4.1: Hermite/Mehler identities, spectral weights, the loss bound.

Every reference value is independent of the computed one: exact sympy algebra against the closed
form, 40-digit mpmath quadrature, Monte Carlo with a 6-sigma interval, or a closed form derived by
hand (Sheppard's arcsine law for sign, the arc-cosine kernel for max(z, 0) and |z|, Owen's T for a
step). Runs in a few seconds.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import mpmath
import numpy as np
import sympy as sp
from scipy.special import ndtr, owens_t

from pycheck.report import CheckRow, close_row, ge_row, le_row

CLAIM_MEHLER = "Thm 4.1 (Mehler)"
CLAIM_CORR = "Thm 4.1 (corr_i <= rho)"
CLAIM_LOSS = "Thm 4.1 (L_align >= 2(1-rho)n)"
RHO = 0.9


# ---- closed forms derived for the checks (documented in docs/pycheck.md) -------------------

def corr_sign(rho: float) -> float:
    """corr(sign z, sign z') = (2/pi) arcsin rho (Sheppard)."""
    return 2.0 / math.pi * math.asin(rho)


def corr_relu(rho: float) -> float:
    """corr(max(z,0), max(z',0)): E = (sqrt(1-rho^2) + rho (pi - arccos rho)) / (2 pi),
    mean 1/sqrt(2 pi), variance 1/2 - 1/(2 pi)."""
    e = (math.sqrt(1 - rho * rho) + rho * (math.pi - math.acos(rho))) / (2 * math.pi)
    return (e - 1 / (2 * math.pi)) / (0.5 - 1 / (2 * math.pi))


def corr_abs(rho: float) -> float:
    """corr(|z|, |z'|): E|z z'| = (2/pi)(sqrt(1-rho^2) + rho arcsin rho), mean sqrt(2/pi), var 1 - 2/pi."""
    e = 2 / math.pi * (math.sqrt(1 - rho * rho) + rho * math.asin(rho))
    return (e - 2 / math.pi) / (1 - 2 / math.pi)


def corr_step(a: float, rho: float) -> float:
    """corr(1{z>a}, 1{z'>a}): P(z>a, z'>a) = Phi(-a) - 2 T(a, sqrt((1-rho)/(1+rho))) (Owen's T)."""
    p = float(ndtr(-a))
    both = p - 2.0 * float(owens_t(a, math.sqrt((1 - rho) / (1 + rho))))
    return (both - p * p) / (p * (1 - p))


def rows(**_: Any) -> list[CheckRow]:
    from pycheck.hermite import hermite_e_sympy
    from pycheck.mehler import (mehler_kernel, mehler_series, ou_conditional_exact,
                                ou_conditional_mp, ou_cross_moment_exact, ou_cross_moment_mc,
                                ou_cross_moment_mp)
    from pycheck.spectral import ou_correlation_report
    from pycheck.theorem1 import (alignment_loss, alignment_loss_mc, correlation_gap_lower_bound,
                                  linear_encoder, random_orthogonal, sign_encoder, sign_loss_exact,
                                  spiral, unit_row_linear, whiten)

    out: list[CheckRow] = []
    rho = RHO

    # ---- Mehler / OU identities, three ways -------------------------------------------------
    r = sp.Rational(3, 7)
    worst = max(abs(ou_cross_moment_exact(m, n, r) - (sp.factorial(n) * r ** n if m == n else 0))
                for m in range(9) for n in range(9))
    out.append(close_row(CLAIM_MEHLER, "max_{m,n<=8} |E[He_m(z)He_n(z')] - d_mn n! rho^n| (sympy, rho=3/7)",
                         float(worst), 0.0, 0.0, "exact rational arithmetic"))
    rs, z = sp.Symbol("rho", positive=True), sp.Symbol("z", real=True)
    worst_c = max(sp.expand(ou_conditional_exact(n, rs, z) - rs ** n * hermite_e_sympy(n, z)) != 0
                  for n in range(13))
    out.append(close_row(CLAIM_MEHLER, "#{n<=12: E[He_n(z')|z] != rho^n He_n(z)} (sympy, symbolic rho)",
                         float(worst_c), 0.0, 0.0, "identity in rho and z"))
    with mpmath.workdps(40):
        q = mpmath.mpf(3) / 7
        d1 = abs(ou_cross_moment_mp(12, 12, "3/7") - mpmath.factorial(12) * q ** 12)
        d2 = abs(ou_cross_moment_mp(11, 12, "3/7"))
        hx = sp.Rational(4, 5)
        exact_c = mpmath.mpf(sp.N(r ** 12 * hermite_e_sympy(12).subs(sp.Symbol("x"), hx), 50))
        d3 = abs(ou_conditional_mp(12, "3/7", "0.8") - exact_c)
    out.append(close_row(CLAIM_MEHLER, "|E[He_12 He_12'] - 12! rho^12|, |E[He_11 He_12']| (mpmath 40 dig.)",
                         float(max(d1, d2)), 0.0, 1e-30, "2-D Gauss-Hermite, nodes at 40 digits"))
    out.append(close_row(CLAIM_MEHLER, "|E[He_12(z')|z=0.8] - rho^12 He_12(0.8)| (mpmath tanh-sinh)",
                         float(d3), 0.0, 1e-30, "integral against the closed-form kernel"))
    for m, n in ((3, 3), (2, 3)):
        mean, se = ou_cross_moment_mc(m, n, rho, 400_000, seed=1)
        ref = math.factorial(n) * rho ** n if m == n else 0.0
        out.append(close_row(CLAIM_MEHLER, f"E[He_{m}(z)He_{n}(z')] Monte Carlo (rho={rho})", mean, ref,
                             6 * se, "tolerance = 6 standard errors, 4e5 samples, seed 1"))
    xs = np.linspace(-3, 3, 13)
    X, Y = np.meshgrid(xs, xs)
    part, tail = mehler_series(X, Y, 0.7, 80)
    ratio = float(np.max(np.abs(part - mehler_kernel(X, Y, 0.7)) / tail))
    out.append(le_row(CLAIM_MEHLER, "max |series_80 - closed form| / Cramer tail bound (rho=0.7)",
                      ratio, 1.0, 0.0, "x, y in [-3, 3]"))

    # ---- spectral weights and corr <= rho -----------------------------------------------------
    cases: list[tuple[str, Callable[[np.ndarray], Any], float, dict[str, Any]]] = [
        ("sign(z)", np.sign, corr_sign(rho), {}),
        ("max(z,0)", lambda x: np.maximum(x, 0.0), corr_relu(rho), {}),
        ("|z|", np.abs, corr_abs(rho), {}),
        ("1{z>0.3}", lambda x: (x > 0.3).astype(float), corr_step(0.3, rho), {}),
    ]
    for name, f, ref, opt in cases:
        rep = ou_correlation_report(f, rho, 1, max_degree=120, **opt)
        half = 0.5 * (rep.upper - rep.lower)
        out.append(close_row(CLAIM_CORR, f"corr({name}) spectral, D=120 vs closed form", rep.value, ref,
                             half + 1e-10, "tol = truncation/quadrature half-width + 1e-10"))
    smooth: list[tuple[str, Callable[[np.ndarray], Any]]] = [
        ("tanh(z)", np.tanh), ("z^3", lambda x: x ** 3), ("cos(2z)", lambda x: np.cos(2 * x)),
        ("sign(z)", np.sign), ("|z|", np.abs)]
    for name, g in smooth:
        rep = ou_correlation_report(g, rho, 1, max_degree=80)
        w1 = float(rep.spectral.weights[1])
        out.append(le_row(CLAIM_CORR, f"corr({name}) upper end", rep.upper, rho, 0.0))
        out.append(ge_row(CLAIM_CORR, f"rho - corr({name}) vs rho(1-rho)(1-w1)", rho - rep.upper,
                          correlation_gap_lower_bound(w1, rho), 1e-12, f"w1 = {w1:.6g}"))
    rep = ou_correlation_report(lambda x: 2 * x + 1, rho, 1, max_degree=5)
    out.append(close_row(CLAIM_CORR, "corr(2z+1) == rho (affine: equality)", rep.value, rho, 1e-12))
    rep = ou_correlation_report(np.tanh, rho, 1, max_degree=60, mc_samples=200_000, mc_seed=2)
    out.append(close_row(CLAIM_CORR, "corr(tanh z) spectral vs Monte Carlo", rep.value, rep.mc_value,
                         6 * rep.mc_stderr, "tolerance = 6 jackknife standard errors"))

    # ---- alignment loss of encoders in 2-D ----------------------------------------------------
    n = 2
    bound = 2 * (1 - rho) * n
    Q = random_orthogonal(n, seed=3)
    A = np.array([[1.0, 0.6], [-0.4, 1.3]])
    L = alignment_loss(linear_encoder(Q), n, rho, 3)
    out.append(close_row(CLAIM_LOSS, "L(Qz), Q orthogonal == 2(1-rho)n (equality)", L.value, bound, 1e-9))
    L = alignment_loss(unit_row_linear(A), n, rho, 3)
    out.append(close_row(CLAIM_LOSS, "L(Az), unit rows, Cov != I: == 2(1-rho)n", L.value, bound, 1e-9,
                         f"eps = ||Cov-I||_F = {L.whitening_error:.3g}: equality without h = Qz"))
    W = whiten(linear_encoder(A), n)
    L = alignment_loss(W.encoder, n, rho, 3)
    out.append(close_row(CLAIM_LOSS, "L(whitened Az) == 2(1-rho)n", L.value, bound, 1e-9))
    poly = lambda x: np.stack([x[:, 0] + 0.5 * x[:, 1] ** 2,  # noqa: E731
                               x[:, 1] - 0.3 * x[:, 0] * x[:, 1] + 0.2 * x[:, 0] ** 3], axis=1)
    L = alignment_loss(whiten(poly, n).encoder, n, rho, 6)
    out.append(ge_row(CLAIM_LOSS, "L(whitened polynomial) lower end", L.lower, bound, 0.0,
                      f"strict: gap >= {L.gap_lower:.4g}"))
    th = lambda x: np.tanh(x @ A.T)  # noqa: E731
    L = alignment_loss(whiten(th, n).encoder, n, rho, 30)
    out.append(ge_row(CLAIM_LOSS, "L(whitened tanh(Az)) lower end", L.lower, bound, 0.0,
                      f"strict: gap >= {L.gap_lower:.4g}"))
    L = alignment_loss(np.sign, n, rho, 60, method="composite", breakpoints=(0.0,), n_panels=40,
                       order=16)
    ref = sign_loss_exact(n, rho)
    out.append(close_row(CLAIM_LOSS, "L(sign z) spectral (2-D) vs 2n(1-(2/pi)asin rho)", L.value, ref,
                         0.5 * (L.upper - L.lower) + 1e-9))
    mc, se = alignment_loss_mc(sign_encoder(Q), n, rho, 200_000, seed=4)
    out.append(close_row(CLAIM_LOSS, "L(sign Qz) Monte Carlo vs closed form", mc, ref, 6 * se,
                         "tolerance = 6 standard errors"))
    out.append(ge_row(CLAIM_LOSS, "L(sign z) closed form", ref, bound, 0.0, "strict"))
    L = alignment_loss(spiral, n, rho, 40, n_nodes=120)
    out.append(close_row(CLAIM_LOSS, "||Cov spiral - I||_F (measure preserving)", L.whitening_error, 0.0,
                         1e-9))
    out.append(ge_row(CLAIM_LOSS, "L(spiral R(pi|z|)z) lower end, D=40", L.lower, bound, 0.0,
                      f"strict: gap >= {L.gap_lower:.4g}"))
    mc, se = alignment_loss_mc(spiral, n, rho, 200_000, seed=5)
    out.append(close_row(CLAIM_LOSS, "L(spiral) Monte Carlo vs spectral midpoint", mc, L.value,
                         6 * se + 0.5 * (L.upper - L.lower), "tol = 6 SE + spectral half-width"))
    return out
