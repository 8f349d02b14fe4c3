"""The Dirichlet-energy appendix: among C¹ maps ``h`` that preserve ``N(0, I_n)``, the energy
``E ||J_h(z)||_F²`` is minimized exactly by the orthogonal maps.

The argument, and what is checked here on samples:

* pointwise AM-GM on the singular values ``s_i`` of ``J``:
  ``||J||_F² = Σ s_i² >= n (Π s_i²)^{1/n} = n |det J|^{2/n}`` (:func:`amgm_gap`);
* measure preservation gives the change of variables ``φ(h(z)) |det J(z)| = φ(z)``, i.e.
  ``log|det J(z)| = (||h(z)||² - ||z||²)/2``, so ``E log|det J| = 0`` (``h(z)`` and ``z`` have the
  same law); Jensen then gives ``E |det J|^{2/n} >= exp((2/n) E log|det J|) = 1``;
* hence ``E ||J||_F² >= n``, with equality iff ``J^T J = I`` almost everywhere (then ``h`` is an
  isometry, affine by Mazur–Ulam, linear and orthogonal since it fixes the centred law).
  :func:`unimodular_excess` gives the quantitative form used in the tests: for ``|det J| = 1``,
  ``||J^T J - I||_F² <= 2 max(1, ||J||_2²)² (||J||_F² - n)``, from
  ``x - 1 - log x >= (x - 1)² / (2 max(1, x)²)`` applied to ``x = s_i²``.

Maps (all preserve ``N(0, I)``; each is a callable on arrays of shape ``(m, n)`` with an exact
``jacobian`` method): :func:`rotation`, :func:`spiral` (``g(z) = R_{01}(c ||z||) z``, the paper's
mixing with ``c = π``; ``J = R (I + c (A z) zᵀ / ||z||)``, ``det J = 1``,
``||J||_F² = n + c² (z_0² + z_1²)``, energy ``n + 2c²``), :func:`gaussian_flow` (time-1 flow of a
Gaussian-divergence-free field, with non-constant ``det J``; Jacobian by central differences)
and :func:`compose` (chain rule). No torch: pycheck stays numpy-only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from pycheck._validate import check_finite_array, check_int, check_nonneg

__all__ = ["GaussianMap", "rotation", "spiral", "gaussian_flow", "compose", "jacobian_fd",
           "amgm_gap", "unimodular_excess", "DirichletEstimate", "dirichlet_energy"]


def _as_batch(z: np.ndarray, dim: int | None = None) -> np.ndarray:
    z = check_finite_array(z, "z")
    if z.ndim != 2 or (dim is not None and z.shape[1] != dim):
        raise ValueError(f"z must have shape (m, {dim if dim is not None else 'n'}), got {z.shape}")
    return z


@dataclass(frozen=True)
class GaussianMap:
    """A map ``R^n -> R^n`` preserving ``N(0, I_n)``: ``fn`` on ``(m, n)`` arrays, ``jac`` giving
    ``(m, n, n)`` Jacobians ``J[k, i, j] = ∂h_i/∂z_j`` (or ``None``: central differences)."""

    name: str
    dim: int
    fn: Callable[[np.ndarray], np.ndarray]
    jac: Callable[[np.ndarray], np.ndarray] | None = None

    def __call__(self, z: np.ndarray) -> np.ndarray:
        return self.fn(_as_batch(z, self.dim))

    def jacobian(self, z: np.ndarray) -> np.ndarray:
        z = _as_batch(z, self.dim)
        return self.jac(z) if self.jac is not None else jacobian_fd(self.fn, z)


def jacobian_fd(h: Callable[[np.ndarray], np.ndarray], z: np.ndarray,
                step: float = 1e-5) -> np.ndarray:
    """Central-difference Jacobian ``(h(z + ε e_j) - h(z - ε e_j)) / (2ε)`` for a batch ``z`` of
    shape ``(m, n)``; returns ``(m, n, n)``. Truncation error ``O(ε²)``, rounding ``O(1e-16/ε)``."""
    z = _as_batch(z)
    eps = check_nonneg(step, "step")
    if eps <= 0:
        raise ValueError("step must be > 0")
    m, n = z.shape
    E = np.eye(n) * eps
    zz = np.concatenate([z[:, None, :] + E[None], z[:, None, :] - E[None]], axis=1).reshape(-1, n)
    out = np.asarray(h(zz), dtype=float)
    if out.shape != (2 * m * n, n):
        raise ValueError(f"h must map shape (k, {n}) to (k, {n}), got {out.shape}")
    out = out.reshape(m, 2, n, n)                  # [k, ±, j, i]
    return np.swapaxes((out[:, 0] - out[:, 1]) / (2 * eps), 1, 2)


def rotation(Q: np.ndarray) -> GaussianMap:
    """``h(z) = Q z`` for orthogonal ``Q`` (``Q^T Q = I`` to 1e-10, else ValueError)."""
    Q = check_finite_array(Q, "Q")
    if Q.ndim != 2 or Q.shape[0] != Q.shape[1]:
        raise ValueError(f"Q must be a square matrix, got shape {Q.shape}")
    n = Q.shape[0]
    if np.linalg.norm(Q.T @ Q - np.eye(n)) > 1e-10:
        raise ValueError("Q must be orthogonal (Q^T Q = I)")
    return GaussianMap(f"rotation({n})", n, lambda z: z @ Q.T,
                       lambda z: np.broadcast_to(Q, (z.shape[0], n, n)).copy())


def _plane_rot(theta: np.ndarray, z: np.ndarray) -> np.ndarray:
    out = z.copy()
    c, s = np.cos(theta), np.sin(theta)
    out[:, 0] = c * z[:, 0] - s * z[:, 1]
    out[:, 1] = s * z[:, 0] + c * z[:, 1]
    return out


def spiral(dim: int = 2, c: float = math.pi) -> GaussianMap:
    """Spiral ``g(z) = R_{01}(c ||z||) z`` (rotation by ``c ||z||`` in the (z_0, z_1) plane).

    Preserves ``N(0, I)`` (radius kept, each sphere rotated rigidly). Exact Jacobian
    ``J = R (I + c (A z) zᵀ / ||z||)`` with ``A`` the plane's rotation generator.
    """
    n = check_int(dim, "dim", 2)
    c = float(check_finite_array(c, "c"))

    def fn(z: np.ndarray) -> np.ndarray:
        return _plane_rot(c * np.linalg.norm(z, axis=1), z)

    def jac(z: np.ndarray) -> np.ndarray:
        r = np.linalg.norm(z, axis=1)
        Az = np.zeros_like(z)
        Az[:, 0], Az[:, 1] = -z[:, 1], z[:, 0]
        inv = np.divide(1.0, r, out=np.zeros_like(r), where=r > 0)
        inner = np.eye(n)[None] + (c * inv)[:, None, None] * Az[:, :, None] * z[:, None, :]
        theta = c * r
        R = np.broadcast_to(np.eye(n), (z.shape[0], n, n)).copy()
        R[:, 0, 0], R[:, 0, 1] = np.cos(theta), -np.sin(theta)
        R[:, 1, 0], R[:, 1, 1] = np.sin(theta), np.cos(theta)
        return R @ inner

    return GaussianMap(f"spiral(dim={n}, c={c:g})", n, fn, jac)


def gaussian_flow(dim: int = 2, amplitude: float = 2.0, center: Sequence[float] | None = None,
                  width: float = 0.8, steps: int = 64) -> GaussianMap:
    """Time-1 flow (RK4, ``steps`` steps) of ``v = A(∇g - z g)``, ``g = amplitude ·
    exp(-||z - center||² / (2 width²))``, ``A`` the (z_0, z_1)-plane rotation generator.

    ``φ v = A ∇(φ g)`` is divergence-free (``A`` antisymmetric), so the exact flow preserves
    ``N(0, I)``; unlike rotations and the spiral, ``det J`` is not constant, so the Jensen step is
    strict. Jacobian by central differences; the RK4 error is checked by the change-of-variables
    residual of :func:`dirichlet_energy`.
    """
    n = check_int(dim, "dim", 2)
    steps = check_int(steps, "steps", 1)
    ctr = np.array([0.7, 0.3] + [0.0] * (n - 2)) if center is None else check_finite_array(center, "center")
    if ctr.shape != (n,):
        raise ValueError(f"center must have shape ({n},), got {ctr.shape}")
    amp = float(check_finite_array(amplitude, "amplitude"))
    w2 = check_nonneg(width, "width") ** 2
    if w2 <= 0:
        raise ValueError("width must be > 0")

    def field(z: np.ndarray) -> np.ndarray:
        d = z - ctr
        g = amp * np.exp(-0.5 * np.sum(d * d, axis=1) / w2)
        grad = -d / w2 * g[:, None] - z * g[:, None]      # ∇g - z g
        v = np.zeros_like(z)
        v[:, 0], v[:, 1] = -grad[:, 1], grad[:, 0]
        return v

    def fn(z: np.ndarray) -> np.ndarray:
        x, dt = z.astype(float).copy(), 1.0 / steps
        for _ in range(steps):
            k1 = field(x)
            k2 = field(x + 0.5 * dt * k1)
            k3 = field(x + 0.5 * dt * k2)
            k4 = field(x + dt * k3)
            x = x + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
        return x

    return GaussianMap(f"gaussian_flow(dim={n})", n, fn, None)


def compose(*maps: GaussianMap) -> GaussianMap:
    """``maps[0] ∘ maps[1] ∘ … `` (the last is applied first), Jacobian by the chain rule."""
    if not maps or not all(isinstance(m, GaussianMap) for m in maps):
        raise ValueError("compose needs one or more GaussianMap arguments")
    n = maps[0].dim
    if any(m.dim != n for m in maps):
        raise ValueError(f"all maps must have the same dimension, got {[m.dim for m in maps]}")

    def fn(z: np.ndarray) -> np.ndarray:
        for m in reversed(maps):
            z = m.fn(z)
        return z

    def jac(z: np.ndarray) -> np.ndarray:
        J = np.broadcast_to(np.eye(n), (z.shape[0], n, n)).copy()
        for m in reversed(maps):
            J = m.jacobian(z) @ J
            z = m.fn(z)
        return J

    return GaussianMap(" o ".join(m.name for m in maps), n, fn, jac)


def amgm_gap(J: np.ndarray) -> np.ndarray:
    """``||J||_F² - n |det J|^{2/n}`` for a batch ``(..., n, n)`` (>= 0 by AM-GM on the squared
    singular values; 0 iff ``J`` is a multiple of an orthogonal matrix)."""
    J = check_finite_array(J, "J")
    if J.ndim < 2 or J.shape[-1] != J.shape[-2]:
        raise ValueError(f"J must have shape (..., n, n), got {J.shape}")
    n = J.shape[-1]
    s = np.linalg.svd(J, compute_uv=False)
    with np.errstate(divide="ignore"):
        geo = np.exp(2.0 * np.mean(np.log(s), axis=-1))
    return np.sum(s * s, axis=-1) - n * geo


def unimodular_excess(J: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For ``|det J| = 1`` (checked to 1e-9): ``(||J||_F² - n, ||JᵀJ - I||_F², bound)`` with
    ``bound = 2 max(1, ||J||_2²)² (||J||_F² - n) >= ||JᵀJ - I||_F²``."""
    J = check_finite_array(J, "J")
    if J.ndim < 2 or J.shape[-1] != J.shape[-2]:
        raise ValueError(f"J must have shape (..., n, n), got {J.shape}")
    n = J.shape[-1]
    if np.any(np.abs(np.abs(np.linalg.det(J)) - 1.0) > 1e-9):
        raise ValueError("J must satisfy |det J| = 1")
    s = np.linalg.svd(J, compute_uv=False)
    excess = np.sum(s * s, axis=-1) - n
    dev = np.sum((s * s - 1.0) ** 2, axis=-1)           # = ||JᵀJ - I||_F²
    bound = 2.0 * np.maximum(1.0, s[..., 0] ** 2) ** 2 * excess
    return excess, dev, bound


