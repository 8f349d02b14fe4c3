"""Statement fidelity for `Lejepa/Approx.lean` (Theorem 4.3, corrected form, coefficient model).

The statement mirrored (docs/approx.md): n components over n latents, component i has finitely
supported Hermite coefficients c_i(alpha); with alpha! = prod_j alpha_j!,
  mu_i = c_i(0), A_ij = c_i(e_j), N = sum_i sum_{|alpha|>=2} c_i(alpha)^2 alpha!,
  Cov_ik = sum_{|alpha|>=1} c_i(alpha) c_k(alpha) alpha!, C_N its |alpha| >= 2 part,
  L = sum_i sum_{|alpha|>=1} 2 c_i(alpha)^2 alpha! (1 - rho^|alpha|), delta_tr = L - 2 (1 - rho) tr Cov,
  eps = ||Cov - I||_F, D_tr = delta_tr / (2 rho (1 - rho)),
  err(Q) = sum_alpha alpha! ||c(alpha) - q(alpha)||^2, q the coefficients of z -> Q z
         = ||mu||^2 + ||A - Q||_F^2 + N                                   (Pythagorean split)
Headline: 0 < rho < 1  =>  exists Q orthogonal with err(Q) <= ||mu||^2 + D_tr + (eps + D_tr)^2.
Lemmas: (a) N <= D_tr; (b) ||A A^T - I||_F <= eps + N (and = ||A^T A - I||_F); (c) for every real
square A some orthogonal Q has ||A - Q||_F <= ||A^T A - I||_F.

The coefficient-model quantities are computed here from their definitions (division with Lean's
convention x / 0 = 0), independently of pycheck.bounds, and the split / L / Cov are tied to the real
random objects by exact Gauss-Hermite quadrature (pycheck.bounds.quadrature_values). Essential
hypotheses: rho in (0, 1) (rho <= 0 and rho = 1 break it; rho > 1 does NOT break the algebra, see
test_rho_above_one_algebra_still_holds), the trace gap delta_tr (delta_n breaks it), the mean term.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pycheck.bounds import HermiteEncoder, multi_indices, quadrature_values

HYP = settings(derandomize=True, max_examples=50, deadline=None)


def ldiv(x: float, y: float) -> float:
    """Lean's real division: x / 0 = 0."""
    return 0.0 if y == 0 else x / y


def model(idx: np.ndarray, c: np.ndarray, rho: float) -> dict:
    """Coefficient-model quantities straight from the definitions in the module docstring."""
    n = idx.shape[1]
    deg = idx.sum(axis=1)
    af = np.array([math.prod(math.factorial(int(a)) for a in row) for row in idx], dtype=float)
    mu = np.zeros(n)
    A = np.zeros((n, n))
    cov = np.zeros((n, n))
    C_N = np.zeros((n, n))
    L = 0.0
    for k in range(len(idx)):
        if deg[k] == 0:
            mu += c[k]
        if deg[k] == 1:
            A[:, int(np.flatnonzero(idx[k])[0])] += c[k]
        if deg[k] >= 1:
            cov += af[k] * np.outer(c[k], c[k])
            L += 2 * af[k] * (1 - rho ** int(deg[k])) * float(c[k] @ c[k])
        if deg[k] >= 2:
            C_N += af[k] * np.outer(c[k], c[k])
    N = float(np.trace(C_N))
    delta_tr = L - 2 * (1 - rho) * np.trace(cov)
    delta_n = L - 2 * (1 - rho) * n
    eps = float(np.linalg.norm(cov - np.eye(n)))
    s = 2 * rho * (1 - rho)
    return {"n": n, "deg": deg, "af": af, "mu": mu, "A": A, "cov": cov, "C_N": C_N, "N": N, "L": L,
            "eps": eps, "delta_tr": delta_tr, "delta_n": delta_n, "D_tr": ldiv(delta_tr, s),
            "D_n": ldiv(delta_n, s)}


def err_coeff(idx: np.ndarray, c: np.ndarray, Q: np.ndarray) -> float:
    """err(Q) = sum_alpha alpha! ||c(alpha) - q(alpha)||^2 over the union of supports, q(e_j) = Q[:, j]."""
    n = idx.shape[1]
    rows = {tuple(r): np.array(v, float) for r, v in zip(idx.tolist(), c)}
    total = 0.0
    for j in range(n):
        e = tuple(int(i == j) for i in range(n))
        rows[e] = rows.get(e, np.zeros(n)) - Q[:, j]
    for r, v in rows.items():
        total += math.prod(math.factorial(a) for a in r) * float(v @ v)
    return total


