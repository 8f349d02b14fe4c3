"""Theorem 4.2 (Gaussian uniqueness), checked on the spectral objects themselves.

Two operators are computed for a 1-D latent law ``p(z) ∝ exp(-V(z))``.

1. The Langevin / Sturm–Liouville generator ``L f = f'' - V' f'`` on ``L^2(p)``. ``-L`` is
   self-adjoint and non-negative with Dirichlet form ``E(f, g) = ∫ f' g' p dz``; its first
   non-trivial eigenpair solves the symmetric weak problem

       ∫ f' g' p dz = λ ∫ f g p dz      for all g,

   which needs only ``p`` (no ``V''``), so Laplace's kink and the cusp of the generalized normal
   with ``alpha < 1`` are harmless. :func:`first_eigenpair` solves it by a high-order finite
   element (hp-FEM) Galerkin method on a truncated interval with natural (Neumann) boundary
   conditions: hierarchical integrated-Legendre elements of degree ``degree``, element sizes
   ``<= step / |V'|`` (so ``p`` changes by at most a factor ``~e^step`` across an element),
   geometric grading towards ``center`` (where ``V`` may be non-smooth) and elements growing like
   ``|z|`` far out (heavy tails). All integrals are formed in the log domain with a diagonal
   (Jacobi) scaling, so ``p`` may span hundreds of orders of magnitude over the interval.
   Truncation: the interval ends where ``V - V(center) = tail`` (``p`` has fallen by ``e^-tail``)
   or at ``max_radius``; the truncation error is measured by :func:`eigen_convergence`
   (tail and mesh enlarged) rather than bounded a priori.

2. The additive-noise transition ``z' = rho z + sqrt(1 - rho^2) eta`` with ``eta`` from the same
   law: :func:`maximal_correlation` discretizes the joint density on a grid, forms the discrete
   joint law, and returns its first non-trivial singular value (the Hirschfeld–Gebelein–Rényi
   maximal correlation) next to its linear correlation.

The *affinity defect* of a function ``f`` is ``min_{a,b} ||f - a - b z||^2_{L^2(p)} / Var_p f
= 1 - Corr_p(f, z)^2`` (:func:`affinity_defect`); Theorem 4.2's proof says it vanishes for the
first eigenfunction only when the score ``-V'`` is affine, i.e. for the Gaussian.

Laws (:class:`Law`, all centred with unit variance): :func:`gennorm` (``p ∝ exp(-|z/a|^alpha)``),
:func:`laplace`, :func:`logistic`, :func:`student_t`, :func:`gaussian_mixture`, :func:`gaussian`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from numpy.polynomial import legendre as npleg
from scipy.linalg import svdvals
from scipy.special import gammaln, logsumexp

from pycheck._validate import check_finite_array, check_int, check_nonneg, check_rho

ArrayFn = Callable[[np.ndarray], np.ndarray]

__all__ = [
    "Law", "gennorm", "laplace", "logistic", "student_t", "gaussian_mixture", "gaussian",
    "EigenPair", "first_eigenpair", "affinity_defect", "eigen_convergence",
    "FirstEigenStatus", "first_eigenfunction_status", "MaxCorrelation", "maximal_correlation",
    "standard_family",
]


# --------------------------------------------------------------------------------------------
# Laws
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Law:
    """A 1-D law ``p ∝ exp(-V)``, centred with unit variance.

    ``score(z) = (log p)'(z) = -V'(z)`` and ``log_density(z) = -V(z)`` (unnormalized);
    ``alpha`` is the generalized-normal shape when the law belongs to that family (else ``nan``).
    """

    name: str
    score: ArrayFn
    log_density: ArrayFn
    alpha: float = math.nan
    heavy_tailed: bool = False
    singular: bool = False   # V not smooth at 0: the FE mesh is graded towards 0


def gennorm(alpha: float) -> Law:
    """Generalized normal ``p(z) ∝ exp(-|z/a|^alpha)``, ``a = sqrt(Γ(1/α)/Γ(3/α))`` (unit variance).

    ``alpha = 2`` is the standard Gaussian, ``alpha = 1`` the Laplace law, ``alpha -> ∞`` the
    uniform law on ``[-sqrt 3, sqrt 3]``. Score ``-(α/a) sign(z) |z/a|^(α-1)`` (set to 0 at z = 0,
    where it is infinite for ``α < 1``).
    """
    a_ = check_nonneg(alpha, "alpha")
    if a_ <= 0:
        raise ValueError(f"alpha must be > 0, got {alpha!r}")
    scale = math.exp(0.5 * (gammaln(1.0 / a_) - gammaln(3.0 / a_)))

    def log_density(z: np.ndarray) -> np.ndarray:
        return -np.abs(np.asarray(z, float) / scale) ** a_

    def score(z: np.ndarray) -> np.ndarray:
        z = np.asarray(z, float)
        u = np.abs(z) / scale
        with np.errstate(divide="ignore", invalid="ignore"):
            s = -(a_ / scale) * np.sign(z) * u ** (a_ - 1.0)
        return np.where(z == 0.0, 0.0, s)

    even = abs(a_ / 2 - round(a_ / 2)) < 1e-12
    return Law(f"gennorm(alpha={a_:g})", score, log_density, alpha=a_, heavy_tailed=a_ < 1.0,
               singular=not even)


def gaussian() -> Law:
    """Standard normal, ``V = z^2/2``."""
    return Law("gaussian", lambda z: -np.asarray(z, float),
               lambda z: -0.5 * np.asarray(z, float) ** 2, alpha=2.0)


def laplace() -> Law:
    """Laplace law with unit variance, ``V = sqrt(2)|z|`` (generalized normal with α = 1)."""
    law = gennorm(1.0)
    return Law("laplace", law.score, law.log_density, alpha=1.0, singular=True)


def logistic() -> Law:
    """Logistic law with unit variance: ``V = |z|/b + 2 log(1 + e^{-|z|/b})``, ``b = sqrt(3)/π``."""
    b = math.sqrt(3.0) / math.pi
    return Law("logistic",
               lambda z: -np.tanh(np.asarray(z, float) / (2 * b)) / b,
               lambda z: -np.abs(np.asarray(z, float)) / b
               - 2 * np.log1p(np.exp(-np.abs(np.asarray(z, float)) / b)))


def student_t(nu: float) -> Law:
    """Student-t with ``nu > 2`` degrees of freedom scaled to unit variance (``a^2 = (ν-2)/ν``):
    ``V = (ν+1)/2 · log(1 + z^2/(a^2 ν))``, score ``-(ν+1) z / (a^2 ν + z^2)``."""
    n = check_nonneg(nu, "nu")
    if n <= 2:
        raise ValueError(f"nu must be > 2 (finite variance), got {nu!r}")
    a2 = (n - 2.0) / n
    return Law(f"student_t(nu={n:g})",
               lambda z: -(n + 1.0) * np.asarray(z, float) / (a2 * n + np.asarray(z, float) ** 2),
               lambda z: -0.5 * (n + 1.0) * np.log1p(np.asarray(z, float) ** 2 / (a2 * n)),
               heavy_tailed=True)


def gaussian_mixture(m: float = 0.8) -> Law:
    """Symmetric two-component mixture ``½N(-m, s²) + ½N(m, s²)``, ``s² = 1 - m²`` (unit variance).

    Score ``-(z - m tanh(m z / s²)) / s²``.
    """
    m_ = check_nonneg(m, "m")
    if not m_ < 1.0:
        raise ValueError(f"m must lie in [0, 1) so that s^2 = 1 - m^2 > 0, got {m!r}")
    s2 = 1.0 - m_ * m_

    def log_density(z: np.ndarray) -> np.ndarray:
        z = np.asarray(z, float)
        return np.logaddexp(-0.5 * (z - m_) ** 2 / s2, -0.5 * (z + m_) ** 2 / s2)

    return Law(f"mixture(m={m_:g})",
               lambda z: -(np.asarray(z, float) - m_ * np.tanh(m_ * np.asarray(z, float) / s2)) / s2,
               log_density)


def standard_family() -> list[Law]:
    """The laws of the issue: generalized normal α ∈ {0.25 … 32}, Laplace, logistic, Student-t
    (ν = 3, 5, 10, 30) and a two-component Gaussian mixture."""
    alphas = [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0, 6.0, 8.0, 16.0, 32.0]
    return ([gennorm(a) for a in alphas] + [laplace(), logistic()]
            + [student_t(v) for v in (3.0, 5.0, 10.0, 30.0)] + [gaussian_mixture(0.8)])


# --------------------------------------------------------------------------------------------
# hp finite elements for  ∫ f' g' p = λ ∫ f g p
# --------------------------------------------------------------------------------------------

def _score_array(fn: ArrayFn, z: np.ndarray, name: str = "log_density_grad") -> np.ndarray:
    out = np.asarray(fn(z), dtype=float)
    if out.shape != z.shape:
        raise ValueError(f"{name} must map an array of shape {z.shape} to the same shape, got {out.shape}")
    if not np.all(np.isfinite(out)):
        raise ValueError(f"{name} returned non-finite values at z = {z[~np.isfinite(out)][:3]}")
    return out


def _mesh(score: ArrayFn, center: float, lo: float | None, hi: float | None, tail: float,
          max_radius: float, step: float, h_max: float, growth: float, grade_layers: int,
          grade_ratio: float) -> tuple[np.ndarray, bool]:
    """Element end points. Returns (nodes, hit_max_radius)."""
    h0 = min(h_max, 0.5)
    hit = False
    sides = []
    for direction, bound in ((1.0, hi), (-1.0, lo)):
        pts = [center + direction * h0 * grade_ratio ** j for j in range(grade_layers, -1, -1)]
        z = pts[-1]
        dv = _integrate_neg_score(score, center, z)  # V(z) - V(center)
        while True:
            dist = abs(z - center)
            if bound is not None:
                if direction * (bound - z) <= 1e-12 * max(1.0, abs(bound)):
                    break
            else:
                if dv >= tail:
                    break
                if dist >= max_radius:
                    hit = True
                    break
            cap = max(h_max, growth * dist)
            v1 = abs(float(_score_array(score, np.array([z]))[0]))
            s = min(cap, step / v1) if v1 > 0 else cap
            for _ in range(60):     # shrink until |V'| at the far end also respects the rule
                v2 = abs(float(_score_array(score, np.array([z + direction * s]))[0]))
                if s * v2 <= step:
                    break
                s *= 0.5
            s = max(s, 1e-9 * max(1.0, dist))
            znew = z + direction * s
            if bound is not None and direction * (znew - bound) > 0:
                znew = bound
            elif bound is None and abs(znew - center) > max_radius:
                znew = center + direction * max_radius
            dv += _integrate_neg_score(score, z, znew)
            z = znew
            pts.append(z)
        sides.append(np.array(pts))
    nodes = np.concatenate([sides[1][::-1], [center], sides[0]])
    return nodes, hit


_PANEL = npleg.leggauss(12)   # one 12-point Gauss–Legendre panel for integrating the score


def _integrate_neg_score(score: ArrayFn, a: float, b: float) -> float:
    """``∫_a^b V'(t) dt = -∫_a^b score`` by one 12-point Gauss–Legendre panel."""
    x, w = _PANEL
    t = 0.5 * (a + b) + 0.5 * (b - a) * x
    return float(-0.5 * (b - a) * np.dot(w, _score_array(score, t)))


