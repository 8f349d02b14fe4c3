"""Losses for training encoders: alignment, SIGReg, VICReg, covariance whitening, InfoNCE.

Conventions: an embedding batch is a tensor ``h`` of shape ``(m, n)`` (m samples, n features);
``h1``, ``h2`` are the embeddings of the two members of each pair (row i of ``h1`` pairs with
row i of ``h2``). Every function returns a 0-dim tensor and is differentiable.

SIGReg is implemented as a custom autograd function that computes the characteristic function at
equally spaced knots ``t_k = k dt`` from a single cos/sin pair by the angle-addition formulas
(``cos(ku) + i sin(ku) = (cos((k-1)u) + i sin((k-1)u)) (cos u + i sin u)``) and writes the backward
pass in closed form; torch has no such primitive, hence the hand-written function. Two backends
compute the same numbers: fused numba kernels on CPU (:mod:`lejepa_experiments.cf_kernels`) and
pure torch (any device, :class:`_EpsPulleyCF`). Both equal the direct formula (cos and sin at every
knot) to rounding error, see ``tests/test_losses.py`` and ``benchmarks/bench_sigreg.py``.
"""

from __future__ import annotations

import functools
import math
import numbers

import numpy as np
import torch

from pycheck import sigreg as _np_sigreg

from . import cf_kernels

__all__ = [
    "alignment_loss",
    "alignment_loss_authors",
    "sigreg",
    "sigreg_knots",
    "sigreg_null_mean",
    "random_slices",
    "vicreg_loss",
    "whitening_loss",
    "infonce_gaussian",
    "covariance",
]


def _check_pair(h1: torch.Tensor, h2: torch.Tensor) -> None:
    if h1.ndim != 2 or h1.shape != h2.shape:
        raise ValueError(f"h1 and h2 must both have shape (m, n); got {tuple(h1.shape)} and {tuple(h2.shape)}")
    if h1.shape[0] < 2:
        raise ValueError(f"need at least 2 samples, got m = {h1.shape[0]}")


def alignment_loss(h1: torch.Tensor, h2: torch.Tensor) -> torch.Tensor:
    """Alignment loss ``L = (1/m) sum_i ||h1_i - h2_i||^2`` (squared norm summed over features).

    This is the sample mean of ``E||h(z') - h(z)||^2``, the quantity of the paper's Theorem 4.1
    (its minimum over whitened encoders of a Gaussian world is ``2 (1 - rho) n``).
    """
    _check_pair(h1, h2)
    return (h1 - h2).square().sum(dim=1).mean()


def alignment_loss_authors(h1: torch.Tensor, h2: torch.Tensor) -> torch.Tensor:
    """The authors' alignment term: ``mean_{v, i, j} (hbar_ij - h_vij)^2`` over the two views v, the m
    samples i and the n features j, with ``hbar = (h1 + h2) / 2``.

    As ``hbar - h1 = (h2 - h1) / 2``, it equals ``(1/(4 m n)) sum_i ||h1_i - h2_i||^2``, i.e.
    :func:`alignment_loss` divided by ``4n`` (the conversion behind ``loss.convention = authors``,
    ``docs/training.md``, "λ in the authors' units").
    """
    _check_pair(h1, h2)
    hbar = 0.5 * (h1 + h2)
    return 0.5 * ((hbar - h1).square().mean() + (hbar - h2).square().mean())


def covariance(h: torch.Tensor) -> torch.Tensor:
    """Unbiased sample covariance ``C = (h - mean)^T (h - mean) / (m - 1)`` of an ``(m, n)`` batch."""
    hc = h - h.mean(dim=0, keepdim=True)
    return hc.T @ hc / (h.shape[0] - 1)


