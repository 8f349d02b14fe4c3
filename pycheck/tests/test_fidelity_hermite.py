"""Statement fidelity for `Lejepa/Hermite.lean` (Theorem 4.1 in the Hermite coefficient model).

The Lean file works with an encoder given by finitely many Hermite coefficients
c[i][alpha] (alpha a multi-index in N^n) and *defines*, by orthogonality and Mehler's formula,

    deg(alpha)      = sum_j alpha_j,           mfact(alpha) = prod_j alpha_j!
    mean_i          = c_i(0)
    variance_i      = sum_{alpha != 0} c_i(alpha)^2 alpha!
    corr_i(rho)     = sum_{alpha != 0} c_i(alpha)^2 alpha! rho^|alpha|
    cov_ik          = sum_{alpha != 0} c_i(alpha) c_k(alpha) alpha!
    alignLoss(rho)  = sum_i 2 (variance_i - corr_i(rho))
    linearPart A_ij = c_i(e_j)
    encoderEval(z)_i = sum_alpha c_i(alpha) prod_j He_{alpha_j}(z_j)

This file re-implements those definitions in numpy and checks

* that they mean what they claim: Gauss-Hermite quadrature of the evaluated encoder over the OU
  pair z ~ N(0, I), z' = rho z + sqrt(1 - rho^2) eta gives the same mean, variance, lag
  covariance, covariance matrix and E||h(z') - h(z)||^2 (`test_definitions_match_quadrature`);
* each Lean conclusion on random instances that satisfy its hypotheses, and, for each hypothesis
  called essential, an instance that breaks only that hypothesis where the conclusion fails.

The quadrature is exact here: the integrands are polynomials of degree <= 8 in each of the 2n
variables (z, eta), and m = 5 Gauss-Hermite nodes per variable integrate degree <= 9 exactly.
Self-contained: numpy (numpy.polynomial.hermite_e) and hypothesis only.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from numpy.polynomial import hermite_e as He

MultiIndex = tuple[int, ...]
Coeffs = list[dict[MultiIndex, float]]

TOL = 1e-9  # relative tolerance for exact (quadrature vs closed form) identities in float64
QUAD_NODES = 5


# ---------------------------------------------------------------------------------------------
# The Lean definitions, transcribed
# ---------------------------------------------------------------------------------------------

def deg(alpha: MultiIndex) -> int:
    """|alpha| = sum_j alpha_j (Lean `deg`)."""
    return int(sum(alpha))


def mfact(alpha: MultiIndex) -> float:
    """alpha! = prod_j alpha_j! (Lean `mfact`)."""
    return float(math.prod(math.factorial(a) for a in alpha))


def nc_support(ci: dict[MultiIndex, float]) -> list[MultiIndex]:
    """{alpha in supp c_i | alpha != 0} (Lean `ncSupport`)."""
    return [a for a, v in ci.items() if v != 0 and any(a)]


def unit(n: int, j: int) -> MultiIndex:
    """The multi-index e_j (Lean `Finsupp.single j 1`)."""
    return tuple(1 if k == j else 0 for k in range(n))


def mean(c: Coeffs, i: int, n: int) -> float:
    """mean_i = c_i(0) (Lean `mean`)."""
    return c[i].get((0,) * n, 0.0)


def variance(c: Coeffs, i: int) -> float:
    """variance_i = sum_{alpha != 0} c_i(alpha)^2 alpha! (Lean `variance`)."""
    return float(sum(c[i][a] ** 2 * mfact(a) for a in nc_support(c[i])))


def corr(c: Coeffs, rho: float, i: int) -> float:
    """corr_i = sum_{alpha != 0} c_i(alpha)^2 alpha! rho^|alpha| (Lean `corr`)."""
    return float(sum(c[i][a] ** 2 * mfact(a) * rho ** deg(a) for a in nc_support(c[i])))


def cov(c: Coeffs) -> np.ndarray:
    """cov_ik = sum_{alpha != 0} c_i(alpha) c_k(alpha) alpha! (Lean `cov`)."""
    n = len(c)
    out = np.zeros((n, n))
    for i in range(n):
        for k in range(n):
            keys = set(c[i]) | set(c[k])
            out[i, k] = sum(c[i].get(a, 0.0) * c[k].get(a, 0.0) * mfact(a) for a in keys if any(a))
    return out


def align_loss(c: Coeffs, rho: float) -> float:
    """alignLoss = sum_i 2 (variance_i - corr_i) (Lean `alignLoss`)."""
    return float(sum(2.0 * (variance(c, i) - corr(c, rho, i)) for i in range(len(c))))


def linear_part(c: Coeffs) -> np.ndarray:
    """A_ij = c_i(e_j) (Lean `linearPart`)."""
    n = len(c)
    return np.array([[c[i].get(unit(n, j), 0.0) for j in range(n)] for i in range(n)])


def hermite_multi(alpha: MultiIndex, z: np.ndarray) -> np.ndarray:
    """He_alpha(z) = prod_j He_{alpha_j}(z_j), z of shape (..., n) (Lean `hermiteMulti`)."""
    out = np.ones(z.shape[:-1])
    for j, a in enumerate(alpha):
        out = out * He.hermeval(z[..., j], [0.0] * a + [1.0])
    return out


def encoder_eval(c: Coeffs, z: np.ndarray) -> np.ndarray:
    """h(z)_i = sum_alpha c_i(alpha) He_alpha(z), z of shape (..., n) (Lean `encoderEval`)."""
    return np.stack([sum((v * hermite_multi(a, z) for a, v in ci.items()), np.zeros(z.shape[:-1]))
                     for ci in c], axis=-1)


def gap(c: Coeffs, rho: float) -> float:
    """alignLoss - 2 (1 - rho) n."""
    return align_loss(c, rho) - 2.0 * (1.0 - rho) * len(c)


def has_high_degree(c: Coeffs) -> bool:
    """Some coefficient of total degree >= 2 is nonzero."""
    return any(v != 0 and deg(a) >= 2 for ci in c for a, v in ci.items())


# ---------------------------------------------------------------------------------------------
# Quadrature over the OU pair
# ---------------------------------------------------------------------------------------------

def ou_grid(n: int, rho: float, m: int = QUAD_NODES) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tensor Gauss-Hermite grid for (z, eta) ~ N(0, I_2n); returns z, z' = rho z + sqrt(1-rho^2) eta
    (each of shape (m^(2n), n)) and the probability weights (summing to 1)."""
    x, w = He.hermegauss(m)
    w = w / w.sum()
    pts = np.array(list(itertools.product(x, repeat=2 * n)))
    wts = np.prod(np.array(list(itertools.product(w, repeat=2 * n))), axis=1)
    z, eta = pts[:, :n], pts[:, n:]
    return z, rho * z + math.sqrt(1.0 - rho * rho) * eta, wts