def _basis(xi: np.ndarray, degree: int) -> tuple[np.ndarray, np.ndarray]:
    """Hierarchical basis on [-1, 1]: (1-ξ)/2, (1+ξ)/2, and the integrated Legendre bubbles
    ``(P_j - P_{j-2}) / sqrt(2(2j-1))``, j = 2..degree, whose derivatives are
    ``sqrt((2j-1)/2) P_{j-1}``. Returns values and derivatives, shape (len(xi), degree+1)."""
    P = npleg.legvander(xi, degree)  # P_0 .. P_degree
    phi = np.empty((xi.size, degree + 1))
    dphi = np.empty_like(phi)
    phi[:, 0], phi[:, 1] = 0.5 * (1 - xi), 0.5 * (1 + xi)
    dphi[:, 0], dphi[:, 1] = -0.5, 0.5
    for j in range(2, degree + 1):
        phi[:, j] = (P[:, j] - P[:, j - 2]) / math.sqrt(2 * (2 * j - 1))
        dphi[:, j] = math.sqrt((2 * j - 1) / 2.0) * P[:, j - 1]
    return phi, dphi


def _log_density_at(score: ArrayFn, nodes: np.ndarray, xq: np.ndarray, center: float,
                    n_inner: int = 16) -> np.ndarray:
    """``log p`` at quadrature points ``xq`` (shape (n_el, nq)) by integrating the score: first
    node to node (one Gauss panel per element), then node to each point (one panel each)."""
    x, w = npleg.leggauss(n_inner)
    a, b = nodes[:-1], nodes[1:]
    t = 0.5 * (a + b)[:, None] + 0.5 * (b - a)[:, None] * x[None, :]
    incr = 0.5 * (b - a) * (_score_array(score, t.ravel()).reshape(t.shape) @ w)
    at_nodes = np.concatenate([[0.0], np.cumsum(incr)])
    ic = int(np.argmin(np.abs(nodes - center)))
    at_nodes -= at_nodes[ic]
    aa = a[:, None, None]
    pts = aa + (xq[:, :, None] - aa) * 0.5 * (1 + x[None, None, :])
    vals = _score_array(score, pts.ravel()).reshape(pts.shape) @ w
    return at_nodes[:-1, None] + 0.5 * (xq - a[:, None]) * vals


