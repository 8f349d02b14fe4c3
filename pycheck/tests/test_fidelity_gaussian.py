"""Statement fidelity for `Lejepa/Gaussian.lean` (Hermite orthogonality and Mehler under N(0, 1)).

The Lean file proves, for Mathlib's `Polynomial.hermite` mapped to R[X] (`hermiteReal n` = He_n),
the density phi = `gaussianPDFReal 0 1` and `polyMean p = integral of phi(x) p(x) dx`
(= the integral of p under `gaussianReal 0 1`, `integral_gaussianReal_eval`):

* `derivative_hermite_succ` / `derivative_hermiteReal_succ`:  He_{n+1}' = (n + 1) He_n;
  `hermiteReal_succ_succ`: He_{n+2} = X He_{n+1} - (n + 1) He_n;
* `stdGaussianPDF_eq`, `hasDerivAt_stdGaussianPDF`, `polyMean_one`:
  phi(x) = exp(-x^2/2)/sqrt(2 pi), phi' = -x phi, integral of phi = 1;
* `polyMean_X_mul` / `integral_mul_eval_gaussianReal` (Stein): E[Z p(Z)] = E[p'(Z)];
* `polyMean_hermiteReal_succ_mul`: E[He_{n+1} q] = E[He_n q'];
* `polyMean_hermiteReal_mul` / `integral_hermiteReal_mul_gaussianReal`: E[He_m He_n] = [m = n] n!;
* `polyMean_affine_mul`: E[(a + s Z) P(Z)] = a E[P] + s E[P'];
* `integral_hermiteReal_affine_gaussianReal` (conditional Mehler): for any reals rho, s with
  s^2 = 1 - rho^2 and every x, E[He_n(rho x + s Z)] = rho^n He_n(x);
* `integral_integral_hermiteReal_ou` (cross-moments), same hypothesis:
  iterated integral of He_m(x) He_n(rho x + s y) over y then x = [m = n] n! rho^n;
* `integral_hermiteProd_mul`, `integral_hermiteProd_affine`, `integral_integral_hermiteProd_ou`:
  the same on R^k under the product measure, He_alpha = prod_j He_{alpha_j}:
  E[He_alpha He_beta] = [alpha = beta] prod_j beta_j!, and
  E[He_alpha(z) He_beta(rho z + s eta)] = [alpha = beta] (prod_j beta_j!) rho^|beta|.

Every check here is exact (sympy rationals / symbols): the Gaussian integrals are computed by
`sympy.integrate` against the density on (-oo, oo), i.e. the Lebesgue integral the Lean file
writes, not by a moment formula. Each statement is checked for n <= 12 (cross-moments m, n <= 10)
and next to it a perturbed statement (wrong constant, wrong exponent, a broken hypothesis) that
fails, so a mis-transcribed Lean statement would be caught.
"""

from __future__ import annotations

import random
from functools import cache

import pytest
import sympy as sp

X = sp.Symbol("x", real=True)
Y = sp.Symbol("y", real=True)
RHO = sp.Symbol("rho", real=True)
S = sp.Symbol("s", real=True)
N_MAX = 12
PHI = sp.exp(-X ** 2 / 2) / sp.sqrt(2 * sp.pi)  # `stdGaussianPDF_eq`


# ---------------------------------------------------------------------------------------------
# The Lean objects, transcribed
# ---------------------------------------------------------------------------------------------

@cache
def hermite(n: int) -> sp.Expr:
    """Mathlib's `Polynomial.hermite`: hermite 0 = 1, hermite (n+1) = X * hermite n - hermite n'."""
    if n == 0:
        return sp.Integer(1)
    prev = hermite(n - 1)
    return sp.expand(X * prev - sp.diff(prev, X))


@cache
def moment(k: int) -> sp.Expr:
    """integral of x^k phi(x) dx over the real line, by sympy integration against the density."""
    return sp.integrate(X ** k * PHI, (X, -sp.oo, sp.oo))


def poly_mean(p: sp.Expr, var: sp.Symbol = X) -> sp.Expr:
    """`polyMean p` = integral of phi(t) p(t) dt, p a polynomial in `var` (other symbols allowed)."""
    poly = sp.Poly(sp.expand(p), var)
    return sp.expand(sum(c * moment(k) for (k,), c in poly.terms()))


def random_poly(rng: random.Random, degree: int) -> sp.Expr:
    return sum(rng.randint(-9, 9) * X ** k for k in range(degree + 1))