# ---------------------------------------------------------------------------------------------
# Random instances
# ---------------------------------------------------------------------------------------------

def multi_indices(n: int, max_deg: int) -> list[MultiIndex]:
    """All alpha in N^n with |alpha| <= max_deg."""
    return [a for a in itertools.product(range(max_deg + 1), repeat=n) if sum(a) <= max_deg]


def random_coeffs(rng: np.random.Generator, n: int, max_deg: int, density: float) -> Coeffs:
    """Each alpha with |alpha| <= max_deg gets a N(0,1) coefficient with probability density."""
    idx = multi_indices(n, max_deg)
    c: Coeffs = []
    for _ in range(n):
        ci = {a: float(rng.normal()) for a in idx if rng.random() < density}
        ci[unit(n, int(rng.integers(n)))] = float(rng.normal())  # at least one nonconstant term
        c.append(ci)
    return c


def normalise(c: Coeffs, n: int) -> Coeffs:
    """Drop the constant terms (mean 0) and scale each component to variance 1."""
    out = []
    for i, ci in enumerate(c):
        s = math.sqrt(variance(c, i))
        out.append({a: v / s for a, v in ci.items() if any(a)})
    return out


def whiten(c: Coeffs, n: int) -> Coeffs:
    """Drop the constant terms and replace h by Cov^{-1/2} h, so that cov = I exactly (up to fp);
    coefficients transform linearly: c'_i = sum_k W_ik c_k. Needs a well-conditioned cov."""
    c0 = [{a: v for a, v in ci.items() if any(a)} for ci in c]
    evals, evecs = np.linalg.eigh(cov(c0))
    assume(evals.min() > 1e-2 * evals.max())
    w = evecs @ np.diag(evals ** -0.5) @ evecs.T
    keys = set().union(*c0)
    return [{a: float(sum(w[i, k] * c0[k].get(a, 0.0) for k in range(n))) for a in keys}
            for i in range(n)]