@dataclass
class EigenPair:
    """First non-trivial eigenpair of ``-L`` on a truncated interval (from :func:`first_eigenpair`).

    ``eigenvalue`` is λ₁; ``eigenvalues`` all computed ones (0 for the constants, then λ₁, λ₂, …);
    the eigenfunction is normalized to ``∫ f² p = 1`` (``p`` normalized on the interval), with mean
    ≈ 0 and sign fixed so that ``∫ f z p ≥ 0``. Quadrature data (all Gauss points of all elements):
    ``points``, ``weights`` (Lebesgue), ``log_p`` (normalized log density), ``u = f sqrt(p)``.
    Evaluate ``f`` anywhere on the interval with ``pair(z)``.
    """

    eigenvalue: float
    eigenvalues: np.ndarray
    nodes: np.ndarray
    degree: int
    points: np.ndarray
    weights: np.ndarray
    log_p: np.ndarray
    u: np.ndarray
    coeffs: list[np.ndarray] = field(repr=False)
    log_scale: list[np.ndarray] = field(repr=False)
    hit_max_radius: bool = False
    n_dofs: int = 0
    center: float = 0.0

    @property
    def domain(self) -> tuple[float, float]:
        return float(self.nodes[0]), float(self.nodes[-1])

    @property
    def p_weights(self) -> np.ndarray:
        """Probability weights ``w_q p(z_q)`` of the quadrature (sum to 1)."""
        return self.weights * np.exp(self.log_p)

    def values(self) -> np.ndarray:
        """``f`` at the quadrature points (may overflow to ±inf where ``p`` underflows)."""
        with np.errstate(over="ignore"):
            return self.u * np.exp(-0.5 * self.log_p)

    def __call__(self, z: np.ndarray) -> np.ndarray:
        z = check_finite_array(z, "z")
        lo, hi = self.domain
        if np.any((z < lo) | (z > hi)):
            raise ValueError(f"z must lie in the truncated interval [{lo:g}, {hi:g}]")
        flat = z.ravel()
        e = np.clip(np.searchsorted(self.nodes, flat, side="right") - 1, 0, self.nodes.size - 2)
        a, b = self.nodes[e], self.nodes[e + 1]
        xi = 2 * (flat - a) / (b - a) - 1
        phi, _ = _basis(xi, self.degree)
        c = np.stack(self.coeffs)[e]          # (m, degree+1)
        ls = np.stack(self.log_scale)[e]
        with np.errstate(over="ignore"):
            out = np.sum(phi * c * np.exp(-ls), axis=1)
        return out.reshape(z.shape)

    def outer_mass(self) -> float:
        """``∫ f² p`` over the outer region where ``V - V(center) > ½ (V - V(center))`` at the
        nearer-in-V end of the interval: the share of the eigenfunction's L²(p) mass near the
        truncation boundary. A genuine L² eigenfunction puts a share ``~e^{-tail/2}`` there; a
        "eigenfunction" that is really the edge of the essential spectrum keeps O(1) mass there."""
        ic = int(np.argmin(np.abs(self.points - self.center)))
        depth = self.log_p[ic] - self.log_p
        edge = min(depth[0], depth[-1])
        mask = depth > 0.5 * edge
        return float(np.sum(self.weights[mask] * self.u[mask] ** 2))

    def affinity_defect(self) -> float:
        """:func:`affinity_defect` of this eigenfunction."""
        return affinity_defect(self)


