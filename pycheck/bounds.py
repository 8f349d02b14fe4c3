"""Approximate identifiability (Theorem 4.3 of the paper): the bound, exact population values for
polynomial encoders, and estimates with confidence intervals from an encoder's samples.

World model: z ~ N(0, I_n), z' = rho z + sqrt(1 - rho^2) eta with eta ~ N(0, I_n) independent, 0 < rho < 1.
For an encoder h: R^n -> R^n,

* alignment loss          L = E ||h(z') - h(z)||^2
* paper's gap             delta_n  = L - 2 (1 - rho) n
* trace gap               delta_tr = L - 2 (1 - rho) tr Cov h(z)
* whitening error         epsilon  = ||Cov h(z) - I_n||_F
* normalised gap          D = delta / (2 rho (1 - rho))           (with either delta)
* paper's bound           D + (epsilon + D)^2                      (paper: with delta_n, mean zero)
* corrected bound         ||mu||^2 + D_tr + (epsilon + D_tr)^2     (what ``Lejepa.Approx`` proves)
* recovery error          err(Q) = E ||h(z) - Q z||^2,  Q orthogonal.

Polynomial encoders (:class:`HermiteEncoder`) are given by probabilists' Hermite coefficients
``h_i(z) = sum_alpha c_i(alpha) He_alpha(z)``, ``He_alpha(z) = prod_j He_{alpha_j}(z_j)``. Since
E[He_alpha He_beta] = [alpha = beta] alpha! and (Mehler) E[He_alpha(z) He_beta(z')] = [alpha = beta] alpha! rho^|alpha|,
every quantity above has a closed form in the coefficients (:func:`population`):
mu_i = c_i(0), A_ij = c_i(e_j) = E[h_i(z) z_j], N = sum_i sum_{|alpha|>=2} c_i(alpha)^2 alpha!,
Cov_ik = sum_{|alpha|>=1} c_i(alpha) c_k(alpha) alpha!, L = sum_i sum_{|alpha|>=1} 2 c_i(alpha)^2 alpha! (1 - rho^|alpha|),
err(Q) = ||mu||^2 + ||A - Q||_F^2 + N. :func:`quadrature_values` evaluates the same quantities from the
polynomial itself by tensor Gauss-Hermite quadrature (exact for these degrees), as an independent check.

From samples (:func:`estimate_from_samples`) every quantity is a smooth function of sample moments; its
confidence interval is the normal-approximation bootstrap interval ``value +- z_score * se`` where ``se`` is
the standard deviation over ``n_boot`` nonparametric bootstrap resamples of the pairs (fixed seed). "The
bound holds" means: the lower confidence limit of ``margin = bound - err`` is >= 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np
from numpy.polynomial import hermite_e
from scipy import linalg
from scipy.special import factorial

from pycheck._validate import check_finite_array, check_int, check_nonneg, check_rho
from pycheck.hermite import multi_indices_upto
from pycheck.quadrature import gauss_hermite_grid
from pycheck.spectral import ou_pair

__all__ = [
    "normalized_gap", "approx_bound", "bound_formula", "corrected_bound", "paper_bound",
    "multi_indices", "HermiteEncoder", "Population", "population", "procrustes", "recovery_error",
    "gauss_hermite_expectation", "quadrature_values", "sample_ou_pairs", "Estimate", "SampleEstimates",
    "estimate_from_samples",
]


# ----------------------------------------------------------------------------------------------
# The bound
# ----------------------------------------------------------------------------------------------

def _check_rho_array(rho: Any) -> np.ndarray:
    try:
        r = None if isinstance(rho, (str, bytes)) else np.asarray(rho, dtype=float)
    except (TypeError, ValueError):
        r = None
    if r is None:
        raise ValueError(f"rho must be a real number in (0, 1), got {rho!r}")
    if r.ndim == 0:
        return np.asarray(check_rho(float(r)))
    if not np.all(np.isfinite(r)) or not np.all((r > 0) & (r < 1)):
        raise ValueError("rho must lie in the open interval (0, 1) (every entry)")
    return r


def _check_nonneg_array(x: Any, name: str) -> np.ndarray:
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be finite number(s) >= 0, got {x!r}") from None
    if a.ndim == 0:
        return np.asarray(check_nonneg(float(a), name))
    check_finite_array(a, name)
    if np.any(a < 0):
        raise ValueError(f"{name} must be >= 0 (every entry); smallest entry is {a.min()!r}")
    return a


def _out(x: np.ndarray) -> float | np.ndarray:
    return float(x) if np.ndim(x) == 0 else x


def normalized_gap(delta: Any, rho: Any) -> float | np.ndarray:
    """D = delta / (2 rho (1 - rho)). ``delta >= 0`` finite, ``rho`` in (0, 1); broadcasts over arrays."""
    d = _check_nonneg_array(delta, "delta")
    r = _check_rho_array(rho)
    return _out(d / (2.0 * r * (1.0 - r)))


def bound_formula(D: Any, epsilon: Any) -> float | np.ndarray:
    """D + (epsilon + D)^2, with no validation (D may be negative: used to evaluate the paper's form
    with a negative delta_n and for sample estimates, which are not clamped)."""
    D = np.asarray(D, dtype=float)
    e = np.asarray(epsilon, dtype=float)
    return _out(D + (e + D) ** 2)


def approx_bound(delta: Any, epsilon: Any, rho: Any) -> float | np.ndarray:
    """Theorem 4.3's right-hand side D + (epsilon + D)^2 with D = delta / (2 rho (1 - rho)).

    ``delta`` and ``epsilon`` must be finite and >= 0, ``rho`` in the open interval (0, 1), else
    ValueError. Scalars give a float; arrays broadcast (numpy rules) and give an array.
    Paper's worked numbers (rho = 0.9, delta = 0.018, D = 0.1): 0.11, 0.14, 0.46 for epsilon = 0, 0.1, 0.5.
    """
    e = _check_nonneg_array(epsilon, "epsilon")
    D = np.asarray(normalized_gap(delta, rho))
    return bound_formula(D, e)


def corrected_bound(mu_sq: Any, D_tr: Any, epsilon: Any) -> float | np.ndarray:
    """||mu||^2 + D_tr + (epsilon + D_tr)^2, the corrected Theorem 4.3's right-hand side (no validation)."""
    return _out(np.asarray(mu_sq, dtype=float) + np.asarray(bound_formula(D_tr, epsilon)))


