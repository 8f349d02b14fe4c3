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