def whitening_loss(h: torch.Tensor) -> torch.Tensor:
    """Plain covariance whitening ``||C(h) - I||_F^2`` with ``C`` the unbiased covariance.

    This is what the reference code calls "VICReg" (no variance hinge, no weights); it is kept
    as a separate option from :func:`vicreg_loss`.
    """
    if h.ndim != 2 or h.shape[0] < 2:
        raise ValueError(f"h must have shape (m, n) with m >= 2, got {tuple(h.shape)}")
    c = covariance(h)
    return (c - torch.eye(h.shape[1], dtype=h.dtype, device=h.device)).square().sum()


def vicreg_loss(h1: torch.Tensor, h2: torch.Tensor, sim_weight: float = 25.0, var_weight: float = 25.0,
                cov_weight: float = 1.0, gamma: float = 1.0, eps: float = 1e-4) -> torch.Tensor:
    """VICReg (Bardes, Ponce, LeCun 2022) with its standard weights 25 / 25 / 1.

    ``loss = sim_weight * s + var_weight * (v(h1) + v(h2)) / 2 + cov_weight * (c(h1) + c(h2))`` with

    * invariance ``s = (1/(m n)) sum_i ||h1_i - h2_i||^2`` (mean squared error over all entries),
    * variance hinge ``v(h) = (1/n) sum_j max(0, gamma - sqrt(Var(h_j) + eps))`` (unbiased variance),
    * covariance ``c(h) = (1/n) sum_{j != k} C(h)_{jk}^2``.

    The weights are in the reference implementation's units: it averages the two views' variance
    hinges (each halved) and sums their covariance terms. (Before this was checked, the hinges were
    summed, i.e. an effective variance weight twice ``var_weight``; see ``docs/training.md``.)
    """
    _check_pair(h1, h2)
    m, n = h1.shape
    s = (h1 - h2).square().mean()

    def var_term(h: torch.Tensor) -> torch.Tensor:
        std = torch.sqrt(h.var(dim=0, unbiased=True) + eps)
        return torch.relu(gamma - std).mean()

    def cov_term(h: torch.Tensor) -> torch.Tensor:
        c = covariance(h)
        off = c - torch.diag(torch.diagonal(c))
        return off.square().sum() / n

    return (sim_weight * s + var_weight * 0.5 * (var_term(h1) + var_term(h2))
            + cov_weight * (cov_term(h1) + cov_term(h2)))


def infonce_gaussian(h1: torch.Tensor, h2: torch.Tensor, temperature: float = 1.0) -> torch.Tensor:
    """InfoNCE with a Gaussian kernel ``k(a, b) = exp(-||a - b||^2 / (2 tau))``, symmetrised.

    ``loss = -(1/(2m)) sum_i [ log k(h1_i, h2_i) / sum_j k(h1_i, h2_j)
                              + log k(h2_i, h1_i) / sum_j k(h2_i, h1_j) ]``
    (the logits are ``-||h1_i - h2_j||^2 / (2 tau)``, a cross-entropy with the diagonal as target).
    """
    _check_pair(h1, h2)
    if not (temperature > 0 and math.isfinite(temperature)):
        raise ValueError(f"temperature must be a finite number > 0, got {temperature!r}")
    d2 = torch.cdist(h1, h2).square()
    logits = -d2 / (2.0 * temperature)
    target = torch.arange(h1.shape[0], device=h1.device)
    return 0.5 * (torch.nn.functional.cross_entropy(logits, target)
                  + torch.nn.functional.cross_entropy(logits.T, target))


# ----------------------------------------------------------------------------------------- SIGReg

