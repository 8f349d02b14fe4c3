"""Statement fidelity for `Lejepa/Planning.lean` (Corollary 4.5, deterministic form).

The Lean statement: for an orthogonal Q, dynamics f, and a stage cost with l(Qz, a) = l(z, a),
the latent system  f_hat(zh, a) = Q f(Q^T zh, a)  with the same cost, started at Q z0, has the
rollout Q * (true rollout), the same total cost  J(a) = sum_{t<T} l(z_t, a_t)  for every plan,
the same optimal value and the same set of optimal plans. The goal costs use the encoded goal Q g.

Here: random orthogonal Q (scipy.stats.ortho_group), random non-linear dynamics, a finite action
set and brute force over all plans. Breaking the invariance hypothesis (anisotropic quadratic
cost z^T P z with P != cI, or a goal that is not encoded) must break the conclusion.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import ortho_group

Cost = Callable[[np.ndarray, int], float]


def make_dynamics(rng: np.random.Generator, n: int, n_actions: int) -> Callable[[np.ndarray, int], np.ndarray]:
    """Random non-linear deterministic dynamics  f(z, a) = tanh(W z + b_a) + 0.5 z."""
    w = rng.normal(size=(n, n))
    b = rng.normal(size=(n_actions, n))

    def f(z: np.ndarray, a: int) -> np.ndarray:
        return np.tanh(w @ z + b[a]) + 0.5 * z

    return f


def total_cost(f: Callable[[np.ndarray, int], np.ndarray], cost: Cost, z0: np.ndarray,
               plan: tuple[int, ...]) -> float:
    """J(plan; z0) = sum_t cost(z_t, a_t) with z_{t+1} = f(z_t, a_t)."""
    z, total = z0, 0.0
    for a in plan:
        total += cost(z, a)
        z = f(z, a)
    return total


def rollout(f: Callable[[np.ndarray, int], np.ndarray], z0: np.ndarray, plan: tuple[int, ...]) -> np.ndarray:
    states = [z0]
    for a in plan:
        states.append(f(states[-1], a))
    return np.array(states)


def all_costs(f, cost: Cost, z0: np.ndarray, n_actions: int, horizon: int) -> np.ndarray:
    plans = list(itertools.product(range(n_actions), repeat=horizon))
    return np.array([total_cost(f, cost, z0, p) for p in plans])


def argmin_set(costs: np.ndarray, tol: float = 1e-9) -> set[int]:
    return set(np.flatnonzero(costs <= costs.min() + tol).tolist())


def latent(q: np.ndarray, f):
    """f_hat(zh, a) = Q f(Q^T zh, a)."""
    return lambda zh, a: q @ f(q.T @ zh, a)


def named_costs(rng: np.random.Generator, n: int, n_actions: int) -> list[tuple[Cost, Callable[[np.ndarray], Cost]]]:
    """Pairs (true cost, latent cost built from Q): goal distance (goal encoded), norm penalty,
    isotropic LQR c|z|^2 + r(a), goal indicator (goal encoded)."""
    g = rng.normal(size=n)
    c = float(rng.uniform(0.1, 2.0))
    r = rng.uniform(0.0, 1.0, size=n_actions)
    rad = float(np.linalg.norm(g)) * 0.8
    dist = lambda goal: (lambda z, a: float(np.linalg.norm(z - goal)))  # noqa: E731
    ind = lambda goal: (lambda z, a: float(np.linalg.norm(z - goal) < rad))  # noqa: E731
    norm_pen: Cost = lambda z, a: c * float(z @ z)  # noqa: E731
    lqr: Cost = lambda z, a: c * float(z @ z) + float(r[a])  # noqa: E731
    return [
        (dist(g), lambda q: dist(q @ g)),
        (norm_pen, lambda q: norm_pen),
        (lqr, lambda q: lqr),
        (ind(g), lambda q: ind(q @ g)),
    ]


@settings(derandomize=True, max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 4))
def test_latent_planning_matches_true_planning(seed: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    n_actions, horizon = 3, 4
    q = ortho_group.rvs(n, random_state=seed)
    f = make_dynamics(rng, n, n_actions)
    fh = latent(q, f)
    z0 = rng.normal(size=n)
    # rollout_latent: latent rollout = Q * true rollout
    plan = tuple(rng.integers(0, n_actions, size=horizon).tolist())
    np.testing.assert_allclose(rollout(fh, q @ z0, plan), rollout(f, z0, plan) @ q.T, atol=1e-10)
    for true_cost, latent_cost in named_costs(rng, n, n_actions):
        jt = all_costs(f, true_cost, z0, n_actions, horizon)
        jl = all_costs(fh, latent_cost(q), q @ z0, n_actions, horizon)
        np.testing.assert_allclose(jl, jt, atol=1e-9)             # totalCost_latent
        assert abs(jl.min() - jt.min()) <= 1e-9                   # optimalValue_latent
        assert argmin_set(jl) == argmin_set(jt)                   # optimalPlans_latent


def test_anisotropic_cost_breaks_equality() -> None:
    """P = diag(1, 25) is not O(n)-invariant: latent costs differ, and for some draws the optimal
    plans differ too (the hypothesis l(Qz, a) = l(z, a) is essential)."""
    n, n_actions, horizon = 2, 3, 4
    p = np.diag([1.0, 25.0])
    aniso: Cost = lambda z, a: float(z @ p @ z)  # noqa: E731
    value_gaps, plans_differ = [], 0
    for seed in range(20):
        rng = np.random.default_rng(seed)
        q = ortho_group.rvs(n, random_state=seed + 1000)
        f = make_dynamics(rng, n, n_actions)
        z0 = rng.normal(size=n)
        jt = all_costs(f, aniso, z0, n_actions, horizon)
        jl = all_costs(latent(q, f), aniso, q @ z0, n_actions, horizon)
        value_gaps.append(abs(jl.min() - jt.min()))
        plans_differ += argmin_set(jl) != argmin_set(jt)
    assert max(value_gaps) > 1e-2
    assert plans_differ >= 1


def test_unencoded_goal_breaks_equality() -> None:
    """Distance to the raw goal g in latent space (not Q g) is not invariant."""
    n, n_actions, horizon = 3, 3, 3
    rng = np.random.default_rng(7)
    q = ortho_group.rvs(n, random_state=7)
    f = make_dynamics(rng, n, n_actions)
    z0, g = rng.normal(size=n), rng.normal(size=n) * 3
    cost: Cost = lambda z, a: float(np.linalg.norm(z - g))  # noqa: E731
    jt = all_costs(f, cost, z0, n_actions, horizon)
    jl = all_costs(latent(q, f), cost, q @ z0, n_actions, horizon)
    assert np.max(np.abs(jl - jt)) > 1e-2


@settings(derandomize=True, max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 4), c=st.floats(0.1, 2.0))
def test_negation_witness(seed: int, n: int, c: float) -> None:
    """neg_normPenaltyCost_invariant / encoded_planning_eq_neg: Q = -I is a linear isometry other
    than the identity, the norm penalty c|z|^2 is invariant under it, and latent planning from -z0
    has the true optimal value and optimal plans. Perturbed: the cost c z_0 (not invariant) is
    changed by Q = -I and the latent value differs."""
    rng = np.random.default_rng(seed)
    n_actions, horizon = 3, 3
    q = -np.eye(n)
    assert not np.allclose(q, np.eye(n))
    f = make_dynamics(rng, n, n_actions)
    z0 = rng.normal(size=n)
    pen: Cost = lambda z, a: c * float(z @ z)  # noqa: E731
    for z in rng.normal(size=(5, n)):
        assert pen(q @ z, 0) == pen(z, 0)
    jt = all_costs(f, pen, z0, n_actions, horizon)
    jl = all_costs(latent(q, f), pen, q @ z0, n_actions, horizon)
    np.testing.assert_allclose(jl, jt, atol=1e-12)
    assert argmin_set(jl) == argmin_set(jt)
    lin: Cost = lambda z, a: c * float(z[0])  # noqa: E731
    jt_lin = all_costs(f, lin, z0, n_actions, horizon)
    jl_lin = all_costs(latent(q, f), lin, q @ z0, n_actions, horizon)
    assert np.max(np.abs(jl_lin - jt_lin)) > 1e-3
