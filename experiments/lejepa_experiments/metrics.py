"""Identifiability metrics of an encoder composed with its mixing, as a function of the latent z.

All computations are vectorised torch on the tensors' device, in float64. Inputs: ``z`` (m, n)
latents, ``h = f(g(z))`` (m, n) embeddings, ``h2 = f(g(z'))`` for an OU partner ``z'`` of ``z`` with
correlation ``rho`` (the pair correlation the encoder was trained on).

Quantities (sample versions of the population quantities in ``docs/approx.md``):

* ``r2_h_to_z`` / ``r2_z_to_h``: R^2 of the OLS fit with intercept of z on h / of h on z,
  ``1 - SS_res / SS_tot`` per output coordinate, averaged uniformly over coordinates;
* ``A``: slope of the OLS fit ``h ~ A z + b``; ``orthogonality = ||A^T A - I||_F``;
* ``epsilon = ||Cov(h) - I||_F`` (Cov with 1/m), ``mean_sq = ||mean h||^2``;
* ``align = mean ||h - h2||^2`` (L), ``delta_n = L - 2(1 - rho) n``, ``delta_tr = L - 2(1 - rho) tr Cov(h)``
  (never clamped; delta_tr >= 0 in population), ``D_* = delta_* / (2 rho (1 - rho))``;
* ``bound = mean_sq + D_tr + (epsilon + D_tr)^2`` (the corrected Theorem 4.3, valid for any mean and
  trace), ``bound_paper = D_n + (epsilon + D_n)^2`` (the paper's form);
* ``Q = U V^T`` the polar factor of A (SVD ``A = U S V^T``), ``recovery_error = mean ||h - Q z||^2``;
* ``nonlinear_energy = mean ||h - A z - b||^2`` (the OLS residual, estimates N).
"""

from __future__ import annotations

import math

import torch