def first_eigenpair(log_density_grad: ArrayFn, *, domain: tuple[float, float] | None = None,
                    center: float = 0.0, tail: float = 50.0, max_radius: float = 1.0e3,
                    degree: int = 10, step: float = 1.0, h_max: float = 0.5, growth: float = 0.25,
                    grade_layers: int = 0, grade_ratio: float = 0.25, n_eigs: int = 1,
                    log_density: ArrayFn | None = None) -> EigenPair:
    """First non-trivial eigenpair of ``L f = f'' - V' f'`` on ``L²(p)``, ``p ∝ exp(-V)``.

    ``log_density_grad(z)`` is the score ``(log p)'(z) = -V'(z)``, vectorized (array in, array of
    the same shape out). The weak problem ``∫ f' g' p = λ ∫ f g p`` is discretized by hp finite
    elements (see the module docstring) on ``domain`` if given, else on the interval around
    ``center`` where ``V - V(center) < tail`` (capped at ``|z - center| <= max_radius``;
    ``EigenPair.hit_max_radius`` says whether the cap was reached), with natural boundary
    conditions. Mesh: element sizes ``<= min(max(h_max, growth·|z - center|), step/|V'|)``; the
    first element on each side has length ``min(h_max, 0.5)`` and, when ``grade_layers > 0``, is
    split geometrically (ratio ``grade_ratio``) towards ``center`` (use it where ``V`` is not
    smooth at ``center``; it costs accuracy when it is not needed, since it makes the stiffness
    matrix stiffer). ``degree`` is the polynomial degree of the elements; Gauss–Legendre
    quadrature with ``degree + 12`` points per element.
    ``log_density`` (``-V``, unnormalized) is used when given, otherwise ``-V`` is
    obtained by integrating the score with Gauss–Legendre panels. Returns ``n_eigs`` non-trivial
    eigenvalues in ``EigenPair.eigenvalues[1:]`` and the first eigenfunction.

    Raises ``ValueError`` for non-callable inputs, bad parameters, or a score that is non-finite
    or of the wrong shape.
    """
    if not callable(log_density_grad):
        raise ValueError("log_density_grad must be a callable z -> (log p)'(z)")
    if log_density is not None and not callable(log_density):
        raise ValueError("log_density must be a callable z -> log p(z) (or None)")
    degree = check_int(degree, "degree", 2)
    n_eigs = check_int(n_eigs, "n_eigs", 1)
    grade_layers = check_int(grade_layers, "grade_layers", 0)
    for nm, v in (("tail", tail), ("max_radius", max_radius), ("step", step), ("h_max", h_max),
                  ("growth", growth)):
        if check_nonneg(v, nm) <= 0:
            raise ValueError(f"{nm} must be > 0, got {v!r}")
    if not 0 < float(grade_ratio) < 1:
        raise ValueError(f"grade_ratio must lie in (0, 1), got {grade_ratio!r}")
    center = float(check_finite_array(center, "center"))
    lo = hi = None
    if domain is not None:
        d = check_finite_array(domain, "domain")
        if d.shape != (2,) or not d[0] < center < d[1]:
            raise ValueError(f"domain must be (lo, hi) with lo < center < hi, got {domain!r}")
        lo, hi = float(d[0]), float(d[1])
        if min(center - lo, hi - center) <= min(h_max, 0.5):
            raise ValueError("domain is too small around center for the graded mesh")

    nodes, hit = _mesh(log_density_grad, center, lo, hi, float(tail), float(max_radius),
                       float(step), float(h_max), float(growth), grade_layers, float(grade_ratio))
    n_el = nodes.size - 1
    nq = degree + 12
    xg, wg = npleg.leggauss(nq)
    a, b = nodes[:-1], nodes[1:]
    jac = 0.5 * (b - a)
    xq = 0.5 * (a + b)[:, None] + jac[:, None] * xg[None, :]
    if log_density is None:
        logp = _log_density_at(log_density_grad, nodes, xq, center)
    else:
        logp = _score_array(log_density, xq.ravel(), "log_density").reshape(xq.shape)
    Wq = jac[:, None] * wg[None, :]
    logp = logp - logsumexp(logp + np.log(Wq))      # normalize p on the interval

    phi, dphi = _basis(xg, degree)                  # (nq, k+1)
    k1 = degree + 1
    # global dof numbers of each element's local functions
    dof = np.empty((n_el, k1), dtype=int)
    dof[:, 0], dof[:, 1] = np.arange(n_el), np.arange(1, n_el + 1)
    dof[:, 2:] = n_el + 1 + np.arange(n_el * (degree - 1)).reshape(n_el, degree - 1)
    ndof = n_el + 1 + n_el * (degree - 1)
    # log of the mass-matrix diagonal, by log-sum-exp over every contribution
    with np.errstate(divide="ignore"):
        logphi2 = np.log(phi ** 2)                  # (nq, k1)
    contrib = (np.log(Wq) + logp)[:, :, None] + logphi2[None, :, :]   # (n_el, nq, k1)
    per_local = logsumexp(contrib, axis=1)          # (n_el, k1)
    logdiag = np.full(ndof, -np.inf)
    np.logaddexp.at(logdiag, dof.ravel(), per_local.ravel())
    ell = 0.5 * logdiag                             # scaling: tilde c_i = c_i exp(ell_i)
    ell_loc = ell[dof]                              # (n_el, k1)
    # scaled local functions sqrt(w p) phi_i exp(-ell_i)
    sqw = np.sqrt(Wq)[:, :, None] * np.exp(0.5 * logp[:, :, None] - ell_loc[:, None, :])
    Phi = sqw * phi[None, :, :]
    dPhi = sqw * dphi[None, :, :] / jac[:, None, None]
    Me = np.einsum("eqi,eqj->eij", Phi, Phi)
    Ke = np.einsum("eqi,eqj->eij", dPhi, dPhi)
    rows = np.repeat(dof, k1, axis=1).ravel()
    cols = np.tile(dof, (1, k1)).ravel()
    M = sp.csc_matrix((Me.ravel(), (rows, cols)), shape=(ndof, ndof))
    K = sp.csc_matrix((Ke.ravel(), (rows, cols)), shape=(ndof, ndof))
    M = 0.5 * (M + M.T)
    K = 0.5 * (K + K.T)
    k = min(n_eigs + 1, ndof - 2)
    # Shift-invert about a small negative shift (the eigenvalues nearest to it are the smallest).
    # A dense generalized solver is NOT used: graded meshes make ||K|| huge and its absolute
    # eigenvalue error eps·||K|| swamps λ_1, while the sparse LDLᵀ solves keep it small.
    sigma = -1e-3 * float(K.diagonal().min() / M.diagonal().max() + 1e-3)
    vals, vecs = spla.eigsh(K, k=k + 1, M=M, sigma=sigma, which="LM", tol=0.0,
                            v0=np.ones(ndof))
    order = np.argsort(vals)
    vals, vecs = vals[order], vecs[:, order]
    c = vecs[:, 1]
    # f sqrt(p) at the quadrature points
    u = np.einsum("eqi,ei->eq", Phi / np.sqrt(Wq)[:, :, None], c[dof])
    norm = math.sqrt(float(np.sum(Wq * u * u)))
    sq = np.exp(0.5 * logp)
    sign = 1.0 if float(np.sum(Wq * u * xq * sq)) >= 0 else -1.0
    c = sign * c / norm
    u = sign * u / norm
    return EigenPair(eigenvalue=float(vals[1]), eigenvalues=np.asarray(vals, float), nodes=nodes,
                     degree=degree, points=xq.ravel(), weights=Wq.ravel(), log_p=logp.ravel(),
                     u=u.ravel(), coeffs=list(c[dof]), log_scale=list(ell_loc),
                     hit_max_radius=hit, n_dofs=ndof, center=center)


