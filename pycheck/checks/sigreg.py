"""`lejepa check` rows for SIGReg's population values and the collapse threshold (:mod:`pycheck.sigreg`).

Rows: the null mean ``N0`` against a Monte Carlo mean of the statistic on iid N(0, 1) batches (6
standard errors); the least statistic of a constant slice over a grid of values equals ``S0`` (at 0);
at ``lam*`` the penalised objective of the collapsed encoder equals that of ``h = Qz``. In the
authors' units (both views concatenated, alignment / (4n)): ``N_rho`` against a Monte Carlo mean on
concatenated correlated pairs, and the same equality at ``lam*_a``.
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
    x = np.random.default_rng(5).standard_normal((20_000, 8))
    x2 = 0.9 * x + math.sqrt(1 - 0.81) * np.random.default_rng(6).standard_normal((20_000, 8))
    vals = sg.slice_statistic(np.concatenate([x, x2], axis=1))
    se = float(vals.std(ddof=1) / math.sqrt(vals.size))
    out.append(close_row(CLAIM, "E SIGReg of 8 pairs (corr 0.9) concatenated (Monte Carlo)", float(vals.mean()),
                         sg.pair_null_mean(0.9), 6 * se,
                         "authors' units; N_rho = sum w_k (1 + e^{-(1-rho) t_k^2} - 2 e^{-t_k^2})"))
    for rho in (0.8, 0.9):
        lam = sg.collapse_threshold_authors(rho, 256)
        collapse = lam * 2 * 256 * sg.collapse_value()
        identity = lam * sg.pair_null_mean(rho) + (1 - lam) * (1 - rho) / 2
        out.append(close_row(CLAIM, f"authors' units: J(collapse) - J(Qz) at lam*_a = {lam:.3g} (rho={rho}, m=256)",
                             collapse - identity, 0.0, 1e-12, "lam*_a < 1e-3, the paper's recommended lower end"))
    return out
