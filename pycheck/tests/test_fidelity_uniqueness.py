"""Statement fidelity for `Lejepa/Uniqueness.lean` (Theorem 4.2, analytic core).

Lean statements mirrored here:
* `eq_mul_exp_of_deriv_eq`: p' = (a z + b) p  ==>  p(z) = p(0) exp(a z^2/2 + b z);
* `neg_of_integral_eq_one`: that form with p(0) > 0 and integral 1 forces a < 0
  (for a >= 0 the partial integrals grow without bound);
* `gaussian_of_affine_score` / `eq_gaussianPDFReal_of_eq_mul_exp`: normalised, it is the normal
  density with mean -b/a and variance -1/a;
* `score_eq_of_affine_eigenfunction`, `score_gaussianPDFReal`, `generator_gaussianPDFReal`:
  L f = f'' + (log p)' f';  L(alpha z + beta) = -lam (alpha z + beta)  ==>  score = -lam z - lam beta/alpha;
  for N(mu, v): score = -(z - mu)/v and L(z - mu) = -(z - mu)/v.
The affine-score hypothesis is essential: the Laplace density (score -sign z) is not Gaussian and
has no affine eigenfunction.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

finite = dict(allow_nan=False, allow_infinity=False)


@settings(derandomize=True, max_examples=25, deadline=None)
@given(a=st.floats(-3.0, 3.0, **finite), b=st.floats(-2.0, 2.0, **finite), p0=st.floats(0.1, 3.0, **finite))
def test_ode_solution_formula_matches_solver(a: float, b: float, p0: float) -> None:
    """eq_mul_exp_of_deriv_eq: integrate p' = (a z + b) p numerically and compare."""
    zs = np.linspace(0.0, 1.5, 31)
    for sign in (1.0, -1.0):
        sol = integrate.solve_ivp(lambda z, p: (a * z + b) * p, (0.0, sign * 1.5), [p0],
                                  t_eval=sign * zs, rtol=1e-10, atol=1e-12)
        closed = p0 * np.exp(a * (sign * zs) ** 2 / 2 + b * sign * zs)
        np.testing.assert_allclose(sol.y[0], closed, rtol=1e-6)


@settings(derandomize=True, max_examples=25, deadline=None)
@given(a=st.floats(-4.0, -0.2, **finite), b=st.floats(-2.0, 2.0, **finite))
def test_normalised_form_is_gaussian_pdf(a: float, b: float) -> None:
    """eq_gaussianPDFReal_of_eq_mul_exp: p(0) fixed by the integral; p = N(-b/a, -1/a) pdf."""
    f = lambda z: np.exp(a * z**2 / 2 + b * z)  # noqa: E731
    total, _ = integrate.quad(f, -np.inf, np.inf, epsabs=1e-13, epsrel=1e-12)
    p0 = 1.0 / total
    mu, v = -b / a, -1.0 / a
    zs = np.linspace(mu - 4 * np.sqrt(v), mu + 4 * np.sqrt(v), 41)
    np.testing.assert_allclose(p0 * f(zs), stats.norm(loc=mu, scale=np.sqrt(v)).pdf(zs), rtol=1e-7)


@settings(derandomize=True, max_examples=20, deadline=None)
@given(a=st.floats(0.0, 2.0, **finite), b=st.floats(-2.0, 2.0, **finite), p0=st.floats(0.1, 3.0, **finite))
def test_nonnegative_a_is_not_normalisable(a: float, b: float, p0: float) -> None:
    """neg_of_integral_eq_one: for a >= 0 the integrand is >= p0 on a half-line, so the partial
    integrals over [0, R] (b >= 0) or [-R, 0] (b < 0) are >= p0 R: unbounded."""
    f = lambda z: p0 * np.exp(a * z**2 / 2 + b * z)  # noqa: E731
    for r in (5.0, 12.0):
        lo, hi = (0.0, r) if b >= 0 else (-r, 0.0)
        zs = np.linspace(lo, hi, 4001)
        val = integrate.trapezoid(f(zs), zs)
        assert val >= p0 * r * (1 - 1e-9)


def test_laplace_score_not_affine_and_not_gaussian() -> None:
    """Breaking the affine-score hypothesis: the Laplace density has score -sign(z); the best affine
    fit leaves a large residual, and the density differs from every Gaussian with its mean and
    variance (mean 0, variance 2)."""
    zs = np.linspace(-4, 4, 801)
    zs = zs[np.abs(zs) > 1e-9]
    score = -np.sign(zs)
    coef = np.polyfit(zs, score, 1)
    resid = score - np.polyval(coef, zs)
    assert np.sqrt(np.mean(resid**2)) > 0.3
    lap = stats.laplace.pdf(zs)
    gau = stats.norm(scale=np.sqrt(2.0)).pdf(zs)
    assert np.max(np.abs(lap - gau)) > 0.1