def polar(A: np.ndarray) -> np.ndarray:
    U, _, Vt = np.linalg.svd(A)
    return U @ Vt


def rhs(m: dict, with_mean: bool = True, delta: str = "tr") -> float:
    D = m["D_tr"] if delta == "tr" else m["D_n"]
    return (float(m["mu"] @ m["mu"]) if with_mean else 0.0) + D + (m["eps"] + D) ** 2


@st.composite
def instances(draw):
    n = draw(st.integers(1, 3))
    d = draw(st.integers(1, 3 if n < 3 else 2))
    idx = multi_indices(n, d)
    keep = draw(st.lists(st.booleans(), min_size=len(idx), max_size=len(idx)))
    keep[0] = True
    idx = idx[np.array(keep)]
    vals = draw(st.lists(st.floats(-2, 2, allow_nan=False), min_size=idx.size, max_size=idx.size))
    c = np.array(vals).reshape(idx.shape)
    rho = draw(st.floats(0.02, 0.98))
    return idx, c, rho


# ------------------------------------------------------------------------------ hypotheses hold

@given(inst=instances())
@HYP
def test_corrected_theorem3_exists_orthogonal_Q(inst) -> None:
    """The headline: the polar Q of A is orthogonal and err(Q) <= ||mu||^2 + D_tr + (eps + D_tr)^2."""
    idx, c, rho = inst
    m = model(idx, c, rho)
    Q = polar(m["A"])
    np.testing.assert_allclose(Q.T @ Q, np.eye(m["n"]), atol=1e-10)
    r = rhs(m)
    assert err_coeff(idx, c, Q) <= r + 1e-9 * (1 + r)


@given(inst=instances())
@HYP
def test_lemma_a_nonlinear_energy_le_D_tr(inst) -> None:
    idx, c, rho = inst
    m = model(idx, c, rho)
    assert m["delta_tr"] >= -1e-9 * (1 + m["L"])
    assert m["N"] <= m["D_tr"] + 1e-9 * (1 + m["D_tr"])


@given(inst=instances())
@HYP
def test_lemma_b_linear_gram_deviation_le_eps_plus_N(inst) -> None:
    idx, c, rho = inst
    m = model(idx, c, rho)
    A, I = m["A"], np.eye(m["n"])
    np.testing.assert_allclose(m["cov"], A @ A.T + m["C_N"], atol=1e-9 * (1 + np.abs(m["cov"]).max()))
    assert np.linalg.norm(A @ A.T - I) <= m["eps"] + m["N"] + 1e-9 * (1 + m["eps"] + m["N"])
    assert np.linalg.norm(A.T @ A - I) == pytest.approx(np.linalg.norm(A @ A.T - I), abs=1e-8)


@given(A=st.integers(1, 4).flatmap(lambda n: st.lists(st.floats(-3, 3, allow_nan=False), min_size=n * n,
                                                        max_size=n * n).map(lambda v: np.array(v).reshape(n, n))))
@HYP
def test_lemma_c_procrustes(A: np.ndarray) -> None:
    """Every real square A (singular ones included): some orthogonal Q has ||A - Q|| <= ||A^T A - I||."""
    Q = polar(A)
    I = np.eye(len(A))
    np.testing.assert_allclose(Q.T @ Q, I, atol=1e-10)
    assert np.linalg.norm(A - Q) <= np.linalg.norm(A.T @ A - I) + 1e-9


@given(inst=instances(), seed=st.integers(0, 2**16))
@settings(HYP, max_examples=25)
def test_pythagorean_split_matches_quadrature(inst, seed: int) -> None:
    """err(Q) in coefficients = ||mu||^2 + ||A - Q||^2 + N = E||h(z) - Qz||^2 (exact quadrature of the
    polynomial) for a random orthogonal Q; L and Cov of the model equal their quadrature values."""
    idx, c, rho = inst
    m = model(idx, c, rho)
    Q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((m["n"], m["n"])))
    split = float(m["mu"] @ m["mu"]) + float(np.sum((m["A"] - Q) ** 2)) + m["N"]
    q = quadrature_values(HermiteEncoder(idx, c), rho, Q=Q)
    tol = 1e-9 * (1 + float(np.sum(m["af"][:, None] * c ** 2)))
    assert err_coeff(idx, c, Q) == pytest.approx(split, abs=tol)
    assert q["err"] == pytest.approx(split, abs=tol)
    assert q["L"] == pytest.approx(m["L"], abs=tol)
    np.testing.assert_allclose(q["cov"], m["cov"], atol=tol)


