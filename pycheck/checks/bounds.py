"""`lejepa check` rows for Theorem 4.3 (approximate identifiability).

Rows: the paper's worked numbers; on fixed polynomial encoders (Hermite coefficients) the closed-form
alignment loss and recovery error against exact Gauss-Hermite quadrature of the polynomial, and the
corrected bound err(Q) <= ||mu||^2 + D_tr + (eps + D_tr)^2; the paper's form D_n + (eps + D_n)^2
on the counterexamples of docs/approx.md (e) (expected failures of the PAPER's form: those rows
PASS when our code detects that the paper's bound is violated); and one statistical row from samples
(lower 6-sigma bootstrap limit of bound - err >= 0).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pycheck.bounds import (
    HermiteEncoder,
    approx_bound,
    estimate_from_samples,
    normalized_gap,
    population,
    quadrature_values,
    sample_ou_pairs,
)
from pycheck.report import CheckRow, close_row, ge_row, le_row

CLAIM = "Thm 4.3"


def _encoders() -> list[tuple[str, HermiteEncoder, float]]:
    return [
        ("h=0.9z+0.2He2 (n=1)", HermiteEncoder.from_dict({(1,): [0.9], (2,): [0.2]}), 0.8),
        ("random cubic n=2 w/ mean", HermiteEncoder.random(2, 3, np.random.default_rng(3), mean=True), 0.8),
        ("random quadratic n=3", HermiteEncoder.random(3, 2, np.random.default_rng(5), scale=0.7,
                                                       nonlinear_scale=0.2), 0.9),
    ]


def _expected_failure(name: str, err: float, paper: float) -> CheckRow:
    gap = err - paper
    return CheckRow(f"{CLAIM} paper's form (delta_n, mean 0)", f"err - paper bound, {name}", gap, 0.0, 0.0,
                    bool(np.isfinite(gap) and gap > 0), ">",
                    "expected failure of the PAPER's form: PASS = our code detects err > D_n + (eps + D_n)^2")


def rows(**options: Any) -> list[CheckRow]:
    """The rows listed in the module docstring (``options`` are accepted and ignored)."""
    out: list[CheckRow] = [close_row(f"{CLAIM} worked numbers", "D(delta=0.018, rho=0.9)",
                                     float(normalized_gap(0.018, 0.9)), 0.1, 1e-12)]
    for eps, ref in [(0.0, 0.11), (0.1, 0.14), (0.5, 0.46)]:
        out.append(close_row(f"{CLAIM} worked numbers", f"bound(delta=0.018, eps={eps}, rho=0.9)",
                             float(approx_bound(0.018, eps, 0.9)), ref, 1e-12))
    for name, enc, rho in _encoders():
        p = population(enc, rho)
        q = quadrature_values(enc, rho, Q=p.Q)
        out.append(close_row(f"{CLAIM} Mehler closed form", f"L, {name}", p.L, q["L"], 1e-9,
                             "closed form vs exact Gauss-Hermite quadrature"))
        out.append(close_row(f"{CLAIM} Pythagorean split", f"err(Q), {name}", p.err, q["err"], 1e-9,
                             "||mu||^2+||A-Q||^2+N vs quadrature of E||h-Qz||^2, Q polar"))
        out.append(le_row(f"{CLAIM} corrected bound", f"err(Q) <= ||mu||^2+D_tr+(eps+D_tr)^2, {name}",
                          p.err, p.bound, 1e-12))
    p = population(HermiteEncoder.linear([[0.5]]), 0.9)
    out.append(_expected_failure("h=z/2, rho=0.9 (tr Cov < n)", p.err, p.paper))
    p = population(HermiteEncoder.linear(np.eye(2), [0.6, -0.8]), 0.8)
    out.append(_expected_failure("h=z+mu, |mu|=1", p.err, p.paper))
    name, enc, rho = _encoders()[1]
    z, h, hp = sample_ou_pairs(enc, rho, 4000, seed=1)
    e = estimate_from_samples(z, h, hp, rho, n_boot=200, z_score=6.0, seed=0)
    out.append(ge_row(f"{CLAIM} corrected bound from samples", f"lower CI of bound - err, {name}",
                      float(e.margin.lo), 0.0, 0.0,
                      f"m=4000 pairs, bootstrap (200, seed 0) value - 6 se; point {e.margin.value:.4g}"))
    pe = population(enc, rho)
    out.append(CheckRow(f"{CLAIM} estimate from samples", f"err(Q) in 6-sigma bootstrap CI, {name}",
                        float(e.err.value), pe.err, 6.0 * float(e.err.se), e.err.covers(pe.err), "in CI",
                        "sample Procrustes error vs exact population value"))
    return out