def paper_bound(delta_n: Any, epsilon: Any, rho: Any) -> float | np.ndarray:
    """The paper's form D_n + (epsilon + D_n)^2, D_n = delta_n / (2 rho (1 - rho)), no validation of
    delta_n or epsilon: delta_n = delta_tr + 2 (1 - rho)(tr Cov - n) is negative for nearly linear h with
    tr Cov < n, the regime where this form can fail (it never fails when tr Cov >= n and the mean is 0)."""
    r = _check_rho_array(rho)
    D = np.asarray(delta_n, dtype=float) / (2.0 * r * (1.0 - r))
    return bound_formula(D, epsilon)


# ----------------------------------------------------------------------------------------------
# Polynomial encoders in the Hermite basis
# ----------------------------------------------------------------------------------------------

def multi_indices(n: int, degree: int) -> np.ndarray:
    """All alpha in N^n with |alpha| <= degree, shape (K, n), sorted by total degree then lexicographically
    descending (so row 0 is alpha = 0 and rows 1..n are e_1..e_n); the array form of
    :func:`pycheck.hermite.multi_indices_upto`."""
    n = check_int(n, "n", 1)
    degree = check_int(degree, "degree", 0)
    total = math.comb(n + degree, degree)
    if total > 1_000_000:
        raise ValueError(f"{total} multi-indices for n = {n}, degree = {degree}: too many")
    return np.array(multi_indices_upto(n, degree), dtype=np.int64).reshape(-1, n)


