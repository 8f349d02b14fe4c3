"""Gaussian quadrature: exactness degree, moments, composite and adaptive rules on non-smooth g."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy.special import ndtr
from scipy.stats import norm

from pycheck.quadrature import (adaptive_expectation, composite_legendre, expectation,
                                gauss_hermite, gauss_hermite_grid, gaussian_moment, tensor_grid)


def test_gaussian_moments_against_mpmath() -> None:
    mpmath.mp.dps = 30
    for k in range(13):
        ref = mpmath.quad(lambda x: x ** k * mpmath.npdf(x), [-mpmath.inf, 0, mpmath.inf])
        assert abs(ref - gaussian_moment(k)) < mpmath.mpf(10) ** -25


@pytest.mark.parametrize("n", [1, 3, 8, 20])
def test_gauss_hermite_exact_to_degree_2n_minus_1(n: int) -> None:
    x, w = gauss_hermite(n)
    assert abs(w.sum() - 1) < 1e-14
    for k in range(2 * n):
        scale = gaussian_moment(2 * (k // 2 + 1))   # size of the terms that cancel for odd k
        assert abs(w @ x ** k - gaussian_moment(k)) <= 1e-12 * scale
    # and not beyond: the rule misses E[z^(2n)] (He_n(x_j) = 0 at the nodes)
    assert abs(w @ x ** (2 * n) - gaussian_moment(2 * n)) > 1e-3


def test_tensor_grid_moments() -> None:
    pts, w = gauss_hermite_grid(6, 3)
    assert pts.shape == (216, 3) and w.shape == (216,)
    m = lambda a, b, c: w @ (pts[:, 0] ** a * pts[:, 1] ** b * pts[:, 2] ** c)  # noqa: E731
    assert abs(m(2, 4, 0) - 3) < 1e-12
    assert abs(m(2, 2, 2) - 1) < 1e-12
    assert abs(m(1, 1, 0)) < 1e-12
    assert abs(expectation(lambda z: z[:, 0] ** 2 * z[:, 1] ** 2, dim=2, n_nodes=5) - 1) < 1e-12
    x, wx = gauss_hermite(4)
    p2, w2 = tensor_grid(x, wx, 2)
    assert np.allclose(p2[1], [x[0], x[1]])          # C order: last coordinate fastest


def test_composite_legendre_with_breakpoint_resolves_a_step() -> None:
    a = 1 / math.pi
    x, w = composite_legendre(12.0, 24, order=12, breakpoints=(a,))
    assert abs(w @ (x > a) - ndtr(-a)) < 1e-14
    x, w = composite_legendre(12.0, 24, order=12)    # no breakpoint: only O(width) accuracy
    assert abs(w @ (x > a) - ndtr(-a)) > 1e-6


def test_adaptive_step_and_kink_at_unknown_points() -> None:
    a = 1 / math.pi
    F = lambda x: np.stack([(x > a).astype(float), np.abs(x - a), np.tanh(x) ** 2])  # noqa: E731
    res = adaptive_expectation(F, 12.0, rtol=1e-12)
    ref_abs = 2 * norm.pdf(a) + a * (2 * norm.cdf(a) - 1)       # E|z - a|
    refs = np.array([ndtr(-a), ref_abs, np.nan])
    err = np.abs(res.values[:2] - refs[:2])
    assert res.converged
    assert np.all(err <= res.errors[:2] + 1e-15)     # the error estimate covers the true error
    assert np.all(err < 1e-11)
    xg, wg = gauss_hermite(200)
    assert abs(res.values[2] - wg @ np.tanh(xg) ** 2) < 1e-12


def test_adaptive_error_estimate_covers_random_jumps_and_kinks() -> None:
    """Steps and kinks at random places, and jumps hidden just beside a bisection point (where
    plain Gauss rules of a panel and of its halves agree exactly): true error <= reported error."""
    rng = np.random.default_rng(2024)
    places = list(rng.uniform(-3, 3, 40)) + [0.25 + 1e-7, 0.125 - 3e-8, 0.5 + 1e-9, -1.75 + 2e-6]
    for a in places:
        F = lambda x: np.stack([(x > a).astype(float), np.abs(x - a)])  # noqa: E731
        res = adaptive_expectation(F, 12.0, rtol=1e-12)
        ref = np.array([ndtr(-a), 2 * norm.pdf(a) + a * (2 * norm.cdf(a) - 1)])
        err = np.abs(res.values - ref)
        assert np.all(err <= res.errors + 1e-15), (a, err, res.errors)
        assert np.all(err < 1e-11)


def test_largest_gauss_hermite_rule() -> None:
    x, w = gauss_hermite(360)
    assert np.all(np.isfinite(w)) and abs(w.sum() - 1) < 1e-13 and abs(w @ x ** 4 - 3) < 1e-12


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="n_nodes"):
        gauss_hermite(0)
    with pytest.raises(ValueError, match="n_nodes must be <= 360"):
        gauss_hermite(361)
    with pytest.raises(ValueError, match="k must be"):
        gaussian_moment(-2)
    with pytest.raises(ValueError, match="breakpoints"):
        composite_legendre(5.0, 10, breakpoints=(float("nan"),))