# ------------------------------------------------------------------------------ each essential hypothesis

def cubic(cc: float) -> tuple[np.ndarray, np.ndarray]:
    """n = 1, h = z + cc He_3(z)."""
    return np.array([[1], [3]]), np.array([[1.0], [cc]])


def best_err_n1(idx: np.ndarray, c: np.ndarray) -> float:
    """min over O(1) = {+1, -1} of err(Q)."""
    return min(err_coeff(idx, c, np.array([[s]])) for s in (1.0, -1.0))


@pytest.mark.parametrize("rho", [-0.5, -0.1, 0.0, 1.0])
def test_rho_outside_unit_interval_breaks_theorem(rho: float) -> None:
    """h = z + 0.05 He_3 (n = 1). For rho in (-1, 0), rho - rho^3 < rho - rho^2 breaks (a): D_tr < N;
    at rho = 0 or 1, 2 rho (1 - rho) = 0 and D_tr = 0 (Lean division). In each case no orthogonal Q
    (here +-1) meets the bound. The same h at rho = 0.5 satisfies it. For rho < 0 the model's L is the
    true E||h(z') - h(z)||^2 (quadrature; Mehler holds for |rho| < 1)."""
    idx, c = cubic(0.05)  # fails iff -rho > 6 (2 + rho)^2 cc^2 for rho < 0; always for rho in {0, 1}
    m = model(idx, c, rho)
    assert m["N"] > m["D_tr"]
    assert best_err_n1(idx, c) > rhs(m)
    if -1 < rho < 0:
        q = quadrature_values(HermiteEncoder(idx, c), rho, allow_negative_rho=True)
        assert q["L"] == pytest.approx(m["L"], abs=1e-12)
    ok = model(idx, c, 0.5)
    assert best_err_n1(idx, c) <= rhs(ok)


@pytest.mark.parametrize("rho", [1.5, 3.0])
def test_rho_above_one_algebra_still_holds(rho: float) -> None:
    """Documenting, not a hypothesis check: for rho > 1 (no OU pair exists) the coefficient-model
    inequality still holds, since (rho - rho^d) / (rho (1 - rho)) = 1 + rho + ... + rho^(d-2) >= 1. So
    rho < 1 is needed for the meaning of L, not for the algebra; rho > 0 and rho != 1 are essential."""
    for cc in (0.1, 0.5):
        idx, c = cubic(cc)
        m = model(idx, c, rho)
        assert m["N"] <= m["D_tr"] + 1e-12
        assert best_err_n1(idx, c) <= rhs(m) + 1e-12


def test_delta_n_instead_of_delta_tr_breaks_theorem() -> None:
    """docs/approx.md (e): h = z / 2, rho = 0.9. With delta_n the right-hand side is -0.826 < 0.25 =
    err(1) = min over O(1); with delta_tr (= 0 here) it is 0.5625 >= 0.25."""
    idx, c = np.array([[1]]), np.array([[0.5]])
    m = model(idx, c, 0.9)
    assert rhs(m, delta="n") == pytest.approx(-0.15 / 0.18 + (0.75 - 0.15 / 0.18) ** 2, abs=1e-12)
    # the exact values in `Lejepa.Approx.paper_form_counterexample`: -3/20, -5/6, 3/4, -119/144
    assert (m["delta_n"], m["D_n"], m["eps"]) == pytest.approx((-3 / 20, -5 / 6, 3 / 4), abs=1e-12)
    assert rhs(m, delta="n") == pytest.approx(-119 / 144, abs=1e-12)
    assert best_err_n1(idx, c) == pytest.approx(0.25, abs=1e-12)
    assert best_err_n1(idx, c) > rhs(m, delta="n")
    assert best_err_n1(idx, c) <= rhs(m)


