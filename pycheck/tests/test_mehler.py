"""Mehler kernel and the OU identities, each three ways: sympy (exact), mpmath (40 digits), Monte Carlo."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import sympy as sp
from scipy.stats import multivariate_normal, norm

from pycheck.hermite import hermite_e, hermite_e_sympy
from pycheck.mehler import (cramer_bound, mehler_kernel, mehler_kernel_nd, mehler_series,
                            ou_conditional_exact, ou_conditional_mc, ou_conditional_mp,
                            ou_cross_moment_exact, ou_cross_moment_mc, ou_cross_moment_mp)
from pycheck.quadrature import gauss_hermite

R = sp.Rational(3, 7)


def test_kernel_is_density_ratio() -> None:
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=20) * 2, rng.normal(size=20) * 2
    for rho in (0.1, 0.5, 0.93):
        dens = multivariate_normal([0, 0], [[1, rho], [rho, 1]]).pdf(np.stack([x, y], 1))
        assert np.allclose(mehler_kernel(x, y, rho), dens / (norm.pdf(x) * norm.pdf(y)), rtol=1e-12)


def test_kernel_transition_integrates_to_one_and_nd_is_product() -> None:
    xg, wg = gauss_hermite(150)
    for x in (-2.0, 0.0, 1.3):
        assert abs(wg @ mehler_kernel(x, xg, 0.6) - 1) < 1e-10
    a, b = np.array([[0.3, -1.0]]), np.array([[1.2, 0.4]])
    assert np.allclose(mehler_kernel_nd(a, b, 0.5), mehler_kernel(0.3, 1.2, 0.5) * mehler_kernel(-1.0, 0.4, 0.5))


@pytest.mark.parametrize("rho", [0.3, 0.7, 0.9])
def test_series_converges_within_cramer_tail_bound(rho: float) -> None:
    xs = np.linspace(-3, 3, 25)
    X, Y = np.meshgrid(xs, xs)
    for n_terms in (10, 40, 120):
        part, tail = mehler_series(X, Y, rho, n_terms)
        closed = mehler_kernel(X, Y, rho)
        err = np.abs(part - closed)
        assert np.all(err <= tail + 1e-13 * np.maximum(closed, 1))   # + rounding of the sum
    assert np.max(err) < 1e-4       # 120 terms: the series really converges to the closed form


def test_cramer_bound_holds() -> None:
    x = np.linspace(-8, 8, 161)
    for n in range(0, 60):
        assert np.all(np.abs(hermite_e(n, x)) / math.sqrt(math.factorial(n)) <= cramer_bound(x))


# ---- 1. exact -------------------------------------------------------------------------------

def test_cross_moments_exact() -> None:
    """E[He_m(z) He_n(z')] = delta_mn n! rho^n exactly, m, n <= 12, rho = 3/7."""
    for m in range(13):
        for n in range(13):
            ref = sp.factorial(n) * R ** n if m == n else 0
            assert ou_cross_moment_exact(m, n, R) == ref


def test_conditional_expectation_exact_symbolic_rho() -> None:
    rho, z = sp.Symbol("rho", positive=True), sp.Symbol("z", real=True)
    for n in range(13):
        assert sp.expand(ou_conditional_exact(n, rho, z) - rho ** n * hermite_e_sympy(n, z)) == 0


# ---- 2. high precision ----------------------------------------------------------------------

def test_cross_moments_mpmath_40_digits() -> None:
    with mpmath.workdps(40):
        q = mpmath.mpf(3) / 7
        for m, n in [(0, 0), (1, 1), (5, 5), (12, 12), (3, 5), (11, 12), (12, 10)]:
            ref = mpmath.factorial(n) * q ** n if m == n else mpmath.mpf(0)
            scale = mpmath.sqrt(mpmath.factorial(m) * mpmath.factorial(n))   # size of the terms
            assert abs(ou_cross_moment_mp(m, n, "3/7") - ref) <= mpmath.mpf(10) ** -35 * scale


def test_conditional_mpmath_tanh_sinh() -> None:
    x = sp.Symbol("x")
    for n, xv in [(4, "0.8"), (9, "-1.25"), (12, "2.5")]:
        exact = R ** n * hermite_e_sympy(n, x).subs(x, sp.Rational(xv))
        with mpmath.workdps(40):
            val = ou_conditional_mp(n, "3/7", xv, dps=40)
            assert abs(val - mpmath.mpf(sp.N(exact, 60))) < mpmath.mpf(10) ** -32


# ---- 3. Monte Carlo -------------------------------------------------------------------------

@pytest.mark.parametrize("m,n", [(1, 1), (2, 2), (3, 3), (4, 4), (1, 2), (2, 4), (3, 1)])
def test_cross_moments_monte_carlo_6_sigma(m: int, n: int) -> None:
    rho = 0.8
    mean, se = ou_cross_moment_mc(m, n, rho, 200_000, seed=10 * m + n)
    ref = math.factorial(n) * rho ** n if m == n else 0.0
    assert abs(mean - ref) <= 6 * se


def test_conditional_monte_carlo_6_sigma() -> None:
    rho = 0.6
    for n, x in [(2, 0.5), (3, -1.0), (5, 1.7)]:
        mean, se = ou_conditional_mc(n, rho, x, 200_000, seed=n)
        assert abs(mean - rho ** n * hermite_e(n, x)) <= 6 * se


@pytest.mark.parametrize("rho", [0.0, 1.0, -0.3, 1.5, float("nan")])
def test_bad_rho(rho: float) -> None:
    with pytest.raises(ValueError, match="rho"):
        mehler_kernel(0.1, 0.2, rho)
    with pytest.raises(ValueError, match="rho"):
        ou_cross_moment_mc(1, 1, rho, 10)
    with pytest.raises(ValueError, match="rho"):
        mehler_series(0.1, 0.2, rho)


def test_bad_rho_exact_and_mp() -> None:
    with pytest.raises(ValueError, match="rho"):
        ou_cross_moment_exact(1, 1, sp.Rational(3, 2))
    with pytest.raises(ValueError, match="rho"):
        ou_cross_moment_mp(1, 1, "7/3")