def sigreg_knots(knots: int = 17, t_max: float = 3.0, dtype: torch.dtype = torch.float64,
                 device: torch.device | str | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Knots ``t_k = k t_max/(K-1)``, k = 0..K-1, and weights ``w_k = 2 * trap_k * exp(-t_k^2 / 2)``
    as tensors: :func:`pycheck.sigreg.sigreg_knots` (trapezoid weights on [0, t_max], doubled for the
    symmetric half-line t < 0)."""
    t, w = _np_sigreg.sigreg_knots(knots, t_max)
    return torch.as_tensor(t, dtype=dtype, device=device), torch.as_tensor(w, dtype=dtype, device=device)


def sigreg_null_mean(knots: int = 17, t_max: float = 3.0) -> float:
    """Expected SIGReg statistic when the samples are iid N(0, I): ``sum_k w_k (1 - exp(-t_k^2))``,
    for every batch size (:func:`pycheck.sigreg.null_mean`, derivation there)."""
    return _np_sigreg.null_mean(knots, t_max)


def random_slices(dim: int, slices: int, *, generator: torch.Generator | None = None,
                  dtype: torch.dtype = torch.float32, device: torch.device | str | None = None) -> torch.Tensor:
    """``(dim, slices)`` matrix of independent uniformly random unit columns (normalised Gaussians)."""
    a = torch.randn(dim, slices, generator=generator, dtype=dtype, device=device)
    return a / a.norm(dim=0, keepdim=True)


def _no_double_backward() -> None:
    """The closed-form backward is not itself differentiable: refuse ``create_graph=True`` (inside a
    custom backward, grad mode is on exactly then) instead of returning wrong second derivatives."""
    if torch.is_grad_enabled():
        raise RuntimeError("SIGReg's closed-form backward is not differentiable: second derivatives "
                           "(create_graph=True, e.g. gradient penalties) are not supported")


def _cf_coefficients(dc: torch.Tensor, sbar: torch.Tensor, w: torch.Tensor, dt: float, groups_slices: int,
                     grad_out: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Backward coefficients ``a_k = c_k Sbar_k``, ``b_k = c_k (Cbar_k - phi_k)``, ``c_k = 2 w_k t_k g / (B S)``.

    ``dc`` and ``sbar`` have shape ``(B, K, S)``; ``w`` has shape ``(K,)`` (knots k = 1..K).
    """
    k = torch.arange(1, w.shape[0] + 1, dtype=w.dtype, device=w.device)
    c = (w * k * (dt * 2.0 / groups_slices)).view(-1, 1) * grad_out.to(w.dtype)
    return c * sbar, c * dc


class _EpsPulleyCF(torch.autograd.Function):
    """Sliced characteristic-function statistic with a closed-form backward, in torch.

    Input ``u`` of shape ``(B, m, S)`` (B groups, m samples, S slices). Output: the scalar
    ``(m / (B S)) sum_{b, s} sum_{k >= 1} w_k [(Cbar_{bks} - e^{-t_k^2/2})^2 + Sbar_{bks}^2]``
    with ``Cbar_{bks} = (1/m) sum_j cos(t_k u_{bjs})`` and ``Sbar`` the same with sin
    (the k = 0 term is identically 0).

    Forward: ``E_1 = exp(i dt u)`` from one cos/sin pair, then ``E_k = E_{k-1} E_1`` in place, one
    complex multiply and one sum over the samples per knot (no ``(K, B, m, S)`` table). Backward,
    with ``a_k``, ``b_k`` from :func:`_cf_coefficients`:
    ``d/du_{bjs} = sum_k [a_k cos(t_k u) - b_k sin(t_k u)] = Re sum_k (a_k + i b_k) E_1^k``,
    evaluated by Horner's rule in ``E_1``. Used on GPUs and when numba is missing.
    """

    @staticmethod
    def forward(ctx, u: torch.Tensor, dt: float, kmax: int, w: torch.Tensor, phi: torch.Tensor):  # type: ignore[override]
        B, m, S = u.shape
        theta = u * dt
        e1 = torch.polar(torch.ones_like(theta), theta)
        cur = e1.clone()
        sums = torch.empty((B, kmax, S), dtype=e1.dtype, device=u.device)
        torch.sum(cur, 1, out=sums[:, 0])
        for k in range(1, kmax):
            cur.mul_(e1)
            torch.sum(cur, 1, out=sums[:, k])
        mean = torch.view_as_real(sums) / m                      # (B, K, S, 2)
        dc = mean[..., 0] - phi.view(-1, 1)
        sbar = mean[..., 1]
        stat = ((dc.square() + sbar.square()) * w.view(-1, 1)).sum() * (m / (B * S))
        ctx.save_for_backward(e1, dc, sbar, w)
        ctx.dt = dt
        return stat

    @staticmethod
    def backward(ctx, grad_out: torch.Tensor):  # type: ignore[override]
        _no_double_backward()
        e1, dc, sbar, w = ctx.saved_tensors
        B, m, S = e1.shape
        a, b = _cf_coefficients(dc, sbar, w, ctx.dt, B * S, grad_out)
        coef = torch.complex(a, b).unsqueeze(2)                  # (B, K, 1, S)
        K = coef.shape[1]
        acc = e1 * coef[:, K - 1]
        for k in range(K - 2, -1, -1):
            acc.add_(coef[:, k]).mul_(e1)
        return acc.real.contiguous(), None, None, None, None


class _EpsPulleyCFNumba(torch.autograd.Function):
    """The same statistic and gradient as :class:`_EpsPulleyCF`, on CPU with the fused kernels of
    :mod:`lejepa_experiments.cf_kernels`. ``u`` is ``(B, m, S)`` as for the torch version; the
    kernels want samples contiguous, so ``theta = dt u`` is written transposed, ``(B, S, m)``, and
    the gradient is handed back as a transposed view. The small per-knot arithmetic is done in
    float64 numpy (``w``, ``phi`` are float64 arrays of length K), which costs less per call than
    torch ops."""

    @staticmethod
    def forward(ctx, u: torch.Tensor, dt: float, kmax: int, w: np.ndarray, phi: np.ndarray):  # type: ignore[override]
        B, m, S = u.shape
        theta = torch.empty((B, S, m), dtype=u.dtype)
        torch.mul(u.transpose(1, 2), dt, out=theta)
        c1, s1 = torch.cos(theta), torch.sin(theta)
        csum, ssum = cf_kernels.cf_sums(c1.numpy(), s1.numpy(), kmax)
        dc = csum / m - phi[:, None]                              # (B, K, S) float64
        sbar = ssum / m
        stat = float(((dc * dc + sbar * sbar) * w[:, None]).sum()) * (m / (B * S))
        ctx.save_for_backward(c1, s1)
        ctx.cf = (dc, sbar, w, dt)
        return torch.tensor(stat, dtype=u.dtype)

    @staticmethod
    def backward(ctx, grad_out: torch.Tensor):  # type: ignore[override]
        _no_double_backward()
        c1, s1 = ctx.saved_tensors
        dc, sbar, w, dt = ctx.cf
        B, S, m = c1.shape
        c = (w * np.arange(1, w.shape[0] + 1) * (dt * 2.0 / (B * S)) * float(grad_out))[:, None]
        g = cf_kernels.cf_grad(c1.numpy(), s1.numpy(), c * sbar, c * dc)
        return torch.from_numpy(g).transpose(1, 2), None, None, None, None


@functools.lru_cache(maxsize=32)
def _knots_numpy(knots: int, t_max: float) -> tuple[np.ndarray, np.ndarray]:
    """``(w_k, exp(-t_k^2/2))`` for k = 1..K-1 as float64 arrays (cached: callers must not write to them)."""
    t, w = _np_sigreg.sigreg_knots(knots, t_max)
    return w[1:], np.exp(-t[1:] ** 2 / 2)


SIGREG_BACKENDS = ("auto", "torch", "numba")


def sigreg(h: torch.Tensor, slices: int | torch.Tensor = 256, knots: int = 17, t_max: float = 3.0,
           *, generator: torch.Generator | None = None, backend: str = "auto") -> torch.Tensor:
    """SIGReg statistic of an embedding batch against N(0, I) (Epps-Pulley on random 1-D slices).

    ``h`` has shape ``(m, n)`` or ``(B, m, n)`` (B groups of m samples, e.g. the two views, each
    tested separately). With unit slices ``a_s`` (redrawn on each call unless a ``(n, S)`` matrix is
    passed as ``slices``), knots ``t_k`` and weights ``w_k`` from :func:`sigreg_knots`:

    ``SIGReg = m * mean_{b, s} sum_k w_k [ (mean_j cos(t_k a_s.h_bj) - e^{-t_k^2/2})^2
                                           + (mean_j sin(t_k a_s.h_bj))^2 ]``.

    Its mean is :func:`sigreg_null_mean` when the rows are iid N(0, I), whatever m. Half-precision
    ``h`` is computed in float32. First derivatives only: ``create_graph=True`` raises.

    ``backend``: ``"numba"`` uses the fused CPU kernels of :mod:`lejepa_experiments.cf_kernels`
    (CPU float32/float64 only), ``"torch"`` the pure-torch :class:`_EpsPulleyCF` (any device),
    ``"auto"`` numba when it is installed and ``h`` is a CPU float32/float64 tensor, else torch.
    """
    if backend not in SIGREG_BACKENDS:
        raise ValueError(f"backend must be one of {SIGREG_BACKENDS}, got {backend!r}")
    if h.ndim == 2:
        h = h.unsqueeze(0)
    if h.ndim != 3:
        raise ValueError(f"h must have shape (m, n) or (B, m, n), got {tuple(h.shape)}")
    if h.shape[0] < 1 or h.shape[1] < 1 or h.shape[2] < 1:
        raise ValueError(f"h must have at least one group, sample and feature, got {tuple(h.shape)}")
    if not h.is_floating_point():
        raise ValueError(f"h must be a floating-point tensor, got {h.dtype}")
    if h.dtype in (torch.float16, torch.bfloat16):
        h = h.float()   # half precision is computed in float32 (the cast is differentiable)
    n = h.shape[2]
    if isinstance(slices, torch.Tensor):
        a = slices.to(dtype=h.dtype, device=h.device)
        if a.ndim != 2 or a.shape[0] != n:
            raise ValueError(f"slices matrix must have shape ({n}, S), got {tuple(a.shape)}")
    else:
        if isinstance(slices, bool) or not isinstance(slices, numbers.Integral) or slices < 1:
            raise ValueError(f"slices must be an integer >= 1 or a (n, S) matrix, got {slices!r}")
        a = random_slices(n, int(slices), generator=generator, dtype=h.dtype, device=h.device)
    if a.shape[1] < 1:
        raise ValueError(f"slices matrix must have at least one column, got {tuple(a.shape)}")
    _np_sigreg.check_knots(knots, t_max)
    knots = int(knots)
    numba_ok = (cf_kernels.available() and h.device.type == "cpu"
                and h.dtype in (torch.float32, torch.float64))
    if backend == "numba" and not numba_ok:
        raise ValueError("backend='numba' needs numba installed and a CPU float32/float64 tensor, got "
                         f"numba {'present' if cf_kernels.available() else 'missing'}, "
                         f"device {h.device.type}, dtype {h.dtype}")
    dt = float(t_max) / (knots - 1)
    w_np, phi_np = _knots_numpy(knots, float(t_max))
    u = (h @ a).contiguous()                                      # (B, m, S)
    if backend == "numba" or (backend == "auto" and numba_ok):
        return _EpsPulleyCFNumba.apply(u, dt, knots - 1, w_np, phi_np)
    w = torch.as_tensor(w_np, dtype=h.dtype, device=h.device)
    phi = torch.as_tensor(phi_np, dtype=h.dtype, device=h.device)
    return _EpsPulleyCF.apply(u, dt, knots - 1, w, phi)
