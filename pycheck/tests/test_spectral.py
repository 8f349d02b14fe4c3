"""Spectral weights and OU correlations: exact on polynomials, closed forms for non-smooth f,
rotation invariance across dimensions, Monte Carlo agreement, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from pycheck.checks.theorem1 import corr_abs, corr_relu, corr_sign, corr_step
from pycheck.hermite import hermite_e_normalized
from pycheck.quadrature import gauss_hermite_grid
from pycheck.spectral import (hermite_coefficients, ou_correlation, ou_correlation_mc,
                              ou_correlation_report, spectral_weights)


def dfact(n: int) -> int:
    """n!! with (-1)!! = 0!! = 1."""
    return math.prod(range(n, 0, -2)) if n > 0 else 1


# ---- closed forms, derived in docs/pycheck.md -----------------------------------------------

def sign_weights(D: int) -> np.ndarray:
    """w_{2k+1} = (2/pi) ((2k-1)!!)^2 / (2k+1)!  (Var sign z = 1)."""
    w = np.zeros(D + 1)
    for n in range(1, D + 1, 2):
        k = (n - 1) // 2
        w[n] = 2 / math.pi * (dfact(2 * k - 1) ** 2 / math.factorial(n))
    return w


def abs_weights(D: int) -> np.ndarray:
    """b_{2k} = 2 phi(0) (-1)^(k+1) (2k-3)!! / sqrt((2k)!), Var |z| = 1 - 2/pi."""
    w = np.zeros(D + 1)
    for n in range(2, D + 1, 2):
        k = n // 2
        w[n] = (2 / math.pi) * dfact(2 * k - 3) ** 2 / math.factorial(n)
    return w / (1 - 2 / math.pi)


def step_weights(a: float, D: int) -> np.ndarray:
    """b_n = phi(a) He_{n-1}(a) / sqrt(n!) for 1{z > a}; Var = p (1 - p), p = P(z > a)."""
    p = norm.sf(a)
    n = np.arange(1, D + 1)
    b = norm.pdf(a) * np.array([hermite_e_normalized(k - 1, a) / math.sqrt(k) for k in n])
    return np.concatenate([[0.0], b ** 2]) / (p * (1 - p))


# ---- exactness on polynomials ----------------------------------------------------------------

@pytest.mark.parametrize("method", ["adaptive", "gauss-hermite", "composite"])
def test_polynomial_weights_exact_1d(method: str) -> None:
    f = lambda z: 2 * hermite_e_normalized(1, z[:, 0]) + 3 * hermite_e_normalized(2, z[:, 0]) \
        - hermite_e_normalized(5, z[:, 0]) + 7.0  # noqa: E731
    sw = spectral_weights(f, 1, 8, method=method)
    ref = np.array([0, 4, 9, 0, 0, 1, 0, 0, 0]) / 14
    assert np.max(np.abs(sw.weights - ref)) < 1e-12
    assert abs(sw.residual) < 1e-12 and abs(sw.mean - 7) < 1e-12 and abs(sw.variance - 14) < 1e-10


def test_polynomial_weights_exact_3d() -> None:
    f = lambda z: z[:, 0] * (z[:, 1] ** 2 - 1) + 0.5 * (z[:, 2] ** 3 - 3 * z[:, 2]) - z[:, 1]  # noqa: E731
    sw = spectral_weights(f, 3, 5)
    # components: h1(z0) h2(z1) sqrt(2) -> degree 3 weight 2; 0.5 sqrt(6) h3(z2) -> 1.5; -h1 -> 1
    ref = np.array([0, 1, 0, 3.5, 0, 0]) / 4.5
    assert np.max(np.abs(sw.weights - ref)) < 1e-12 and abs(sw.residual) < 1e-12
    hc = sw.coefficients
    c = dict(zip(hc.indices, hc.paper_coefficients()[0]))
    assert abs(c[(1, 2, 0)] - 1) < 1e-12 and abs(c[(0, 0, 3)] - 0.5) < 1e-12 and abs(c[(0, 1, 0)] + 1) < 1e-12


# ---- non-smooth f against closed forms --------------------------------------------------------

def test_sign_weights_closed_form_degree_150() -> None:
    sw = spectral_weights(np.sign, 1, 150)
    ref = sign_weights(150)
    assert np.all(np.abs(sw.weights - ref) <= sw.errors + 1e-13)
    assert np.max(np.abs(sw.weights - ref)) < 1e-12
    assert abs(sw.residual - (1 - ref.sum())) < 1e-12 and sw.residual > 0.04   # slow decay, reported


def test_step_at_irrational_point_found_adaptively() -> None:
    a = 1 / math.pi                      # not a panel edge: the adaptive rule must find the jump
    sw = spectral_weights(lambda z: (z[:, 0] > a).astype(float), 1, 60)
    ref = step_weights(a, 60)
    assert sw.converged
    assert np.max(np.abs(sw.weights - ref)) < 1e-10
    assert np.all(np.abs(sw.weights - ref) <= sw.errors + 1e-13)


def test_kinks_abs_and_relu() -> None:
    a_sw = spectral_weights(np.abs, 1, 80)
    assert np.max(np.abs(a_sw.weights - abs_weights(80))) < 1e-11
    r_sw = spectral_weights(lambda z: np.maximum(z, 0.0), 1, 80)
    var = 0.5 - 1 / (2 * math.pi)
    ref = abs_weights(80) * (1 - 2 / math.pi) / 4 / var
    ref[1] = 0.25 / var
    assert np.max(np.abs(r_sw.weights - ref)) < 1e-11


@pytest.mark.parametrize("rho", [0.2, 0.7, 0.95])
def test_ou_correlation_closed_forms(rho: float) -> None:
    cases = [(np.sign, corr_sign(rho)), (np.abs, corr_abs(rho)),
             (lambda z: np.maximum(z, 0.0), corr_relu(rho)),
             (lambda z: (z > 0.3).astype(float), corr_step(0.3, rho))]
    for f, ref in cases:
        rep = ou_correlation_report(f, rho, 1, max_degree=150)
        assert rep.lower - 1e-12 <= ref <= rep.upper + 1e-12
        assert abs(ou_correlation(f, rho, max_degree=150) - ref) <= 0.5 * (rep.upper - rep.lower) + 1e-12


def test_truncated_interval_contains_truth() -> None:
    """With a low max_degree the residual is large but the interval still holds the true value."""
    rho = 0.8
    for D in (1, 3, 6):
        rep = ou_correlation_report(np.sign, rho, 1, max_degree=D)
        assert rep.spectral.residual > 0.05
        assert rep.lower <= corr_sign(rho) <= rep.upper
        assert rep.upper - rep.lower <= rho ** (D + 1) * rep.spectral.residual + 1e-9


def test_tanh_three_ways() -> None:
    """tanh: no closed form. Spectral (adaptive 1-D) vs direct 2-D Gauss-Hermite over (z, eta) vs MC."""
    rho = 0.75
    val = ou_correlation(np.tanh, rho)
    pts, w = gauss_hermite_grid(120, 2)
    zp = rho * pts[:, 0] + math.sqrt(1 - rho * rho) * pts[:, 1]
    e = w @ (np.tanh(pts[:, 0]) * np.tanh(zp))
    var = w @ np.tanh(pts[:, 0]) ** 2
    assert abs(val - e / var) < 1e-10
    mc, se = ou_correlation_mc(np.tanh, rho, 1, 200_000, seed=7)
    assert abs(mc - val) <= 6 * se


def test_rotation_invariance_2d_3d_vs_1d() -> None:
    """f(z) = g(u.z) with |u| = 1 has the same degree weights as g in 1-D (degree spaces are
    rotation invariant); checks the tensor rules against the 1-D adaptive rule."""
    g = lambda t: np.tanh(1.5 * t) + 0.3 * t ** 2  # noqa: E731
    ref = spectral_weights(lambda z: g(z[:, 0]), 1, 10).weights
    for dim in (2, 3):
        u = np.arange(1.0, dim + 1)
        u /= np.linalg.norm(u)
        sw = spectral_weights(lambda z: g(z @ u), dim, 10)
        assert np.max(np.abs(sw.weights - ref)) < 1e-8
        assert sw.error < 1e-8


def test_monte_carlo_beyond_dim_3() -> None:
    u = np.array([1.0, -2.0, 0.5, 1.0, 0.3])
    u /= np.linalg.norm(u)
    g = lambda t: np.tanh(t) + 0.5 * (t ** 2 - 1)  # noqa: E731
    ref = spectral_weights(lambda z: g(z[:, 0]), 1, 3).weights
    sw = spectral_weights(lambda z: g(z @ u), 5, 3, n_samples=100_000, seed=3)
    assert sw.method == "monte-carlo" and sw.error_kind == "standard error"
    assert np.all(np.abs(sw.weights - ref) <= 6 * sw.errors + 1e-12)
    assert np.all(sw.errors < 0.05)


def test_multivariate_correlation_through_weights() -> None:
    """f = z1 z2 + z1: half the variance in degree 1, half in degree 2, so corr = (rho + rho^2)/2;
    in 2-D by quadrature, in 4-D (f of the first two coordinates) by Monte Carlo, and directly."""
    rho = 0.7
    f = lambda z: z[:, 0] * z[:, 1] + z[:, 0]  # noqa: E731
    ref = (rho + rho ** 2) / 2
    assert abs(ou_correlation(f, rho, dim=2) - ref) < 1e-12
    rep = ou_correlation_report(f, rho, 4, n_samples=100_000, seed=4, mc_samples=100_000, mc_seed=5)
    assert rep.spectral.method == "monte-carlo"
    assert abs(rep.value - ref) <= 6 * (rep.upper - rep.lower) / 2 + 1e-12
    assert abs(rep.mc_value - ref) <= 6 * rep.mc_stderr


def test_mc_correlation_linear_and_sign() -> None:
    rho = 0.6
    for f, ref in [(lambda z: 3 * z[:, 0] - 1, rho), (np.sign, corr_sign(rho))]:
        r, se = ou_correlation_mc(f, rho, 1, 100_000, seed=11)
        assert abs(r - ref) <= 6 * se and se < 0.01


def test_vector_valued_coefficients() -> None:
    hc = hermite_coefficients(lambda z: np.stack([z[:, 0], z[:, 0] ** 2], 1), 1, 3)
    assert hc.coeffs.shape == (2, 4)
    assert np.allclose(hc.second_moment, [[1, 0], [0, 3]], atol=1e-12)
    assert np.allclose(hc.coeffs, [[0, 1, 0, 0], [1, 0, math.sqrt(2), 0]], atol=1e-12)


# ---- bad input --------------------------------------------------------------------------------

@pytest.mark.parametrize("rho", [0.0, 1.0, -0.2, 2.0, float("inf")])
def test_bad_rho(rho: float) -> None:
    with pytest.raises(ValueError, match="rho"):
        ou_correlation(np.tanh, rho)
    with pytest.raises(ValueError, match="rho"):
        ou_correlation_mc(np.tanh, rho)


def test_bad_dim_degree_options() -> None:
    with pytest.raises(ValueError, match="dim"):
        spectral_weights(np.tanh, 0, 5)
    with pytest.raises(ValueError, match="max_degree"):
        spectral_weights(np.tanh, 1, -1)
    with pytest.raises(ValueError, match="unknown option"):
        spectral_weights(np.tanh, 1, 5, n_node=10)
    with pytest.raises(ValueError, match="method"):
        spectral_weights(np.tanh, 2, 5, method="adaptive")
    with pytest.raises(ValueError, match="method"):
        spectral_weights(np.tanh, 1, 5, method="simpson")
    with pytest.raises(ValueError, match="do not apply"):
        spectral_weights(np.tanh, 1, 5, n_nodes=50)                  # adaptive takes no n_nodes
    with pytest.raises(ValueError, match="n_nodes"):
        spectral_weights(np.tanh, 2, 5, n_nodes=1000)                # beyond numpy's hermegauss


def test_bad_f() -> None:
    with pytest.raises(ValueError, match="non-finite"):
        spectral_weights(lambda z: 1 / z[:, 0] ** 0 * np.where(z[:, 0] > 2, np.nan, 1.0), 1, 5)
    with pytest.raises(ValueError, match="non-finite"):
        spectral_weights(lambda z: np.log(z[:, 0] + 30) + np.where(z[:, 0] > 0, np.inf, 0), 1, 5,
                         method="gauss-hermite")
    with pytest.raises(ValueError, match="shape"):
        spectral_weights(lambda z: np.zeros((len(z), 2)), 1, 5)
    with pytest.raises(ValueError, match="shape"):
        spectral_weights(lambda z: np.zeros(3), 2, 5)
    with pytest.raises(ValueError, match="constant"):
        spectral_weights(lambda z: np.full(len(z), 2.0), 1, 5)
    with pytest.raises(ValueError, match="non-finite"):
        ou_correlation_mc(lambda z: np.where(z[:, 0] > 3, np.inf, z[:, 0]), 0.5)