def test_dropping_mean_term_breaks_theorem() -> None:
    """h = z + mu (n = 2, rho = 0.8): delta_tr = eps = 0, so without ||mu||^2 the right-hand side is 0,
    while err(Q) >= ||mu||^2 > 0 for every orthogonal Q (the mean is orthogonal to all Qz)."""
    idx = np.array([[0, 0], [1, 0], [0, 1]])
    c = np.array([[0.6, -0.8], [1.0, 0.0], [0.0, 1.0]])
    m = model(idx, c, 0.8)
    assert rhs(m, with_mean=False) == pytest.approx(0.0, abs=1e-12)
    Q = polar(m["A"])
    assert err_coeff(idx, c, Q) == pytest.approx(1.0, abs=1e-12)
    rng = np.random.default_rng(0)
    for _ in range(20):
        R, _ = np.linalg.qr(rng.standard_normal((2, 2)))
        assert err_coeff(idx, c, R) >= 1.0 - 1e-12 > rhs(m, with_mean=False)
    assert err_coeff(idx, c, Q) <= rhs(m) + 1e-12


# ------------------------------------------------------------------------------ the paper's form (Lean: ..._paper_form)

@given(inst=instances())
@HYP
def test_paper_form_under_unit_variance_and_zero_mean(inst) -> None:
    """`approximate_identifiability_paper_form`: if every component has mean 0 and variance 1 (so
    tr Cov = n and delta_n = delta_tr), some orthogonal Q has err(Q) <= D_n + (eps + D_n)^2."""
    idx, c, rho = inst
    c = c.copy()
    c[idx.sum(axis=1) == 0] = 0.0
    var = model(idx, c, rho)["cov"].diagonal()
    if np.any(var < 1e-6):
        return  # a component with no nonconstant coefficient cannot be normalised
    c = c / np.sqrt(var)[None, :]
    m = model(idx, c, rho)
    np.testing.assert_allclose(m["cov"].diagonal(), 1.0, atol=1e-12)
    assert m["delta_n"] == pytest.approx(m["delta_tr"], abs=1e-9 * (1 + m["L"]))
    r = rhs(m, with_mean=False, delta="n")
    assert err_coeff(idx, c, polar(m["A"])) <= r + 1e-9 * (1 + r)


def test_paper_form_needs_unit_variance_and_needs_zero_mean() -> None:
    """Breaking only hvar (h = z/2: mean 0, variance 1/4, rho = 0.9) or only hmean (h = z + mu:
    variances 1, mean (0.6, -0.8)) makes the paper's form fail for every orthogonal Q."""
    idx, c = np.array([[1]]), np.array([[0.5]])
    m = model(idx, c, 0.9)
    assert float(m["mu"] @ m["mu"]) == 0 and m["cov"][0, 0] == pytest.approx(0.25)
    assert best_err_n1(idx, c) > rhs(m, with_mean=False, delta="n")
    idx = np.array([[0, 0], [1, 0], [0, 1]])
    c = np.array([[0.6, -0.8], [1.0, 0.0], [0.0, 1.0]])
    m = model(idx, c, 0.8)
    np.testing.assert_allclose(m["cov"].diagonal(), 1.0)
    assert float(m["mu"] @ m["mu"]) == pytest.approx(1.0)
    r = rhs(m, with_mean=False, delta="n")
    rng = np.random.default_rng(1)
    for Q in [polar(m["A"])] + [np.linalg.qr(rng.standard_normal((2, 2)))[0] for _ in range(20)]:
        assert err_coeff(idx, c, Q) > r


# ------------------------------------------------------------------------------ the paper's form fails with delta > 0
# (Lean: Lejepa.Approx.paper_form_counterexample_pos_delta and the lemmas it is assembled from)