def affinity_defect(f: EigenPair | np.ndarray, z: np.ndarray | None = None,
                    p_weights: np.ndarray | None = None) -> float:
    """Affinity defect ``min_{a,b} E_p[(f - a - b z)²] / Var_p f  (= 1 - Corr_p(f, z)²)``.

    Either an :class:`EigenPair` (uses its quadrature, computed stably through ``f sqrt(p)``), or
    three 1-D arrays of equal length: values ``f(z_q)``, points ``z_q`` and probability weights
    ``p_weights`` (non-negative, any positive sum). Returns a number in [0, 1]; 0 iff ``f`` is
    affine p-almost everywhere.
    """
    if isinstance(f, EigenPair):
        w, s = f.weights, np.exp(0.5 * f.log_p)
        zz, u = f.points, f.u
        mf, mz = np.sum(w * u * s), np.sum(w * zz * s * s)
        fc = u - mf * s                     # (f - mean f) sqrt(p)
        zc = (zz - mz) * s
        vz = np.sum(w * zc * zc)
        b = np.sum(w * fc * zc) / vz
        r = fc - b * zc
        vf = np.sum(w * fc * fc)
        return float(np.sum(w * r * r) / vf)
    if z is None or p_weights is None:
        raise ValueError("affinity_defect needs an EigenPair, or arrays f, z and p_weights")
    fv = check_finite_array(f, "f")
    zv = check_finite_array(z, "z")
    pw = check_finite_array(p_weights, "p_weights")
    if fv.ndim != 1 or fv.shape != zv.shape or fv.shape != pw.shape:
        raise ValueError(f"f, z and p_weights must be 1-D of equal length, got {fv.shape}, "
                         f"{zv.shape}, {pw.shape}")
    if np.any(pw < 0) or pw.sum() <= 0:
        raise ValueError("p_weights must be non-negative with a positive sum")
    pw = pw / pw.sum()
    fc = fv - np.dot(pw, fv)
    zc = zv - np.dot(pw, zv)
    vf, vz = np.dot(pw, fc * fc), np.dot(pw, zc * zc)
    if vf <= 0 or vz <= 0:
        raise ValueError("f and z must both have positive variance under p_weights")
    b = np.dot(pw, fc * zc) / vz
    r = fc - b * zc
    return float(np.dot(pw, r * r) / vf)


