"""Mehler's formula and the Ornstein-Uhlenbeck identities, each computed three independent ways.

OU pair: z ~ N(0, 1), ``z' = rho z + s eta`` with ``s = sqrt(1 - rho^2)``, eta ~ N(0, 1) independent.

* Mehler kernel (closed form): the joint density of (z, z') divided by phi(x) phi(y),

      M_rho(x, y) = (1 - rho^2)^(-1/2) exp(-(rho^2 x^2 - 2 rho x y + rho^2 y^2) / (2 (1 - rho^2))),

  and Mehler's series ``M_rho(x, y) = sum_n rho^n He_n(x) He_n(y) / n!``; with Cramer's inequality
  ``|He_n(x)| / sqrt(n!) <= K pi^(1/4) e^{x^2/4}`` the tail after N terms is at most
  ``K^2 sqrt(pi) e^{(x^2 + y^2)/4} rho^(N+1) / (1 - rho)`` (:func:`mehler_series` returns it).
* OU identities: ``E[He_m(z) He_n(z')] = delta_mn n! rho^n`` and ``E[He_n(z') | z] = rho^n He_n(z)``,
  computed

  1. exactly (sympy): expand ``He_n(rho z + s eta)`` and replace ``eta^k`` and ``z^k`` by their
     Gaussian moments; only even powers of s survive, so a rational rho gives a rational result;
  2. in high precision (mpmath, 40 digits by default): the cross moment with a 2-D Gauss-Hermite rule
     in (z, eta) whose nodes mpmath computes to working precision (exact for these polynomials, so
     the result is correct to working precision); the conditional expectation by tanh-sinh
     quadrature against the conditional density ``M_rho(x, y) phi(y)`` (it never expands a polynomial);
  3. by Monte Carlo, with a standard error.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from pycheck._validate import check_int, check_rho
from pycheck.hermite import CRAMER_K, hermite_e, hermite_e_normalized_all, hermite_e_sympy
from pycheck.quadrature import gaussian_moment
from pycheck.spectral import ou_pair


def mehler_kernel(x: Any, y: Any, rho: float) -> np.ndarray:
    """Closed-form Mehler kernel ``M_rho(x, y) = p_rho(x, y) / (phi(x) phi(y))`` (broadcasts x, y).

    ``p_rho`` is the standard bivariate normal density with correlation rho, so
    ``E[g(z')|z = x] = integral g(y) M_rho(x, y) phi(y) dy``.
    """
    rho = check_rho(rho)
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    q = 1.0 - rho * rho
    return np.exp(-(rho * rho * (x * x + y * y) - 2.0 * rho * x * y) / (2.0 * q)) / math.sqrt(q)


def mehler_kernel_nd(x: Any, y: Any, rho: float) -> np.ndarray:
    """Product kernel on R^n: ``prod_i M_rho(x_i, y_i)`` over the last axis of x and y."""
    return np.prod(mehler_kernel(x, y, rho), axis=-1)


def cramer_bound(x: Any) -> np.ndarray:
    """``K pi^(1/4) exp(x^2/4)`` >= |He_n(x)| / sqrt(n!) for every n (Cramer's inequality)."""
    x = np.asarray(x, dtype=float)
    return CRAMER_K * math.pi ** 0.25 * np.exp(0.25 * x * x)


def mehler_series(x: Any, y: Any, rho: float, n_terms: int = 60) -> tuple[np.ndarray, np.ndarray]:
    """Partial sum ``sum_{n=0}^{N} rho^n He_n(x) He_n(y) / n!`` and a bound on the rest.

    Uses the normalised recurrence (no factorials). The bound on ``|M_rho - partial sum|`` is
    ``cramer_bound(x) cramer_bound(y) rho^(N+1) / (1 - rho)``.
    """
    rho = check_rho(rho)
    n_terms = check_int(n_terms, "n_terms", 0)
    x, y = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
    hx = hermite_e_normalized_all(n_terms, x)
    hy = hermite_e_normalized_all(n_terms, y)
    powers = rho ** np.arange(n_terms + 1)
    partial = np.tensordot(powers, hx * hy, axes=(0, 0))
    tail = cramer_bound(x) * cramer_bound(y) * rho ** (n_terms + 1) / (1.0 - rho)
    return partial, tail


# --------------------------------------------------------------------------------------------
# 1. exact (sympy)
# --------------------------------------------------------------------------------------------

_Z, _ETA = sp.symbols("z eta", real=True)


def _as_sympy_rho(rho: Any) -> sp.Expr:
    r = rho if isinstance(rho, sp.Basic) else sp.nsimplify(rho)
    if r.is_number:
        if not (0 < r < 1):
            raise ValueError(f"rho must lie in the open interval (0, 1), got {rho!r}")
    return r


def _expect_gaussian(poly_expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """Replace every power var^k by E[z^k] (z ~ N(0,1)) in a polynomial in var."""
    p = sp.Poly(sp.expand(poly_expr), var)
    return sp.expand(sum(c * gaussian_moment(k) for (k,), c in p.terms()))


def ou_conditional_exact(n: int, rho: Any, z: sp.Symbol = _Z) -> sp.Expr:
    """``E[He_n(rho z + s eta) | z]`` as an exact polynomial in z (should equal rho^n He_n(z)).

    rho: a sympy number in (0, 1) (e.g. ``Rational(3, 7)``), a float (converted by nsimplify) or a
    symbol; s = sqrt(1 - rho^2).
    """
    n = check_int(n, "n", 0)
    return _conditional_exact(n, _as_sympy_rho(rho), z)


@lru_cache(maxsize=256)
def _conditional_exact(n: int, r: sp.Expr, z: sp.Symbol) -> sp.Expr:
    s = sp.sqrt(1 - r ** 2)
    shifted = hermite_e_sympy(n, _ETA).subs(_ETA, r * z + s * _ETA)
    return sp.expand(_expect_gaussian(shifted, _ETA))


def ou_cross_moment_exact(m: int, n: int, rho: Any) -> sp.Expr:
    """``E[He_m(z) He_n(z')]`` exactly (should equal delta_mn n! rho^n)."""
    m = check_int(m, "m", 0)
    cond = ou_conditional_exact(n, rho, _Z)
    return sp.simplify(_expect_gaussian(hermite_e_sympy(m, _Z) * cond, _Z))



# --------------------------------------------------------------------------------------------
# 2. high precision (mpmath)
# --------------------------------------------------------------------------------------------

def _mp_he(n: int, x: mpmath.mpf) -> mpmath.mpf:
    prev, cur = mpmath.mpf(1), x
    if n == 0:
        return prev
    for k in range(1, n):
        prev, cur = cur, x * cur - k * prev
    return cur


@lru_cache(maxsize=32)
def _mp_gh(n: int, dps: int) -> tuple[tuple, tuple]:
    with mpmath.workdps(dps):
        X, W = mpmath.gauss_quadrature(n, "hermite")        # weight e^{-x^2}
        sq2, sqpi = mpmath.sqrt(2), mpmath.sqrt(mpmath.pi)
        return tuple(sq2 * x for x in X), tuple(w / sqpi for w in W)


def ou_cross_moment_mp(m: int, n: int, rho: Any, dps: int = 40) -> mpmath.mpf:
    """``E[He_m(z) He_n(rho z + s eta)]`` by a 2-D Gauss-Hermite rule in (z, eta) at ``dps`` digits.

    The integrand is a polynomial of degree m + n in (z, eta); a rule with N > (m + n)/2 nodes per
    axis is exact for it, so the only error is rounding at working precision. rho is taken as a
    string or sympy number to keep it exact (e.g. ``"3/7"``).
    """
    m = check_int(m, "m", 0)
    n = check_int(n, "n", 0)
    dps = check_int(dps, "dps", 15)
    nodes = (m + n) // 2 + 2
    X, W = _mp_gh(nodes, dps)
    with mpmath.workdps(dps):
        r = _mp_rho(rho)
        s = mpmath.sqrt(1 - r * r)
        total = mpmath.mpf(0)
        for x, wx in zip(X, W):
            hm = _mp_he(m, x)
            inner = mpmath.fsum(we * _mp_he(n, r * x + s * e) for e, we in zip(X, W))
            total += wx * hm * inner
        return +total


def _mp_rho(rho: Any) -> mpmath.mpf:
    if isinstance(rho, sp.Basic):
        r = mpmath.mpf(sp.Rational(rho).p) / sp.Rational(rho).q if rho.is_Rational else \
            mpmath.mpf(str(sp.N(rho, mpmath.mp.dps + 5)))
    elif isinstance(rho, str) and "/" in rho:
        p, q = rho.split("/")
        r = mpmath.mpf(p) / mpmath.mpf(q)
    else:
        r = mpmath.mpf(rho)
    if not 0 < r < 1:
        raise ValueError(f"rho must lie in the open interval (0, 1), got {rho!r}")
    return r


def ou_conditional_mp(n: int, rho: Any, x: Any, dps: int = 40) -> mpmath.mpf:
    """``E[He_n(z') | z = x] = integral He_n(y) M_rho(x, y) phi(y) dy`` by tanh-sinh at ``dps`` digits.

    The conditional density ``M_rho(x, y) phi(y)`` is N(rho x, 1 - rho^2); the integral is split at
    its mean. Compare with ``rho^n He_n(x)``.
    """
    n = check_int(n, "n", 0)
    dps = check_int(dps, "dps", 15)
    with mpmath.workdps(dps + 10):
        r = _mp_rho(rho)
        xx = mpmath.mpf(x)
        q = 1 - r * r
        c = 1 / mpmath.sqrt(2 * mpmath.pi * q)
        dens = lambda y: c * mpmath.exp(-(y - r * xx) ** 2 / (2 * q))  # noqa: E731
        val = mpmath.quad(lambda y: _mp_he(n, y) * dens(y), [-mpmath.inf, r * xx, mpmath.inf])
    with mpmath.workdps(dps):
        return +val


# --------------------------------------------------------------------------------------------
# 3. Monte Carlo
# --------------------------------------------------------------------------------------------

def ou_cross_moment_mc(m: int, n: int, rho: float, n_samples: int = 400_000,
                       seed: int = 0) -> tuple[float, float]:
    """Monte Carlo mean of ``He_m(z) He_n(z')`` over an OU pair, and its standard error."""
    m = check_int(m, "m", 0)
    n = check_int(n, "n", 0)
    rho = check_rho(rho)
    n_samples = check_int(n_samples, "n_samples", 2)
    rng = np.random.default_rng(check_int(seed, "seed", 0))
    z, zp = ou_pair(n_samples, 1, rho, rng)
    v = hermite_e(m, z[:, 0]) * hermite_e(n, zp[:, 0])
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(n_samples))


def ou_conditional_mc(n: int, rho: float, x: float, n_samples: int = 400_000,
                      seed: int = 0) -> tuple[float, float]:
    """Monte Carlo mean of ``He_n(rho x + s eta)`` (z held at x), and its standard error."""
    n = check_int(n, "n", 0)
    rho = check_rho(rho)
    n_samples = check_int(n_samples, "n_samples", 2)
    rng = np.random.default_rng(check_int(seed, "seed", 0))
    v = hermite_e(n, rho * float(x) + math.sqrt(1 - rho * rho) * rng.standard_normal(n_samples))
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(n_samples))
