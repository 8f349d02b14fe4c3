"""`lejepa check` rows for Theorem 4.2 (Gaussian uniqueness), from :mod:`pycheck.uniqueness`.

Rows: the hp-FEM eigenpairs of the Langevin generator against the exact Gaussian ones
(λ_k = k/σ², Hermite eigenfunctions); the affinity defect of the first eigenfunction at α = 2
(≈ 0) and at α = 1.5 and 4 (positive, beyond the refinement change); which laws have no first
eigenfunction (Laplace and logistic: spectral gap at the bottom of the essential spectrum, no
L² eigenfunction; Student-t: no gap), with the exact gaps 1/2 and π²/12; the maximal
correlation of additive-noise pairs: gap 0 for the Gaussian, > 0 for α = 4.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pycheck import uniqueness as U
from pycheck.report import CheckRow, close_row, le_row

CLAIM = "Thm 4.2"


def _gt_row(quantity: str, value: float, floor: float, err: float, note: str = "") -> CheckRow:
    """Passes iff ``value - err > floor`` (positive with a margin beyond the error estimate)."""
    ok = bool(math.isfinite(value) and value - err > floor)
    return CheckRow(CLAIM, quantity, float(value), float(floor), float(err), ok, ">", note)


def _status_row(law: U.Law, expected: str, tails=(30.0, 60.0, 120.0),
                caps=(25.0, 100.0, 400.0)) -> tuple[CheckRow, U.FirstEigenStatus]:
    st = U.first_eigenfunction_status(law, tails=tails, radii_cap=caps)
    row = CheckRow(CLAIM, f"first eigenfunction of -L, {law.name}", st.eigenvalues[-1],
                   st.lambda_limit, st.outer_masses[-1], st.status == expected, "status",
                   f"found '{st.status}', expected '{expected}'; value = λ on the largest "
                   f"interval, reference = extrapolated λ∞, tol column = boundary mass")
    return row, st


def rows(**options: Any) -> list[CheckRow]:
    """The rows listed in the module docstring (``options`` accepted and ignored)."""
    out: list[CheckRow] = []
    g = U.first_eigenpair(lambda z: -z, n_eigs=3)
    out.append(le_row(CLAIM, "max_k |λ_k - k|, k=1..3, N(0,1), hp-FEM",
                      float(np.max(np.abs(g.eigenvalues[1:4] - np.arange(1, 4)))), 1e-8))
    f_err = math.sqrt(float(np.sum(g.weights * (g.u - g.points * np.exp(0.5 * g.log_p)) ** 2)))
    out.append(le_row(CLAIM, "||f_1 - He_1||_L2(p), N(0,1)", f_err, 1e-8))
    g2 = U.first_eigenpair(lambda z: -z / 4.0)
    out.append(close_row(CLAIM, "λ_1 for N(0, σ²=4) (exact 1/σ²)", g2.eigenvalue, 0.25, 1e-8))
    out.append(le_row(CLAIM, "affinity defect, gennorm α=2", U.law_eigenpair(U.gennorm(2.0)).affinity_defect(),
                      1e-6))
    for a in (1.5, 4.0):
        c = U.eigen_convergence(U.gennorm(a))
        out.append(_gt_row(f"affinity defect, gennorm α={a:g}", c.defect, 1e-3,
                           100 * c.defect_change + 1e-12,
                           "passes iff defect - 100 x |change under refinement| > 1e-3"))
    row, st = _status_row(U.laplace(), "gap, no eigenfunction")
    out.append(row)
    out.append(close_row(CLAIM, "Laplace: bottom of spectrum λ∞ (exact V'^2/4 = 1/2)", st.lambda_limit,
                         0.5, 2e-3, "no L2 eigenfunction: λ(R) -> 1/2 from above, mass at the boundary"))
    row, st = _status_row(U.logistic(), "gap, no eigenfunction")
    out.append(row)
    out.append(close_row(CLAIM, "logistic: bottom of spectrum λ∞ (exact π²/12)", st.lambda_limit,
                         math.pi ** 2 / 12, 2e-3, "threshold resonance sinh(z/2b), not in L2(p)"))
    row, _ = _status_row(U.student_t(5.0), "no spectral gap")
    out.append(row)
    m = U.maximal_correlation(U.gaussian(), 0.9, spacing=0.1)
    out.append(le_row(CLAIM, "max corr - linear corr, N(0,1), rho=0.9", abs(m.gap), 1e-10,
                      note=f"sigma2={m.sigma2:.12f}"))
    m4 = U.maximal_correlation_converged(U.gennorm(4.0), 0.9, spacing=0.1)
    out.append(_gt_row("max corr - linear corr, gennorm α=4, rho=0.9", m4.gap, 1e-4,
                       10 * m4.error + 1e-12, "passes iff gap - 10 x error > 1e-4"))
    return out
