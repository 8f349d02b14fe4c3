"""Statement fidelity for `Lejepa/GaussianIdent.lean` (Theorems 4.1 and 4.3 with the Gaussian
integrals of the OU pair as hypotheses and conclusions).

Notation: gamma = N(0, 1) (`gaussianReal 0 1`), gamma^n its product on Fin n -> R, He_k the
probabilists' Hermite polynomials, He_alpha(z) = prod_j He_{alpha_j}(z_j); an encoder in the
coefficient model is c_i : multi-index -> Q with finite support and h_i(z) = sum_alpha c_i(alpha)
He_alpha(z) (`encoderEval c z i`). The OU pair is z' = rho z + sigma eta with the Lean hypothesis
sigma^2 = 1 - rho^2 (any reals: signs of rho and sigma are free). "Iterated integral"
int_z int_eta F(z, eta) integrates over eta under gamma^n for fixed z, then over z.

Statements mirrored (namespace `Lejepa.GaussianIdent`), each next to a perturbed statement that
fails, so that a mis-transcribed Lean statement would be caught:

* `isOUConditionalMean_hermiteReal` (`test_is_ou_conditional_mean_hermite_real`):
  r = rho^k He_k satisfies int He_k(rho x + sigma y) dgamma(y) = r(x) and int r = int He_k, k <= 10;
  perturbed: rho^(k+1) He_k and He_k itself fail the first condition, and with sigma = 1 no r
  satisfies both (the first condition determines r, whose mean is then wrong).
* `exists_isOUConditionalMean` (`test_exists_is_ou_conditional_mean`): for random polynomials p
  (degree <= 8) the inner integral r is a polynomial in x of degree <= deg p, equal to
  sum_k a_k rho^k He_k where p = sum_k a_k He_k is the expansion the proof uses (leading
  coefficient times He_deg, then induction), and int r = int p.
  `integral_integral_eval_ou` (`test_integral_integral_eval_ou`): int_x int_y p(rho x + sigma y) =
  int p; perturbed: sigma = 1 and sigma^2 = 1 - rho break it.
* `exists_integral_prod_eval_ou` / `integral_integral_prod_eval_ou` (`test_integral_prod_eval_ou`,
  n = 2): the inner integral of prod_j q_j(rho z_j + sigma eta_j) is prod_j r_j(z_j) and the
  iterated integral is int prod_j q_j(z_j) dgamma^2; perturbed: sigma = 1.
* `integral_hermiteMulti_ou` (`test_integral_hermite_multi_ou`): int He_beta(rho z + sigma eta)
  dgamma^n(eta) = rho^|beta| He_beta(z); perturbed: rho^(max beta).
  `iterIntegral_hermiteMulti_mul_ou` (`test_iter_integral_hermite_multi_mul_ou`):
  int_z int_eta He_alpha(z') He_beta(z') = [alpha = beta] alpha! (n <= 2, |alpha|, |beta| <= 3);
  perturbed: alpha! rho^|alpha| (the lag moment) and sigma = 1.
* `iterIntegral_encoderEval_lag` (`test_iter_integral_encoder_eval_lag`):
  int int h_i(z) h_i(z') = corr c rho i + (mean c i)^2; perturbed: without the mean^2 term, and corr
  without rho^|alpha|.
* `iterIntegral_encoderEval_mul_ou` (`test_iter_integral_encoder_eval_mul_ou`):
  int int h_i(z') h_k(z') = cov c i k + mean c i * mean c k; perturbed: without the mean product,
  and with sigma = 1.
* `iterIntegral_align_component` / `iterIntegral_align` (`test_iter_integral_align`):
  int int (h_i(z') - h_i(z))^2 = 2 (variance c i - corr c rho i) and the sum over i = alignLoss c rho
  (the mean does not enter); perturbed: corr without rho^|alpha|, and sigma^2 != 1 - rho^2.
* `encoderEval_sub`, `Lejepa.Approx.encoderEval_linCoeff`, `integral_recovery` (`test_encoder_eval_sub_lin_coeff`,
  `test_integral_recovery`): h_i(z) - (Qz)_i is the encoder with coefficients c_i - linCoeff Q i and
  int sum_i (h_i(z) - (Qz)_i)^2 dgamma^n = recoveryError c Q (random rational 2x2 Q, not
  orthogonal); perturbed: dropping the alpha = 0 (mean) term of recoveryError.
* `linear_identifiability_gaussian` (Theorem 4.1, `test_linear_identifiability_gaussian_*`):
  for 0 < rho < 1, int h_i = 0 and int h_i h_k = [i = k] (both checked as integrals) give
  int int sum_i (h_i(z') - h_i(z))^2 >= 2 (1 - rho) n, strictly when a coefficient of degree >= 2
  is nonzero, with equality for h = Qz, Q orthogonal (rational rotation and reflection);
  perturbed: h = z/2 (covariance != I) and rho < 0 (h = He_2/sqrt 2) fall below 2 (1 - rho) n;
  at rho = 0 and rho = 1 the non-linear He_2/sqrt 2 attains equality
  (`test_linear_identifiability_gaussian_equality_needs_open_interval`: the "only linear" part
  needs 0 < rho < 1 strictly).
* `approximate_identifiability_gaussian` (Theorem 4.3 corrected, integral form,
  `test_approximate_identifiability_gaussian_n1`, `..._n2`): some Q in O(n) has
  int sum_i (h_i - (Qz)_i)^2 <= sum_i (int h_i)^2 + D + (eps + D)^2, D = delta_tr / (2 rho (1 - rho)),
  delta_tr = int int ||h(z') - h(z)||^2 - 2 (1 - rho) tr Cov, Cov_ik = int h_i h_k - int h_i int h_k,
  eps = ||Cov - I||_F. n = 1 exact (min over Q = +-1), n = 2 with Q the polar factor of the linear
  part A_ij = int h_i z_j (float, tolerance 1e-9). Perturbed (`test_approximate_identifiability_
  perturbed`): the paper's unqualified form for h = z/2 at rho = 9/10, dropping the mean term for
  h = 1 + z, and (eps + D)^2 -> eps^2 for h = z/3 + (2/3) He_2.
  `approximate_identifiability_gaussian_paper_form` (`test_approximate_identifiability_paper_form`):
  under int h_i = 0 and int h_i^2 = 1 the paper's form holds (normalized encoders).

All integrals are exact: polynomials are integrated against exp(-x^2/2)/sqrt(2 pi) through the
moment table of `test_fidelity_gaussian` (each moment a `sympy.integrate` on (-oo, oo)); with a
symbolic sigma the result is reduced modulo sigma^2 - (1 - rho^2), exactly the Lean hypothesis.
The objects (hermite, moments, He_alpha, encoderEval, cov, alpha!) are imported from
`test_fidelity_gaussian` (pytest's default import mode puts pycheck/tests on sys.path).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import numpy as np
import pytest
import scipy.linalg
import sympy as sp
from test_fidelity_gaussian import (
    E2,
    RHO,
    S,
    X,
    Y,
    Z1,
    Z2,
    cov_model,
    encoder_eval,
    hermite,
    hermite_prod,
    mfact,
    poly_mean,
    product_mean,
    random_coeffs,
)

Coeffs = dict[tuple[int, ...], sp.Expr]
E1 = (sp.Symbol("u0", real=True),)
R35, R45 = sp.Rational(3, 5), sp.Rational(4, 5)
# (rho, sigma) with sigma^2 = 1 - rho^2 (signs free, as in the Lean hypothesis); S is symbolic
PAIRS = [(RHO, S), (R35, R45), (-R35, -R45), (R35, -R45)]
BAD = [(R35, sp.Integer(1)), (sp.Rational(3, 4), sp.Rational(1, 2))]  # sigma^2 != 1 - rho^2


# ---------------------------------------------------------------------------------------------
# Iterated integrals of the OU pair
# ---------------------------------------------------------------------------------------------

def reduce_sigma(expr: sp.Expr, rho: sp.Expr, s: sp.Expr) -> sp.Expr:
    """With symbolic s: expr modulo s^2 - (1 - rho^2) (the hypothesis `hσ`); otherwise expanded."""
    if s == S:
        return sp.expand(sp.rem(sp.Poly(sp.expand(expr), S), sp.Poly(S ** 2 - (1 - rho ** 2), S)).as_expr())
    return sp.expand(expr)


def variables(n: int) -> tuple[tuple[sp.Symbol, ...], tuple[sp.Symbol, ...]]:
    return (Z1, E1) if n == 1 else (Z2, E2)


Integrand = Callable[[tuple[sp.Expr, ...], tuple[sp.Expr, ...]], sp.Expr]


def inner_ou(f: Integrand, n: int, rho: sp.Expr, s: sp.Expr) -> sp.Expr:
    """z -> int f(z, rho z + s eta) dgamma^n(eta), a polynomial in z."""
    z, eta = variables(n)
    zp = tuple(rho * zj + s * ej for zj, ej in zip(z, eta))
    return reduce_sigma(product_mean(f(z, zp), eta), rho, s)


def iter_ou(f: Integrand, n: int, rho: sp.Expr, s: sp.Expr) -> sp.Expr:
    """int_z int_eta f(z, rho z + s eta): the inner integral over eta, then over z."""
    z, _ = variables(n)
    return reduce_sigma(product_mean(inner_ou(f, n, rho, s), z), rho, s)


def gauss(expr: sp.Expr, n: int) -> sp.Expr:
    """int expr dgamma^n, expr a polynomial in the z variables."""
    return product_mean(expr, variables(n)[0])


# ---------------------------------------------------------------------------------------------
# The coefficient-model quantities (Lejepa/Hermite.lean, Lejepa/Approx.lean)
# ---------------------------------------------------------------------------------------------

def mean(ci: Coeffs, n: int) -> sp.Expr:
    return ci.get((0,) * n, sp.Integer(0))


def variance(ci: Coeffs) -> sp.Expr:
    return sum((v ** 2 * mfact(a) for a, v in ci.items() if any(a)), sp.Integer(0))


def corr(ci: Coeffs, rho: sp.Expr) -> sp.Expr:
    return sum((v ** 2 * mfact(a) * rho ** sum(a) for a, v in ci.items() if any(a)), sp.Integer(0))


def align_loss(c: Sequence[Coeffs], rho: sp.Expr) -> sp.Expr:
    return sp.expand(sum(2 * (variance(ci) - corr(ci, rho)) for ci in c))


def unit(n: int, j: int) -> tuple[int, ...]:
    return tuple(1 if m == j else 0 for m in range(n))


def lin_coeff(q: sp.Matrix, i: int) -> Coeffs:
    """`linCoeff Q i`: Q_ij at alpha = e_j."""
    n = q.shape[0]
    return {unit(n, j): q[i, j] for j in range(n)}


def sub_coeffs(a: Coeffs, b: Coeffs) -> Coeffs:
    return {k: a.get(k, 0) - b.get(k, 0) for k in set(a) | set(b)}


def recovery_error(c: Sequence[Coeffs], q: sp.Matrix, with_mean: bool = True) -> sp.Expr:
    """`recoveryError c Q` = sum_i sum_alpha (c_i(alpha) - linCoeff Q i alpha)^2 alpha!;
    with_mean=False drops the alpha = 0 term (a perturbation)."""
    total = sp.Integer(0)
    for i, ci in enumerate(c):
        for a, v in sub_coeffs(ci, lin_coeff(q, i)).items():
            if with_mean or any(a):
                total += v ** 2 * mfact(a)
    return sp.expand(total)


def h_of(c: Sequence[Coeffs]) -> Callable[[tuple[sp.Expr, ...]], list[sp.Expr]]:
    return lambda z: [encoder_eval(ci, z) for ci in c]


def hermite_expand(p: sp.Expr) -> dict[int, sp.Expr]:
    """The expansion p = sum_k a_k He_k the Lean proof builds: subtract (leading coefficient) *
    He_deg (He_k is monic), recurse on the lower-degree remainder."""
    poly = sp.Poly(sp.expand(p), X)
    out: dict[int, sp.Expr] = {}
    while not poly.is_zero:
        d, a = poly.degree(), poly.LC()
        out[d] = a
        poly = poly - sp.Poly(a * hermite(d), X)
    return out


def random_poly(rng: random.Random, degree: int) -> sp.Expr:
    return sum(sp.Rational(rng.randint(-9, 9), rng.randint(1, 4)) * X ** k for k in range(degree + 1))


# ---------------------------------------------------------------------------------------------
# Items 1-3: OU conditional means of polynomials
# ---------------------------------------------------------------------------------------------

def cond_1d(p: sp.Expr, rho: sp.Expr, s: sp.Expr) -> sp.Expr:
    """x -> int p(rho x + s y) dgamma(y), p a polynomial in X."""
    return reduce_sigma(poly_mean(sp.expand(p.subs(X, rho * X + s * Y)), Y), rho, s)


def is_ou_conditional_mean(p: sp.Expr, r: sp.Expr, rho: sp.Expr, s: sp.Expr) -> bool:
    """The predicate: int p(rho x + s y) dgamma(y) = r(x) for all x, and int r = int p."""
    first = sp.expand(cond_1d(p, rho, s) - r) == 0
    second = sp.expand(reduce_sigma(poly_mean(r) - poly_mean(p), rho, s)) == 0
    return first and second


@pytest.mark.parametrize("rho, s", PAIRS)
def test_is_ou_conditional_mean_hermite_real(rho: sp.Expr, s: sp.Expr) -> None:
    """`isOUConditionalMean_hermiteReal`: r = rho^k He_k (k <= 10); perturbed: rho^(k+1) He_k and
    r = He_k fail for k >= 1."""
    for k in range(11):
        he = hermite(k)
        assert is_ou_conditional_mean(he, rho ** k * he, rho, s)
        if k >= 1:
            assert not is_ou_conditional_mean(he, rho ** (k + 1) * he, rho, s)
            assert not is_ou_conditional_mean(he, he, rho, s)


def test_is_ou_conditional_mean_needs_hypothesis() -> None:
    """With sigma^2 != 1 - rho^2 no r satisfies the predicate for He_2 (the first condition fixes
    r = the inner integral, whose mean then differs from int He_2 = 0)."""
    for rho, s in BAD:
        for k in (2, 4):
            r = cond_1d(hermite(k), rho, s)
            assert poly_mean(r) != poly_mean(hermite(k))
            assert not is_ou_conditional_mean(hermite(k), r, rho, s)


@pytest.mark.parametrize("rho, s", PAIRS[:3])
def test_exists_is_ou_conditional_mean(rho: sp.Expr, s: sp.Expr) -> None:
    """`exists_isOUConditionalMean`: for random p (degree <= 8) the inner integral r is a
    polynomial in x of degree <= deg p, equals sum_k a_k rho^k He_k for the expansion
    p = sum_k a_k He_k, and satisfies the predicate; perturbed: sum_k a_k He_k (no rho^k) fails."""
    rng = random.Random(41)
    for _ in range(4):
        p = random_poly(rng, rng.randint(2, 8))
        a = hermite_expand(p)
        assert sp.expand(p - sum(ak * hermite(k) for k, ak in a.items())) == 0
        r = cond_1d(p, rho, s)
        r_poly = sp.Poly(r, X)  # a polynomial in x (rho, s only in the coefficients)
        assert r_poly.degree() <= sp.Poly(p, X).degree()
        assert sp.expand(r - sum(ak * rho ** k * hermite(k) for k, ak in a.items())) == 0
        assert is_ou_conditional_mean(p, r, rho, s)
        assert sp.expand(r - p) != 0


def test_integral_integral_eval_ou() -> None:
    """`integral_integral_eval_ou`: int_x int_y p(rho x + sigma y) = int p for random p, every
    pair; perturbed: for each broken pair some p fails."""
    rng = random.Random(43)
    polys = [random_poly(rng, rng.randint(2, 8)) for _ in range(4)]
    for rho, s in PAIRS:
        for p in polys:
            assert reduce_sigma(poly_mean(cond_1d(p, rho, s)) - poly_mean(p), rho, s) == 0
    for rho, s in BAD:
        assert any(poly_mean(cond_1d(p, rho, s)) != poly_mean(p) for p in polys)


@pytest.mark.parametrize("rho, s", PAIRS[:3])
def test_integral_prod_eval_ou(rho: sp.Expr, s: sp.Expr) -> None:
    """`exists_integral_prod_eval_ou` / `integral_integral_prod_eval_ou` (n = 2): the inner
    integral of q_1(z'_1) q_2(z'_2) is r_1(z_1) r_2(z_2) with r_j the 1-d conditional means, and the
    iterated integral is int q_1(z_1) q_2(z_2) dgamma^2; perturbed: sigma = 1 fails."""
    rng = random.Random(47)
    for _ in range(2):
        qs = [random_poly(rng, rng.randint(1, 4)) for _ in range(2)]
        f = lambda z, zp: sp.prod([q.subs(X, w) for q, w in zip(qs, zp)])  # noqa: E731
        inner = inner_ou(f, 2, rho, s)
        rs = [cond_1d(q, rho, s).subs(X, zj) for q, zj in zip(qs, Z2)]
        assert reduce_sigma(inner - rs[0] * rs[1], rho, s) == 0
        want = gauss(sp.prod([q.subs(X, zj) for q, zj in zip(qs, Z2)]), 2)
        assert iter_ou(f, 2, rho, s) == want
    qs = [X ** 2, X ** 2 + X]
    f = lambda z, zp: sp.prod([q.subs(X, w) for q, w in zip(qs, zp)])  # noqa: E731
    assert iter_ou(f, 2, R35, sp.Integer(1)) != gauss(sp.prod([q.subs(X, zj) for q, zj in zip(qs, Z2)]), 2)


# ---------------------------------------------------------------------------------------------
# Item 4: Hermite products at z'
# ---------------------------------------------------------------------------------------------

def multi(n: int, top: int) -> list[tuple[int, ...]]:
    if n == 1:
        return [(a,) for a in range(top + 1)]
    return [(a, b) for a in range(top + 1) for b in range(top + 1) if a + b <= top]


@pytest.mark.parametrize("n", [1, 2])
def test_integral_hermite_multi_ou(n: int) -> None:
    """`integral_hermiteMulti_ou`: int He_beta(rho z + sigma eta) dgamma^n(eta) = rho^|beta|
    He_beta(z) (symbolic rho, sigma), |beta| <= 3; perturbed: rho^(max beta) fails for n = 2
    whenever two entries of beta are positive."""
    z, _ = variables(n)
    for beta in multi(n, 3):
        inner = inner_ou(lambda z_, zp: hermite_prod(beta, zp), n, RHO, S)
        assert sp.expand(inner - RHO ** sum(beta) * hermite_prod(beta, z)) == 0
        if sum(1 for b in beta if b) >= 2:
            assert sp.expand(inner - RHO ** max(beta) * hermite_prod(beta, z)) != 0


@pytest.mark.parametrize("n, rho, s", [(1, RHO, S), (2, R35, R45), (2, -R35, -R45)])
def test_iter_integral_hermite_multi_mul_ou(n: int, rho: sp.Expr, s: sp.Expr) -> None:
    """`iterIntegral_hermiteMulti_mul_ou`: int_z int_eta He_alpha(z') He_beta(z') = [alpha = beta]
    alpha! (|alpha|, |beta| <= 3); perturbed: alpha! rho^|alpha| fails for alpha != 0, and with
    sigma = 1 (rho = 3/5) some entry is wrong."""
    idx = multi(n, 3)
    for alpha in idx:
        for beta in idx:
            val = iter_ou(lambda z, zp: hermite_prod(alpha, zp) * hermite_prod(beta, zp), n, rho, s)
            assert val == (mfact(alpha) if alpha == beta else 0)
            if alpha == beta and any(alpha):
                assert sp.expand(val - mfact(alpha) * rho ** sum(alpha)) != 0
    bad = [iter_ou(lambda z, zp: hermite_prod(a, zp) * hermite_prod(b, zp), n, R35, sp.Integer(1))
           for a in idx for b in idx]
    good = [mfact(a) if a == b else 0 for a in idx for b in idx]
    assert bad != good


# ---------------------------------------------------------------------------------------------
# Items 5-7: encoders at the OU pair
# ---------------------------------------------------------------------------------------------

ENC_CASES = [(1, RHO, S), (1, -R35, R45), (2, R35, R45), (2, R35, -R45)]


def encoders(n: int, seed: int, count: int) -> list[list[Coeffs]]:
    rng = random.Random(seed)
    return [random_coeffs(rng, n, 3) for _ in range(count)]


@pytest.mark.parametrize("n, rho, s", ENC_CASES)
def test_iter_integral_encoder_eval_lag(n: int, rho: sp.Expr, s: sp.Expr) -> None:
    """`iterIntegral_encoderEval_lag`: int int h_i(z) h_i(z') = corr c rho i + (mean c i)^2;
    perturbed: without the mean^2 term, and corr without rho^|alpha| (= variance), each fail for
    some component (component 0 always has a nonzero mean)."""
    no_mean_fails = no_rho_fails = False
    for c in encoders(n, 60 + n, 2):
        for ci in c:
            val = iter_ou(lambda z, zp: encoder_eval(ci, z) * encoder_eval(ci, zp), n, rho, s)
            m = mean(ci, n)
            assert sp.expand(val - (corr(ci, rho) + m ** 2)) == 0
            no_mean_fails |= sp.expand(val - corr(ci, rho)) != 0
            no_rho_fails |= sp.expand(val - (variance(ci) + m ** 2)) != 0
    assert no_mean_fails and no_rho_fails


@pytest.mark.parametrize("n, rho, s", ENC_CASES)
def test_iter_integral_encoder_eval_mul_ou(n: int, rho: sp.Expr, s: sp.Expr) -> None:
    """`iterIntegral_encoderEval_mul_ou`: int int h_i(z') h_k(z') = cov c i k + mean c i * mean c k
    (i = k included); perturbed: without the mean product fails, and so does the identity with
    sigma = 1 (rho = 3/5)."""
    no_mean_fails = bad_sigma_fails = False
    for c in encoders(n, 70 + n, 2):
        for ci in c:
            for ck in c:
                f = lambda z, zp: encoder_eval(ci, zp) * encoder_eval(ck, zp)  # noqa: E731
                want = cov_model(ci, ck) + mean(ci, n) * mean(ck, n)
                assert sp.expand(iter_ou(f, n, rho, s) - want) == 0
                no_mean_fails |= sp.expand(want - cov_model(ci, ck)) != 0
                bad_sigma_fails |= iter_ou(f, n, R35, sp.Integer(1)) != want
    assert no_mean_fails and bad_sigma_fails


@pytest.mark.parametrize("n, rho, s", ENC_CASES)
def test_iter_integral_align(n: int, rho: sp.Expr, s: sp.Expr) -> None:
    """`iterIntegral_align_component`: int int (h_i(z') - h_i(z))^2 = 2 (variance c i - corr c rho i);
    `iterIntegral_align`: the sum over i = alignLoss c rho (means nonzero, they do not enter);
    perturbed: corr without rho^|alpha| gives 0, which fails; sigma^2 != 1 - rho^2 fails."""
    bad_sigma_fails = False
    for c in encoders(n, 80 + n, 2):
        assert mean(c[0], n) != 0
        total = sp.Integer(0)
        for ci in c:
            f = lambda z, zp: (encoder_eval(ci, zp) - encoder_eval(ci, z)) ** 2  # noqa: E731
            val = iter_ou(f, n, rho, s)
            assert sp.expand(val - 2 * (variance(ci) - corr(ci, rho))) == 0
            assert sp.expand(val - 2 * (variance(ci) - variance(ci))) != 0
            for rb, sb in BAD:
                bad_sigma_fails |= iter_ou(f, n, rb, sb) != 2 * (variance(ci) - corr(ci, rb))
            total += val
        hz = h_of(c)
        whole = iter_ou(lambda z, zp: sum((a - b) ** 2 for a, b in zip(hz(zp), hz(z))), n, rho, s)
        assert sp.expand(whole - total) == 0
        assert sp.expand(whole - align_loss(c, rho)) == 0
    assert bad_sigma_fails


# ---------------------------------------------------------------------------------------------
# Item 8: recovery error
# ---------------------------------------------------------------------------------------------

def random_matrix(rng: random.Random) -> sp.Matrix:
    return sp.Matrix(2, 2, [sp.Rational(rng.randint(-7, 7), rng.randint(1, 4)) for _ in range(4)])


def test_encoder_eval_sub_lin_coeff() -> None:
    """`encoderEval_linCoeff`: encoderEval (linCoeff Q i) z = (Qz)_i; `encoderEval_sub`:
    h_i(z) - (Qz)_i = encoderEval (c_i - linCoeff Q i) z, as polynomials; perturbed: linCoeff with
    Q transposed (Q_ji) fails for non-symmetric Q."""
    rng = random.Random(91)
    for c in encoders(2, 90, 3):
        q = random_matrix(rng)
        qz = q * sp.Matrix(Z2)
        for i, ci in enumerate(c):
            assert sp.expand(encoder_eval(lin_coeff(q, i), Z2) - qz[i]) == 0
            assert sp.expand(encoder_eval(ci, Z2) - qz[i] - encoder_eval(sub_coeffs(ci, lin_coeff(q, i)), Z2)) == 0
        if q != q.T:
            assert any(sp.expand(encoder_eval(lin_coeff(q.T, i), Z2) - qz[i]) != 0 for i in range(2))


@pytest.mark.parametrize("n", [1, 2])
def test_integral_recovery(n: int) -> None:
    """`integral_recovery`: int sum_i (h_i(z) - (Qz)_i)^2 dgamma^n = recoveryError c Q (random
    rational Q, not orthogonal); perturbed: dropping the alpha = 0 term fails (nonzero means)."""
    rng = random.Random(95 + n)
    z = variables(n)[0]
    for c in encoders(n, 100 + n, 3):
        q = random_matrix(rng) if n == 2 else sp.Matrix([[sp.Rational(rng.randint(-7, 7), 3)]])
        qz = q * sp.Matrix(z)
        val = gauss(sum((encoder_eval(ci, z) - qz[i]) ** 2 for i, ci in enumerate(c)), n)
        assert val == recovery_error(c, q)
        assert val != recovery_error(c, q, with_mean=False)


# ---------------------------------------------------------------------------------------------
# Item 9: Theorem 4.1 with integral hypotheses
# ---------------------------------------------------------------------------------------------

IDENT_PAIRS = [(R35, R45), (sp.Rational(12, 13), -sp.Rational(5, 13)), (sp.Rational(1, 2), sp.sqrt(3) / 2)]


def rational_unit(weights: Sequence[sp.Expr], start: int, u: Sequence[sp.Expr]) -> list[sp.Expr]:
    """A rational point x on sum_m w_m x_m^2 = 1 (w_start = 1): the second intersection of the line
    e_start + t u with the ellipsoid, t = -2 u_start / sum_m w_m u_m^2."""
    assert weights[start] == 1
    t = -2 * u[start] / sum(w * v ** 2 for w, v in zip(weights, u))
    return [(1 if m == start else 0) + t * v for m, v in enumerate(u)]


def normalized_encoders(rng: random.Random, n: int) -> list[list[Coeffs]]:
    """Encoders with int h_i = 0, int h_i h_k = [i = k] by construction (re-checked as integrals):
    n = 1, h = a He_1 + b He_2 + c He_3 with a^2 + 2 b^2 + 6 c^2 = 1; n = 2, h = R g with g_1, g_2
    unit vectors on disjoint supports and R the rotation (3/5, 4/5); the first of each kind is
    linear (no degree >= 2 coefficient)."""
    out = []
    rq = lambda: sp.Rational(rng.randint(-5, 5), rng.randint(1, 3))  # noqa: E731
    if n == 1:
        sup = [(1,), (2,), (3,)]
        for lin in (True, False, False):
            u = [rq() or 1, 0 if lin else rq() or 1, 0 if lin else rq()]
            x = rational_unit([mfact(a) for a in sup], 0, u)
            out.append([dict(zip(sup, x))])
        return out
    sup1, sup2 = [(1, 0), (2, 0), (1, 1)], [(0, 1), (0, 2), (0, 3)]
    rot = sp.Matrix([[R35, -R45], [R45, R35]])
    for lin in (True, False, False):
        g = []
        for sup in (sup1, sup2):
            u = [rq() or 1, 0 if lin else rq(), 0 if lin else rq() or 1]
            g.append(dict(zip(sup, rational_unit([mfact(a) for a in sup], 0, u))))
        out.append([{a: sp.expand(rot[i, 0] * g[0].get(a, 0) + rot[i, 1] * g[1].get(a, 0))
                     for a in sup1 + sup2} for i in range(2)])
    return out


def moments(c: Sequence[Coeffs], n: int) -> tuple[list[sp.Expr], sp.Matrix]:
    """(int h_i, the matrix int h_i h_k) as Gaussian integrals."""
    z = variables(n)[0]
    hz = [encoder_eval(ci, z) for ci in c]
    return [gauss(h, n) for h in hz], sp.Matrix(n, n, lambda i, k: gauss(hz[i] * hz[k], n))


def align_integral(c: Sequence[Coeffs], n: int, rho: sp.Expr, s: sp.Expr) -> sp.Expr:
    hz = h_of(c)
    return iter_ou(lambda z, zp: sum((a - b) ** 2 for a, b in zip(hz(zp), hz(z))), n, rho, s)


@pytest.mark.parametrize("n", [1, 2])
def test_linear_identifiability_gaussian_normalized(n: int) -> None:
    """`linear_identifiability_gaussian` (a): for normalized encoders (hypotheses checked as
    integrals) the alignment integral is >= 2 (1 - rho) n, with equality exactly when no
    coefficient of degree >= 2 is nonzero (0 < rho < 1)."""
    rng = random.Random(110 + n)
    for c in normalized_encoders(rng, n):
        mu, second = moments(c, n)
        assert all(m == 0 for m in mu) and second == sp.eye(n)
        nonlinear = any(v != 0 and sum(a) >= 2 for ci in c for a, v in ci.items())
        for rho, s in IDENT_PAIRS[: 2 if n == 2 else 3]:
            gap = sp.nsimplify(align_integral(c, n, rho, s) - 2 * (1 - rho) * n)
            assert gap > 0 if nonlinear else gap == 0


def test_linear_identifiability_gaussian_equality() -> None:
    """(b): equality 2 (1 - rho) n for h = Qz, Q the rotation (3/5, 4/5) and a reflection."""
    for q in (sp.Matrix([[R35, -R45], [R45, R35]]), sp.Matrix([[R45, R35], [R35, -R45]])):
        c = [lin_coeff(q, i) for i in range(2)]
        mu, second = moments(c, 2)
        assert all(m == 0 for m in mu) and second == sp.eye(2)
        for rho, s in IDENT_PAIRS[:2]:
            assert align_integral(c, 2, rho, s) == 2 * (1 - rho) * 2


def test_linear_identifiability_gaussian_hypotheses_needed() -> None:
    """(c) perturbed: h = z/2 (mean 0, covariance 1/4 != 1) has alignment 2 (1 - rho)/4 < 2 (1 - rho);
    rho = -3/5 < 0 with the normalized h = He_2/sqrt 2 gives 2 (1 - rho^2) < 2 (1 - rho)."""
    half = [{(1,): sp.Rational(1, 2)}]
    mu, second = moments(half, 1)
    assert mu == [0] and second[0, 0] == sp.Rational(1, 4)
    for rho, s in IDENT_PAIRS:
        assert sp.nsimplify(align_integral(half, 1, rho, s)) < 2 * (1 - rho)
    sq = [{(2,): 1 / sp.sqrt(2)}]
    mu, second = moments(sq, 1)
    assert mu == [0] and second[0, 0] == 1
    val = align_integral(sq, 1, -R35, R45)
    assert val == 2 * (1 - R35 ** 2) and val < 2 * (1 + R35)


def test_linear_identifiability_gaussian_equality_needs_open_interval() -> None:
    """The equality case needs 0 < rho < 1 strictly: at rho = 0 (sigma = +-1) every normalized
    encoder, linear or not, has alignment exactly 2 (1 - rho) n = 2n, and at rho = 1 (sigma = 0)
    every encoder has alignment 0; smallest instance n = 1, h = He_2/sqrt 2 (not linear)."""
    sq = [{(2,): 1 / sp.sqrt(2)}]
    for c in [sq] + normalized_encoders(random.Random(150), 1)[1:]:
        for s in (sp.Integer(1), sp.Integer(-1)):
            assert align_integral(c, 1, sp.Integer(0), s) == 2
        assert align_integral(c, 1, sp.Integer(1), sp.Integer(0)) == 0


# ---------------------------------------------------------------------------------------------
# Item 10: Theorem 4.3 (corrected), integral form
# ---------------------------------------------------------------------------------------------

HALF_PAIRS = [(sp.Rational(1, 2), sp.sqrt(3) / 2), (sp.Rational(9, 10), sp.sqrt(19) / 10)]


def bound_terms(c: Sequence[Coeffs], n: int, rho: sp.Expr, s: sp.Expr, paper: bool = False
                ) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """(sum_i (int h_i)^2, D, eps) from the integrals; paper=True: delta = align - 2 (1 - rho) n."""
    mu, second = moments(c, n)
    cov = second - sp.Matrix(n, 1, mu) * sp.Matrix(1, n, mu)
    align = sp.nsimplify(align_integral(c, n, rho, s))
    delta = align - 2 * (1 - rho) * (n if paper else cov.trace())
    d = delta / (2 * rho * (1 - rho))
    eps = sp.sqrt(sum(v ** 2 for v in cov - sp.eye(n)))
    return sum(m ** 2 for m in mu), d, eps


def recovery_integral(c: Sequence[Coeffs], n: int, q: sp.Matrix) -> sp.Expr:
    z = variables(n)[0]
    qz = q * sp.Matrix(z)
    return gauss(sum((encoder_eval(ci, z) - qz[i]) ** 2 for i, ci in enumerate(c)), n)


def near_linear_1d(rng: random.Random) -> list[Coeffs]:
    """h = mu + a He_1 + b He_2 + c He_3 with small mu, b, c and a near +-1 (the bound is tight-ish)."""
    small = lambda: sp.Rational(rng.randint(-3, 3), 20)  # noqa: E731
    return [{(0,): small(), (1,): rng.choice([1, -1]) * (1 + small()), (2,): small(), (3,): small() / 2}]


@pytest.mark.parametrize("rho, s", HALF_PAIRS)
def test_approximate_identifiability_gaussian_n1(rho: sp.Expr, s: sp.Expr) -> None:
    """`approximate_identifiability_gaussian`, n = 1, O(1) = {+-1}: min over Q of
    int (h - Qz)^2 <= (int h)^2 + D + (eps + D)^2, exact, for random and near-linear encoders."""
    rng = random.Random(120)
    cases = [c for c in encoders(1, 121, 3)] + [near_linear_1d(rng) for _ in range(3)]
    for c in cases:
        msq, d, eps = bound_terms(c, 1, rho, s)
        assert d >= 0
        lhs = min(recovery_integral(c, 1, sp.Matrix([[q]])) for q in (1, -1))
        assert lhs <= msq + d + (eps + d) ** 2


def test_approximate_identifiability_gaussian_n2() -> None:
    """`approximate_identifiability_gaussian`, n = 2: Q = the polar factor of A_ij = int h_i z_j
    (Procrustes, as the Lean proof), integrals exact, the comparison in floats (tolerance 1e-9)."""
    qs = sp.symbols("q0:4", real=True)
    qsym = sp.Matrix(2, 2, qs)
    rng = random.Random(130)
    cases = encoders(2, 131, 2) + [[{(0, 0): sp.Rational(1, 10), (1, 0): R35, (0, 1): -R45, (1, 1): sp.Rational(1, 20)},
                                    {(1, 0): R45 + sp.Rational(1, 20), (0, 1): R35, (0, 2): -sp.Rational(1, 15)}]]
    rng.shuffle(cases)
    for c in cases:
        a = np.array([[float(gauss(encoder_eval(ci, Z2) * Z2[j], 2)) for j in range(2)] for ci in c])
        q, _ = scipy.linalg.polar(a)
        assert np.allclose(q @ q.T, np.eye(2), atol=1e-12)
        lhs_poly = recovery_integral(c, 2, qsym)
        lhs = float(lhs_poly.subs(dict(zip(qs, q.flatten().tolist()))))
        for rho, s in [(R35, R45), (sp.Rational(12, 13), sp.Rational(5, 13))]:
            msq, d, eps = bound_terms(c, 2, rho, s)
            assert float(d) >= 0
            assert lhs <= float(msq + d + (eps + d) ** 2) + 1e-9


def test_approximate_identifiability_perturbed() -> None:
    """Perturbed statements that fail (n = 1, rho = 9/10): the paper's unqualified form for h = z/2
    (D = -5/6, eps = 3/4, bound -119/144 < 1/4 = the recovery error); dropping the mean term for h = 1 + z (bound 0,
    error 1); (eps + D)^2 -> eps^2 for the normalized h = z/3 + (2/3) He_2 (8/9 < 4/3 <= 136/81)."""
    rho, s = HALF_PAIRS[1]
    half = [{(1,): sp.Rational(1, 2)}]
    _, d, eps = bound_terms(half, 1, rho, s, paper=True)
    assert d == -sp.Rational(5, 6) and eps == sp.Rational(3, 4)
    paper_bound = d + (eps + d) ** 2
    errs = [recovery_integral(half, 1, sp.Matrix([[q]])) for q in (1, -1)]
    assert min(errs) == sp.Rational(1, 4) and paper_bound < min(errs)
    msq, d, eps = bound_terms(half, 1, rho, s)  # the corrected form holds for it
    assert min(errs) <= msq + d + (eps + d) ** 2
    shifted = [{(0,): sp.Integer(1), (1,): sp.Integer(1)}]
    msq, d, eps = bound_terms(shifted, 1, rho, s)
    assert msq == 1 and d == 0 and eps == 0
    errs = [recovery_integral(shifted, 1, sp.Matrix([[q]])) for q in (1, -1)]
    assert min(errs) == 1 and d + (eps + d) ** 2 < min(errs) <= msq + d + (eps + d) ** 2
    curved = [{(1,): sp.Rational(1, 3), (2,): sp.Rational(2, 3)}]
    msq, d, eps = bound_terms(curved, 1, rho, s)
    assert msq == 0 and eps == 0 and d == sp.Rational(8, 9)
    err = min(recovery_integral(curved, 1, sp.Matrix([[q]])) for q in (1, -1))
    assert err == sp.Rational(4, 3)
    assert msq + d + eps ** 2 < err <= msq + d + (eps + d) ** 2 == sp.Rational(136, 81)


@pytest.mark.parametrize("n", [1, 2])
def test_approximate_identifiability_paper_form(n: int) -> None:
    """`approximate_identifiability_gaussian_paper_form`: under int h_i = 0 and int h_i^2 = 1 the
    paper's form min_Q int sum_i (h_i - (Qz)_i)^2 <= D + (eps + D)^2, D from delta = align -
    2 (1 - rho) n, holds: normalized encoders and (n = 2) h = (z_1, 3/5 z_1 + 4/5 z_2) with unit
    variances but cross-covariance 3/5 (eps > 0); Q from the polar factor for n = 2."""
    rng = random.Random(140 + n)
    cases = normalized_encoders(rng, n)
    if n == 2:
        cases.append([{(1, 0): sp.Integer(1)}, {(1, 0): R35, (0, 1): R45}])
    qs = sp.symbols("q0:4", real=True)
    for c in cases:
        mu, second = moments(c, n)
        assert all(m == 0 for m in mu) and all(second[i, i] == 1 for i in range(n))
        for rho, s in [(R35, R45), HALF_PAIRS[1]]:
            msq, d, eps = bound_terms(c, n, rho, s, paper=True)
            assert msq == 0
            if n == 1:
                lhs = min(recovery_integral(c, 1, sp.Matrix([[q]])) for q in (1, -1))
                assert lhs <= d + (eps + d) ** 2
            else:
                a = np.array([[float(gauss(encoder_eval(ci, Z2) * Z2[j], 2)) for j in range(2)] for ci in c])
                q, _ = scipy.linalg.polar(a)
                lhs_f = float(recovery_integral(c, 2, sp.Matrix(2, 2, qs)).subs(dict(zip(qs, q.flatten().tolist()))))
                assert lhs_f <= float(d + (eps + d) ** 2) + 1e-9