@dataclass(frozen=True)
class HermiteEncoder:
    """Polynomial encoder h: R^n -> R^n, h_i(z) = sum_k coef[k, i] He_{indices[k]}(z).

    ``indices``: int array (K, n), distinct multi-indices alpha_k >= 0. ``coef``: float array (K, n),
    row k is the coefficient vector (c_1(alpha_k), ..., c_n(alpha_k)). n components over n latents.
    Build with :meth:`from_dict` ({alpha tuple: length-n vector}), :meth:`linear` or :meth:`random`.
    """

    indices: np.ndarray
    coef: np.ndarray

    def __post_init__(self) -> None:
        idx = np.asarray(self.indices)
        if idx.ndim != 2 or idx.shape[0] == 0 or idx.shape[1] == 0:
            raise ValueError(f"indices must be a non-empty (K, n) array, got shape {idx.shape}")
        if idx.dtype.kind not in "iu" or np.any(idx < 0):
            raise ValueError("indices must be non-negative integers")
        if len({tuple(r) for r in idx.tolist()}) != idx.shape[0]:
            raise ValueError("indices contains a repeated multi-index")
        c = check_finite_array(self.coef, "coef")
        if c.shape != idx.shape:
            raise ValueError(f"coef must have shape (K, n) = {idx.shape} (n components over n latents), "
                             f"got {c.shape}")
        object.__setattr__(self, "indices", idx.astype(np.int64))
        object.__setattr__(self, "coef", c)

    @classmethod
    def from_dict(cls, coeffs: Mapping[Sequence[int], Sequence[float]]) -> "HermiteEncoder":
        """From {alpha (tuple of n ints): coefficient vector of length n}."""
        if not coeffs:
            raise ValueError("coeffs must be a non-empty mapping {alpha: vector}")
        keys = [tuple(int(x) for x in k) for k in coeffs]
        if len({len(k) for k in keys}) != 1:
            raise ValueError("coeffs keys (multi-indices) must all have the same length n")
        return cls(np.array(keys, dtype=np.int64), np.array([np.asarray(v, float) for v in coeffs.values()]))

    @classmethod
    def linear(cls, A: Any, mu: Any = None) -> "HermiteEncoder":
        """h(z) = mu + A z (A square)."""
        A = check_finite_array(A, "A")
        if A.ndim != 2 or A.shape[0] != A.shape[1]:
            raise ValueError(f"A must be a square matrix, got shape {A.shape}")
        n = A.shape[0]
        mu = np.zeros(n) if mu is None else check_finite_array(mu, "mu")
        if mu.shape != (n,):
            raise ValueError(f"mu must have shape ({n},), got {mu.shape}")
        return cls(multi_indices(n, 1), np.vstack([mu, A.T]))

    @classmethod
    def random(cls, n: int, degree: int, rng: np.random.Generator, scale: float = 1.0,
               nonlinear_scale: float = 0.3, mean: bool = False) -> "HermiteEncoder":
        """Random encoder: linear part scale * N(0,1) entries, |alpha| >= 2 coefficients
        nonlinear_scale * N(0,1) / sqrt(alpha!), mean N(0,1) entries if ``mean`` else 0."""
        idx = multi_indices(n, degree)
        deg = idx.sum(axis=1)
        c = rng.standard_normal(idx.shape)
        c[deg == 1] *= scale
        c[deg >= 2] *= nonlinear_scale / np.sqrt(_alpha_factorial(idx[deg >= 2]))[:, None]
        if not mean:
            c[deg == 0] = 0.0
        return cls(idx, c)

    @property
    def n(self) -> int:
        return int(self.indices.shape[1])

    @property
    def degree(self) -> int:
        return int(self.indices.sum(axis=1).max())

    def scaled(self, s: float) -> "HermiteEncoder":
        return HermiteEncoder(self.indices, s * self.coef)

    def __call__(self, z: Any) -> np.ndarray:
        """Evaluate h at z of shape (..., n); returns shape (..., n). Uses hermite_e.hermevander."""
        z = check_finite_array(z, "z")
        if z.ndim == 0 or z.shape[-1] != self.n:
            raise ValueError(f"z must have last dimension n = {self.n}, got shape {z.shape}")
        V = hermite_e.hermevander(z, self.degree)            # (..., n, d+1): He_k(z_j)
        B = V[..., np.arange(self.n)[None, :], self.indices]  # (..., K, n): He_{alpha_kj}(z_j)
        return np.prod(B, axis=-1) @ self.coef


def _alpha_factorial(indices: np.ndarray) -> np.ndarray:
    """alpha! = prod_j alpha_j! per row."""
    return np.prod(factorial(indices, exact=False), axis=-1)


def procrustes(A: Any) -> np.ndarray:
    """The orthogonal matrix nearest to A in Frobenius norm: the polar factor U of A = U P
    (scipy.linalg.polar). Batched inputs (..., n, n) use the SVD U S V^T -> U V^T."""
    A = np.asarray(A, dtype=float)
    if A.ndim == 2:
        return linalg.polar(A)[0]
    U, _, Vt = np.linalg.svd(A)
    return U @ Vt