def test_moments_are_gaussian_integrals() -> None:
    """Sanity for the integrator: the density integrates to 1 (`polyMean_one`), odd moments vanish,
    E[x^2] = 1, and the table agrees with a direct integration of a non-monomial polynomial."""
    assert moment(0) == 1 and moment(1) == 0 and moment(2) == 1 and moment(4) == 3
    p = 3 * X ** 4 - 2 * X + 5
    assert sp.simplify(sp.integrate(p * PHI, (X, -sp.oo, sp.oo)) - poly_mean(p)) == 0
    assert poly_mean(sp.Integer(0)) == 0  # `polyMean_zero`


def test_density_form_and_derivative() -> None:
    """`stdGaussianPDF_eq` and `hasDerivAt_stdGaussianPDF`: phi' = -x phi; perturbed: +x phi fails,
    and the variance-2 density (wrong `v`) does not satisfy the same equation."""
    assert sp.simplify(sp.diff(PHI, X) - (-X * PHI)) == 0
    assert sp.simplify(sp.diff(PHI, X) - X * PHI) != 0
    phi_v2 = sp.exp(-X ** 2 / 4) / sp.sqrt(4 * sp.pi)
    assert sp.simplify(sp.diff(phi_v2, X) - (-X * phi_v2)) != 0


# ---------------------------------------------------------------------------------------------
# Step 1: Appell property and recurrence
# ---------------------------------------------------------------------------------------------

def test_hermite_is_probabilists_hermite() -> None:
    """Mathlib's recurrence gives sympy's probabilists' Hermite polynomials He_n (n <= 12)."""
    for n in range(N_MAX + 1):
        assert sp.expand(hermite(n) - sp.hermite_prob(n, X)) == 0


def test_appell_property() -> None:
    """`derivative_hermite_succ`: He_{n+1}' = (n + 1) He_n; perturbed: the factor n fails."""
    for n in range(N_MAX + 1):
        d = sp.diff(hermite(n + 1), X)
        assert sp.expand(d - (n + 1) * hermite(n)) == 0
        assert sp.expand(d - n * hermite(n)) != 0


def test_three_term_recurrence() -> None:
    """`hermiteReal_succ_succ`: He_{n+2} = X He_{n+1} - (n + 1) He_n; perturbed: factor n + 2 fails."""
    for n in range(N_MAX):
        lhs = hermite(n + 2)
        assert sp.expand(lhs - (X * hermite(n + 1) - (n + 1) * hermite(n))) == 0
        assert sp.expand(lhs - (X * hermite(n + 1) - (n + 2) * hermite(n))) != 0


# ---------------------------------------------------------------------------------------------
# Step 2: Stein's identity
# ---------------------------------------------------------------------------------------------

def test_stein_identity_exact() -> None:
    """`polyMean_X_mul`: E[Z p(Z)] = E[p'(Z)] for every monomial of degree <= 12 and 20 random
    integer polynomials; perturbed: E[Z p(Z)] = E[p(Z)] fails, and so does the identity under the
    Laplace density (Stein's identity characterises the Gaussian)."""
    rng = random.Random(11)
    polys = [X ** k for k in range(N_MAX + 1)] + [random_poly(rng, rng.randint(1, N_MAX))
                                                 for _ in range(20)]
    for p in polys:
        assert poly_mean(X * p) == poly_mean(sp.diff(p, X))
    assert any(poly_mean(X * p) != poly_mean(p) for p in polys)
    laplace = sp.exp(-sp.Abs(X)) / 2
    p = X ** 3
    lap = [sp.integrate(f * laplace, (X, -sp.oo, sp.oo)) for f in (X * p, sp.diff(p, X))]
    assert lap[0] != lap[1]  # 24 vs 6


def test_hermite_succ_mul_adjoint() -> None:
    """`polyMean_hermiteReal_succ_mul`: E[He_{n+1} q] = E[He_n q'] (n <= 11, random q);
    perturbed: E[He_{n+1} q] = E[He_n q] fails for some instance."""
    rng = random.Random(5)
    failures_of_perturbed = 0
    for n in range(N_MAX):
        q = random_poly(rng, rng.randint(0, N_MAX))
        assert poly_mean(hermite(n + 1) * q) == poly_mean(hermite(n) * sp.diff(q, X))
        failures_of_perturbed += poly_mean(hermite(n + 1) * q) != poly_mean(hermite(n) * q)
    assert failures_of_perturbed > 0


def test_affine_mul() -> None:
    """`polyMean_affine_mul`: E[(a + s Z) P(Z)] = a E[P] + s E[P'] (symbolic a, s)."""
    a = sp.Symbol("a")
    rng = random.Random(3)
    for _ in range(5):
        p = random_poly(rng, rng.randint(0, 8))
        lhs = poly_mean((a + S * X) * p)
        assert sp.expand(lhs - (a * poly_mean(p) + S * poly_mean(sp.diff(p, X)))) == 0