@dataclass(frozen=True)
class DirichletEstimate:
    """Monte Carlo estimate of the Dirichlet energy and of the appendix's steps.

    ``energy`` = mean ``||J||_F²`` (``stderr`` its standard error); ``mean_log_det`` = mean
    ``log|det J|`` (``stderr_log_det``); ``mean_det_pow`` = mean ``|det J|^{2/n}``;
    ``amgm_min`` = min over samples of ``||J||_F² - n |det J|^{2/n}`` (AM-GM: >= 0);
    ``jensen_gap`` = ``mean |det J|^{2/n} - exp((2/n) mean log|det J|)`` (Jensen: >= 0);
    ``cov_residual`` = max over samples of ``|log|det J| - (||h(z)||² - ||z||²)/2|``, which is 0
    for an exactly Gaussian-preserving ``h``. ``float(est)`` is ``energy``.
    """

    energy: float
    stderr: float
    mean_log_det: float
    stderr_log_det: float
    mean_det_pow: float
    amgm_min: float
    jensen_gap: float
    cov_residual: float
    dim: int
    n_samples: int

    def __float__(self) -> float:
        return self.energy


def dirichlet_energy(h: GaussianMap | Callable[[np.ndarray], np.ndarray], dim: int,
                     n_samples: int, seed: int,
                     jacobian: Callable[[np.ndarray], np.ndarray] | None = None,
                     fd_step: float = 1e-5) -> DirichletEstimate:
    """Estimate ``E_{z~N(0,I_dim)} ||J_h(z)||_F²`` from ``n_samples`` draws (``numpy`` generator
    seeded with ``seed``), with the AM-GM / Jensen / change-of-variables diagnostics of
    :class:`DirichletEstimate`.

    ``h`` maps arrays ``(m, dim) -> (m, dim)``. Jacobians: ``jacobian(z) -> (m, dim, dim)`` if
    given, else ``h.jacobian`` for a :class:`GaussianMap`, else central differences with step
    ``fd_step``. ``h`` is assumed to preserve ``N(0, I)``; ``cov_residual`` tests it pointwise.
    """
    if not callable(h):
        raise ValueError("h must be callable on arrays of shape (m, dim)")
    dim = check_int(dim, "dim", 1)
    n_samples = check_int(n_samples, "n_samples", 2)
    seed = check_int(seed, "seed", 0)
    if isinstance(h, GaussianMap) and h.dim != dim:
        raise ValueError(f"dim={dim} does not match the map's dimension {h.dim}")
    z = np.random.default_rng(seed).standard_normal((n_samples, dim))
    hz = np.asarray(h(z), dtype=float)
    if hz.shape != z.shape:
        raise ValueError(f"h must map shape {z.shape} to the same shape, got {hz.shape}")
    if jacobian is not None:
        J = np.asarray(jacobian(z), dtype=float)
    elif isinstance(h, GaussianMap):
        J = h.jacobian(z)
    else:
        J = jacobian_fd(h, z, fd_step)
    if J.shape != (n_samples, dim, dim):
        raise ValueError(f"jacobian must return shape {(n_samples, dim, dim)}, got {J.shape}")
    J = check_finite_array(J, "jacobian")
    fro = np.sum(J * J, axis=(1, 2))
    _, logdet = np.linalg.slogdet(J)
    detpow = np.exp(2.0 * logdet / dim)
    resid = logdet - 0.5 * (np.sum(hz * hz, axis=1) - np.sum(z * z, axis=1))
    n = float(n_samples)
    return DirichletEstimate(
        energy=float(fro.mean()), stderr=float(fro.std(ddof=1) / math.sqrt(n)),
        mean_log_det=float(logdet.mean()), stderr_log_det=float(logdet.std(ddof=1) / math.sqrt(n)),
        mean_det_pow=float(detpow.mean()), amgm_min=float(np.min(fro - dim * detpow)),
        jensen_gap=float(detpow.mean() - math.exp(2.0 * logdet.mean() / dim)),
        cov_residual=float(np.max(np.abs(resid))), dim=dim, n_samples=n_samples)
