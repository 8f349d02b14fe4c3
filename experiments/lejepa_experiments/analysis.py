"""Diagnostics of a trained encoder: where (in latent radius) the map h o g departs from linear.

``error_by_radius`` fits the OLS map ``z ~ B h + c`` on an evaluation set and reports, per bin of
the latent radius ``r = ||z||``, the share of samples and the share of the total residual energy
``sum ||z - B h - c||^2`` (so ``1 - R^2`` decomposes over radius bins). Used in ``docs/training.md``
to find what limits identifiability on the spiral.
"""

from __future__ import annotations

from typing import Any

import torch

from .metrics import _ols


@torch.no_grad()
def error_by_radius(enc: torch.nn.Module, mix: torch.nn.Module, z: torch.Tensor,
                    edges: tuple[float, ...] = (0.0, 1.0, 1.5, 2.0, 2.5, 3.0, float("inf"))) -> list[dict[str, Any]]:
    """Per radius bin: ``[lo, hi)``, fraction of samples, fraction of the residual energy, and the
    bin's contribution to ``1 - R^2`` (residual energy over the total variance of z)."""
    h = enc(mix(z)).double()
    zd = z.double()
    _, _, resid = _ols(h, zd)
    res = resid.square().sum(1)
    tot = (zd - zd.mean(0, keepdim=True)).square().sum()
    r = zd.norm(dim=1)
    out = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        sel = (r >= lo) & (r < hi)
        out.append({"r_lo": lo, "r_hi": hi, "frac_samples": float(sel.double().mean()),
                    "frac_residual": float(res[sel].sum() / res.sum()),
                    "one_minus_r2_part": float(res[sel].sum() / tot)})
    return out