def _exact_population(a, b, rho) -> dict:
    """Exact population quantities of the evaluated encoder h(z) = a He_1(z) + b He_2(z) (n = 1) under
    z ~ N(0, 1), z' = rho z + sqrt(1 - rho^2) eta: the polynomial is expanded in (z, eta) by sympy and
    every monomial z^i eta^j is replaced by E[z^i] E[eta^j] (pycheck.quadrature.gaussian_moment). No
    Hermite-coefficient formula is used, so this ties the Lean coefficient-model numbers to E[...]."""
    import sympy as sp

    from pycheck.hermite import hermite_e_sympy
    from pycheck.quadrature import gaussian_moment

    z, eta = sp.symbols("z eta")
    a, b, rho = sp.sympify(a), sp.sympify(b), sp.sympify(rho)  # exact (strings such as "99/100")

    def E(expr) -> sp.Expr:
        p = sp.Poly(sp.expand(expr), z, eta)
        return sp.expand(sum(c * gaussian_moment(i) * gaussian_moment(j) for (i, j), c in p.terms()))

    def h(x):
        return a * hermite_e_sympy(1, z).subs(z, x) + b * hermite_e_sympy(2, z).subs(z, x)

    zp = rho * z + sp.sqrt(1 - rho ** 2) * eta
    mu = E(h(z))
    var = E(h(z) ** 2) - mu ** 2
    L = E((h(zp) - h(z)) ** 2)
    s = 2 * rho * (1 - rho)
    delta_n, delta_tr = L - 2 * (1 - rho), L - 2 * (1 - rho) * var
    D, D_tr = delta_n / s, delta_tr / s
    D_clamped = sp.Max(delta_n, 0) / s
    eps = sp.Abs(var - 1)  # ||Cov - I||_F for n = 1
    err = {q: E((h(z) - q * z) ** 2) for q in (1, -1)}  # O(1) = {+1, -1}
    return {"mu": mu, "var": var, "L": L, "delta_n": delta_n, "delta_tr": delta_tr, "D": D,
            "D_tr": D_tr, "D_clamped": D_clamped, "eps": eps, "err": err,
            "paper": D + (eps + D) ** 2, "paper_clamped": D_clamped + (eps + D_clamped) ** 2,
            "corrected": mu ** 2 + D_tr + (eps + D_tr) ** 2}


def test_paper_form_fails_with_positive_delta_exact() -> None:
    """`paper_form_counterexample_pos_delta`: h = (99/100) He_1 + (2/25) He_2, rho = 9/10. Every number
    stated in Lean is recomputed exactly from the evaluated polynomial. delta_n > 0, so clamping delta
    at 0 (the authors' code) changes nothing; n = 1, so a per-dimension mean of the loss equals our sum.
    The paper's right-hand side (~0.00506) is below err(Q) for both Q in O(1) and even below the
    nonlinear energy N = 8/625 (a lower bound on err(Q) for every Q); the corrected bound (~0.0132)
    holds. The gap: tr Cov = 9929/10000 < n = 1."""
    from sympy import Rational as R

    m = _exact_population("99/100", "2/25", "9/10")
    assert m["mu"] == 0
    assert m["var"] == R(9929, 10000) < 1                                # tr Cov < n
    assert m["L"] == R(50221, 250000)                                    # alignLoss_nearEncoder
    assert m["delta_n"] == R(221, 250000) > 0                            # paperGap_nearEncoder
    assert m["D"] == m["D_clamped"] == R(221, 45000)
    assert m["eps"] == R(71, 10000)                                      # whiteningError_nearEncoder
    assert m["paper"] == m["paper_clamped"] == R(40948561, 8100000000)   # paperBound_nearEncoder
    assert m["paper"] < R(51, 10000)
    assert m["err"][1] == R(129, 10000) and m["err"][-1] == R(39729, 10000)
    N = R(8, 625)                                                        # nonlinEnergy_nearEncoder
    assert min(m["err"].values()) == m["err"][1] >= N > m["paper"]
    assert m["delta_tr"] == R(36, 15625) and m["D_tr"] == N              # traceGap_nearEncoder
    assert m["corrected"] == R(1319601, 100000000)                       # correctedBound_nearEncoder
    assert m["err"][1] <= m["corrected"]


def test_pos_delta_counterexample_coefficient_model_and_quadrature_agree() -> None:
    """The same encoder in this file's coefficient model and by Gauss-Hermite quadrature of
    pycheck.bounds.HermiteEncoder (floats): the Lean numbers are those of the real random objects."""
    idx, c = np.array([[1], [2]]), np.array([[0.99], [0.08]])
    m = model(idx, c, 0.9)
    assert (m["delta_n"], m["D_n"], m["eps"], m["N"]) == pytest.approx(
        (221 / 250000, 221 / 45000, 71 / 10000, 8 / 625), abs=1e-14)
    assert rhs(m, with_mean=False, delta="n") == pytest.approx(40948561 / 8100000000, abs=1e-14)
    assert rhs(m) == pytest.approx(1319601 / 100000000, abs=1e-14)
    for q, want in ((1.0, 129 / 10000), (-1.0, 39729 / 10000)):
        Q = np.array([[q]])
        assert err_coeff(idx, c, Q) == pytest.approx(want, abs=1e-14)
        quad = quadrature_values(HermiteEncoder(idx, c), 0.9, Q=Q)
        assert quad["err"] == pytest.approx(want, abs=1e-12)
        assert quad["L"] == pytest.approx(50221 / 250000, abs=1e-12)
        assert quad["cov"][0, 0] == pytest.approx(9929 / 10000, abs=1e-12)
    assert best_err_n1(idx, c) > rhs(m, with_mean=False, delta="n")
    assert best_err_n1(idx, c) <= rhs(m)