def _ols(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Least squares ``y ~ x B + c``; returns ``(B, c, residual)``.

    Centred normal equations ``(xc^T xc) B = xc^T yc`` in float64, solved by ``lstsq`` on the small
    p x p system (rank-deficient safe). On CPU the driver is ``gelsd`` (SVD): MKL's default ``gelsy``
    (pivoted QR) gives last-bit differences for identical inputs depending on where the buffers lie
    in memory (measured: up to 14 distinct results in 150 calls for p = 64, 3 for p = 8), which made
    ``orthogonality`` and ``recovery_error`` differ between otherwise identical runs; ``gelsd`` gave
    one result in every such trial. CUDA has only ``gels``.
    """
    xm, ym = x.mean(0, keepdim=True), y.mean(0, keepdim=True)
    xc, yc = x - xm, y - ym
    driver = "gelsd" if xc.device.type == "cpu" else None
    coef = torch.linalg.lstsq(xc.T @ xc, xc.T @ yc, driver=driver).solution  # (p, q)
    resid = yc - xc @ coef
    return coef, (ym - xm @ coef).squeeze(0), resid


def r2_score(x: torch.Tensor, y: torch.Tensor) -> float:
    """Mean over y's coordinates of the R^2 of the OLS fit (with intercept) of y on x."""
    _, _, resid = _ols(x, y)
    yc = y - y.mean(0, keepdim=True)
    r2 = 1.0 - resid.square().sum(0) / yc.square().sum(0)
    return float(r2.mean())


def polar_factor(a: torch.Tensor) -> torch.Tensor:
    """Orthogonal polar factor ``U V^T`` of ``A = U S V^T`` (the orthogonal matrix nearest A in Frobenius norm)."""
    u, _, vh = torch.linalg.svd(a)
    return u @ vh


def identifiability_metrics(z: torch.Tensor, h: torch.Tensor, h2: torch.Tensor, rho: float) -> dict[str, float]:
    """All metrics of the module docstring as a dict of floats (plus ``bound_holds_point``, the bare
    point comparison ``recovery_error <= bound``; sampling noise in delta_tr can flip it for a
    near-linear encoder, so the statistical verdict is :func:`bound_check`)."""
    if z.ndim != 2 or h.shape != z.shape or h2.shape != z.shape:
        raise ValueError(f"z, h, h2 must share one (m, n) shape; got {tuple(z.shape)}, {tuple(h.shape)}, {tuple(h2.shape)}")
    if not 0.0 < rho < 1.0:
        raise ValueError(f"rho must lie in (0, 1), got {rho!r}")
    z, h, h2 = z.double(), h.double(), h2.double()
    for name, t in (("z", z), ("h", h), ("h2", h2)):
        if not bool(torch.isfinite(t).all()):
            raise ValueError(f"{name} contains non-finite values")
    m, n = z.shape
    eye = torch.eye(n, dtype=z.dtype, device=z.device)
    coef, _, resid = _ols(z, h)          # h ~ z coef + c, coef = A^T
    a = coef.T
    mu = h.mean(0)
    hc = h - mu
    cov = hc.T @ hc / m
    eps = float(torch.linalg.matrix_norm(cov - eye))
    align = float((h - h2).square().sum(1).mean())
    tr = float(torch.trace(cov))
    delta_n = align - 2 * (1 - rho) * n
    delta_tr = align - 2 * (1 - rho) * tr
    d_n = delta_n / (2 * rho * (1 - rho))
    d_tr = delta_tr / (2 * rho * (1 - rho))
    mean_sq = float(mu.square().sum())
    q = polar_factor(a)
    rec = float((h - z @ q.T).square().sum(1).mean())
    bound = mean_sq + d_tr + (eps + d_tr) ** 2
    out = {
        "r2_h_to_z": r2_score(h, z),
        "r2_z_to_h": r2_score(z, h),
        "orthogonality": float(torch.linalg.matrix_norm(a.T @ a - eye)),
        "epsilon": eps,
        "mean_sq": mean_sq,
        "trace_cov": tr,
        "align": align,
        "delta_n": delta_n,
        "delta_tr": delta_tr,
        "D_n": d_n,
        "D_tr": d_tr,
        "bound": bound,
        "bound_paper": d_n + (eps + d_n) ** 2,
        "recovery_error": rec,
        "nonlinear_energy": float(resid.square().sum(1).mean()),
        "rho": float(rho),
        "eval_size": int(m),
    }
    out["bound_holds_point"] = bool(math.isfinite(bound) and rec <= bound)
    return out


def bootstrap_pairs(n: int, cap: int) -> int:
    """How many pairs a bootstrap check of an n-dimensional encoder uses: ``cap`` in low dimension,
    fewer when the bootstrap's cost (200 resamples x m x n^2 for the moment matrices) or memory
    (m x n) would be large: ``max(2000, min(cap, 4e6 / n, 1e8 / n^2))``."""
    n = max(1, int(n))
    return int(max(2000, min(cap, 4_000_000 // n, 100_000_000 // (n * n))))


CLAIM_4_3 = "Theorem 4.3 (corrected): E||h - Qz||^2 <= ||mu||^2 + D_tr + (eps + D_tr)^2"
"""The ``claim`` recorded with every bound check (the paper's numbering)."""

MAX_BOOTSTRAP_DIM = 128  # the bootstrap stacks 201 n x n moment matrices: memory grows like n^2


def bound_check(z: torch.Tensor, h: torch.Tensor, h2: torch.Tensor, rho: float, *, n_boot: int = 200,
                z_score: float = 3.0, seed: int = 0) -> dict[str, object]:
    """Theorem 4.3 as a statistical statement, by :func:`pycheck.bounds.estimate_from_samples`
    (nonparametric bootstrap over the pairs, interval value +- z_score * se): verdict 'holds' iff the
    lower limit of ``bound - err`` is >= 0 ('violated' iff the upper limit is < 0)."""
    from pycheck.bounds import estimate_from_samples

    est = estimate_from_samples(z.double().cpu().numpy(), h.double().cpu().numpy(), h2.double().cpu().numpy(),
                                rho, n_boot=n_boot, z_score=z_score, seed=seed)
    pick = ("err", "bound", "margin", "delta_tr", "D_tr", "eps", "mu_sq", "paper", "paper_margin")
    return {"claim": CLAIM_4_3, "method": f"nonparametric bootstrap, {n_boot} resamples, value +- {z_score:g} se",
            "m": int(z.shape[0]), "rho": rho, "verdict": est.verdict, "paper_verdict": est.paper_verdict,
            **{k: {"value": float(getattr(est, k).value), "lo": float(getattr(est, k).lo),
                   "hi": float(getattr(est, k).hi)} for k in pick}}


def linear_map(z: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
    """Slope ``A`` (shape ``(d, n)``) of the OLS fit with intercept ``h ~ A z + b`` (float64)."""
    coef, _, _ = _ols(z.double(), h.double())
    return coef.T


def procrustes_matrix_error(a: torch.Tensor) -> float:
    """``||A - Q||_F`` with ``Q`` the orthogonal polar factor of a square ``A`` (its nearest orthogonal
    matrix). Zero iff A is orthogonal; like ``||A^T A - I||_F`` it sees every scaling and shear."""
    a = a.double()
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"A must be a square matrix, got shape {tuple(a.shape)}")
    return float(torch.linalg.matrix_norm(a - polar_factor(a)))


def _whiten(x: torch.Tensor, name: str) -> torch.Tensor:
    """``(x - mean) C^{-1/2}`` with ``C`` the 1/m covariance and ``C^{-1/2}`` its symmetric inverse
    square root (eigendecomposition); ValueError if C is singular (x cannot be whitened)."""
    xc = x - x.mean(0, keepdim=True)
    c = xc.T @ xc / x.shape[0]
    evals, evecs = torch.linalg.eigh(c)
    if not bool(evals.min() > 1e-12 * max(1.0, float(evals.max()))):
        raise ValueError(f"Cov({name}) is singular: {name} cannot be whitened")
    return xc @ (evecs * evals.rsqrt()) @ evecs.T


def whitened_procrustes_error(z: torch.Tensor, h: torch.Tensor) -> float:
    """The Reacher "orthogonality" of the paper's code, rebuilt from its description: whiten both
    sides, ``zw = (z - mean z) Cz^{-1/2}``, ``hw = (h - mean h) Ch^{-1/2}``, fit the best orthogonal
    ``Q`` (polar factor of ``zw^T hw``) and report the relative residual
    ``||hw - zw Q||_F^2 / ||hw||_F^2``.

    Flaw (why this module also reports ``||A^T A - I||_F``): for every invertible ``M`` and vector
    ``b``, ``h -> h M + b`` only turns ``hw`` into ``hw W`` with ``W = C^{1/2} M (M^T C M)^{-1/2}``
    orthogonal, so the value does not change; the same holds for ``z -> z M + b``. A linear encoder
    has value 0 however sheared or scaled it is: the metric measures non-linearity, not orthogonality.
    """
    if z.ndim != 2 or h.ndim != 2 or z.shape[0] != h.shape[0] or z.shape[1] != h.shape[1]:
        raise ValueError(f"z and h must share one (m, n) shape, got {tuple(z.shape)} and {tuple(h.shape)}")
    z, h = z.double(), h.double()
    if not (bool(torch.isfinite(z).all()) and bool(torch.isfinite(h).all())):
        raise ValueError("z and h must be finite")
    zw, hw = _whiten(z, "z"), _whiten(h, "h")
    q = polar_factor(zw.T @ hw)
    return float((hw - zw @ q).square().sum() / hw.square().sum())
