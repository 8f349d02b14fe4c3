"""Hermite polynomials: recurrence vs numpy's Clenshaw, vs sympy, normalised form, multi-indices."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
from numpy.polynomial.hermite_e import hermeval

from pycheck.hermite import (CRAMER_K, hermite_e, hermite_e_all, hermite_e_at_zero, hermite_e_multi,
                             hermite_e_normalized, hermite_e_normalized_all, hermite_e_sympy,
                             multi_factorial, multi_indices, multi_indices_upto)
from pycheck.quadrature import gauss_hermite


def test_matches_numpy_hermeval() -> None:
    x = np.linspace(-6, 6, 97)
    for n in range(31):
        ref = hermeval(x, [0] * n + [1])
        assert np.allclose(hermite_e(n, x), ref, rtol=1e-12, atol=1e-12 * math.sqrt(math.factorial(n)))


def test_all_degrees_agree_with_single_degree() -> None:
    x = np.array([[-1.5, 0.25], [2.0, 3.5]])
    table = hermite_e_all(12, x)
    assert table.shape == (13, 2, 2)
    for n in range(13):
        assert np.array_equal(table[n], hermite_e(n, x))


def test_sympy_version_equals_sympy_hermite_prob() -> None:
    x = sp.Symbol("x")
    for n in range(21):
        assert sp.expand(hermite_e_sympy(n, x) - sp.hermite_prob(n, x)) == 0


def test_float_recurrence_exact_at_integers() -> None:
    """At integer x every step of the recurrence is an exact integer while below 2^53."""
    x = sp.Symbol("x")
    for n in range(16):
        poly = hermite_e_sympy(n, x)
        for xi in range(-4, 5):
            exact = int(poly.subs(x, xi))
            assert abs(exact) < 2 ** 53
            assert hermite_e(n, float(xi)) == exact


def test_normalized_form_to_degree_150() -> None:
    x = np.linspace(-20, 20, 801)
    h = hermite_e_normalized_all(150, x)
    assert np.all(np.isfinite(h))
    # Cramer's inequality |h_n(x)| <= K pi^(1/4) exp(x^2/4) for every n <= 150
    assert np.all(np.abs(h) <= CRAMER_K * math.pi ** 0.25 * np.exp(x * x / 4) * (1 + 1e-12))
    # agrees with He_n / sqrt(n!) where the latter is representable
    for n in (0, 1, 5, 40, 100, 150):
        ref = hermite_e(n, x) / math.sqrt(math.factorial(n))
        assert np.allclose(h[n], ref, rtol=1e-9, atol=1e-9 * np.max(np.abs(ref)))
    assert np.array_equal(hermite_e_normalized(150, x), h[150])


def test_orthonormality_by_gauss_hermite() -> None:
    """E[h_m h_n] = delta_mn for m, n <= 100 (Gauss-Hermite with 120 nodes is exact to degree 239)."""
    xg, wg = gauss_hermite(120)
    h = hermite_e_normalized_all(100, xg)
    gram = (h * wg) @ h.T
    assert np.max(np.abs(gram - np.eye(101))) < 1e-11


def test_values_at_zero() -> None:
    for n in range(30):
        assert hermite_e_at_zero(n) == hermite_e(n, 0.0)
        assert hermite_e_at_zero(n) == hermite_e_sympy(n).subs(sp.Symbol("x"), 0)


def test_multi_index_polynomials() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((7, 3))
    alpha = (2, 0, 3)
    ref = hermite_e(2, x[:, 0]) * hermite_e(3, x[:, 2])
    assert np.allclose(hermite_e_multi(alpha, x), ref)
    assert np.allclose(hermite_e_multi(alpha, x, normalized=True), ref / math.sqrt(multi_factorial(alpha)))
    assert multi_factorial(alpha) == 12


@pytest.mark.parametrize("dim,degree", [(1, 4), (2, 5), (3, 6), (5, 3)])
def test_multi_indices_count_and_sum(dim: int, degree: int) -> None:
    idx = list(multi_indices(dim, degree))
    assert len(idx) == len(set(idx)) == math.comb(dim + degree - 1, degree)
    assert all(len(a) == dim and sum(a) == degree and min(a) >= 0 for a in idx)
    upto = multi_indices_upto(dim, degree)
    assert len(upto) == math.comb(dim + degree, degree)
    assert [sum(a) for a in upto] == sorted(sum(a) for a in upto)


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="n must be an integer"):
        hermite_e(-1, 0.5)
    with pytest.raises(ValueError, match="n must be an integer"):
        hermite_e(2.5, 0.5)
    with pytest.raises(ValueError, match="last axis"):
        hermite_e_multi((1, 2), np.zeros((4, 3)))