# ---------------------------------------------------------------------------------------------
# Step 3: orthogonality
# ---------------------------------------------------------------------------------------------

def test_orthogonality_exact() -> None:
    """`polyMean_hermiteReal_mul`: E[He_m He_n] = [m = n] n! for m, n <= 12; perturbed: the
    physicists' norm 2^n n! and the norm (n + 1)! fail on the diagonal (n >= 1)."""
    for m in range(N_MAX + 1):
        for n in range(N_MAX + 1):
            val = poly_mean(hermite(m) * hermite(n))
            assert val == (sp.factorial(n) if m == n else 0)
    for n in range(1, N_MAX + 1):
        val = poly_mean(hermite(n) ** 2)
        assert val != 2 ** n * sp.factorial(n) and val != sp.factorial(n + 1)


# ---------------------------------------------------------------------------------------------
# Steps 4 and 5: Mehler
# ---------------------------------------------------------------------------------------------

# (rho, s) with s^2 = 1 - rho^2, signs included: the Lean hypothesis allows any reals.
PAIRS = [(sp.Rational(3, 5), sp.Rational(4, 5)), (sp.Rational(5, 13), -sp.Rational(12, 13)),
         (-sp.Rational(8, 17), sp.Rational(15, 17)), (sp.Integer(0), sp.Integer(1)),
         (sp.Integer(1), sp.Integer(0))]


def conditional(n: int, rho: sp.Expr, s: sp.Expr) -> sp.Expr:
    """The left side of `integral_hermiteReal_affine_gaussianReal`: integral over y of
    He_n(rho x + s y) phi(y), a polynomial in x."""
    shifted = hermite(n).subs(X, rho * X + s * Y)
    return poly_mean(shifted, Y)


@pytest.mark.parametrize("rho, s", PAIRS)
def test_conditional_mehler_exact(rho: sp.Expr, s: sp.Expr) -> None:
    """Conditional Mehler: integral of He_n(rho x + s y) dgamma(y) = rho^n He_n(x), n <= 12;
    perturbed: rho^(n+1) fails (n >= 1, rho not 0 or 1)."""
    for n in range(N_MAX + 1):
        g = conditional(n, rho, s)
        assert sp.expand(g - rho ** n * hermite(n)) == 0
        if n >= 1 and rho not in (0, 1):
            assert sp.expand(g - rho ** (n + 1) * hermite(n)) != 0


def test_conditional_mehler_symbolic_rho() -> None:
    """The same identity with symbolic rho, s, reduced modulo s^2 = 1 - rho^2 (exactly the Lean
    hypothesis `hσ`), n <= 12."""
    for n in range(N_MAX + 1):
        g = sp.expand(conditional(n, RHO, S))
        reduced = sp.rem(sp.Poly(g, S), sp.Poly(S ** 2 - (1 - RHO ** 2), S)).as_expr()
        assert sp.expand(reduced - RHO ** n * hermite(n)) == 0


def test_conditional_mehler_hypothesis_essential() -> None:
    """Dropping `hσ`: with s^2 = 1 - rho (not 1 - rho^2) the identity fails from n = 2 on."""
    rho, s = sp.Rational(3, 4), sp.Rational(1, 2)  # s^2 = 1/4 = 1 - rho, but 1 - rho^2 = 7/16
    assert s ** 2 == 1 - rho and s ** 2 != 1 - rho ** 2
    assert sp.expand(conditional(1, rho, s) - rho * hermite(1)) == 0  # degree 1 does not see s
    for n in range(2, 7):
        assert sp.expand(conditional(n, rho, s) - rho ** n * hermite(n)) != 0


def cross_moment(m: int, n: int, rho: sp.Expr, s: sp.Expr) -> sp.Expr:
    """The left side of `integral_integral_hermiteReal_ou`: the inner integral over y of
    He_m(x) He_n(rho x + s y), then the outer integral over x."""
    inner = sp.expand(hermite(m) * conditional(n, rho, s))
    return poly_mean(inner, X)


