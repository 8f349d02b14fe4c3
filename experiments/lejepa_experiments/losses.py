"""Losses for training encoders: alignment, SIGReg, VICReg, covariance whitening, InfoNCE.

Conventions: an embedding batch is a tensor ``h`` of shape ``(m, n)`` (m samples, n features);
``h1``, ``h2`` are the embeddings of the two members of each pair (row i of ``h1`` pairs with
row i of ``h2``). Every function returns a 0-dim tensor and is differentiable.

SIGReg is implemented as a custom autograd function (:class:`_EpsPulleyCF`) that computes the
characteristic function at equally spaced knots ``t_k = k dt`` from a single cos/sin pair by the
angle-addition formulas (``cos(ku) + i sin(ku) = (cos((k-1)u) + i sin((k-1)u)) (cos u + i sin u)``,
one complex multiply per knot) and writes the backward pass in closed form; torch has no such
primitive, hence the hand-written function. It equals the direct formula (cos and sin at every knot) to rounding error, see
``tests/test_losses.py`` and ``benchmarks/bench_sigreg.py``.
"""

from __future__ import annotations

import math

import torch

__all__ = [
    "alignment_loss",
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

    This is the sample mean of ``E||h(z') - h(z)||^2``, the quantity of the paper's Theorem 1
    (its minimum over whitened encoders of a Gaussian world is ``2 (1 - rho) n``).
    """
    _check_pair(h1, h2)
    return (h1 - h2).square().sum(dim=1).mean()


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

    ``loss = sim_weight * s + var_weight * (v(h1) + v(h2)) + cov_weight * (c(h1) + c(h2))`` with

    * invariance ``s = (1/(m n)) sum_i ||h1_i - h2_i||^2`` (mean squared error over all entries),
    * variance hinge ``v(h) = (1/n) sum_j max(0, gamma - sqrt(Var(h_j) + eps))`` (unbiased variance),
    * covariance ``c(h) = (1/n) sum_{j != k} C(h)_{jk}^2``.
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

    return (sim_weight * s + var_weight * (var_term(h1) + var_term(h2))
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
    """Knots ``t_k = k t_max/(K-1)``, k = 0..K-1, and weights ``w_k = 2 * trap_k * exp(-t_k^2 / 2)``.

    ``trap_k`` are the trapezoid weights on [0, t_max] (``dt/2`` at both ends, ``dt`` inside); the
    factor 2 accounts for the symmetric half-line t < 0 (the integrand is even in t).
    """
    if isinstance(knots, bool) or not isinstance(knots, int) or knots < 2:
        raise ValueError(f"knots must be an integer >= 2, got {knots!r}")
    if not (isinstance(t_max, (int, float)) and math.isfinite(t_max) and t_max > 0):
        raise ValueError(f"t_max must be a finite number > 0, got {t_max!r}")
    t = torch.linspace(0.0, float(t_max), knots, dtype=dtype, device=device)
    dt = float(t_max) / (knots - 1)
    trap = torch.full((knots,), dt, dtype=dtype, device=device)
    trap[0] = trap[-1] = dt / 2
    return t, 2.0 * trap * torch.exp(-t.square() / 2)


def sigreg_null_mean(knots: int = 17, t_max: float = 3.0) -> float:
    """Expected SIGReg statistic when the samples are iid N(0, I): ``sum_k w_k (1 - exp(-t_k^2))``.

    Derivation: for x_j iid N(0, 1) and C = mean_j cos(t x_j), S = mean_j sin(t x_j),
    E cos(tx) = e^{-t^2/2}, E cos^2(tx) = (1 + e^{-2t^2})/2, E sin(tx) = 0, E sin^2(tx) = (1 - e^{-2t^2})/2,
    so m E[(C - e^{-t^2/2})^2 + S^2] = (1 + e^{-2t^2})/2 - e^{-t^2} + (1 - e^{-2t^2})/2 = 1 - e^{-t^2},
    for every sample size m and every unit slice (the projection of N(0, I) is N(0, 1)).
    """
    t, w = sigreg_knots(knots, t_max)
    return float((w * (1 - torch.exp(-t.square()))).sum())


def random_slices(dim: int, slices: int, *, generator: torch.Generator | None = None,
                  dtype: torch.dtype = torch.float32, device: torch.device | str | None = None) -> torch.Tensor:
    """``(dim, slices)`` matrix of independent uniformly random unit columns (normalised Gaussians)."""
    a = torch.randn(dim, slices, generator=generator, dtype=dtype, device=device)
    return a / a.norm(dim=0, keepdim=True)


class _EpsPulleyCF(torch.autograd.Function):
    """Sliced characteristic-function statistic with a closed-form backward (see module docstring).

    Input ``u`` of shape ``(B, S, m)`` (B groups, S slices, m samples). Output: the scalar
    ``(m / (B S)) sum_{b, s} sum_{k >= 1} w_k [(Cbar_{kbs} - e^{-t_k^2/2})^2 + Sbar_{kbs}^2]``
    with ``Cbar_{kbs} = (1/m) sum_j cos(t_k u_{bsj})`` and ``Sbar`` the same with sin
    (the k = 0 term is identically 0).

    The table ``E_k = exp(i t_k u)``, k = 1..K, is built by the rotation recurrence
    ``E_k = E_{k-1} * E_1`` (one complex multiply per knot, ``cos`` and ``sin`` only once, for E_1);
    Cbar + i Sbar is its mean over the samples. Gradient, with ``a_k = c_k Sbar_k``, ``b_k = c_k (Cbar_k - phi_k)``,
    ``c_k = 2 w_k t_k / (B S)``: ``d/du_{bsj} = sum_k [a_k cos(t_k u) - b_k sin(t_k u)] = Re sum_k (a_k + i b_k) E_k``,
    accumulated from the stored table.
    """

    @staticmethod
    def forward(ctx, u: torch.Tensor, dt: float, kmax: int, w: torch.Tensor, phi: torch.Tensor):  # type: ignore[override]
        B, S, m = u.shape
        ctype = torch.complex128 if u.dtype == torch.float64 else torch.complex64
        table = torch.empty((kmax, B, S, m), dtype=ctype, device=u.device)
        theta = u * dt
        torch.polar(torch.ones_like(theta), theta, out=table[0])
        e1 = table[0]
        for k in range(1, kmax):
            torch.mul(table[k - 1], e1, out=table[k])
        mean = torch.view_as_real(table.mean(dim=3))   # (K, B, S, 2)
        dc = mean[..., 0] - phi.view(-1, 1, 1)
        sbar = mean[..., 1]
        stat = ((dc.square() + sbar.square()) * w.view(-1, 1, 1)).sum() * (m / (B * S))
        ctx.save_for_backward(table, dc, sbar, w)
        ctx.dt = dt
        return stat

    @staticmethod
    def backward(ctx, grad_out: torch.Tensor):  # type: ignore[override]
        table, dc, sbar, w = ctx.saved_tensors
        K, B, S, m = table.shape
        k = torch.arange(1, K + 1, dtype=w.dtype, device=w.device)
        c = (w * k * (ctx.dt * 2.0 / (B * S))).view(-1, 1, 1) * grad_out
        coef = torch.complex(c * sbar, c * dc).unsqueeze(-1)   # (K, B, S, 1)
        acc = table[0] * coef[0]
        for j in range(1, K):
            acc.addcmul_(table[j], coef[j])
        return acc.real.contiguous(), None, None, None, None


def sigreg(h: torch.Tensor, slices: int | torch.Tensor = 256, knots: int = 17, t_max: float = 3.0,
           *, generator: torch.Generator | None = None) -> torch.Tensor:
    """SIGReg statistic of an embedding batch against N(0, I) (Epps-Pulley on random 1-D slices).

    ``h`` has shape ``(m, n)`` or ``(B, m, n)`` (B groups of m samples, e.g. the two views, each
    tested separately). With unit slices ``a_s`` (redrawn on each call unless a ``(n, S)`` matrix is
    passed as ``slices``), knots ``t_k`` and weights ``w_k`` from :func:`sigreg_knots`:

    ``SIGReg = m * mean_{b, s} sum_k w_k [ (mean_j cos(t_k a_s.h_bj) - e^{-t_k^2/2})^2
                                           + (mean_j sin(t_k a_s.h_bj))^2 ]``.

    Its mean is :func:`sigreg_null_mean` when the rows are iid N(0, I), whatever m.
    """
    if h.ndim == 2:
        h = h.unsqueeze(0)
    if h.ndim != 3:
        raise ValueError(f"h must have shape (m, n) or (B, m, n), got {tuple(h.shape)}")
    if h.shape[1] < 1 or h.shape[2] < 1:
        raise ValueError(f"h must have at least one sample and one feature, got {tuple(h.shape)}")
    n = h.shape[2]
    if isinstance(slices, torch.Tensor):
        a = slices.to(dtype=h.dtype, device=h.device)
        if a.ndim != 2 or a.shape[0] != n:
            raise ValueError(f"slices matrix must have shape ({n}, S), got {tuple(a.shape)}")
    else:
        if isinstance(slices, bool) or not isinstance(slices, int) or slices < 1:
            raise ValueError(f"slices must be an integer >= 1 or a (n, S) matrix, got {slices!r}")
        a = random_slices(n, slices, generator=generator, dtype=h.dtype, device=h.device)
    t, w = sigreg_knots(knots, t_max, dtype=h.dtype, device=h.device)
    u = (h @ a).transpose(1, 2).contiguous()  # (B, S, m)
    dt = float(t_max) / (knots - 1)
    phi = torch.exp(-t[1:].square() / 2)
    return _EpsPulleyCF.apply(u, dt, knots - 1, w[1:], phi)