def linear_coeffs(a_mat: np.ndarray, offset: np.ndarray | None = None) -> Coeffs:
    """The encoder h(z) = A z (+ offset) in coefficients."""
    n = a_mat.shape[0]
    c: Coeffs = [{unit(n, j): float(a_mat[i, j]) for j in range(n)} for i in range(n)]
    if offset is not None:
        for i in range(n):
            c[i][(0,) * n] = float(offset[i])
    return c


def random_orthogonal(rng: np.random.Generator, n: int) -> np.ndarray:
    q, r = np.linalg.qr(rng.normal(size=(n, n)))
    return q * np.sign(np.diag(r))


instances = st.tuples(st.integers(1, 3), st.integers(1, 4), st.floats(0.2, 0.9),
                      st.floats(0.05, 0.95), st.integers(0, 2**31 - 1))


# ---------------------------------------------------------------------------------------------
# The definitions mean what they claim
# ---------------------------------------------------------------------------------------------

@settings(derandomize=True, max_examples=12, deadline=None)
@given(instances)
def test_definitions_match_quadrature(inst: tuple[int, int, float, float, int]) -> None:
    """mean, variance, corr (lag covariance), cov and alignLoss equal the population moments of
    the evaluated encoder over the OU pair (exact Gauss-Hermite quadrature)."""
    n, max_deg, density, rho, seed = inst
    rng = np.random.default_rng(seed)
    c = random_coeffs(rng, n, max_deg, density)
    z, zp, w = ou_grid(n, rho)
    h, hp = encoder_eval(c, z), encoder_eval(c, zp)
    mu = w @ h
    scale = 1.0 + sum(v * v * mfact(a) for ci in c for a, v in ci.items())  # second moment
    for i in range(n):
        assert abs(mu[i] - mean(c, i, n)) <= TOL * scale
        assert abs(w @ (h[:, i] - mu[i]) ** 2 - variance(c, i)) <= TOL * scale
        assert abs(w @ ((h[:, i] - mu[i]) * (hp[:, i] - mu[i])) - corr(c, rho, i)) <= TOL * scale
    emp_cov = (h - mu).T @ ((h - mu) * w[:, None])
    assert np.allclose(emp_cov, cov(c), rtol=0, atol=TOL * scale)
    assert abs(w @ np.sum((hp - h) ** 2, axis=1) - align_loss(c, rho)) <= TOL * scale


def test_mehler_orthogonality_1d() -> None:
    """The fact behind the definitions: E[He_a(z) He_b(z')] = [a = b] a! rho^a (Mehler)."""
    rho = 0.7
    z, zp, w = ou_grid(1, rho, m=8)
    for a in range(5):
        for b in range(5):
            val = w @ (hermite_multi((a,), z) * hermite_multi((b,), zp))
            want = math.factorial(a) * rho ** a if a == b else 0.0
            assert abs(val - want) <= 1e-10 * (1 + want)


# ---------------------------------------------------------------------------------------------
# 1. Spectral lemma (tsum_mul_pow_le, tsum_mul_pow_eq_iff)
# ---------------------------------------------------------------------------------------------

def spectral(w: np.ndarray, rho: float) -> float:
    return float(np.sum(w * rho ** np.arange(len(w))))


@settings(derandomize=True, max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=2, max_size=12), st.floats(0.01, 0.99),
       st.booleans())
