"""Theorem 4.1 cross-checks: corr <= rho, the alignment-loss bound and its equality case, on random
spectral weights and random finite Hermite encoders (hypothesis), and on concrete encoders."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pycheck.hermite import multi_indices_upto
from pycheck.spectral import hermite_coefficients, ou_correlation_report
from pycheck.theorem1 import (alignment_loss, alignment_loss_mc, correlation_gap_lower_bound,
                              encoder_from_coefficients, linear_encoder, loss_from_coefficients,
                              random_orthogonal, sign_encoder, sign_loss_exact, spiral,
                              unit_row_linear, whiten, whiten_coefficients)

rhos = st.floats(min_value=0.01, max_value=0.99)


# ---- random spectral weights -------------------------------------------------------------------

@st.composite
def spectral_weight_vectors(draw: st.DrawFn) -> np.ndarray:
    """w >= 0, w_0 = 0, sum 1; sometimes all mass on degree 1, sometimes almost all."""
    kind = draw(st.sampled_from(["random", "linear", "near-linear"]))
    D = draw(st.integers(min_value=1, max_value=30))
    if kind == "linear":
        w = np.zeros(D + 1)
        w[1] = 1.0
        return w
    raw = np.array(draw(st.lists(st.floats(0, 1), min_size=D, max_size=D)))
    if kind == "near-linear":
        raw = raw * 1e-6
        raw[0] = 1.0
    if raw.sum() == 0:
        raw[-1] = 1.0
    return np.concatenate([[0.0], raw / raw.sum()])


@settings(max_examples=300, derandomize=True, deadline=None)
@given(w=spectral_weight_vectors(), rho=rhos)
def test_mehler_correlation_at_most_rho(w: np.ndarray, rho: float) -> None:
    """sum_d w_d rho^d <= rho, equality iff w_1 = 1; quantitatively rho - corr >= rho(1-rho)(1-w_1)."""
    corr = float(w @ rho ** np.arange(w.size))
    assert corr <= rho + 1e-15
    gap = rho - corr
    assert gap >= correlation_gap_lower_bound(w[1], rho) - 1e-15
    if w[1] == 1.0:
        assert abs(gap) <= 1e-15
    else:
        assert gap > 0


# ---- random finite Hermite-coefficient encoders ------------------------------------------------

@st.composite
def coefficient_encoders(draw: st.DrawFn) -> tuple[np.ndarray, list, np.ndarray, bool]:
    """Random (k = n) x C(n+D, D) coefficient matrices, whitened; 'linear' ones have degree 1 only."""
    n = draw(st.integers(1, 3))
    D = draw(st.integers(1, 4))
    idx = multi_indices_upto(n, D)
    deg = np.array([sum(a) for a in idx])
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    linear = draw(st.booleans()) or D == 1
    B = rng.standard_normal((n, len(idx)))
    if linear:
        B[:, deg != 1] = 0.0
    else:
        scale = draw(st.sampled_from([1.0, 0.1, 1e-3]))
        B[:, deg >= 2] *= scale
        B[:, deg >= 2] += 0.01 * (np.abs(B[:, deg >= 2]) < 1e-12)   # never all zero
    B[:, deg == 1] += 3 * np.eye(n)[:, : n]                              # keep B B^T invertible
    return whiten_coefficients(B, deg), idx, deg, linear


@settings(max_examples=200, derandomize=True, deadline=None)
@given(enc=coefficient_encoders(), rho=rhos)
def test_loss_bound_random_hermite_encoders(enc: tuple, rho: float) -> None:
    B, idx, deg, linear = enc
    n = B.shape[0]
    assert np.allclose(B @ B.T, np.eye(n), atol=1e-10)                  # whitened
    loss = loss_from_coefficients(B, deg, rho)
    bound = 2 * (1 - rho) * n
    high = float(np.sum(B[:, deg >= 2] ** 2))                          # variance above degree 1
    assert loss >= bound - 1e-10
    # exact identity behind the bound: L - bound = 2 sum_{|a|>=2} (rho - rho^|a|) ||b_a||^2
    assert loss - bound >= 2 * (rho - rho ** 2) * high - 1e-10
    if linear:
        A = B[:, deg == 1]                                              # h = A z
        assert np.allclose(A @ A.T, np.eye(n), atol=1e-10)              # orthogonal
        assert abs(loss - bound) <= 1e-10
    else:
        assert high > 0 and loss - bound > 0


def test_random_encoder_quadrature_and_mc_agree_with_exact_loss() -> None:
    rng = np.random.default_rng(5)
    for n, D in [(1, 5), (2, 3), (3, 2)]:
        idx = multi_indices_upto(n, D)
        deg = np.array([sum(a) for a in idx])
        B = rng.standard_normal((n, len(idx)))
        B[:, deg == 1] += 2 * np.eye(n)
        B = whiten_coefficients(B, deg)
        h = encoder_from_coefficients(B, idx)
        exact = loss_from_coefficients(B, deg, 0.8)
        L = alignment_loss(h, n, 0.8, D)
        assert L.lower - 1e-9 <= exact <= L.upper + 1e-9 and L.upper - L.lower < 1e-9
        assert L.whitening_error < 1e-9
        m, se = alignment_loss_mc(h, n, 0.8, 100_000, seed=n)
        assert abs(m - exact) <= 6 * se


# ---- concrete encoders ---------------------------------------------------------------------------

RHO = 0.9


def test_orthogonal_encoder_attains_bound() -> None:
    for n in (1, 2, 3):
        Q = random_orthogonal(n, seed=n)
        assert np.allclose(Q @ Q.T, np.eye(n))
        L = alignment_loss(linear_encoder(Q), n, RHO, 2)
        assert abs(L.value - 2 * (1 - RHO) * n) < 1e-10 and np.allclose(L.w1, 1)


def test_unit_row_linear_attains_bound_without_being_orthogonal() -> None:
    """Unit variance per component is enough for the bound and for equality, but not for h = Qz."""
    A = np.array([[1.0, 0.6], [-0.4, 1.3]])
    L = alignment_loss(unit_row_linear(A), 2, RHO, 2)
    assert abs(L.value - L.bound) < 1e-10 and abs(L.bound - 2 * (1 - RHO) * 2) < 1e-12
    assert L.whitening_error > 0.1                                      # Cov != I: not orthogonal
    W = whiten(linear_encoder(A), 2)
    M = W.W @ A                                                         # whitened linear map
    assert np.allclose(M @ M.T, np.eye(2), atol=1e-10)


def test_nonlinear_whitened_encoders_strictly_above() -> None:
    A = np.array([[1.0, 0.6], [-0.4, 1.3]])
    poly = lambda x: np.stack([x[:, 0] + 0.5 * x[:, 1] ** 2, x[:, 1] + 0.2 * x[:, 0] ** 3], 1)  # noqa: E731
    for h, D in [(poly, 6), (lambda x: np.tanh(x @ A.T), 30)]:
        W = whiten(h, 2)
        L = alignment_loss(W.encoder, 2, RHO, D)
        assert L.whitening_error < 1e-8
        assert L.gap_lower > 0.01
        assert np.all(L.corr_upper < RHO)
        m, se = alignment_loss_mc(W.encoder, 2, RHO, 100_000, seed=1)
        assert L.lower - 6 * se <= m <= L.upper + 6 * se


def test_sign_encoder_closed_form() -> None:
    """sign(Qz): whitened, loss 2n(1 - (2/pi) asin rho) > 2(1-rho)n; spectral (2-D, breakpoint at
    the axes) and Monte Carlo agree with the closed form."""
    n = 2
    ref = sign_loss_exact(n, RHO)
    assert ref > 2 * (1 - RHO) * n + 0.5
    L = alignment_loss(np.sign, n, RHO, 60, method="composite", breakpoints=(0.0,), n_panels=40,
                       order=16)
    assert L.lower - 1e-9 <= ref <= L.upper + 1e-9
    assert L.whitening_error < 1e-9
    Q = random_orthogonal(n, seed=9)
    m, se = alignment_loss_mc(sign_encoder(Q), n, RHO, 100_000, seed=2)
    assert abs(m - ref) <= 6 * se
    rep = ou_correlation_report(np.sign, RHO, 1, max_degree=100)        # per component, 1-D
    assert 2 * n * (1 - rep.upper) - 1e-12 <= ref <= 2 * n * (1 - rep.lower) + 1e-12
    assert rep.upper - rep.lower < 2e-6


def test_spiral_is_measure_preserving_and_strictly_above() -> None:
    hc = hermite_coefficients(spiral, 2, 4, n_nodes=120)
    cov = hc.second_moment - np.outer(hc.mean, hc.mean)
    assert np.allclose(hc.mean, 0, atol=1e-12) and np.allclose(cov, np.eye(2), atol=1e-12)
    rng = np.random.default_rng(0)
    z = rng.standard_normal((200_000, 2))
    g = spiral(z)
    assert np.allclose(np.linalg.norm(g, axis=1), np.linalg.norm(z, axis=1))
    # fourth moments of a N(0, I) vector: E g1^4 = 3, E g1^2 g2^2 = 1 (6-sigma)
    for v, ref in [(g[:, 0] ** 4, 3.0), (g[:, 0] ** 2 * g[:, 1] ** 2, 1.0)]:
        assert abs(v.mean() - ref) <= 6 * v.std() / math.sqrt(v.size)
    L = alignment_loss(spiral, 2, RHO, 40, n_nodes=120)
    assert L.gap_lower > 1.0                                           # far above 2(1-rho)n = 0.4
    m, se = alignment_loss_mc(spiral, 2, RHO, 100_000, seed=3)
    assert L.lower - 6 * se <= m <= L.upper + 6 * se


def test_affine_corr_equals_rho_nonaffine_below() -> None:
    for f, affine in [(lambda z: 2 * z[:, 0] + 1, True), (np.tanh, False),
                      (lambda z: z[:, 0] + 0.1 * z[:, 0] ** 2, False)]:
        rep = ou_correlation_report(f, 0.6, 1, max_degree=60)
        if affine:
            assert abs(rep.value - 0.6) < 1e-12
        else:
            assert rep.upper < 0.6 - correlation_gap_lower_bound(rep.spectral.weights[1], 0.6) + 1e-12


def test_check_rows_all_pass_and_fast() -> None:
    from pycheck.checks.theorem1 import rows

    t0 = time.process_time()
    out = rows()
    assert len(out) >= 25
    assert all(r.passed for r in out), [r for r in out if not r.passed]
    assert time.process_time() - t0 < 10.0


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="rho"):
        alignment_loss(spiral, 2, 1.0)
    with pytest.raises(ValueError, match="rho"):
        alignment_loss_mc(spiral, 2, 0.0)
    with pytest.raises(ValueError, match="shape"):
        spiral(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="singular"):
        whiten(lambda z: np.stack([z[:, 0], z[:, 0]], 1), 2)
    with pytest.raises(ValueError, match="non-finite"):
        alignment_loss(lambda z: np.where(z > 5, np.nan, z), 2, 0.5, 3)
    with pytest.raises(ValueError, match="dim"):
        alignment_loss(spiral, 0, 0.5)