@pytest.mark.parametrize("rho, s", PAIRS[:3])
def test_cross_moments_exact(rho: sp.Expr, s: sp.Expr) -> None:
    """Cross-moments: [m = n] n! rho^n for m, n <= 10; perturbed: rho^(n+1) on the diagonal fails,
    and with a broken hypothesis s^2 = 1 - rho (s = 1/2, rho = 3/4) the off-diagonal moments
    m = n - 2 no longer vanish (the diagonal alone does not see s: the conditional expectation is
    then rho^n He_n plus terms of lower degree, orthogonal to He_n)."""
    for m in range(11):
        for n in range(11):
            val = cross_moment(m, n, rho, s)
            assert val == (sp.factorial(n) * rho ** n if m == n else 0)
    for n in range(1, 11):
        assert cross_moment(n, n, rho, s) != sp.factorial(n) * rho ** (n + 1)
    r_bad, s_bad = sp.Rational(3, 4), sp.Rational(1, 2)
    for n in range(2, 7):
        assert cross_moment(n, n, r_bad, s_bad) == sp.factorial(n) * r_bad ** n
        assert cross_moment(n - 2, n, r_bad, s_bad) != 0


def test_stein_measure_form_is_lebesgue_form() -> None:
    """`integral_gaussianReal_eval`: the integral under N(0, 1) equals the Lebesgue integral of
    phi * p; checked against sympy.stats' Normal(0, 1) expectation for a few polynomials."""
    from sympy.stats import E, Normal

    z = Normal("z", 0, 1)
    for p in (X ** 4 - 3 * X, hermite(5) * hermite(3), hermite(4) ** 2):
        assert sp.simplify(E(p.subs(X, z)) - poly_mean(p)) == 0


# ---------------------------------------------------------------------------------------------
# Step 6: finitely many coordinates under the product measure
# ---------------------------------------------------------------------------------------------

Z2 = sp.symbols("z0 z1", real=True)
E2 = sp.symbols("e0 e1", real=True)
MULTI = [(a, b) for a in range(4) for b in range(4)]  # multi-indices in N^2, degree <= 3 each


def product_mean(p: sp.Expr, variables: tuple[sp.Symbol, ...]) -> sp.Expr:
    """Integral of p against the product of standard Gaussian densities in `variables` (the
    `Measure.pi (fun _ => gaussianReal 0 1)` integral of `integral_fintype_prod_eq_prod`)."""
    poly = sp.Poly(sp.expand(p), *variables)
    return sp.expand(sum(c * sp.prod([moment(k) for k in ks]) for ks, c in poly.terms()))


def mfact(alpha: tuple[int, ...]) -> sp.Expr:
    """`mfact alpha` = alpha! = prod_j (alpha_j)!."""
    return sp.prod([sp.factorial(a) for a in alpha])


def hermite_prod(alpha: tuple[int, ...], z: tuple[sp.Expr, ...]) -> sp.Expr:
    """`hermiteProd alpha z` = prod_j He_{alpha_j}(z_j)."""
    return sp.prod([hermite(a).subs(X, zj) for a, zj in zip(alpha, z)])


def test_multivariate_orthogonality() -> None:
    """`integral_hermiteProd_mul`: E[He_alpha He_beta] = [alpha = beta] prod_j beta_j! on R^2;
    perturbed: the factorial of the total degree |beta|! fails for some beta."""
    for alpha in MULTI:
        for beta in MULTI:
            val = product_mean(hermite_prod(alpha, Z2) * hermite_prod(beta, Z2), Z2)
            want = mfact(beta) if alpha == beta else 0
            assert val == want
    assert any(product_mean(hermite_prod(b, Z2) ** 2, Z2) != sp.factorial(sum(b)) for b in MULTI)


def test_multivariate_cross_moments() -> None:
    """`integral_integral_hermiteProd_ou` (via `integral_hermiteProd_affine`), rho = 3/5, s = 4/5:
    E[He_alpha(z) He_beta(rho z + s eta)] = [alpha = beta] (prod_j beta_j!) rho^|beta|;
    perturbed: rho^(max_j beta_j) in place of rho^(sum_j beta_j) fails on the diagonal."""
    rho, s = sp.Rational(3, 5), sp.Rational(4, 5)
    shifted = tuple(rho * zj + s * ej for zj, ej in zip(Z2, E2))
    for beta in MULTI:
        inner = product_mean(hermite_prod(beta, shifted), E2)
        want_inner = rho ** sum(beta) * hermite_prod(beta, Z2)
        assert sp.expand(inner - want_inner) == 0
        for alpha in MULTI:
            val = product_mean(hermite_prod(alpha, Z2) * inner, Z2)
            fact = mfact(beta)
            assert val == (fact * rho ** sum(beta) if alpha == beta else 0)
            if alpha == beta and min(beta) > 0:
                assert val != fact * rho ** max(beta)


# Bridge (`Lejepa/GaussianBridge.lean`): the evaluated encoder's moments under N(0, I_n)
# ---------------------------------------------------------------------------------------------

