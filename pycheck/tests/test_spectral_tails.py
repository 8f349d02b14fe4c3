"""pycheck.spectral is not confidently wrong: an f whose tail the integration region misses
(exp(z^2/4), infinite variance) is reported as not converged and gets no correlation; a
square-integrable f near the edge (exp(z^2/5)) still converges to its closed form; bad input
(too few Monte Carlo samples per block, complex values, overflow, a huge max_degree) is a
ValueError naming the problem."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pycheck.spectral import (MAX_DEGREE, hermite_coefficients, ou_correlation, ou_correlation_mc,
                              ou_correlation_report, spectral_weights, tail_mass)


def exp_sq(a: float):
    return lambda z: np.exp(a * z[:, 0] ** 2)


def corr_exp_sq(a: float, rho: float) -> float:
    """corr(e^{a z^2}, e^{a z'^2}) for an OU pair, a < 1/4: E e^{a(z^2 + z'^2)} = ((1-2a)^2 - 4a^2 rho^2)^(-1/2),
    E e^{a z^2} = (1-2a)^(-1/2), E e^{2a z^2} = (1-4a)^(-1/2) (Gaussian integrals)."""
    m1sq = 1 / (1 - 2 * a)
    cov = 1 / math.sqrt((1 - 2 * a) ** 2 - 4 * a * a * rho * rho) - m1sq
    var = 1 / math.sqrt(1 - 4 * a) - m1sq
    return cov / var


@pytest.mark.parametrize("dim,max_degree", [(1, 60), (2, 10), (4, 3)])   # adaptive, Gauss-Hermite, Monte Carlo
def test_infinite_variance_is_not_converged(dim: int, max_degree: int) -> None:
    sw = spectral_weights(exp_sq(0.25), dim, max_degree)
    assert not sw.converged
    assert "NOT CONVERGED" in sw.note and "square-integrable" in sw.note


def test_infinite_variance_gets_no_correlation() -> None:
    with pytest.raises(ValueError, match="did not converge"):
        ou_correlation(exp_sq(0.25), 0.5)
    with pytest.raises(ValueError, match="did not converge"):
        ou_correlation_report(exp_sq(0.25), 0.9)


def test_square_integrable_near_the_edge_still_converges_to_the_closed_form() -> None:
    for a, rho in ((0.2, 0.5), (0.2, 0.9), (0.1, 0.7)):
        rep = ou_correlation_report(exp_sq(a), rho)
        assert rep.spectral.converged
        exact = corr_exp_sq(a, rho)
        assert rep.lower - 1e-12 <= exact <= rep.upper + 1e-12, (a, rho, exact, rep.lower, rep.upper)


def test_tail_mass_is_exact_in_1d_for_a_constant_f_squared_phi() -> None:
    # f^2 phi = 1/sqrt(2 pi) for f = e^{z^2/4}: the mass on [R, 1.5R] and its mirror is R/sqrt(2 pi)
    R = 10.0
    assert tail_mass(exp_sq(0.25), 1, R)[0] == pytest.approx(R / math.sqrt(2 * math.pi), rel=1e-12)
    # and negligible for a polynomial
    assert tail_mass(lambda z: z[:, 0] ** 3, 1, R)[0] < 1e-15


def test_overflowing_f_is_a_clear_error_not_constant() -> None:
    with pytest.raises(ValueError, match="not square-integrable") as exc:
        ou_correlation_report(exp_sq(1.0), 0.5)
    assert "constant" not in str(exc.value)


def test_mc_needs_two_samples_per_block() -> None:
    with pytest.raises(ValueError, match="n_samples must be >= 2 \\* n_blocks"):
        ou_correlation_mc(np.tanh, 0.5, 1, n_samples=10, n_blocks=50)
    with pytest.raises(ValueError, match="zero sample variance"):
        ou_correlation_mc(lambda z: np.ones(len(z)), 0.5, 1, n_samples=1000)
    r, se = ou_correlation_mc(lambda z: z[:, 0], 0.5, 1, n_samples=100, n_blocks=50)
    assert math.isfinite(r) and math.isfinite(se)


def test_complex_f_is_an_error_not_truncated() -> None:
    with pytest.raises(ValueError, match="real-valued"):
        spectral_weights(lambda z: np.exp(1j * z[:, 0]), 1, 5)
    with pytest.raises(ValueError, match="real-valued"):
        ou_correlation_mc(lambda z: z[:, 0] + 1j, 0.5, 1, n_samples=1000)
    # a complex array with zero imaginary part is a real function
    a = spectral_weights(lambda z: np.tanh(z[:, 0]) + 0j, 1, 10).weights
    b = spectral_weights(lambda z: np.tanh(z[:, 0]), 1, 10).weights
    assert np.array_equal(a, b)


def test_huge_max_degree_names_the_limit() -> None:
    with pytest.raises(ValueError, match=f"max_degree must be <= {MAX_DEGREE}"):
        spectral_weights(np.tanh, 1, 10 ** 6)
    with pytest.raises(ValueError, match=f"<= {MAX_DEGREE}"):
        ou_correlation(np.tanh, 0.5, max_degree=10 ** 6)
    with pytest.raises(ValueError, match="MAX_COEFFICIENTS"):
        hermite_coefficients(lambda z: z[:, 0], 3, 200)
    spectral_weights(np.tanh, 1, MAX_DEGREE)          # the limit itself works