@dataclass(frozen=True)
class Population:
    """Exact population values for a :class:`HermiteEncoder` at correlation rho (see the module doc).

    ``Q`` is the Procrustes/polar factor of A; ``err`` = err(Q) = ||mu||^2 + ||A - Q||_F^2 + N;
    ``bound`` is the corrected bound ||mu||^2 + D_tr + (eps + D_tr)^2; ``paper`` is D_n + (eps + D_n)^2.
    """

    rho: float
    mu: np.ndarray
    A: np.ndarray
    C_N: np.ndarray
    N: float
    cov: np.ndarray
    L: float
    delta_n: float
    delta_tr: float
    eps: float
    D_n: float
    D_tr: float
    Q: np.ndarray
    err: float
    bound: float
    paper: float

    @property
    def mu_sq(self) -> float:
        return float(self.mu @ self.mu)

    @property
    def tr_cov(self) -> float:
        return float(np.trace(self.cov))

    @property
    def ortho(self) -> float:
        """||A^T A - I||_F."""
        return float(np.linalg.norm(self.A.T @ self.A - np.eye(len(self.mu))))


def population(enc: HermiteEncoder, rho: float, *, allow_negative_rho: bool = False) -> Population:
    """Closed-form population values (module doc). ``rho`` in (0, 1); with ``allow_negative_rho`` also
    rho in (-1, 0) (Mehler still holds; used only to show that rho > 0 is needed for Theorem 4.3)."""
    if allow_negative_rho and isinstance(rho, (int, float)) and -1.0 < rho < 0.0:
        rho = float(rho)
    else:
        rho = check_rho(rho)
    n = enc.n
    deg = enc.indices.sum(axis=1)
    af = _alpha_factorial(enc.indices)
    c = enc.coef
    mu = c[deg == 0].sum(axis=0) if np.any(deg == 0) else np.zeros(n)
    A = np.zeros((n, n))
    for k in np.flatnonzero(deg == 1):
        A[:, int(np.argmax(enc.indices[k]))] = c[k]
    nl = deg >= 2
    C_N = (c[nl] * af[nl, None]).T @ c[nl]
    N = float(np.trace(C_N))
    pos = deg >= 1
    cov = (c[pos] * af[pos, None]).T @ c[pos]
    L = float(2.0 * np.sum(af[pos] * (1.0 - rho ** deg[pos].astype(float)) * np.sum(c[pos] ** 2, axis=1)))
    tr = float(np.trace(cov))
    delta_n = L - 2.0 * (1.0 - rho) * n
    delta_tr = L - 2.0 * (1.0 - rho) * tr
    eps = float(np.linalg.norm(cov - np.eye(n)))
    s = 2.0 * rho * (1.0 - rho)
    D_n, D_tr = delta_n / s, delta_tr / s
    Q = procrustes(A)
    err = float(mu @ mu + np.sum((A - Q) ** 2) + N)
    return Population(rho, mu, A, C_N, N, cov, L, delta_n, delta_tr, eps, D_n, D_tr, Q, err,
                      float(mu @ mu + bound_formula(D_tr, eps)), float(bound_formula(D_n, eps)))


def recovery_error(enc: HermiteEncoder, Q: Any) -> float:
    """err(Q) = E||h(z) - Q z||^2 = ||mu||^2 + ||A - Q||_F^2 + N (Pythagoras in the He basis); any n x n Q."""
    Q = check_finite_array(Q, "Q")
    if Q.shape != (enc.n, enc.n):
        raise ValueError(f"Q must have shape ({enc.n}, {enc.n}), got {Q.shape}")
    p = population(enc, 0.5)  # rho does not enter err
    return float(p.mu_sq + np.sum((p.A - Q) ** 2) + p.N)


# ----------------------------------------------------------------------------------------------
# Independent evaluation: tensor Gauss-Hermite quadrature of the polynomial itself
# ----------------------------------------------------------------------------------------------

def gauss_hermite_expectation(f: Callable[[np.ndarray], np.ndarray], dim: int, nodes: int) -> np.ndarray:
    """E f(x), x ~ N(0, I_dim), by the tensor product of ``nodes``-point Gauss-HermiteE rules
    (:func:`pycheck.quadrature.gauss_hermite_grid`); exact when f is a polynomial of degree <= 2 nodes - 1
    in each variable. ``f`` maps (M, dim) points to (M, ...) values."""
    dim = check_int(dim, "dim", 1)
    nodes = check_int(nodes, "nodes", 1)
    if nodes ** dim > 5_000_000:
        raise ValueError(f"tensor grid too large: nodes**dim = {nodes}**{dim}")
    X, W = gauss_hermite_grid(nodes, dim)
    vals = np.asarray(f(X))
    return np.tensordot(W, vals, axes=(0, 0))