@settings(derandomize=True, max_examples=25, deadline=None)
@given(mu=st.floats(-2.0, 2.0, **finite), v=st.floats(0.2, 4.0, **finite))
def test_gaussian_score_and_eigenfunction(mu: float, v: float) -> None:
    """score_gaussianPDFReal and generator_gaussianPDFReal, by finite differences."""
    pdf = stats.norm(loc=mu, scale=np.sqrt(v)).pdf
    zs = np.linspace(mu - 2 * np.sqrt(v), mu + 2 * np.sqrt(v), 21)
    h = 1e-5
    score = (pdf(zs + h) - pdf(zs - h)) / (2 * h) / pdf(zs)
    np.testing.assert_allclose(score, -(zs - mu) / v, atol=1e-6)
    phi = lambda z: z - mu  # noqa: E731
    d1 = (phi(zs + h) - phi(zs - h)) / (2 * h)
    d2 = (phi(zs + h) - 2 * phi(zs) + phi(zs - h)) / h**2
    lphi = d2 + score * d1
    np.testing.assert_allclose(lphi, -(1 / v) * phi(zs), atol=1e-4)


@settings(derandomize=True, max_examples=25, deadline=None)
@given(mu=st.floats(-2.0, 2.0, **finite), v=st.floats(0.2, 4.0, **finite),
       alpha=st.floats(0.3, 3.0, **finite), beta=st.floats(-2.0, 2.0, **finite))
def test_affine_eigenfunction_gives_affine_score(mu: float, v: float, alpha: float, beta: float) -> None:
    """score_eq_of_affine_eigenfunction: for the Gaussian N(mu, v), alpha z + beta is an eigenfunction
    iff beta = -alpha mu (lam = 1/v); then the predicted score -lam z - lam beta/alpha is the true one.
    For beta != -alpha mu, L phi is not proportional to phi."""
    lam = 1.0 / v
    zs = np.linspace(mu - 2, mu + 2, 17)
    score = -(zs - mu) / v
    beta_eig = -alpha * mu
    lphi = 0.0 + score * alpha  # phi'' = 0, phi' = alpha
    np.testing.assert_allclose(lphi, -lam * (alpha * zs + beta_eig), atol=1e-12)
    np.testing.assert_allclose(-lam * zs - lam * beta_eig / alpha, score, atol=1e-12)
    if abs(beta - beta_eig) > 0.1:
        ratio_fit = np.linalg.lstsq((alpha * zs + beta)[:, None], lphi, rcond=None)
        assert ratio_fit[1].size == 0 or ratio_fit[1][0] > 1e-6


def test_laplace_has_no_affine_eigenfunction() -> None:
    """For Laplace, L(alpha z + beta) = -alpha sign(z): not proportional to alpha z + beta for any
    (alpha != 0, beta, lam) -- the least-squares residual stays large."""
    zs = np.linspace(-3, 3, 601)
    zs = zs[np.abs(zs) > 1e-9]
    worst = np.inf
    for alpha in (0.5, 1.0, 2.0):
        for beta in np.linspace(-2, 2, 9):
            lphi = -alpha * np.sign(zs)
            phi = alpha * zs + beta
            lam_fit = -(phi @ lphi) / (phi @ phi)
            worst = min(worst, float(np.max(np.abs(lphi + lam_fit * phi))))
    assert worst > 0.3


def lean_gaussian_pdf(mu: float, v: float, z: np.ndarray) -> np.ndarray:
    """Mathlib `gaussianPDFReal mu v z = (sqrt(2 pi v))^-1 exp(-(z - mu)^2 / (2 v))`."""
    return np.exp(-((z - mu) ** 2) / (2 * v)) / np.sqrt(2 * np.pi * v)


@settings(derandomize=True, max_examples=25, deadline=None)
@given(mu=st.floats(-2.0, 2.0, **finite), v=st.floats(0.2, 4.0, **finite))
def test_gaussian_witness_meets_hypotheses(mu: float, v: float) -> None:
    """gaussianPDFReal_meets_affine_score / _eigenfunction: N(mu, v) is positive, has the affine
    score a z + b with a = -1/v, b = mu/v (finite differences), integrates to 1, and 1 z + (-mu)
    is an eigenfunction of L with eigenvalue -(1/v); the headline conclusions then recover
    -b/a = mu, -1/a = v (affine score) and -beta/alpha = mu, 1/lam = v (eigenfunction).
    Perturbed: with a = +1/v (wrong sign) the score identity fails."""
    zs = np.linspace(mu - 3 * np.sqrt(v), mu + 3 * np.sqrt(v), 41)
    p = lambda z: lean_gaussian_pdf(mu, v, z)  # noqa: E731
    assert np.all(p(zs) > 0)
    h = 1e-5
    score = (p(zs + h) - p(zs - h)) / (2 * h) / p(zs)
    a, b = -1.0 / v, mu / v
    np.testing.assert_allclose(score, a * zs + b, atol=1e-6)
    assert np.max(np.abs(score - ((1.0 / v) * zs + b))) > 0.1
    total, err = integrate.quad(p, -np.inf, np.inf)
    assert abs(total - 1.0) < 1e-9 and err < 1e-6  # quad error estimate, infinite range
    alpha, beta, lam = 1.0, -mu, 1.0 / v
    lphi = 0.0 + score * alpha  # phi'' = 0, phi' = alpha
    np.testing.assert_allclose(lphi, -lam * (alpha * zs + beta), atol=1e-6)
    assert abs(-b / a - mu) < 1e-12 and abs(-1 / a - v) < 1e-12
    assert abs(-beta / alpha - mu) < 1e-12 and abs(1 / lam - v) < 1e-12