def law_eigenpair(law: Law, **options: float) -> EigenPair:
    """:func:`first_eigenpair` for a :class:`Law`, with its exact ``log_density`` and a mesh
    graded towards 0 (6 layers, ratio 1/4) when ``V`` is not smooth there."""
    if not isinstance(law, Law):
        raise ValueError(f"law must be a pycheck.uniqueness.Law, got {type(law).__name__}")
    opts: dict = {"log_density": law.log_density}
    if law.singular:
        opts.update(grade_layers=6, grade_ratio=0.25)
    opts.update(options)
    return first_eigenpair(law.score, **opts)


@dataclass(frozen=True)
class Convergence:
    """Eigenpair at the base discretization and at a refined one (degree + 4, element rule and
    ``h_max`` halved, ``tail`` + 25). ``*_change`` are the absolute differences: the error
    estimate we state for the base numbers."""

    eigenvalue: float
    defect: float
    eigenvalue_refined: float
    defect_refined: float

    @property
    def eigenvalue_change(self) -> float:
        return abs(self.eigenvalue - self.eigenvalue_refined)

    @property
    def defect_change(self) -> float:
        return abs(self.defect - self.defect_refined)


def eigen_convergence(law: Law, *, degree: int = 10, step: float = 1.0, h_max: float = 0.5,
                      tail: float = 50.0) -> Convergence:
    """Eigenvalue and affinity defect at a base and a refined discretization (see
    :class:`Convergence`); meaningful only where a first eigenfunction exists."""
    a = law_eigenpair(law, degree=degree, step=step, h_max=h_max, tail=tail)
    b = law_eigenpair(law, degree=degree + 4, step=step / 2, h_max=h_max / 2, tail=tail + 25.0)
    return Convergence(a.eigenvalue, a.affinity_defect(), b.eigenvalue, b.affinity_defect())


@dataclass(frozen=True)
class FirstEigenStatus:
    """Whether ``-L`` has a first non-trivial L²(p) eigenfunction, from a ladder of truncations.

    ``status`` is ``"eigenfunction"`` (eigenpair converges, boundary mass vanishes),
    ``"no spectral gap"`` (λ₁ of the truncated problem tends to 0 and the eigenfunction's mass
    sits at the boundary), ``"gap, no eigenfunction"`` (λ₁ converges to a positive limit, the
    bottom of the essential spectrum, but the mass still escapes to the boundary) or
    ``"undetermined"``. ``lambda_limit`` extrapolates the last three eigenvalues assuming
    ``λ(R) = λ∞ + C R^-γ`` (γ fitted). ``defect`` is ``nan`` unless an eigenfunction exists.
    """

    law: str
    status: str
    radii: tuple[float, ...]
    eigenvalues: tuple[float, ...]
    outer_masses: tuple[float, ...]
    lambda_limit: float
    defect: float

    @property
    def has_eigenfunction(self) -> bool:
        return self.status == "eigenfunction"


