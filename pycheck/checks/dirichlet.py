"""`lejepa check` rows for the Dirichlet-energy appendix, from :mod:`pycheck.dirichlet`.

Rows: rotations have energy n exactly; the spiral ``R(π||z||) z`` has energy ``n + 2π²`` (Monte
Carlo within 6 standard errors) hence > n; a composition rotation ∘ spiral ∘ rotation has the
spiral's energy; on a Gaussian-preserving flow with non-constant ``det J``: pointwise AM-GM,
``E log|det J| = 0`` (6 s.e.), the Jensen step ``E|det J|^{2/n} >= 1`` and the change-of-variables
identity; over random unimodular matrices ``||J||_F² >= n`` and the stability bound
``||JᵀJ - I||_F² <= 2 max(1, ||J||_2²)² (||J||_F² - n)``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.stats import ortho_group

from pycheck import dirichlet as D
from pycheck.report import CheckRow, close_row, ge_row, le_row

CLAIM = "App. Dirichlet"


def rows(**options: Any) -> list[CheckRow]:
    """The rows listed in the module docstring (``options`` accepted and ignored)."""
    out: list[CheckRow] = []
    Q = ortho_group.rvs(3, random_state=7)
    e = D.dirichlet_energy(D.rotation(Q), 3, 2000, 0)
    out.append(close_row(CLAIM, "E||J||_F^2, rotation n=3", e.energy, 3.0, 1e-12))
    s = D.dirichlet_energy(D.spiral(2), 2, 20000, 1)
    ref = 2 + 2 * math.pi ** 2
    out.append(close_row(CLAIM, "E||J||_F^2, spiral R(pi|z|)z (exact 2+2pi^2)", s.energy, ref,
                         6 * s.stderr, "tolerance = 6 standard errors"))
    out.append(CheckRow(CLAIM, "spiral energy - 6 s.e. > n = 2", s.energy - 6 * s.stderr, 2.0, 0.0,
                        bool(s.energy - 6 * s.stderr > 2.0), ">"))
    Q2 = ortho_group.rvs(2, random_state=3)
    c = D.dirichlet_energy(D.compose(D.rotation(Q2), D.spiral(2), D.rotation(Q2.T)), 2, 20000, 2)
    out.append(close_row(CLAIM, "E||J||_F^2, rotation o spiral o rotation", c.energy, ref,
                         6 * c.stderr, "tolerance = 6 standard errors; chain-rule Jacobian"))
    f = D.dirichlet_energy(D.gaussian_flow(2), 2, 3000, 4)
    out.append(ge_row(CLAIM, "min_z ||J||_F^2 - n|det J|^(2/n), Gaussian flow (AM-GM)", f.amgm_min,
                      0.0, 1e-10))
    out.append(close_row(CLAIM, "E log|det J|, Gaussian flow", f.mean_log_det, 0.0,
                         6 * f.stderr_log_det, "tolerance = 6 standard errors"))
    out.append(CheckRow(CLAIM, "E|det J|^(2/n), Gaussian flow (Jensen: >= 1)", f.mean_det_pow, 1.0,
                        0.0, bool(f.mean_det_pow > 1.0), ">", "strict: det J is not constant"))
    out.append(le_row(CLAIM, "max |log|det J| - (|h|^2-|z|^2)/2|, Gaussian flow", f.cov_residual, 1e-5,
                      note="change of variables; RK4 + finite-difference error"))
    rng = np.random.default_rng(11)
    A = rng.standard_normal((2000, 4, 4))
    A /= np.abs(np.linalg.det(A))[:, None, None] ** 0.25
    exc, dev, bound = D.unimodular_excess(A)
    out.append(ge_row(CLAIM, "min ||J||_F^2 - n over 2000 random |det J|=1, n=4", float(exc.min()),
                      0.0))
    out.append(CheckRow(CLAIM, "max ||J^TJ-I||^2 / bound over the same", float(np.max(dev / bound)), 1.0,
                        0.0, bool(np.all(dev <= bound * (1 + 1e-9))), "<="))
    return out