def test_pos_delta_counterexample_needs_the_nonlinear_part_and_trcov_lt_n() -> None:
    """What makes the counterexample work (so a wrong Lean statement would be caught): dropping the
    He_2 term (h = 0.99 z) gives delta_n < 0, and with delta clamped at 0 the paper's form then holds;
    rescaling h to unit variance (tr Cov = n) makes the paper's form hold, as
    `approximate_identifiability_paper_form` says."""
    import sympy as sp

    lin = _exact_population("99/100", "0", "9/10")
    assert lin["delta_n"] < 0
    assert min(lin["err"].values()) <= lin["paper_clamped"]
    assert min(lin["err"].values()) > lin["paper"]  # unclamped it fails: the h = z/2 mechanism
    var = _exact_population("99/100", "2/25", "9/10")["var"]
    k = 1 / sp.sqrt(var)
    unit = _exact_population(k * sp.Rational(99, 100), k * sp.Rational(2, 25), "9/10")
    assert sp.simplify(unit["var"] - 1) == 0 and unit["eps"] == 0
    assert sp.simplify(unit["delta_n"] - unit["delta_tr"]) == 0
    gap = unit["paper"] - min(unit["err"].values(), key=lambda e: float(e))
    assert float(gap) > 1e-4  # holds with room (about 1.2e-4), not by rounding


# ------------------------------------------------------------------------------ non-vacuity witnesses

@given(n=st.integers(1, 3), seed=st.integers(0, 2**16), rho=st.floats(0.02, 0.98))
@HYP
def test_orthogonal_linear_encoder_attains_both_bounds(n: int, seed: int, rho: float) -> None:
    """`approximate_identifiability_witness`, `approximate_identifiability_paper_form_witness`,
    `exists_orthogonal_frob_sub_le_witness`: for U in O(n) the encoder with coefficients U_ij at e_j
    evaluates to z -> Uz, has mean 0 and unit variances, both gaps and eps vanish, err(U) = 0 and both
    right-hand sides are 0 (the bound is attained); ||U^T U - I|| = 0. A scaled U (1.1 U, not orthogonal)
    breaks the variance hypothesis and gives err > 0 against every orthogonal Q tried."""
    rng = np.random.default_rng(seed)
    U, _ = np.linalg.qr(rng.standard_normal((n, n)))
    idx = np.eye(n, dtype=int)
    c = U.T.copy()  # row k: the coefficient vector at alpha = e_k, i.e. column k of U
    enc = HermiteEncoder(idx, c)
    Z = rng.standard_normal((5, n))
    np.testing.assert_allclose(enc(Z), Z @ U.T, atol=1e-12)
    m = model(idx, c, rho)
    assert np.all(m["mu"] == 0)
    np.testing.assert_allclose(m["cov"], np.eye(n), atol=1e-12)
    assert abs(m["delta_n"]) < 1e-12 and abs(m["delta_tr"]) < 1e-12 and m["eps"] < 1e-12
    assert err_coeff(idx, c, U) < 1e-24
    assert rhs(m) < 1e-12 and rhs(m, with_mean=False, delta="n") < 1e-12
    assert np.linalg.norm(U.T @ U - np.eye(n)) < 1e-12
    bad = model(idx, 1.1 * c, rho)
    assert np.all(np.abs(bad["cov"].diagonal() - 1.21) < 1e-12)
    for Q in [polar(1.1 * U), U] + [np.linalg.qr(rng.standard_normal((n, n)))[0] for _ in range(5)]:
        assert err_coeff(idx, 1.1 * c, Q) >= 0.01 * n - 1e-12
