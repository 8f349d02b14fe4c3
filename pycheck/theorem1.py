"""Theorem 4.1 of the paper at the level of encoders: alignment loss, its bound, the equality case.

Setting: z ~ N(0, I_n), OU pair ``z' = rho z + sqrt(1 - rho^2) eta``, encoder h: R^n -> R^k.
Write ``h_i = sum_alpha b_{i,alpha} h_alpha`` (orthonormal Hermite basis, see :mod:`pycheck.spectral`).

* Alignment loss (Mehler): ``L(h) = E||h(z') - h(z)||^2 = 2 sum_alpha (1 - rho^{|alpha|}) ||b_alpha||^2``
  (the alpha = 0 term, the mean, drops out).
* Bound: every |alpha| >= 1 has ``1 - rho^{|alpha|} >= 1 - rho``, so
  ``L(h) >= 2 (1 - rho) sum_{alpha != 0} ||b_alpha||^2 = 2 (1 - rho) tr Cov(h(z))``,
  with equality iff every component has all its variance in degree 1, i.e. h is affine.
  Per component: ``corr_i = sum_d w_{i,d} rho^d <= rho``, and quantitatively
  ``rho - corr_i >= rho (1 - rho) (1 - w_{i,1})`` (since rho^d <= rho^2 for d >= 2).

What "whitened" means here: **E h(z) = 0 and Cov h(z) = I_k**. The inequality
``L >= 2 (1 - rho) k`` needs only mean 0 and unit variance per component (tr Cov = k); the
characterisation of the equality case as ``h(z) = Q z`` with Q Q^T = I needs the full Cov = I:
an affine h with unit-variance but correlated components, ``h = A z`` with unit-norm rows,
also attains ``2 (1 - rho) k`` (see :func:`unit_row_linear`), and A is not orthogonal.
The paper's LeJEPA constraint ``h(z) ~ N(0, I)`` implies whitened in this sense.

Everything here is computed through :func:`pycheck.spectral.hermite_coefficients` (quadrature in
dim <= 3) with the truncation at ``max_degree`` carried as an interval, and by direct Monte Carlo
(:func:`alignment_loss_mc`) for comparison.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from pycheck._validate import check_finite_array, check_int, check_rho
from pycheck.hermite import hermite_e_normalized_all
from pycheck.spectral import (HermiteCoefficients, _default_degree, evaluate, hermite_coefficients,
                              ou_pair)

Encoder = Callable[[np.ndarray], np.ndarray]


# --------------------------------------------------------------------------------------------
# encoders
# --------------------------------------------------------------------------------------------

def random_orthogonal(n: int, seed: int = 0) -> np.ndarray:
    """A Haar-random orthogonal n x n matrix (QR of a Gaussian matrix, signs fixed by diag R)."""
    n = check_int(n, "n", 1)
    g = np.random.default_rng(check_int(seed, "seed", 0)).standard_normal((n, n))
    q, r = np.linalg.qr(g)
    return q * np.sign(np.diag(r))


def linear_encoder(A: Any) -> Encoder:
    """``h(z) = A z`` (applied to rows: points of shape (N, n) -> (N, k))."""
    A = check_finite_array(A, "A")
    if A.ndim != 2:
        raise ValueError(f"A must be a matrix, got shape {A.shape}")
    return lambda z: np.asarray(z, dtype=float) @ A.T


def unit_row_linear(A: Any) -> Encoder:
    """``h(z) = D A z`` with D making every row of DA unit-norm: unit-variance, correlated components."""
    A = check_finite_array(A, "A")
    return linear_encoder(A / np.linalg.norm(A, axis=1, keepdims=True))


def spiral(z: np.ndarray) -> np.ndarray:
    """The measure-preserving spiral ``g(z) = R(pi ||z||) z`` on R^2 (R(t): rotation by angle t).

    It preserves N(0, I_2) (it keeps ||z|| and rotates by an angle depending only on ||z||, and
    N(0, I_2) is rotation invariant), so ``g(z) ~ N(0, I_2)``: whitened, Gaussian marginal, yet not
    linear. It is smooth (cos(pi r) and sin(pi r)/r are even power series in r).
    """
    z = np.asarray(z, dtype=float)
    if z.ndim != 2 or z.shape[1] != 2:
        raise ValueError(f"spiral acts on points of shape (N, 2), got {z.shape}")
    t = math.pi * np.sqrt(np.sum(z * z, axis=1))
    c, s = np.cos(t), np.sin(t)
    return np.stack([c * z[:, 0] - s * z[:, 1], s * z[:, 0] + c * z[:, 1]], axis=1)


def sign_encoder(Q: Any) -> Encoder:
    """``h(z) = sign(Q z)``. For orthogonal Q it is whitened: each ``q_i . z`` ~ N(0, 1), so
    sign(q_i . z) has mean 0 and variance 1, and ``E[sign(u) sign(v)] = (2/pi) arcsin(q_i . q_j) = 0``
    for i != j. Its loss is ``2 k (1 - (2/pi) arcsin rho)`` exactly (see :func:`sign_loss_exact`)."""
    Q = check_finite_array(Q, "Q")
    return lambda z: np.sign(np.asarray(z, dtype=float) @ Q.T)


def sign_loss_exact(k: int, rho: float) -> float:
    """Closed form ``L(sign(Q z)) = 2 k (1 - (2/pi) arcsin rho)`` for orthogonal Q (Sheppard's formula:
    ``P(u > 0, u' > 0) = 1/4 + arcsin(rho) / (2 pi)`` for a standard bivariate normal pair)."""
    rho = check_rho(rho)
    return 2.0 * check_int(k, "k", 1) * (1.0 - 2.0 / math.pi * math.asin(rho))


@dataclass(frozen=True)
class Whitened:
    """``h_w(z) = W (h(z) - mu)`` with ``W = Cov(h)^{-1/2}`` (symmetric); ``encoder`` is h_w."""

    encoder: Encoder
    mean: np.ndarray
    W: np.ndarray
    cov: np.ndarray


def _inv_sqrt_psd(C: np.ndarray, message: str) -> np.ndarray:
    """``C^{-1/2}`` of a symmetric PSD matrix by eigendecomposition; ValueError(message) if C is
    singular (smallest eigenvalue <= 1e-12 of the largest)."""
    vals, vecs = np.linalg.eigh(C)
    if vals.min() <= 1e-12 * max(vals.max(), 1e-300):
        raise ValueError(message)
    return (vecs / np.sqrt(vals)) @ vecs.T


def whiten(h: Encoder, dim: int, **options: Any) -> Whitened:
    """Whiten h: E h_w = 0 and Cov h_w = I, the moments computed by quadrature (dim <= 3) or Monte
    Carlo, see :func:`pycheck.spectral.hermite_coefficients` (options are passed on)."""
    hc = hermite_coefficients(h, dim, 0, **options)
    mu = hc.coeffs[:, 0]
    cov = hc.second_moment - np.outer(mu, mu)
    W = _inv_sqrt_psd(cov, "Cov h(z) is singular: h cannot be whitened")

    def hw(z: np.ndarray) -> np.ndarray:
        return (evaluate(h, np.asarray(z, dtype=float), name="h") - mu) @ W.T

    return Whitened(hw, mu, W, cov)


# --------------------------------------------------------------------------------------------
# loss through the spectral expansion
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class AlignmentLoss:
    """``L(h) = E||h(z') - h(z)||^2`` through the Hermite expansion, as an interval.

    ``lower <= L <= upper`` up to the quadrature error (included): the part above max_degree
    contributes ``2 sum_{|alpha| > D} (1 - rho^{|alpha|}) ||b_alpha||^2``, between
    ``2 (1 - rho^{D+1}) R`` and ``2 R`` with R the variance above D. ``bound = 2 (1 - rho) tr Cov h``
    (``= 2 (1 - rho) k`` when whitened). ``corr`` are the per-component correlation intervals.
    """

    lower: float
    upper: float
    bound: float
    rho: float
    cov: np.ndarray
    mean: np.ndarray
    corr_lower: np.ndarray
    corr_upper: np.ndarray
    w1: np.ndarray                    #: per-component degree-1 weight (fraction of variance)
    residual: float                   #: variance above max_degree, summed over components
    coefficients: HermiteCoefficients = field(repr=False)

    @property
    def value(self) -> float:
        """Midpoint of [lower, upper]."""
        return 0.5 * (self.lower + self.upper)

    @property
    def whitening_error(self) -> float:
        """``epsilon = ||Cov h - I||_F`` (paper Thm 4.3)."""
        return float(np.linalg.norm(self.cov - np.eye(self.cov.shape[0])))

    @property
    def gap_lower(self) -> float:
        """Lower end of ``L - bound`` (> 0 proves strict inequality, up to quadrature error)."""
        return self.lower - self.bound


def loss_from_coefficients(B: Any, degrees: Any, rho: float) -> float:
    """Exact loss ``2 sum_alpha (1 - rho^{|alpha|}) ||b_alpha||^2`` of a finite Hermite expansion.

    ``B`` has shape (k, n_alpha) (coefficients in the orthonormal basis), ``degrees`` the |alpha| of
    each column.
    """
    rho = check_rho(rho)
    B = check_finite_array(B, "B")
    deg = np.asarray(degrees)
    if B.ndim != 2 or deg.shape != (B.shape[1],):
        raise ValueError(f"B must be (k, n_alpha) and degrees (n_alpha,), got {B.shape}, {deg.shape}")
    return float(2.0 * np.sum((1.0 - rho ** deg) * np.sum(B * B, axis=0)))


def whiten_coefficients(B: Any, degrees: Any) -> np.ndarray:
    """Whiten a finite expansion: zero the alpha = 0 column (mean) and map B -> (B B^T)^{-1/2} B,
    which makes ``Cov h = sum_{alpha != 0} b_alpha b_alpha^T = I``."""
    B = check_finite_array(B, "B").copy()
    deg = np.asarray(degrees)
    B[:, deg == 0] = 0.0
    return _inv_sqrt_psd(B @ B.T, "B B^T is singular: the expansion cannot be whitened") @ B


def encoder_from_coefficients(B: Any, indices: list[tuple[int, ...]]) -> Encoder:
    """The map ``z -> sum_alpha b_alpha h_alpha(z)`` (k outputs) for a finite coefficient matrix."""
    B = check_finite_array(B, "B")
    A = np.array(indices)
    D = int(A.sum(axis=1).max())

    def h(z: np.ndarray) -> np.ndarray:
        z = np.asarray(z, dtype=float)
        H = hermite_e_normalized_all(D, z)                 # (D+1, N, n)
        ha = np.ones((A.shape[0], z.shape[0]))
        for j in range(A.shape[1]):
            ha *= H[A[:, j], :, j]
        return (B @ ha).T

    return h


def alignment_loss(h: Encoder, dim: int, rho: float, max_degree: int | None = None,
                   **options: Any) -> AlignmentLoss:
    """``E||h(z') - h(z)||^2`` and its bound through the Hermite coefficients of h (quadrature).

    Default max_degree: 60 (1-D), 30 (2-D), 10 (3-D). Options go to
    :func:`pycheck.spectral.hermite_coefficients`.
    """
    rho = check_rho(rho)
    dim = check_int(dim, "dim", 1)
    D = _default_degree(dim) if max_degree is None else check_int(max_degree, "max_degree", 0)
    hc = hermite_coefficients(h, dim, D, **options)
    b, be, deg = hc.coeffs, hc.coeff_error, hc.degrees
    mu = b[:, 0]
    m2 = hc.second_moment
    cov = m2 - np.outer(mu, mu)
    var = np.diag(cov)
    powers = rho ** deg
    sq = hc.coeff_sq                     # b^2 (quadrature) or its unbiased estimate (Monte Carlo)
    sq_err = 2 * np.abs(b) * be + be * be
    captured = (sq * (deg > 0)).sum(axis=1)                         # per component, degrees 1..D
    resid = np.maximum(var - captured, 0.0)
    err = (sq_err * (deg > 0)).sum(axis=1) + np.diag(hc.second_moment_error) + 2 * np.abs(mu) * be[:, 0]
    s = (sq * powers * (deg > 0)).sum(axis=1)                         # sum_{1<=|a|<=D} rho^|a| b^2
    s_err = (sq_err * powers * (deg > 0)).sum(axis=1)
    corr_lo = (s - s_err) / var
    corr_hi = (s + s_err + rho ** (D + 1) * (resid + err)) / var
    body = 2.0 * ((1.0 - powers) * sq * (deg > 0)).sum()
    body_err = 2.0 * (((1.0 - powers) * sq_err) * (deg > 0)).sum()
    R, Re = float(resid.sum()), float(err.sum())
    lower = body - body_err + 2.0 * (1.0 - rho ** (D + 1)) * max(R - Re, 0.0)
    upper = body + body_err + 2.0 * (R + Re)
    w1 = (sq * (deg == 1)).sum(axis=1) / var
    bound = 2.0 * (1.0 - rho) * float(np.trace(cov))
    return AlignmentLoss(float(lower), float(upper), bound, rho, cov, mu, corr_lo, corr_hi, w1, R, hc)


def alignment_loss_mc(h: Encoder, dim: int, rho: float, n_samples: int = 200_000,
                      seed: int = 0) -> tuple[float, float]:
    """Direct Monte Carlo ``mean ||h(z') - h(z)||^2`` over OU pairs and its standard error."""
    rho = check_rho(rho)
    dim = check_int(dim, "dim", 1)
    rng = np.random.default_rng(check_int(seed, "seed", 0))
    z, zp = ou_pair(check_int(n_samples, "n_samples", 2), dim, rho, rng)
    d = evaluate(h, zp, name="h") - evaluate(h, z, name="h")
    v = np.sum(d * d, axis=1)
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(v.size))


def correlation_gap_lower_bound(w1: float, rho: float) -> float:
    """``rho (1 - rho) (1 - w_1) <= rho - corr`` for any f with degree-1 weight w_1."""
    rho = check_rho(rho)
    return rho * (1.0 - rho) * (1.0 - float(w1))