def test_spectral_lemma(raw: list[int], rho: float, degree_one: bool) -> None:
    """w >= 0, w_0 = 0, sum w = 1, 0 < rho < 1  =>  sum w_d rho^d <= rho, with equality iff
    w_d = 0 for all d >= 2. (Integer weights, normalised: a nonzero weight is >= 1/60, so the
    strict inequality is far above rounding.)"""
    w = np.array([0.0] + [float(r) for r in raw])
    if degree_one or w[1:].sum() == 0:
        w = np.zeros_like(w)
        w[1] = 1.0
    w = w / w.sum()
    s = spectral(w, rho)
    assert s <= rho + 1e-12
    high = w[2:].sum()
    # exact gap: rho - s = sum_d w_d (rho - rho^d) >= high * rho (1 - rho) (every d >= 2 term)
    assert rho - s >= high * rho * (1 - rho) - 1e-12
    if high == 0:
        assert abs(s - rho) <= 1e-12
    else:
        assert s < rho


def test_spectral_lemma_hypotheses_essential() -> None:
    """Breaking one hypothesis at a time breaks the conclusion."""
    e1 = np.array([0.0, 1.0, 0.0])
    e2 = np.array([0.0, 0.0, 1.0])
    # rho > 1: the bound fails
    assert spectral(e2, 1.5) > 1.5
    # rho = 1 (and rho = 0): equality without the weight sitting on degree one
    assert spectral(e2, 1.0) == 1.0 and spectral(e2, 0.0) == 0.0
    # w_0 != 0: the bound fails
    assert spectral(np.array([1.0, 0.0, 0.0]), 0.5) > 0.5
    # sum w != 1: the bound fails
    assert spectral(2 * e1, 0.5) > 0.5
    # w >= 0 broken (still w_0 = 0, sum 1): the bound fails
    assert spectral(np.array([0.0, 2.0, -1.0]), 0.5) > 0.5


def weights(c: Coeffs, i: int, max_deg: int) -> np.ndarray:
    """w_{i,d} = sum_{alpha != 0, |alpha| = d} c_i(alpha)^2 alpha! for d = 0..max_deg (Lean `weight`)."""
    w = np.zeros(max_deg + 1)
    for a in nc_support(c[i]):
        w[deg(a)] += c[i][a] ** 2 * mfact(a)
    return w


@settings(derandomize=True, max_examples=30, deadline=None)
@given(instances)
def test_spectral_form(inst: tuple[int, int, float, float, int]) -> None:
    """weight >= 0, weight_0 = 0, variance = sum_d weight_d, corr = sum_d weight_d rho^d; with unit
    variance the weights satisfy the spectral lemma's hypotheses and its bound gives corr <= rho."""
    n, max_deg, density, rho, seed = inst
    rng = np.random.default_rng(seed)
    c = random_coeffs(rng, n, max_deg, density)
    for i in range(n):
        w = weights(c, i, max_deg)
        assert np.all(w >= 0) and w[0] == 0
        assert abs(w.sum() - variance(c, i)) <= 1e-12 * (1 + variance(c, i))
        assert abs(spectral(w, rho) - corr(c, rho, i)) <= 1e-12 * (1 + variance(c, i))
    cn = normalise(c, n)
    for i in range(n):
        assert corr(cn, rho, i) <= rho + 1e-12


# ---------------------------------------------------------------------------------------------
# 2. Loss bound and equality case (alignLoss_ge, alignLoss_eq_iff)
# ---------------------------------------------------------------------------------------------

@settings(derandomize=True, max_examples=40, deadline=None)
@given(instances, st.booleans())
def test_loss_bound_and_equality(inst: tuple[int, int, float, float, int], linear: bool) -> None:
    """Unit variances, 0 < rho < 1  =>  alignLoss >= 2 (1 - rho) n, with equality iff every
    coefficient of degree >= 2 vanishes."""
    n, max_deg, density, rho, seed = inst
    rng = np.random.default_rng(seed)
    c = normalise(random_coeffs(rng, n, 1 if linear else max_deg, density), n)
    assert all(abs(variance(c, i) - 1) <= 1e-12 for i in range(n))
    g = gap(c, rho)
    assert g >= -1e-12
    high = sum(v ** 2 * mfact(a) for ci in c for a, v in ci.items() if deg(a) >= 2)
    # exact gap: sum 2 c^2 alpha! (rho - rho^|alpha|) >= 2 rho (1 - rho) * (degree >= 2 energy)
    assert g >= 2 * rho * (1 - rho) * high - 1e-12
    if has_high_degree(c):
        assert g > 0
    else:
        assert abs(g) <= 1e-12