def first_eigenfunction_status(law: Law, *, tails: Sequence[float] = (30.0, 60.0, 120.0, 240.0),
                               radii_cap: Sequence[float] = (25.0, 100.0, 400.0, 1600.0),
                               degree: int = 8, step: float = 1.0) -> FirstEigenStatus:
    """Classify the bottom of the spectrum of ``-L`` for ``law`` (see :class:`FirstEigenStatus`).

    Truncation ``j`` ends where ``V - V(0) = tails[j]`` or at ``|z| = radii_cap[j]``, whichever
    comes first; the eigenpair is recomputed on each. Rules: *eigenfunction* if on the largest
    interval the outer mass (:meth:`EigenPair.outer_mass`) is < 1e-6 and λ changed by < 1e-6
    (relative) over the last step; otherwise, if the outer mass is >= 1e-3 on the last two
    intervals, no eigenfunction: *no spectral gap* when λ fell by a factor <= 0.9 on each of the
    last two enlargements (it decays like a power of R towards 0), *gap, no eigenfunction* when
    it changed by less than 1 % on the last one and ``λ∞ > 0``; anything else is *undetermined*.
    """
    tails_ = [check_nonneg(t, "tails") for t in tails]
    caps = [check_nonneg(r, "radii_cap") for r in radii_cap]
    if len(tails_) != len(caps) or len(tails_) < 3:
        raise ValueError("tails and radii_cap must have the same length >= 3")
    pairs = [law_eigenpair(law, tail=t, max_radius=r, degree=degree, step=step)
             for t, r in zip(tails_, caps)]
    lam = np.array([p.eigenvalue for p in pairs])
    mass = np.array([p.outer_mass() for p in pairs])
    radii = tuple(float(p.domain[1] - p.center) for p in pairs)
    # extrapolation λ(R) = λ∞ + C R^-γ from the last three truncations
    R = np.array(radii[-3:])
    l3 = lam[-3:]
    d1, d2 = l3[0] - l3[1], l3[1] - l3[2]
    lam_inf = float(l3[2])
    if d1 > 0 and d2 > 0 and d1 > d2:
        gamma = math.log(d1 / d2) / math.log(R[2] / R[1]) if R[2] > R[1] else math.nan
        if math.isfinite(gamma) and gamma > 0:
            lam_inf = float(l3[2] - d2 / ((R[2] / R[1]) ** gamma - 1.0))
    rel = abs(lam[-1] - lam[-2]) / max(abs(lam[-1]), 1e-300)
    if mass[-1] < 1e-6 and rel < 1e-6:
        status, defect = "eigenfunction", pairs[-1].affinity_defect()
    elif mass[-1] >= 1e-3 and mass[-2] >= 1e-3:
        r1, r2 = lam[-2] / lam[-3], lam[-1] / lam[-2]
        if r1 <= 0.9 and r2 <= 0.9:
            status = "no spectral gap"          # λ(R) still falls geometrically as R grows
        elif r2 >= 0.99 and lam_inf > 0:
            status = "gap, no eigenfunction"    # λ(R) has settled on λ∞ > 0
        else:
            status = "undetermined"
        defect = math.nan
    else:
        status, defect = "undetermined", math.nan
    return FirstEigenStatus(law.name, status, radii, tuple(map(float, lam)),
                            tuple(map(float, mass)), lam_inf, float(defect))


# --------------------------------------------------------------------------------------------
# Transition-operator view: maximal correlation of (z, rho z + sqrt(1 - rho^2) eta)
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class MaxCorrelation:
    """Maximal vs linear correlation of ``(z, z')``, ``z' = rho z + sqrt(1-rho²) eta``.

    ``sigma2`` is the first non-trivial singular value of the conditional-expectation operator
    (HGR maximal correlation) of the discretized joint law, ``sigma3`` the next one, ``linear``
    the Pearson correlation of the same discrete law (→ rho), ``gap = sigma2 - linear`` (>= 0 by
    construction). ``error`` (when computed by :func:`maximal_correlation_converged`) is the
    largest change of ``gap`` under grid refinement and domain doubling.
    """

    law: str
    rho: float
    sigma2: float
    sigma3: float
    linear: float
    n: int
    radius: float
    error: float = math.nan
    tail_driven: bool = False

    @property
    def gap(self) -> float:
        return self.sigma2 - self.linear


def _radius_for(law: Law, tail: float, max_radius: float) -> float:
    """Smallest R on a fine grid with ``V(±R) - V(0) >= tail`` (capped at ``max_radius``)."""
    z = np.linspace(0.0, max_radius, 20001)
    d = law.log_density(np.array([0.0]))[0] - np.minimum(law.log_density(z), law.log_density(-z))
    hit = np.nonzero(d >= tail)[0]
    return float(z[hit[0]]) if hit.size else float(max_radius)


def maximal_correlation(law: Law, rho: float, *, spacing: float = 0.05,
                        radius: float | None = None, tail: float = 40.0,
                        max_radius: float = 30.0) -> MaxCorrelation:
    """HGR maximal correlation of ``(z, z')`` for ``z, eta ~ law`` independent.

    The joint density ``q(z, z') = p(z) p((z' - rho z)/s)/s`` (``s = sqrt(1 - rho²)``) is sampled
    on a uniform grid of the given ``spacing`` over ``[-R, R]`` (``R = radius``, or where ``V``
    has risen by ``tail``, capped at ``max_radius``) for ``z`` and, with the same spacing, over
    ``[-(rho + s) R, (rho + s) R]`` for ``z'``; it is normalized into a discrete joint law ``P``.
    With row and column marginals ``r``, ``c``, ``B = diag(r)^-½ P diag(c)^-½`` has top singular
    value 1 (vectors ``sqrt r``, ``sqrt c``) and its second singular value is the maximal
    correlation of the discrete law: the top singular value of ``B - sqrt(r) sqrt(c)ᵀ`` (LAPACK,
    or ARPACK for large grids). On a uniform grid this is spectrally accurate for smooth ``p``
    and O(h²) across kinks.

    Note: ``z'`` has the law of ``z`` only for the Gaussian; the operator maps ``L²(law of z')``
    to ``L²(p)``.
    """
    if not isinstance(law, Law):
        raise ValueError(f"law must be a pycheck.uniqueness.Law, got {type(law).__name__}")
    r_ = check_rho(rho)
    h = check_nonneg(spacing, "spacing")
    if h <= 0:
        raise ValueError(f"spacing must be > 0, got {spacing!r}")
    R = _radius_for(law, check_nonneg(tail, "tail"), check_nonneg(max_radius, "max_radius")) \
        if radius is None else check_nonneg(radius, "radius")
    if R <= 0:
        raise ValueError("radius must be > 0")
    s = math.sqrt(1.0 - r_ * r_)
    half = int(math.ceil(R / h - 1e-9))
    n = 2 * half + 1
    if n > 6001:
        raise ValueError(f"grid too large ({n} points): increase spacing or decrease radius")
    z = h * np.arange(-half, half + 1)          # exactly the given spacing: grids nest
    R = float(z[-1])
    m = int(math.ceil((r_ + s) * R / h))           # z' = rho z + s eta reaches (rho + s) R
    zp = h * np.arange(-m, m + 1)
    lp = law.log_density(z)
    logP = lp[:, None] + law.log_density((zp[None, :] - r_ * z[:, None]) / s)
    P = np.exp(logP - logP.max())
    P /= P.sum()
    P[P < 1e-250] = 0.0      # no subnormal numbers (they slow LAPACK down a hundredfold)
    r, c = P.sum(1), P.sum(0)
    keep_r, keep_c = r > 1e-100, c > 1e-100   # rows/columns of negligible mass are dropped
    P, zr, zc = P[np.ix_(keep_r, keep_c)], z[keep_r], zp[keep_c]
    r, c = r[keep_r], c[keep_c]
    B = P / np.sqrt(r)[:, None] / np.sqrt(c)[None, :]
    sr, sc = np.sqrt(r), np.sqrt(c)
    B -= np.outer(sr, sc)
    B[np.abs(B) < 1e-250] = 0.0
    if B.size <= 4_000_000:
        sv = svdvals(B, check_finite=False)[:2]
    else:
        sv = np.sort(spla.svds(B, k=2, tol=1e-14, return_singular_vectors=False,
                               random_state=np.random.default_rng(0)))[::-1]
    mr, mc = r @ zr, c @ zc
    cov = (zr - mr) @ P @ (zc - mc)
    lin = cov / math.sqrt((r @ (zr - mr) ** 2) * (c @ (zc - mc) ** 2))
    return MaxCorrelation(law.name, r_, float(sv[0]), float(sv[1]), float(lin), n, float(R))


