"""Statement fidelity for `Lejepa/Dirichlet.lean` (appendix: Dirichlet energy).

Lean statements mirrored here:
* `card_le_sum_of_prod_eq_one` / `eq_one_of_sum_eq_card`: x_i >= 0, prod x_i = 1 ==> sum x_i >= #s,
  with equality iff all x_i = 1;
* `card_le_frobSq_of_abs_det_eq_one`: |det J| = 1 ==> sum_ij J_ij^2 >= n;
* `frobSq_eq_card_iff`: under |det J| = 1, equality iff J J^T = I;
* `card_mul_abs_det_rpow_le_frobSq`: n |det J|^(2/n) <= sum_ij J_ij^2 (n >= 1);
* `one_le_integral_exp`: E g = 0 ==> E exp g >= 1 (any probability measure; an empirical measure
  is one, so the inequality is exact on samples);
* `one_le_integral_rpow_of_integral_log_eq_zero`, `card_le_integral_frobSq`:
  E log|det J| = 0 ==> E |det J|^(2/n) >= 1 and E ||J||_F^2 >= n.
Essential hypotheses are broken on purpose: |det J| != 1, and E log|det J| < 0.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import ortho_group

seeds = st.integers(0, 100_000)


def frob_sq(j: np.ndarray) -> float:
    return float(np.sum(j**2))


def unit_det(rng: np.random.Generator, n: int) -> np.ndarray:
    """Random real n x n matrix rescaled to |det| = 1."""
    a = rng.normal(size=(n, n))
    return a / abs(np.linalg.det(a)) ** (1.0 / n)


@settings(derandomize=True, max_examples=40, deadline=None)
@given(seed=seeds, k=st.integers(1, 8))
def test_product_one_sum_at_least_card(seed: int, k: int) -> None:
    rng = np.random.default_rng(seed)
    x = np.exp(rng.normal(size=k))
    x /= np.prod(x) ** (1.0 / k)
    assert abs(np.prod(x) - 1) < 1e-9
    assert x.sum() >= k - 1e-12
    if np.max(np.abs(x - 1)) > 1e-3:
        assert x.sum() > k + 1e-9          # equality only at all-ones


@settings(derandomize=True, max_examples=40, deadline=None)
@given(seed=seeds, n=st.integers(1, 6))
def test_unit_det_frobenius_at_least_n(seed: int, n: int) -> None:
    j = unit_det(np.random.default_rng(seed), n)
    assert abs(abs(np.linalg.det(j)) - 1) < 1e-9
    assert frob_sq(j) >= n - 1e-9


@settings(derandomize=True, max_examples=30, deadline=None)
@given(seed=seeds, n=st.integers(2, 6))
def test_equality_iff_orthogonal(seed: int, n: int) -> None:
    q = ortho_group.rvs(n, random_state=seed)
    assert abs(frob_sq(q) - n) < 1e-9
    np.testing.assert_allclose(q @ q.T, np.eye(n), atol=1e-10)
    # |det| = 1 but not orthogonal: strictly above n, and J J^T != I
    rng = np.random.default_rng(seed)
    t = float(rng.uniform(1.2, 3.0))
    d = np.diag([t, 1.0 / t] + [1.0] * (n - 2))
    j = q @ d
    assert abs(abs(np.linalg.det(j)) - 1) < 1e-9
    assert frob_sq(j) > n + 1e-3
    assert np.max(np.abs(j @ j.T - np.eye(n))) > 1e-3


def test_det_hypothesis_is_essential() -> None:
    """|det J| != 1: Frobenius^2 can be below n (J = I/2)."""
    for n in (1, 2, 5):
        j = 0.5 * np.eye(n)
        assert frob_sq(j) < n


@settings(derandomize=True, max_examples=40, deadline=None)
@given(seed=seeds, n=st.integers(1, 6), scale=st.floats(0.05, 5.0, allow_nan=False))
def test_general_amgm_pointwise(seed: int, n: int, scale: float) -> None:
    j = scale * np.random.default_rng(seed).normal(size=(n, n))
    lhs = n * abs(np.linalg.det(j)) ** (2.0 / n)
    assert lhs <= frob_sq(j) * (1 + 1e-10) + 1e-12


@settings(derandomize=True, max_examples=30, deadline=None)
@given(seed=seeds, m=st.integers(2, 200), sd=st.floats(0.01, 3.0, allow_nan=False))
def test_jensen_exp_on_empirical_measure(seed: int, m: int, sd: float) -> None:
    g = np.random.default_rng(seed).normal(scale=sd, size=m)
    g -= g.mean()                                   # integral of g is 0 under the empirical measure
    assert np.mean(np.exp(g)) >= 1 - 1e-12
    # without the mean-zero hypothesis it can fail: shift g so that E exp g = e^-0.1 (then E g < 0)
    h = g - np.log(np.mean(np.exp(g))) - 0.1
    assert h.mean() < 0 and np.mean(np.exp(h)) < 1


@settings(derandomize=True, max_examples=20, deadline=None)
@given(seed=seeds, n=st.integers(1, 5))
def test_integrated_bound_with_mean_log_det_zero(seed: int, n: int) -> None:
    """card_le_integral_frobSq on an empirical measure of random matrices normalised so that
    mean log|det J| = 0; and shrinking the matrices (mean log|det J| < 0) breaks it."""
    rng = np.random.default_rng(seed)
    js = rng.normal(size=(64, n, n))
    logdet = np.log(np.abs(np.linalg.det(js)))
    js = js / np.exp(logdet.mean() / n)             # now mean log|det| = 0
    logdet = np.log(np.abs(np.linalg.det(js)))
    assert abs(logdet.mean()) < 1e-9
    assert np.mean(np.abs(np.linalg.det(js)) ** (2.0 / n)) >= 1 - 1e-9
    energy = np.mean(np.sum(js**2, axis=(1, 2)))
    assert energy >= n - 1e-9
    # breaking E log|det J| = 0: orthogonal matrices shrunk by 1/2 (E log|det| = n log 1/2 < 0)
    qs = np.array([0.5 * ortho_group.rvs(n, random_state=seed + i) if n > 1 else 0.5 * np.eye(1)
                   for i in range(8)])
    assert np.mean(np.log(np.abs(np.linalg.det(qs)))) < 0
    assert np.mean(np.sum(qs**2, axis=(1, 2))) < n


@settings(derandomize=True, max_examples=20, deadline=None)
@given(seed=seeds, n=st.integers(1, 6), m=st.integers(1, 50))
def test_identity_jacobian_witness(seed: int, n: int, m: int) -> None:
    """card_le_integral_frobSq_witness: J(omega) = I on an m-point probability space (random
    weights) has det 1 != 0, E log|det J| = 0 and E ||J||_F^2 = n exactly: the hypotheses hold and
    the bound n <= E ||J||_F^2 is attained. Perturbed: J = diag(2, 1/2, 1, ...) (det 1, n >= 2)
    keeps the hypotheses but is strictly above n; J = 2 I breaks E log|det J| = 0."""
    rng = np.random.default_rng(seed)
    w = rng.random(m) + 0.1
    w /= w.sum()
    js = np.broadcast_to(np.eye(n), (m, n, n))
    dets = np.linalg.det(js)
    assert np.all(dets != 0)
    assert abs(float(w @ np.log(np.abs(dets)))) == 0.0
    assert abs(float(w @ np.abs(dets) ** (2.0 / n)) - 1.0) < 1e-12
    assert abs(float(w @ np.array([frob_sq(j) for j in js])) - n) < 1e-12
    if n >= 2:
        d = np.eye(n)
        d[0, 0], d[1, 1] = 2.0, 0.5
        assert abs(np.linalg.det(d) - 1.0) < 1e-12
        assert frob_sq(d) > n + 1.0
    assert abs(np.log(abs(np.linalg.det(2 * np.eye(n))))) > 0.5