Z1 = (sp.Symbol("w0", real=True),)


def random_coeffs(rng: random.Random, n: int, size: int) -> list[dict[tuple[int, ...], sp.Expr]]:
    """A random coefficient model c_i(alpha) (rational values, alpha in {0..3}^n, component i
    with `size` nonzero coefficients; component 0 always has the zero multi-index in its support,
    the others at random)."""
    grid = [alpha for alpha in MULTI if len(alpha) == n] if n == 2 else [(a,) for a in range(4)]
    zero = (0,) * n
    out = []
    for i in range(n):
        keys = rng.sample(grid, size)
        if i == 0 and zero not in keys:
            keys[0] = zero  # component 0 always has a nonzero mean
        out.append({alpha: sp.Rational(rng.randint(-9, 9) or 1, rng.randint(1, 5)) for alpha in keys})
    return out


def encoder_eval(ci: dict[tuple[int, ...], sp.Expr], z: tuple[sp.Expr, ...]) -> sp.Expr:
    """`encoderEval c z i` = sum over the support of c_i of c_i(alpha) He_alpha(z)."""
    return sum(v * hermite_prod(alpha, z) for alpha, v in ci.items())


@pytest.mark.parametrize("n", [1, 2])
def test_bridge_mean_of_hermite_multi(n: int) -> None:
    """`integral_hermiteMulti`: E[He_alpha(z)] = [alpha = 0] under N(0, I_n); `hermiteMulti_zero`:
    He_0 = 1; perturbed: E[He_alpha] = 1 for every alpha fails."""
    z = Z1 if n == 1 else Z2
    alphas = [(a,) for a in range(4)] if n == 1 else MULTI
    assert hermite_prod((0,) * n, z) == 1
    for alpha in alphas:
        assert product_mean(hermite_prod(alpha, z), z) == (1 if not any(alpha) else 0)
    assert any(product_mean(hermite_prod(alpha, z), z) != 1 for alpha in alphas)


@pytest.mark.parametrize("n", [1, 2])
def test_bridge_mean_of_encoder(n: int) -> None:
    """`integral_encoderEval`: E[h_i(z)] = mean c i = c_i(0) (0 when 0 is off the support), for
    random coefficient models, exact; perturbed: E[h_i] = sum_alpha c_i(alpha) fails."""
    z = Z1 if n == 1 else Z2
    rng = random.Random(11 + n)
    perturbed_fails = False
    for _ in range(6):
        c = random_coeffs(rng, n, 3)
        for ci in c:
            val = product_mean(encoder_eval(ci, z), z)
            assert val == ci.get((0,) * n, 0)
            perturbed_fails = perturbed_fails or val != sum(ci.values())
    assert perturbed_fails


def cov_model(ci: dict[tuple[int, ...], sp.Expr], ck: dict[tuple[int, ...], sp.Expr]) -> sp.Expr:
    """`cov c i k` = sum over alpha != 0 in supp c_i u supp c_k of c_i(alpha) c_k(alpha) alpha!."""
    support = {a for a in (set(ci) | set(ck)) if any(a)}
    return sum(
        ci.get(a, 0) * ck.get(a, 0) * mfact(a) for a in support
    )


@pytest.mark.parametrize("n", [1, 2])
def test_bridge_second_moment_of_encoder(n: int) -> None:
    """`integral_encoderEval_mul`: E[h_i(z) h_k(z)] = cov c i k + mean c i * mean c k under
    N(0, I_n) (i = k included), and `integral_encoderEval_mul_self`, exact; perturbed: without
    the mean product it fails."""
    z = Z1 if n == 1 else Z2
    rng = random.Random(23 + n)
    perturbed_fails = False
    for _ in range(5):
        c = random_coeffs(rng, n, 3)
        for ci in c:
            for ck in c:
                val = product_mean(encoder_eval(ci, z) * encoder_eval(ck, z), z)
                m_i, m_k = ci.get((0,) * n, 0), ck.get((0,) * n, 0)
                assert val == cov_model(ci, ck) + m_i * m_k
                perturbed_fails = perturbed_fails or val != cov_model(ci, ck)
            # `integral_encoderEval_mul_self`: E[h_i^2] = variance c i + (mean c i)^2, with
            # variance = sum over alpha != 0 of c_i(alpha)^2 alpha! (Lean `variance`)
            var_i = sum(
                v**2 * mfact(a) for a, v in ci.items() if any(a)
            )
            m_i = ci.get((0,) * n, 0)
            assert product_mean(encoder_eval(ci, z) ** 2, z) == var_i + m_i * m_i
    assert perturbed_fails