def test_loss_bound_hypotheses_essential() -> None:
    """Variance != 1 or rho outside (0, 1) breaks the bound or the equality characterisation."""
    n = 2
    half = linear_coeffs(0.5 * np.eye(n))              # variance 1/4, linear
    assert gap(half, 0.5) < 0                           # bound fails
    double = linear_coeffs(math.sqrt(2.0) * np.eye(n))  # variance 2, linear: no equality
    assert gap(double, 0.5) > 0 and not has_high_degree(double)
    quad = [{(2, 0): 1 / math.sqrt(2.0)}, {(0, 2): 1 / math.sqrt(2.0)}]  # He_2 / sqrt 2: var 1
    assert all(abs(variance(quad, i) - 1) < 1e-12 for i in range(n))
    assert gap(quad, 1.5) < 0                           # rho > 1: bound fails
    assert abs(gap(quad, 1.0)) < 1e-12 and has_high_degree(quad)  # rho = 1: equality, nonlinear
    # the mean is not a hypothesis of the bound: adding constants leaves alignLoss unchanged
    shifted = [{**ci, (0, 0): 3.0} for ci in quad]
    assert abs(align_loss(shifted, 0.5) - align_loss(quad, 0.5)) < 1e-12


# ---------------------------------------------------------------------------------------------
# 3. Linear evaluation (encoderEval_eq_mulVec)
# ---------------------------------------------------------------------------------------------

@settings(derandomize=True, max_examples=30, deadline=None)
@given(st.integers(1, 3), st.integers(0, 2**31 - 1))
def test_linear_evaluation(n: int, seed: int) -> None:
    """c_i(0) = 0 and no coefficient of degree >= 2  =>  encoderEval(z) = A z; breaking either
    hypothesis makes encoderEval differ from A z."""
    rng = np.random.default_rng(seed)
    a_mat = rng.normal(size=(n, n))
    z = rng.normal(size=(50, n))
    c = linear_coeffs(a_mat)
    assert np.allclose(encoder_eval(c, z), z @ linear_part(c).T, rtol=0, atol=1e-12)
    # mean != 0: an offset appears
    shifted = linear_coeffs(a_mat, offset=np.ones(n))
    assert not np.allclose(encoder_eval(shifted, z), z @ linear_part(shifted).T, atol=1e-6)
    # a degree-2 coefficient: no longer A z
    nonlin = linear_coeffs(a_mat)
    nonlin[0][(2,) + (0,) * (n - 1)] = 0.5
    assert not np.allclose(encoder_eval(nonlin, z), z @ linear_part(nonlin).T, atol=1e-6)


# ---------------------------------------------------------------------------------------------
# 4. Orthogonality (linearPart_mem_orthogonalGroup) and 5. the headline
# ---------------------------------------------------------------------------------------------

@settings(derandomize=True, max_examples=30, deadline=None)
@given(st.integers(1, 3), st.integers(0, 2**31 - 1))
def test_orthogonality(n: int, seed: int) -> None:
    """Linear, mean 0 and cov = I  =>  A A^T = I; with cov != I (unit variances kept) A is not
    orthogonal although the loss attains 2 (1 - rho) n."""
    rng = np.random.default_rng(seed)
    q = random_orthogonal(rng, n)
    c = linear_coeffs(q)
    assert np.allclose(cov(c), np.eye(n), atol=1e-12)
    a_mat = linear_part(c)
    assert np.allclose(a_mat @ a_mat.T, np.eye(n), atol=1e-12)
    assert np.allclose(a_mat.T @ a_mat, np.eye(n), atol=1e-12)
    if n >= 2:
        b = np.eye(n)
        b[1] = (b[0] + b[1]) / math.sqrt(2.0)           # unit rows, correlated: cov != I
        cb = linear_coeffs(b)
        assert all(abs(variance(cb, i) - 1) < 1e-12 for i in range(n))
        assert not np.allclose(cov(cb), np.eye(n), atol=1e-3)
        assert abs(gap(cb, 0.7)) < 1e-12               # loss at the bound ...
        bb = linear_part(cb)
        assert not np.allclose(bb @ bb.T, np.eye(n), atol=1e-3)  # ... but not orthogonal


