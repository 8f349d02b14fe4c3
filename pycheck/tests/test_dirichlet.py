"""Tests of pycheck.dirichlet (Dirichlet-energy appendix): exact energies of rotations and the
spiral, chain rule for compositions, AM-GM / Jensen / change of variables on a Gaussian-preserving
flow, and hypothesis tests over random matrices. Monte Carlo tolerances are 6 standard errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import ortho_group

from pycheck import dirichlet as D


@pytest.mark.parametrize("n", [2, 3, 5])
def test_rotation_energy_is_n_exactly(n: int) -> None:
    Q = ortho_group.rvs(n, random_state=n)
    e = D.dirichlet_energy(D.rotation(Q), n, 500, 0)
    assert abs(e.energy - n) < 1e-12 and e.amgm_min > -1e-12 and e.cov_residual < 1e-12
    # plain callable: finite-difference Jacobian gives the same
    e2 = D.dirichlet_energy(lambda z: z @ Q.T, n, 500, 0)
    assert abs(e2.energy - n) < 1e-8


@pytest.mark.parametrize("dim", [2, 3])
def test_spiral_jacobian_and_energy(dim: int) -> None:
    """det J = 1, ||J||² = n + π²(z0² + z1²) pointwise; E = n + 2π² > n (6 s.e.)."""
    s = D.spiral(dim)
    z = np.random.default_rng(0).standard_normal((200, dim))
    J = s.jacobian(z)
    assert np.max(np.abs(J - D.jacobian_fd(s.fn, z))) < 1e-7
    assert np.max(np.abs(np.linalg.det(J) - 1)) < 1e-10
    fro = np.sum(J * J, axis=(1, 2))
    assert np.max(np.abs(fro - dim - math.pi ** 2 * (z[:, 0] ** 2 + z[:, 1] ** 2))) < 1e-9
    e = D.dirichlet_energy(s, dim, 20000, 1)
    assert abs(e.energy - (dim + 2 * math.pi ** 2)) < 6 * e.stderr
    assert e.energy - 6 * e.stderr > dim
    # preserves N(0, I): radius kept, and the change-of-variables identity with det J = 1
    assert np.max(np.abs(np.linalg.norm(s(z), axis=1) - np.linalg.norm(z, axis=1))) < 1e-12
    assert e.cov_residual < 1e-12


def test_compositions() -> None:
    """Chain rule vs finite differences; spiral∘spiral is the spiral with c = 2π (energy n + 8π²);
    rotations on either side leave the energy n + 2π²."""
    s = D.spiral(2)
    ss = D.compose(s, s)
    z = np.random.default_rng(2).standard_normal((100, 2))
    assert np.max(np.abs(ss.jacobian(z) - D.jacobian_fd(ss.fn, z))) < 1e-6
    assert np.max(np.abs(ss(z) - D.spiral(2, 2 * math.pi)(z))) < 1e-12
    e = D.dirichlet_energy(ss, 2, 20000, 3)
    assert abs(e.energy - (2 + 8 * math.pi ** 2)) < 6 * e.stderr
    Q = ortho_group.rvs(2, random_state=4)
    e = D.dirichlet_energy(D.compose(D.rotation(Q), s, D.rotation(Q.T)), 2, 20000, 5)
    assert abs(e.energy - (2 + 2 * math.pi ** 2)) < 6 * e.stderr


def test_gaussian_flow_amgm_jensen_change_of_variables() -> None:
    f = D.gaussian_flow(2)
    e = D.dirichlet_energy(f, 2, 4000, 6)
    assert e.cov_residual < 1e-5                      # φ(h(z))|det J| = φ(z), up to RK4 + FD
    assert abs(e.mean_log_det) < 6 * e.stderr_log_det  # E log|det J| = 0
    assert e.amgm_min >= -1e-10                      # pointwise AM-GM
    assert e.jensen_gap > 1e-3                       # strict: det J not constant
    assert e.mean_det_pow > 1.0 and e.energy > 2.0
    # it preserves N(0, I): mean 0, covariance I within 6 s.e.
    z = np.random.default_rng(7).standard_normal((4000, 2))
    hz = f(z)
    assert np.all(np.abs(hz.mean(0)) < 6 / math.sqrt(4000))
    assert np.all(np.abs(np.cov(hz.T) - np.eye(2)) < 6 * math.sqrt(2 / 4000))
    # and it is not orthogonal: J^T J != I somewhere
    J = f.jacobian(z[:50])
    assert np.max(np.abs(np.swapaxes(J, 1, 2) @ J - np.eye(2))) > 0.1


matrices = st.integers(min_value=2, max_value=6).flatmap(
    lambda n: st.tuples(st.just(n), st.integers(min_value=0, max_value=2 ** 32 - 1),
                        st.floats(min_value=0.05, max_value=3.0)))


@settings(derandomize=True, max_examples=60, deadline=None)
@given(matrices)
def test_unimodular_frobenius_at_least_n(args: tuple[int, int, float]) -> None:
    """|det J| = 1 ⇒ ||J||_F² >= n, and ||JᵀJ - I||_F² <= 2 max(1, ||J||_2²)² (||J||_F² - n), so
    equality forces JᵀJ = I."""
    n, seed, spread = args
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, n)) * spread + np.eye(n)
    if abs(np.linalg.det(A)) < 1e-6:
        A += np.eye(n)
    J = A / abs(np.linalg.det(A)) ** (1.0 / n)
    exc, dev, bound = D.unimodular_excess(J)
    assert exc >= -1e-10
    assert dev <= bound * (1 + 1e-9) + 1e-12
    assert D.amgm_gap(J) >= -1e-10 * n
    Q = ortho_group.rvs(n, random_state=seed % 1000)
    exc_q, dev_q, _ = D.unimodular_excess(Q)
    assert abs(exc_q) < 1e-10 and dev_q < 1e-20 + 1e-12


def test_determinant_hypothesis_is_essential() -> None:
    """Without |det J| = 1 the Frobenius bound fails (a contraction), and AM-GM is tight for c·Q."""
    J = 0.5 * np.eye(3)
    assert np.sum(J * J) < 3
    Q = ortho_group.rvs(4, random_state=1)
    assert abs(D.amgm_gap(2.0 * Q)) < 1e-12
    with pytest.raises(ValueError, match="det"):
        D.unimodular_excess(J)


def test_bad_inputs_raise() -> None:
    with pytest.raises(ValueError, match="orthogonal"):
        D.rotation(np.array([[1.0, 1.0], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="dim"):
        D.dirichlet_energy(D.spiral(2), 3, 10, 0)
    with pytest.raises(ValueError, match="n_samples"):
        D.dirichlet_energy(D.spiral(2), 2, 1, 0)
    with pytest.raises(ValueError, match="seed"):
        D.dirichlet_energy(D.spiral(2), 2, 10, -1)
    with pytest.raises(ValueError, match="h must"):
        D.dirichlet_energy(3.0, 2, 10, 0)
    with pytest.raises(ValueError, match="same shape"):
        D.dirichlet_energy(lambda z: z[:, :1], 2, 10, 0)
    with pytest.raises(ValueError, match="z must have shape"):
        D.spiral(2)(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="same dimension"):
        D.compose(D.spiral(2), D.spiral(3))