def maximal_correlation_converged(law: Law, rho: float, *, spacing: float | None = None,
                                  tail: float = 40.0, max_radius: float = 30.0) -> MaxCorrelation:
    """:func:`maximal_correlation` with a convergence check: ``base`` at ``(spacing, R)``
    (``spacing=None``: ``min(0.1, R/200)``),
    ``fine`` at ``(spacing/2, R)``, ``wide`` at ``(spacing, 2R)``. Returns the ``fine`` numbers with
    ``error = max |Δ gap|`` over the two changes and ``tail_driven = True`` when doubling the
    domain moves ``sigma2`` by more than 1e-6 and more than the refinement does: then the maximal
    correlation is approached by functions living ever further out in the tails (the supremum
    is not attained on any fixed window) and the reported value is a lower bound. The numbers
    returned are those of ``fine``, or of ``wide`` when tail-driven (the better lower bound)."""
    radius = None
    if spacing is None:   # auto: at least 200 points per half-width, at most 0.1 apart
        radius = _radius_for(law, check_nonneg(tail, "tail"), check_nonneg(max_radius, "max_radius"))
        spacing = min(0.1, radius / 200.0)
    base = maximal_correlation(law, rho, spacing=spacing, radius=radius, tail=tail,
                               max_radius=max_radius)
    fine = maximal_correlation(law, rho, spacing=spacing / 2, radius=base.radius)
    wide = maximal_correlation(law, rho, spacing=spacing, radius=2 * base.radius)
    d_h, d_r = abs(fine.sigma2 - base.sigma2), abs(wide.sigma2 - base.sigma2)
    err = max(abs(fine.gap - base.gap), abs(wide.gap - base.gap))
    tail_driven = bool(d_r > 1e-6 and d_r > d_h)
    best = wide if tail_driven and wide.sigma2 > fine.sigma2 else fine
    return MaxCorrelation(law.name, best.rho, best.sigma2, best.sigma3, best.linear, best.n,
                          best.radius, float(err), tail_driven)


# --------------------------------------------------------------------------------------------
# The table of the issue
# --------------------------------------------------------------------------------------------

def family_table(laws: Sequence[Law] | None = None, rho: float = 0.9, *,
                 spacing: float | None = None,
                 max_radius: float = 30.0) -> list[dict]:
    """One record per law: ``law``, ``alpha``, ``status`` (:func:`first_eigenfunction_status`),
    ``lambda1`` (λ on the largest truncation), ``lambda_limit``, ``defect`` and ``defect_change``
    (:func:`eigen_convergence`; ``nan`` without a first eigenfunction), ``sigma2``, ``linear``,
    ``corr_gap``, ``corr_error``, ``tail_driven`` (:func:`maximal_correlation_converged`)."""
    out = []
    for law in (standard_family() if laws is None else laws):
        st = first_eigenfunction_status(law)
        defect = change = math.nan
        if st.has_eigenfunction:
            c = eigen_convergence(law)
            defect, change = c.defect, c.defect_change
        m = maximal_correlation_converged(law, rho, spacing=spacing, max_radius=max_radius)
        out.append({"law": law.name, "alpha": law.alpha, "status": st.status,
                    "lambda1": st.eigenvalues[-1], "lambda_limit": st.lambda_limit,
                    "defect": defect, "defect_change": change, "rho": rho, "sigma2": m.sigma2,
                    "linear": m.linear, "corr_gap": m.gap, "corr_error": m.error,
                    "tail_driven": m.tail_driven})
    return out