@settings(derandomize=True, max_examples=25, deadline=None)
@given(instances, st.booleans())
def test_linear_identifiability(inst: tuple[int, int, float, float, int], optimal: bool) -> None:
    """Headline: mean 0, variance 1, cov = I, 0 < rho < 1  =>  loss >= 2 (1 - rho) n, and at
    equality h(z) = Q z with Q orthogonal. Random whitened encoders (nonlinear ones lie strictly
    above the bound) and random optimal ones (orthogonal linear maps)."""
    n, max_deg, density, rho, seed = inst
    rng = np.random.default_rng(seed)
    c = linear_coeffs(random_orthogonal(rng, n)) if optimal else \
        whiten(random_coeffs(rng, n, max_deg, density), n)
    assert all(abs(mean(c, i, n)) == 0 for i in range(n))
    assert np.allclose(cov(c), np.eye(n), atol=1e-9)
    assert np.allclose([variance(c, i) for i in range(n)], 1.0, atol=1e-9)
    g = gap(c, rho)
    assert g >= -1e-9
    if abs(g) <= 1e-9:
        assert not has_high_degree(c) or max(abs(v) for ci in c for a, v in ci.items()
                                             if deg(a) >= 2) < 1e-6
        q = linear_part(c)
        assert np.allclose(q @ q.T, np.eye(n), atol=1e-8)
        z = rng.normal(size=(20, n))
        assert np.allclose(encoder_eval(c, z), z @ q.T, atol=1e-8)
    else:
        assert has_high_degree(c)


# ---------------------------------------------------------------------------------------------
# Non-vacuity witness (`Lejepa.Hermite.linear_identifiability_witness`)
# ---------------------------------------------------------------------------------------------

def lean_linear_encoder(q: np.ndarray) -> Coeffs:
    """Lean `linearEncoder Q`: c_i = sum_j single(e_j, Q_ij), i.e. coefficient Q_ij at e_j and no
    other key (built independently of `linear_coeffs`, by summing the singles)."""
    n = q.shape[0]
    out: Coeffs = []
    for i in range(n):
        ci: dict[MultiIndex, float] = {}
        for j in range(n):
            ci[unit(n, j)] = ci.get(unit(n, j), 0.0) + float(q[i, j])
        out.append(ci)
    return out


@settings(derandomize=True, max_examples=20, deadline=None)
@given(n=st.integers(1, 4), rho=st.floats(0.05, 0.95), seed=st.integers(0, 2**31 - 1))
def test_linear_encoder_witness(n: int, rho: float, seed: int) -> None:
    """linear_identifiability_witness: for orthogonal Q, linearEncoder Q has mean 0, cov = I,
    alignLoss = 2 (1 - rho) n exactly (the bound attained), linearPart = Q and evaluates to
    z -> Q z. Perturbed: for A = 1.1 Q (not orthogonal) cov = 1.21 I != I and the loss is
    2 (1 - rho) tr(A A^T) != 2 (1 - rho) n, so the witness needs orthogonality."""
    rng = np.random.default_rng(seed)
    q = random_orthogonal(rng, n)
    c = lean_linear_encoder(q)
    assert all(mean(c, i, n) == 0 for i in range(n))
    np.testing.assert_allclose(cov(c), np.eye(n), atol=1e-12)
    assert abs(align_loss(c, rho) - 2 * (1 - rho) * n) <= 1e-12 * max(1.0, n)
    np.testing.assert_allclose(linear_part(c), q, atol=0)
    z = rng.normal(size=(10, n))
    np.testing.assert_allclose(encoder_eval(c, z), z @ q.T, atol=1e-12)
    cb = lean_linear_encoder(1.1 * q)
    assert not np.allclose(cov(cb), np.eye(n), atol=1e-3)
    assert abs(align_loss(cb, rho) - 2 * (1 - rho) * n) > 1e-3
    np.testing.assert_allclose(align_loss(cb, rho), 2 * (1 - rho) * 1.21 * n, rtol=1e-12)
