"""`lejepa check` rows for SIGReg's population values and the collapse threshold (:mod:`pycheck.sigreg`).

Rows: the null mean ``N0`` against a Monte Carlo mean of the statistic on iid N(0, 1) batches (6
standard errors); the least statistic of a constant slice over a grid of values equals ``S0`` (at 0);
at ``lam*`` the penalised objective of the collapsed encoder equals that of ``h = Qz``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pycheck import sigreg as sg
from pycheck.report import CheckRow, close_row

CLAIM = "SIGReg (penalised objective)"


def rows(**options: Any) -> list[CheckRow]:
    """The rows listed in the module docstring (``options`` accepted and ignored)."""
    out: list[CheckRow] = []
    vals = sg.slice_statistic(np.random.default_rng(3).standard_normal((20_000, 16)))
    se = float(vals.std(ddof=1) / math.sqrt(vals.size))
    out.append(close_row(CLAIM, "E SIGReg, iid N(0,1) batches of 16 (Monte Carlo)", float(vals.mean()),
                         sg.null_mean(), 6 * se, "tolerance = 6 standard errors; N0 = sum w_k (1 - e^{-t_k^2})"))
    grid = np.linspace(-20, 20, 40_001)
    const = sg.constant_statistic(grid)
    out.append(close_row(CLAIM, "min over constants x in [-20, 20] of SIGReg/m", float(const.min()),
                         sg.collapse_value(), 1e-12, "S0 = sum w_k (1 - e^{-t_k^2/2})^2, attained at x = 0"))
    out.append(CheckRow(CLAIM, "argmin of the same", float(grid[int(np.argmin(const))]), 0.0, 0.0,
                        bool(grid[int(np.argmin(const))] == 0.0), "=="))
    for rho in (0.5, 0.9):
        lam = sg.collapse_threshold(rho, 2, 256)
        collapse = lam * 256 * sg.collapse_value()
        identity = lam * sg.null_mean() + (1 - lam) * 2 * (1 - rho) * 2
        out.append(close_row(CLAIM, f"J(collapse) - J(Qz) at lam* = {lam:.4g} (rho={rho}, n=2, m=256)",
                             collapse - identity, 0.0, 1e-12, "below lam* collapse has the smaller objective"))
    return out
