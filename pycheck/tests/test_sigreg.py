"""SIGReg population values and the collapse threshold (pycheck.sigreg)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pycheck import sigreg as sg


def test_weights_are_the_doubled_trapezoid_rule_of_the_gaussian():
    _, w = sg.sigreg_knots(401, 3.0)
    assert w.sum() == pytest.approx(math.sqrt(2 * math.pi) * math.erf(3 / math.sqrt(2)), rel=1e-5)


@pytest.mark.parametrize("m", [4, 64])
def test_null_mean_by_monte_carlo(m):
    # 20 000 batches of m iid N(0, 1) projections; the tolerance is 6 standard errors of the mean.
    rng = np.random.default_rng(7)
    vals = sg.slice_statistic(rng.standard_normal((20_000, m)))
    se = vals.std(ddof=1) / math.sqrt(vals.size)
    assert abs(vals.mean() - sg.null_mean()) <= 6 * se


@settings(max_examples=200, deadline=None)
@given(x=st.floats(-50, 50, allow_nan=False), knots=st.integers(2, 40), t_max=st.floats(0.1, 8.0))
def test_constant_embedding_costs_at_least_the_collapse_value(x, knots, t_max):
    value = float(sg.constant_statistic(x, knots, t_max))
    assert value >= sg.collapse_value(knots, t_max) - 1e-12
    assert float(sg.constant_statistic(0.0, knots, t_max)) == pytest.approx(sg.collapse_value(knots, t_max), rel=1e-12)
    # the closed form equals the statistic of a batch of identical samples, whatever m
    assert float(sg.slice_statistic(np.full((1, 3), x), knots, t_max)[0]) == pytest.approx(3 * value, rel=1e-9, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(rho=st.floats(0.01, 0.99), n=st.integers(1, 1024), m=st.integers(8, 4096))
def test_threshold_is_where_collapse_and_the_identity_cost_the_same(rho, n, m):
    lam = sg.collapse_threshold(rho, n, m)
    assert 0.0 < lam < 1.0
    collapse = lam * m * sg.collapse_value()
    identity = lam * sg.null_mean() + (1 - lam) * 2 * (1 - rho) * n
    assert collapse == pytest.approx(identity, rel=1e-10)
    # just below the threshold collapse is strictly cheaper, just above strictly dearer
    for f, sign in ((0.99, -1), (1.01, 1)):
        lo = min(lam * f, 1.0)
        diff = lo * m * sg.collapse_value() - (lo * sg.null_mean() + (1 - lo) * 2 * (1 - rho) * n)
        assert np.sign(diff) == sign


def test_threshold_values_and_monotonicity():
    lams = [sg.collapse_threshold(r, 2, 256) for r in (0.5, 0.8, 0.9, 0.95)]
    assert lams == sorted(lams, reverse=True)                          # larger rho: collapse wins longer
    # the values quoted in the module docstring are the function's
    import re
    quoted = re.search(r"is ([0-9.]+)\s+at rho = 0.5, ([0-9.]+) at 0.8, ([0-9.]+) at 0.9 and ([0-9.]+) at 0.95",
                       " ".join(sg.__doc__.split()))
    assert quoted is not None
    for q, v in zip(quoted.groups(), lams):
        assert float(q) == pytest.approx(v, abs=0.5 * 10 ** -(len(q.split(".")[1])))
    assert sg.collapse_threshold(0.9, 2, 64) > sg.collapse_threshold(0.9, 2, 256)    # larger batch: smaller
    assert sg.collapse_threshold(0.9, 64, 256) > sg.collapse_threshold(0.9, 2, 256)  # larger n: larger


@pytest.mark.parametrize("call,needle", [
    (lambda: sg.collapse_threshold(1.0, 2, 256), "rho"),
    (lambda: sg.collapse_threshold(0.5, 0, 256), "n"),
    (lambda: sg.collapse_threshold(0.5, 2, 1), "too small"),
    (lambda: sg.sigreg_knots(1, 3.0), "knots"),
    (lambda: sg.sigreg_knots(17, float("nan")), "t_max"),
    (lambda: sg.constant_statistic(np.inf), "finite"),
    (lambda: sg.slice_statistic(np.array([0.0, np.nan])), "finite"),
    (lambda: sg.slice_statistic(np.float64(1.0)), "last axis"),
])
def test_bad_input(call, needle):
    with pytest.raises(ValueError, match=needle):
        call()


@pytest.mark.parametrize("s,m", [(0.5, 16), (1.3, 8)])
def test_expected_statistic_of_scaled_gaussian_by_monte_carlo(s, m):
    rng = np.random.default_rng(11)
    vals = sg.slice_statistic(s * rng.standard_normal((20_000, m)))
    se = vals.std(ddof=1) / math.sqrt(vals.size)
    assert abs(vals.mean() - float(sg.expected_statistic_scaled(s, m))) <= 6 * se


def test_scaled_statistic_end_points_and_objective():
    assert float(sg.expected_statistic_scaled(0.0, 256)) == pytest.approx(256 * sg.collapse_value(), rel=1e-12)
    assert float(sg.expected_statistic_scaled(1.0, 256)) == pytest.approx(sg.null_mean(), rel=1e-12)
    lam, rho = 0.01, 0.9
    assert float(sg.scaled_objective(0.0, lam, rho, 2, 256)) == pytest.approx(lam * 256 * sg.collapse_value())
    # J(0) and J(1) cross exactly at lam*
    ls = sg.collapse_threshold(rho, 2, 256)
    j0, j1 = sg.scaled_objective(np.array([0.0, 1.0]), ls, rho, 2, 256)
    assert j0 == pytest.approx(j1, rel=1e-10)
    # the minimiser over s shrinks (s < 1) and, at lam*, is not the collapse (fact 4 of the module)
    grid = np.linspace(0, 1.5, 3001)
    for lam in (ls, 0.05, 0.5):
        best = grid[int(np.argmin(sg.scaled_objective(grid, lam, rho, 2, 256)))]
        assert 0.0 < best < 1.0
    with pytest.raises(ValueError, match="lam"):
        sg.scaled_objective(0.5, 1.5, rho, 2, 256)


def test_docstring_scaled_minimisers_are_the_functions():
    import re

    doc = " ".join(sg.__doc__.split())
    q = re.search(r"s = 0 for lam = ([0-9.]+), s = ([0-9.]+) at ([0-9.]+), ([0-9.]+) at ([0-9.]+)\)", doc)
    assert q is not None
    grid = np.linspace(0, 1.5, 15001)
    pairs = [(float(q.group(1)), 0.0), (float(q.group(3)), float(q.group(2))), (float(q.group(5)), float(q.group(4)))]
    for lam, s_quoted in pairs:
        best = grid[int(np.argmin(sg.scaled_objective(grid, lam, 0.9, 2, 256)))]
        assert best == pytest.approx(s_quoted, abs=0.005)


# ------------------------------------------------------------------ the authors' units (fact 5)

@pytest.mark.parametrize("rho,m", [(0.5, 4), (0.9, 32), (0.95, 8)])
def test_pair_null_mean_by_monte_carlo(rho, m):
    # 20 000 batches of m pairs (x, x'), corr rho, concatenated into 2m projections; 6 standard errors.
    rng = np.random.default_rng(11)
    x = rng.standard_normal((20_000, m))
    x2 = rho * x + math.sqrt(1 - rho ** 2) * rng.standard_normal((20_000, m))
    vals = sg.slice_statistic(np.concatenate([x, x2], axis=1))
    se = vals.std(ddof=1) / math.sqrt(vals.size)
    assert abs(vals.mean() - sg.pair_null_mean(rho)) <= 6 * se
    # and it is not the iid null mean (which the concatenation would have for independent views)
    assert abs(sg.pair_null_mean(rho) - sg.null_mean()) > 6 * se


def test_pair_null_mean_limits():
    assert sg.pair_null_mean(1e-9) == pytest.approx(sg.null_mean(), rel=1e-6)
    assert sg.pair_null_mean(1 - 1e-9) == pytest.approx(2 * sg.null_mean(), rel=1e-6)


@settings(max_examples=200, deadline=None)
@given(rho=st.floats(0.01, 0.99), n=st.integers(1, 1024), m=st.integers(8, 4096))
def test_authors_threshold_is_where_collapse_and_the_identity_cost_the_same(rho, n, m):
    lam = sg.collapse_threshold_authors(rho, m)
    assert 0.0 < lam < 1.0

    def diff(lm: float) -> float:   # collapse minus h = Qz, authors' objective (alignment / (4n))
        collapse = lm * 2 * m * sg.collapse_value()
        identity = lm * sg.pair_null_mean(rho) + (1 - lm) * 2 * (1 - rho) * n / (4 * n)
        return collapse - identity

    assert diff(lam) == pytest.approx(0.0, abs=1e-10 * lam * m)
    assert diff(lam * 0.99) < 0 < diff(lam * 1.01)
    # the threshold in the authors' units is a fraction 1/(4n c) of ours with
    # c = 2 + (2 N0 - N_rho)/(m S0 - N0) >= 2, near the far-from-null end of conversion_factors
    ours = sg.collapse_threshold(rho, n, m)
    q, qa = ours / (1 - ours), lam / (1 - lam)
    c_eff = q / (4 * n * qa)
    n0, s0 = sg.null_mean(), sg.collapse_value()
    assert c_eff == pytest.approx(2 + (2 * n0 - sg.pair_null_mean(rho)) / (m * s0 - n0), rel=1e-9)
    assert c_eff >= 2.0


def test_authors_threshold_values_quoted_in_the_docstring():
    import re
    doc = " ".join(sg.__doc__.split())
    got = re.search(r"not depend on n: ([0-9.]+) / ([0-9.]+) / ([0-9.]+) at rho = 0.8 / 0.9 / 0.95", doc)
    assert got is not None
    for v, r in zip(got.groups(), (0.8, 0.9, 0.95)):
        assert float(v) == pytest.approx(sg.collapse_threshold_authors(r, 256), abs=6e-6)
    # below the recommended range [1e-3, 1e-2] for every rho in [0.8, 0.95]
    assert all(sg.collapse_threshold_authors(r, 256) < 1e-3 for r in np.linspace(0.8, 0.95, 16))


@settings(max_examples=100, deadline=None)
@given(lam=st.floats(0.0, 0.99), n=st.integers(1, 512), c=st.floats(0.5, 4.0))
def test_lam_conversion_round_trip_and_weight_ratio(lam, n, c):
    la = sg.lam_to_authors(lam, n, c)
    assert sg.lam_from_authors(la, n, c) == pytest.approx(lam, rel=1e-9, abs=1e-15)
    # same SIGReg-to-alignment weight: q T / L = q_a 4n (c T) / L
    if lam > 0:
        assert (lam / (1 - lam)) == pytest.approx(la / (1 - la) * 4 * n * c, rel=1e-9)
    with pytest.raises(ValueError, match="lam"):
        sg.lam_to_authors(1.0, n, c)
    with pytest.raises(ValueError, match="c must"):
        sg.lam_to_authors(lam, n, 0.0)