def quadrature_values(enc: HermiteEncoder, rho: float, Q: Any = None, nodes: int | None = None,
                      *, allow_negative_rho: bool = False) -> dict[str, Any]:
    """mu, Cov, A = E[h z^T], L = E||h(z') - h(z)||^2 and err(Q) = E||h(z) - Qz||^2 by quadrature of the
    polynomial (z' = rho z + sqrt(1 - rho^2) eta, quadrature over (z, eta) in 2n dimensions). ``Q``
    defaults to the polar factor of the quadrature A. Default nodes = degree + 1 (exact)."""
    if not (allow_negative_rho and isinstance(rho, (int, float)) and -1.0 < rho < 0.0):
        rho = check_rho(rho)
    n = enc.n
    q = max(enc.degree, 1) + 1 if nodes is None else nodes
    mu = gauss_hermite_expectation(lambda X: enc(X), n, q)

    def outer(X: np.ndarray) -> np.ndarray:
        hX = enc(X)
        return np.einsum("mi,mk->mik", hX, hX)

    second = gauss_hermite_expectation(outer, n, q)
    A = gauss_hermite_expectation(lambda X: np.einsum("mi,mj->mij", enc(X), X), n, q)
    cov = second - np.outer(mu, mu)
    s = math.sqrt(1.0 - rho * rho)
    L = float(gauss_hermite_expectation(
        lambda X: np.sum((enc(rho * X[:, :n] + s * X[:, n:]) - enc(X[:, :n])) ** 2, axis=1), 2 * n, q))
    Q = procrustes(A) if Q is None else check_finite_array(Q, "Q")
    err = float(gauss_hermite_expectation(lambda X: np.sum((enc(X) - X @ Q.T) ** 2, axis=1), n, q))
    return {"mu": mu, "cov": cov, "A": A, "L": L, "Q": Q, "err": err}


