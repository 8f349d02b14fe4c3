"""Tests of pycheck.uniqueness (Theorem 4.2): exact eigenpairs (Gaussian, truncated Laplace,
uniform limit), the affinity defect, the laws without a first eigenfunction, and the maximal
correlation of additive-noise pairs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.polynomial.hermite_e import hermeval
from scipy.optimize import brentq

from pycheck import uniqueness as U


# ---------------------------------------------------------------- exact eigenpairs

@pytest.mark.parametrize("sigma", [0.5, 1.0, 3.0])
def test_gaussian_eigenpairs_match_hermite(sigma: float) -> None:
    """N(0, σ²): λ_k = k/σ², eigenfunctions He_k(z/σ)/sqrt(k!); first one to 1e-8 in L²(p)."""
    pr = U.first_eigenpair(lambda z: -z / sigma ** 2, n_eigs=4)
    k = np.arange(1, 5)
    assert np.max(np.abs(pr.eigenvalues[1:5] * sigma ** 2 - k)) < 1e-8
    assert abs(pr.eigenvalues[0]) < 1e-8                 # constants
    exact = pr.points / sigma                            # He_1(z/σ), unit L²(p) norm
    err = math.sqrt(np.sum(pr.weights * (pr.u - exact * np.exp(0.5 * pr.log_p)) ** 2))
    assert err < 1e-8
    z = np.linspace(-2 * sigma, 2 * sigma, 9)
    assert np.max(np.abs(pr(z) - z / sigma)) < 1e-8


def test_gaussian_without_log_density_integrates_the_score() -> None:
    """With only the score (log p by Gauss panels), and off-centre N(1, 1): λ_1 = 1, f = z - 1."""
    pr = U.first_eigenpair(lambda z: -(z - 1.0), center=1.0, n_eigs=2)
    assert abs(pr.eigenvalue - 1.0) < 1e-8 and abs(pr.eigenvalues[2] - 2.0) < 1e-8
    assert pr.affinity_defect() < 1e-12
    z = np.array([-1.0, 0.5, 2.0, 3.0])
    assert np.max(np.abs(pr(z) - (z - 1.0))) < 1e-8
    # second Hermite eigenfunction is orthogonal to affine functions: He_2 has defect 1
    w = np.exp(-0.5 * (np.linspace(-8, 8, 4001) - 1) ** 2)
    zz = np.linspace(-8, 8, 4001)
    assert abs(U.affinity_defect(hermeval(zz - 1, [0, 0, 1]), zz, w) - 1.0) < 1e-10


@pytest.mark.parametrize("R", [6.0, 15.0])
def test_truncated_laplace_matches_transcendental_root(R: float) -> None:
    """V = β|z| on [-R, R], Neumann: odd f = e^{β|z|/2} sin(kz), tan(kR) = -2k/β,
    λ_1 = β²/4 + k² (even ones have k = π/R, larger). Kink at 0 handled to 1e-9."""
    law = U.laplace()
    beta = math.sqrt(2.0)
    k = brentq(lambda k: math.sin(k * R) * beta / 2 + k * math.cos(k * R), math.pi / (2 * R) + 1e-12,
               math.pi / R - 1e-12)
    pr = U.law_eigenpair(law, domain=(-R, R))
    assert abs(pr.eigenvalue - (beta ** 2 / 4 + k * k)) < 1e-9
    # f sqrt(p) ∝ sin(kz) pointwise
    z = np.linspace(-R, R, 401)
    g = pr(z) * np.exp(-beta * np.abs(z) / 2)
    c = np.dot(g, np.sin(k * z)) / np.dot(np.sin(k * z), np.sin(k * z))
    assert np.max(np.abs(g - c * np.sin(k * z))) < 1e-7 * np.max(np.abs(g))
    # so f² p ∝ sin²(kz) keeps a fixed share (> 0.4) of its mass in the outer half, whatever R
    F = lambda x: x / 2 - math.sin(2 * k * x) / (4 * k)  # noqa: E731
    assert (F(R) - F(R / 2)) / F(R) > 0.4


def test_uniform_limit_of_generalized_normal() -> None:
    """α → ∞: uniform on [-√3, √3], λ_1 → π²/12, f → sin(πz/(2√3)), defect → 1 - 6·(4/π²)²·... """
    lam_u = math.pi ** 2 / 12
    a = math.pi / 2
    corr2 = (math.sin(a) / a ** 2 - math.cos(a) / a) ** 2 / (1 / 3 * 1 / 2)
    defect_u = 1 - corr2
    errs = []
    for alpha in (8.0, 32.0, 128.0):
        pr = U.law_eigenpair(U.gennorm(alpha))
        errs.append((abs(pr.eigenvalue - lam_u), abs(pr.affinity_defect() - defect_u)))
    assert errs[0][0] > errs[1][0] > errs[2][0] and errs[2][0] < 2e-3
    assert errs[2][1] < 2e-4


def test_scaling_law() -> None:
    """z -> c z divides λ by c² and leaves the affinity defect unchanged."""
    law, c = U.gennorm(4.0), 2.5
    a = U.law_eigenpair(law)
    b = U.first_eigenpair(lambda z: law.score(z / c) / c, log_density=lambda z: law.log_density(z / c))
    assert abs(b.eigenvalue * c * c - a.eigenvalue) < 1e-9
    assert abs(b.affinity_defect() - a.affinity_defect()) < 1e-9


# ---------------------------------------------------------------- the affinity defect

def test_affinity_defect_zero_at_alpha_2_positive_elsewhere() -> None:
    """Defect < 1e-6 at α = 2; at α = 1.5 and 4 above 1e-3 with refinement changes below 1e-8."""
    c2 = U.eigen_convergence(U.gennorm(2.0))
    assert c2.defect < 1e-6 and c2.defect_refined < 1e-6
    for alpha, lo in ((1.5, 0.03), (4.0, 0.01)):
        c = U.eigen_convergence(U.gennorm(alpha))
        assert c.defect > lo and c.defect_change < 1e-8 and c.eigenvalue_change < 1e-8


def test_affinity_defect_only_vanishes_at_two() -> None:
    d = {a: U.law_eigenpair(U.gennorm(a)).affinity_defect() for a in (1.25, 1.75, 2.0, 2.5, 6.0)}
    assert d[2.0] < 1e-12
    assert all(v > 1e-3 for a, v in d.items() if a != 2.0)
    assert U.law_eigenpair(U.gaussian_mixture(0.8)).affinity_defect() > 1e-2


def test_affinity_defect_arrays() -> None:
    z = np.linspace(-3, 3, 601)
    w = np.exp(-z * z / 2)
    assert U.affinity_defect(2 * z + 1, z, w) < 1e-15
    assert abs(U.affinity_defect(z ** 2, z, w) - 1.0) < 1e-12      # even: no linear part
    d = U.affinity_defect(z + 0.1 * z ** 3, z, w)
    assert 0 < d < 0.2


# ---------------------------------------------------------------- missing first eigenfunctions

@pytest.mark.parametrize("law,expected,limit", [
    (U.laplace(), "gap, no eigenfunction", 0.5),
    (U.logistic(), "gap, no eigenfunction", math.pi ** 2 / 12),
    (U.student_t(3.0), "no spectral gap", 0.0),
    (U.gennorm(0.5), "no spectral gap", 0.0),
    (U.gennorm(1.5), "eigenfunction", None),
    (U.gaussian_mixture(0.8), "eigenfunction", None),
])
def test_first_eigenfunction_status(law: U.Law, expected: str, limit: float | None) -> None:
    st = U.first_eigenfunction_status(law, tails=(30, 60, 120), radii_cap=(25, 100, 400))
    assert st.status == expected
    if expected == "no spectral gap":
        assert st.eigenvalues[-1] < 0.2 * st.eigenvalues[0] and min(st.outer_masses) > 0.5
    elif expected == "gap, no eigenfunction":
        assert abs(st.lambda_limit - limit) < 2e-3
        assert all(a > b > limit for a, b in zip(st.eigenvalues, st.eigenvalues[1:]))
        assert min(st.outer_masses) > 0.1
    else:
        assert st.outer_masses[-1] < 1e-10 and st.defect > 1e-3


# ---------------------------------------------------------------- transition operator

@pytest.mark.parametrize("rho", [0.3, 0.9])
def test_maximal_correlation_gaussian(rho: float) -> None:
    """Mehler: singular values ρ^k, so maximal = linear correlation = ρ (gap 0), next ρ²."""
    m = U.maximal_correlation(U.gaussian(), rho, spacing=0.1)
    assert abs(m.sigma2 - rho) < 1e-10 and abs(m.linear - rho) < 1e-10 and abs(m.gap) < 1e-10
    assert abs(m.sigma3 - rho ** 2) < 1e-8


def test_maximal_correlation_gap_non_gaussian() -> None:
    m = U.maximal_correlation_converged(U.gennorm(4.0), 0.9, spacing=0.1)
    assert m.gap > 1e-3 and m.error < 1e-6 and not m.tail_driven
    m15 = U.maximal_correlation_converged(U.gennorm(1.5), 0.9, spacing=0.1)
    assert m15.gap > 1e-3 and m15.error < 1e-4 and not m15.tail_driven
    ml = U.maximal_correlation_converged(U.laplace(), 0.9, spacing=0.2, max_radius=15.0)
    assert ml.gap > 1e-2 and ml.tail_driven


# ---------------------------------------------------------------- bad input

def test_bad_inputs_raise() -> None:
    with pytest.raises(ValueError, match="log_density_grad"):
        U.first_eigenpair(3.0)
    with pytest.raises(ValueError, match="degree"):
        U.first_eigenpair(lambda z: -z, degree=1)
    with pytest.raises(ValueError, match="domain"):
        U.first_eigenpair(lambda z: -z, domain=(1.0, 2.0))
    with pytest.raises(ValueError, match="non-finite"):
        U.first_eigenpair(lambda z: np.where(z > 1, np.nan, -z))
    with pytest.raises(ValueError, match="shape"):
        U.first_eigenpair(lambda z: np.zeros(3))
    with pytest.raises(ValueError, match="rho"):
        U.maximal_correlation(U.gaussian(), 1.5)
    with pytest.raises(ValueError, match="alpha"):
        U.gennorm(-1.0)
    with pytest.raises(ValueError, match="nu"):
        U.student_t(2.0)
    with pytest.raises(ValueError, match="p_weights"):
        U.affinity_defect(np.ones(3), np.arange(3.0), -np.ones(3))
    with pytest.raises(ValueError, match="equal length"):
        U.affinity_defect(np.ones(3), np.arange(4.0), np.ones(3))
    pr = U.first_eigenpair(lambda z: -z)
    with pytest.raises(ValueError, match="interval"):
        pr(np.array([100.0]))


# ---------------------------------------------------------------- the figure command

def _figure_module():
    import importlib.util
    from pathlib import Path

    pytest.importorskip("matplotlib")          # the plot extra; a pycheck-only install has none

    path = Path(__file__).resolve().parents[2] / "experiments" / "figures" / "uniqueness_figure.py"
    spec = importlib.util.spec_from_file_location("uniqueness_figure", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_figure_r2_overlay_and_redraw(tmp_path) -> None:
    """--r2 parses CSV (grouped by method) and JSON; --from-table redraws without recomputing."""
    import json

    fig = _figure_module()
    csv_path = tmp_path / "r2.csv"
    csv_path.write_text("alpha,method,r2\n1,SIGReg,0.9\n2,SIGReg,0.99\n1,VICReg,0.5\n2,VICReg,0.98\n")
    series = fig.load_r2(str(csv_path))
    assert series == {"SIGReg r2": [(1.0, 0.9), (2.0, 0.99)], "VICReg r2": [(1.0, 0.5), (2.0, 0.98)]}
    js = tmp_path / "r2.json"
    js.write_text(json.dumps({"SIGReg": {"0.5": 0.95, "2": 1.0}}))
    assert fig.load_r2(str(js)) == {"SIGReg": [(0.5, 0.95), (2.0, 1.0)]}
    runs = tmp_path / "runs"
    runs.mkdir()
    for i, (alpha, seed, r2) in enumerate([(1.0, 0, 0.8), (1.0, 1, 0.9), (2.0, 0, 0.99)]):
        (runs / f"r{i}.json").write_text(json.dumps({
            "run": f"r{i}", "seed": seed, "metrics": {"r2_h_to_z": r2},
            "config": {"latent": {"dist": "gennorm", "alpha": alpha}, "loss": {"kind": "sigreg"}}}))
    got = fig.load_r2([str(runs)])
    assert list(got) == ["sigreg (runs)"]
    assert [a for a, _ in got["sigreg (runs)"]] == [1.0, 2.0]
    assert abs(got["sigreg (runs)"][0][1] - 0.85) < 1e-12      # mean over seeds
    with pytest.raises(ValueError, match="alpha"):
        bad = tmp_path / "bad.csv"
        bad.write_text("shape,r2\n1,0.5\n")
        fig.load_r2(str(bad))
    rec = dict(status="eigenfunction", lambda1=1.0, lambda_limit=1.0, defect_change=1e-16, rho=0.9,
               linear=0.9, corr_error=1e-16, tail_driven=False)
    table = [dict(rec, law="gennorm(alpha=2)", alpha=2.0, defect=1e-25, sigma2=0.9, corr_gap=0.0),
             dict(rec, law="gennorm(alpha=4)", alpha=4.0, defect=0.0156, sigma2=0.9033, corr_gap=3.3e-3),
             dict(rec, law="laplace", alpha=1.0, defect=float("nan"), sigma2=0.93, corr_gap=0.03,
                  status="gap, no eigenfunction", tail_driven=True)]
    md = fig.markdown(table)
    assert "— (none)" in md and "tail-driven" in md and md.count("\n") == 4
    tpath = tmp_path / "t.json"
    tpath.write_text(json.dumps(table))
    out = tmp_path / "f.png"
    assert fig.main(["--from-table", str(tpath), "--out", str(out), "--r2", str(csv_path), str(runs)]) == 0
    assert out.stat().st_size > 10_000