def sample_ou_pairs(enc: Callable[[np.ndarray], Any], rho: float, m: int, seed: int = 0,
                    n: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """m OU pairs z ~ N(0, I_n), z' = rho z + sqrt(1 - rho^2) eta pushed through ``enc`` (a
    :class:`HermiteEncoder` or any callable mapping (m, n) arrays to (m, n) arrays; then give ``n``):
    returns (z, h(z), h(z')) as float arrays."""
    rho = check_rho(rho)
    m = check_int(m, "m", 2)
    n = check_int(enc.n if n is None and isinstance(enc, HermiteEncoder) else n, "n", 1)
    z, zp = ou_pair(m, n, rho, np.random.default_rng(seed))
    return z, np.asarray(enc(z), dtype=float), np.asarray(enc(zp), dtype=float)


# ----------------------------------------------------------------------------------------------
# Estimates with confidence intervals from samples
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Estimate:
    """Point estimate with bootstrap standard error and the interval [value - z se, value + z se]
    (arrays for matrix quantities, elementwise)."""

    value: Any
    se: Any
    lo: Any
    hi: Any

    def covers(self, x: Any, slack: float = 0.0) -> bool:
        """True iff every entry of x lies in [lo - slack, hi + slack]."""
        x = np.asarray(x, dtype=float)
        return bool(np.all((np.asarray(self.lo) - slack <= x) & (x <= np.asarray(self.hi) + slack)))


_SCALARS = ("L", "tr_cov", "eps", "delta_tr", "delta_n", "D_tr", "D_n", "mu_sq", "bound", "paper",
            "err", "ortho", "margin", "paper_margin")
_MATRICES = ("mu", "cov", "A", "A_ols")


@dataclass(frozen=True)
class SampleEstimates:
    """Estimates (each an :class:`Estimate`) of the Theorem 4.3 quantities from m OU pairs.

    ``A`` = mean h z^T (the population A = E[h z^T]); ``A_ols`` = OLS slope of h on z with intercept;
    ``err`` = mean ||h - Q z||^2 with Q the orthogonal Procrustes solution (polar factor of ``A``);
    ``ortho`` = ||A_ols^T A_ols - I||_F; ``bound`` = ||mu||^2 + D_tr + (eps + D_tr)^2 (corrected);
    ``paper`` = D_n + (eps + D_n)^2; ``margin`` = bound - err, ``paper_margin`` = paper - err, bootstrapped
    jointly (same resamples). ``Q`` is the point estimate of the Procrustes rotation.
    """

    rho: float
    m: int
    n_boot: int
    z_score: float
    seed: int
    Q: np.ndarray
    values: dict[str, Estimate] = field(repr=False)

    def __getattr__(self, name: str) -> Estimate:
        vals = self.__dict__.get("values", {})
        if name in vals:
            return vals[name]
        raise AttributeError(name)

    @property
    def verdict(self) -> str:
        """'holds' if margin.lo >= 0, 'violated' if margin.hi < 0, else 'inconclusive'."""
        return _verdict(self.values["margin"])

    @property
    def paper_verdict(self) -> str:
        return _verdict(self.values["paper_margin"])


def _verdict(e: Estimate) -> str:
    return "holds" if e.lo >= 0 else ("violated" if e.hi < 0 else "inconclusive")


def _stats(mh, mhh, mhz, mz, mzz, mL, rho: float) -> dict[str, np.ndarray]:
    """All quantities from (batched) moments: mh = E h, mhh = E h h^T, mhz = E h z^T, mz = E z,
    mzz = E z z^T, mL = E||h' - h||^2. Leading axis = bootstrap replicate."""
    n = mh.shape[-1]
    I = np.eye(n)
    cov = mhh - mh[:, :, None] * mh[:, None, :]
    tr = np.trace(cov, axis1=1, axis2=2)
    eps = np.linalg.norm(cov - I, axis=(1, 2))
    s = 2.0 * rho * (1.0 - rho)
    d_tr = mL - 2.0 * (1.0 - rho) * tr
    d_n = mL - 2.0 * (1.0 - rho) * n
    D_tr, D_n = d_tr / s, d_n / s
    mu_sq = np.sum(mh ** 2, axis=1)
    Q = procrustes(mhz)
    # mean ||h - Q z||^2 = tr E hh^T - 2 tr(Q^T E h z^T) + tr(Q E zz^T Q^T)
    err = (np.trace(mhh, axis1=1, axis2=2) - 2.0 * np.einsum("bij,bij->b", Q, mhz)
           + np.sum((Q @ mzz) * Q, axis=(1, 2)))
    czz = mzz - mz[:, :, None] * mz[:, None, :]
    chz = mhz - mh[:, :, None] * mz[:, None, :]
    A_ols = np.linalg.solve(czz.transpose(0, 2, 1), chz.transpose(0, 2, 1)).transpose(0, 2, 1)
    ortho = np.linalg.norm(np.swapaxes(A_ols, 1, 2) @ A_ols - I, axis=(1, 2))
    bound = mu_sq + D_tr + (eps + D_tr) ** 2
    paper = D_n + (eps + D_n) ** 2
    return {"L": mL, "tr_cov": tr, "eps": eps, "delta_tr": d_tr, "delta_n": d_n, "D_tr": D_tr, "D_n": D_n,
            "mu_sq": mu_sq, "bound": bound, "paper": paper, "err": err, "ortho": ortho,
            "margin": bound - err, "paper_margin": paper - err,
            "mu": mh, "cov": cov, "A": mhz, "A_ols": A_ols, "_Q": Q}


def _group_sums(z: np.ndarray, h: np.ndarray, dL: np.ndarray, groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-group sums of the features [h, h h^T, h z^T, z, z z^T, ||h'-h||^2] (flattened), groups of
    consecutive rows (np.array_split); returns (sums (G, p), sizes (G,))."""
    m, n = z.shape
    if groups == m:
        F = np.hstack([h, (h[:, :, None] * h[:, None, :]).reshape(m, -1),
                       (h[:, :, None] * z[:, None, :]).reshape(m, -1), z,
                       (z[:, :, None] * z[:, None, :]).reshape(m, -1), dL[:, None]])
        return F, np.ones(m)
    bounds = np.linspace(0, m, groups + 1).astype(int)
    S = np.empty((groups, 2 * n + 3 * n * n + 1))
    for g in range(groups):
        hg, zg = h[bounds[g]:bounds[g + 1]], z[bounds[g]:bounds[g + 1]]
        S[g] = np.concatenate([hg.sum(0), (hg.T @ hg).ravel(), (hg.T @ zg).ravel(), zg.sum(0),
                               (zg.T @ zg).ravel(), [dL[bounds[g]:bounds[g + 1]].sum()]])
    return S, np.diff(bounds).astype(float)


def _unpack(M: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    mh, mhh, mhz, mz, mzz, mL = np.split(M, np.cumsum([n, n * n, n * n, n, n * n]), axis=1)
    return mh, mhh.reshape(-1, n, n), mhz.reshape(-1, n, n), mz, mzz.reshape(-1, n, n), mL[:, 0]


def estimate_from_samples(z: Any, h: Any, h_prime: Any, rho: float, *, n_boot: int = 200,
                          z_score: float = 1.96, seed: int = 0, groups: int | None = None
                          ) -> SampleEstimates:
    """Estimate L, Cov, epsilon, delta_tr, delta_n, D, the bounds, A (cross moment and OLS), the
    Procrustes error and margin = bound - err from m i.i.d. OU pairs: ``z`` (m, n) latents,
    ``h`` = h(z) and ``h_prime`` = h(z') (m, n each). Point estimates are the plug-in values (sample
    moments with 1/m normalisation; delta is not clamped).

    CI: nonparametric bootstrap, ``n_boot`` resamples from a numpy Generator seeded with ``seed``;
    se = standard deviation of the replicates; interval value +- z_score * se (1.96: two-sided 95%
    normal interval; 6 for never-flaky tests). Resampling units: the m pairs themselves
    (``groups = m``, the default when 3 m n^2 <= 1e7), else ``groups`` = G disjoint blocks of
    consecutive pairs (default G = 100, fewer for very large n) resampled with replacement; blocks
    of i.i.d. pairs are i.i.d., so this is the same bootstrap at block level, O(m n^2) in one pass.
    "The bound holds" (``verdict == 'holds'``) iff the lower limit of margin = bound - err is >= 0.
    """
    z = check_finite_array(z, "z")
    h = check_finite_array(h, "h")
    hp = check_finite_array(h_prime, "h_prime")
    if z.ndim != 2 or z.shape[0] < 2:
        raise ValueError(f"z must have shape (m, n) with m >= 2, got {z.shape}")
    if h.shape != z.shape or hp.shape != z.shape:
        raise ValueError(f"h and h_prime must have the shape of z {z.shape}, got {h.shape} and {hp.shape}")
    rho = check_rho(rho)
    n_boot = check_int(n_boot, "n_boot", 2)
    zs = check_nonneg(z_score, "z_score")
    seed = check_int(seed, "seed", 0)
    m, n = z.shape
    p = 2 * n + 3 * n * n + 1
    if groups is None:
        groups = m if 3 * m * n * n <= 10_000_000 else min(m, max(10, min(100, int(4e7 // p))))
    groups = check_int(groups, "groups", 2)
    if groups > m:
        raise ValueError(f"groups must be <= m = {m}, got {groups}")
    dL = np.sum((hp - h) ** 2, axis=1)
    S, sizes = _group_sums(z, h, dL, groups)
    st = _stats(*_unpack(S.sum(0)[None] / m, n), rho)
    point = {k: st[k][0] for k in _SCALARS + _MATRICES}
    acc = {k: [0.0, 0.0] for k in point}  # sums of d and d^2, d = replicate - point
    rng = np.random.default_rng(seed)
    chunk = max(1, min(n_boot, int(2e7 // max(p, groups))))
    for b0 in range(0, n_boot, chunk):
        bs = min(chunk, n_boot - b0)
        idx = rng.integers(0, groups, (bs, groups))
        C = np.bincount((idx + groups * np.arange(bs)[:, None]).ravel(), minlength=bs * groups
                        ).reshape(bs, groups).astype(float)
        rep = _stats(*_unpack((C @ S) / (C @ sizes)[:, None], n), rho)
        for k in point:
            d = rep[k] - point[k]
            acc[k][0] = acc[k][0] + d.sum(0)
            acc[k][1] = acc[k][1] + (d * d).sum(0)
    values = {}
    for k, v in point.items():
        s1, s2 = acc[k]
        se = np.sqrt(np.maximum(s2 - s1 * s1 / n_boot, 0.0) / (n_boot - 1))
        values[k] = Estimate(_out(v), _out(se), _out(v - zs * se), _out(v + zs * se))
    return SampleEstimates(rho, m, n_boot, zs, seed, st["_Q"][0], values)
