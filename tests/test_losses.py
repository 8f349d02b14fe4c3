"""Losses against direct formulas; SIGReg null expectation and power; fast SIGReg = plain SIGReg."""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from lejepa_experiments import cf_kernels  # noqa: E402
from lejepa_experiments.losses import (  # noqa: E402
    alignment_loss,
    alignment_loss_authors,
    infonce_gaussian,
    random_slices,
    sigreg,
    sigreg_knots,
    sigreg_null_mean,
    vicreg_loss,
    whitening_loss,
)


def sigreg_direct(h: np.ndarray, a: np.ndarray, knots: int = 17, t_max: float = 3.0) -> float:
    """Direct numpy formula: cos and sin at every knot, trapezoid weights x 2 x exp(-t^2/2)."""
    t = np.linspace(0.0, t_max, knots)
    dt = t_max / (knots - 1)
    w = np.full(knots, dt)
    w[0] = w[-1] = dt / 2
    w = 2 * w * np.exp(-t ** 2 / 2)
    h = np.atleast_3d(h) if h.ndim == 3 else h[None]
    m = h.shape[1]
    u = h @ a  # (B, m, S)
    total = 0.0
    for b in range(u.shape[0]):
        for s in range(u.shape[2]):
            x = u[b, :, s]
            for k in range(knots):
                c = np.mean(np.cos(t[k] * x)) - np.exp(-t[k] ** 2 / 2)
                sn = np.mean(np.sin(t[k] * x))
                total += w[k] * (c * c + sn * sn)
    return m * total / (u.shape[0] * u.shape[2])


def _gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


BACKENDS = ["torch"] + (["numba"] if cf_kernels.available() else [])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("knots,t_max", [(17, 3.0), (2, 1.0), (9, 5.0), (32, 3.0)])
def test_sigreg_equals_direct_formula(knots, t_max, backend):
    g = _gen(1)
    h = torch.randn(2, 40, 3, generator=g, dtype=torch.float64) * 1.3 + 0.2
    a = random_slices(3, 7, generator=g, dtype=torch.float64)
    fast = float(sigreg(h, a, knots, t_max, backend=backend))
    direct = sigreg_direct(h.numpy(), a.numpy(), knots, t_max)
    assert fast == pytest.approx(direct, rel=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_sigreg_gradient_matches_finite_differences(backend):
    g = _gen(2)
    h = (torch.randn(2, 12, 3, generator=g, dtype=torch.float64) * 0.8).requires_grad_(True)
    a = random_slices(3, 5, generator=g, dtype=torch.float64)
    assert torch.autograd.gradcheck(lambda x: sigreg(x, a, 11, 3.0, backend=backend), (h,), eps=1e-6, atol=1e-8)


@pytest.mark.parametrize("backend", BACKENDS)
def test_sigreg_gradient_equals_autograd_of_plain(backend):
    g = _gen(3)
    h = torch.randn(2, 64, 4, generator=g, dtype=torch.float64)
    a = random_slices(4, 32, generator=g, dtype=torch.float64)
    t, w = sigreg_knots(17, 3.0)
    x1 = h.clone().requires_grad_(True)
    xt = (x1 @ a).unsqueeze(-1) * t
    plain = (((xt.cos().mean(-3) - torch.exp(-t ** 2 / 2)) ** 2 + xt.sin().mean(-3) ** 2) @ w).mean() * 64
    plain.backward()
    x2 = h.clone().requires_grad_(True)
    fast = sigreg(x2, a, backend=backend)
    fast.backward()
    assert float(fast.detach()) == pytest.approx(float(plain.detach()), rel=1e-12)
    torch.testing.assert_close(x2.grad, x1.grad, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("backend", BACKENDS)
def test_sigreg_float32_close_to_float64(backend):
    # float32 inputs: rounding of u = h a (~1e-7 relative) times |t u| <= 3 * 5 bounds each cos/sin
    # error by ~2e-6; the statistic is a weighted mean of such terms, so 1e-5 relative is generous.
    g = _gen(4)
    h = torch.randn(2, 256, 8, generator=g)
    a = random_slices(8, 64, generator=g)
    v32 = float(sigreg(h, a, backend=backend))
    v64 = float(sigreg(h.double(), a.double(), backend=backend))
    assert abs(v32 - v64) <= 1e-5 * abs(v64)


def test_sigreg_weights_integrate_gaussian():
    # sum_k w_k = trapezoid rule for the integral of exp(-t^2/2) over [-t_max, t_max]
    _, w = sigreg_knots(201, 3.0)
    assert float(w.sum()) == pytest.approx(math.sqrt(2 * math.pi) * math.erf(3 / math.sqrt(2)), rel=1e-4)


@pytest.mark.parametrize("m", [8, 128])
def test_sigreg_null_expectation(m):
    """Mean of SIGReg over iid N(0, I) batches equals sum_k w_k (1 - e^{-t_k^2}) for every m.

    Estimated from R = 400 independent batches (fresh slices each); tolerance 6 standard errors.
    """
    g = _gen(10 + m)
    R = 400
    vals = torch.stack([sigreg(torch.randn(2, m, 3, generator=g, dtype=torch.float64), 16, generator=g)
                        for _ in range(R)])
    mean, se = float(vals.mean()), float(vals.std() / math.sqrt(R))
    expected = sigreg_null_mean()
    assert abs(mean - expected) <= 6 * se, (mean, expected, se)
    assert se < 0.1 * expected  # the test has power


def test_sigreg_null_per_knot_moments_by_monte_carlo():
    """Check the derivation's ingredients: m E[(C - phi)^2 + S^2] = 1 - e^{-t^2} at single knots."""
    rng = np.random.default_rng(0)
    m, R = 20, 20000
    x = rng.standard_normal((R, m))
    for t in (0.5, 1.0, 2.5):
        c = np.cos(t * x).mean(1) - math.exp(-t * t / 2)
        s = np.sin(t * x).mean(1)
        v = m * (c ** 2 + s ** 2)
        assert abs(v.mean() - (1 - math.exp(-t * t))) <= 6 * v.std() / math.sqrt(R)


def test_sigreg_collapsed_exact_and_large():
    m = 256
    h = torch.zeros(2, m, 4, dtype=torch.float64)
    t, w = sigreg_knots(17, 3.0)
    expected = m * float((w * (1 - torch.exp(-t ** 2 / 2)) ** 2).sum())
    assert float(sigreg(h, 32, generator=_gen(0))) == pytest.approx(expected, rel=1e-12)
    assert expected > 50 * sigreg_null_mean()


@pytest.mark.parametrize("transform", ["shift", "scale", "shrink"])
def test_sigreg_much_larger_off_null(transform):
    g = _gen(5)
    h = torch.randn(2, 256, 4, generator=g, dtype=torch.float64)
    h = {"shift": h + 1.0, "scale": 2.0 * h, "shrink": 0.5 * h}[transform]
    assert float(sigreg(h, 64, generator=g)) > 20 * sigreg_null_mean()


def test_sigreg_accepts_2d_and_rejects_bad_input():
    g = _gen(6)
    h = torch.randn(50, 3, generator=g, dtype=torch.float64)
    a = random_slices(3, 4, generator=g, dtype=torch.float64)
    assert float(sigreg(h, a)) == pytest.approx(sigreg_direct(h.numpy(), a.numpy()), rel=1e-12)
    with pytest.raises(ValueError, match="slices"):
        sigreg(h, 0)
    with pytest.raises(ValueError, match="slices matrix"):
        sigreg(h, torch.randn(4, 5))
    with pytest.raises(ValueError, match="knots"):
        sigreg(h, 4, knots=1)
    with pytest.raises(ValueError, match="t_max"):
        sigreg(h, 4, t_max=-1.0)
    with pytest.raises(ValueError, match="shape"):
        sigreg(torch.randn(3), 4)


def _pair(seed=7, m=30, n=3):
    g = _gen(seed)
    h1 = torch.randn(m, n, generator=g, dtype=torch.float64)
    return h1, 0.8 * h1 + 0.5 * torch.randn(m, n, generator=g, dtype=torch.float64)


def test_alignment_direct():
    h1, h2 = _pair()
    a, b = h1.numpy(), h2.numpy()
    direct = np.mean([np.sum((a[i] - b[i]) ** 2) for i in range(len(a))])
    assert float(alignment_loss(h1, h2)) == pytest.approx(direct, rel=1e-12)


def test_whitening_direct():
    h1, _ = _pair()
    c = np.cov(h1.numpy(), rowvar=False)  # unbiased
    assert float(whitening_loss(h1)) == pytest.approx(np.sum((c - np.eye(3)) ** 2), rel=1e-12)


def test_vicreg_direct():
    h1, h2 = _pair()
    a, b = h1.numpy(), h2.numpy()
    m, n = a.shape

    def v(x):
        return np.mean([max(0.0, 1.0 - math.sqrt(np.var(x[:, j], ddof=1) + 1e-4)) for j in range(n)])

    def c(x):
        cc = np.cov(x, rowvar=False)
        return sum(cc[i, j] ** 2 for i in range(n) for j in range(n) if i != j) / n

    s = np.mean((a - b) ** 2)
    direct = 25 * s + 25 * (v(a) + v(b)) / 2 + 1 * (c(a) + c(b))   # reference: hinges averaged, cov summed
    assert float(vicreg_loss(h1, h2)) == pytest.approx(direct, rel=1e-12)
    # the hinge is active for a shrunk embedding and inactive for a wide one
    assert float(vicreg_loss(0.1 * h1, 0.1 * h2, 0, 1, 0)) > 0.5
    assert float(vicreg_loss(10 * h1, 10 * h2, 0, 1, 0)) == 0.0


def test_infonce_direct():
    h1, h2 = _pair(m=12)
    a, b = h1.numpy(), h2.numpy()
    tau = 0.7
    d2 = ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1)
    lg = -d2 / (2 * tau)

    def ce(L):
        return np.mean([-(L[i, i] - np.log(np.sum(np.exp(L[i])))) for i in range(len(L))])

    direct = 0.5 * (ce(lg) + ce(lg.T))
    assert float(infonce_gaussian(h1, h2, tau)) == pytest.approx(direct, rel=1e-10)


def test_pair_losses_reject_bad_shapes():
    h1, h2 = _pair()
    for fn in (alignment_loss, vicreg_loss, infonce_gaussian):
        with pytest.raises(ValueError, match="shape"):
            fn(h1, h2[:, :2])
        with pytest.raises(ValueError, match="samples"):
            fn(h1[:1], h2[:1])
    with pytest.raises(ValueError, match="temperature"):
        infonce_gaussian(h1, h2, 0.0)
    with pytest.raises(ValueError, match="shape"):
        whitening_loss(h1[0])


# ------------------------------------------------------------------ SIGReg backends and kernels

@pytest.mark.skipif(not cf_kernels.available(), reason="numba not installed")
@pytest.mark.parametrize("dtype,rtol", [(torch.float64, 1e-12), (torch.float32, 2e-5)])
def test_sigreg_backends_agree_value_and_gradient(dtype, rtol):
    g = _gen(11)
    h = torch.randn(2, 33, 5, generator=g, dtype=dtype) * 1.7 - 0.3
    a = random_slices(5, 70, generator=g, dtype=dtype)
    vals, grads = [], []
    for backend in ("torch", "numba"):
        x = h.clone().requires_grad_(True)
        v = sigreg(x, a, backend=backend)
        v.backward()
        vals.append(float(v.detach()))
        grads.append(x.grad)
    assert vals[1] == pytest.approx(vals[0], rel=rtol)
    torch.testing.assert_close(grads[1], grads[0], rtol=rtol, atol=rtol * float(grads[0].abs().max()))


@pytest.mark.skipif(not cf_kernels.available(), reason="numba not installed")
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cf_kernels_against_direct_trigonometric_sums(dtype):
    rng = np.random.default_rng(5)
    theta = rng.normal(scale=2.0, size=(3, 65, 17))              # (B, S, m)
    K = 9
    k = np.arange(1, K + 1)
    c1, s1 = np.cos(theta).astype(dtype), np.sin(theta).astype(dtype)
    csum, ssum = cf_kernels.cf_sums(c1, s1, K)
    kt = theta[:, None, :, :] * k[None, :, None, None]          # (B, K, S, m)
    tol = 1e-12 if dtype == np.float64 else 2e-5                 # float32: ~K ulp per term, 17 terms
    np.testing.assert_allclose(csum, np.cos(kt).sum(-1), atol=tol * 17)
    np.testing.assert_allclose(ssum, np.sin(kt).sum(-1), atol=tol * 17)
    A = rng.normal(size=(3, K, 65))
    Bc = rng.normal(size=(3, K, 65))
    grad = cf_kernels.cf_grad(c1, s1, A.astype(dtype), Bc.astype(dtype))
    ref = np.einsum("bks,bksj->bsj", A, np.cos(kt)) - np.einsum("bks,bksj->bsj", Bc, np.sin(kt))
    assert grad.dtype == dtype and grad.shape == theta.shape
    np.testing.assert_allclose(grad, ref, atol=tol * np.abs(A).sum(1).max() * 2)


@pytest.mark.skipif(not cf_kernels.available(), reason="numba not installed")
def test_cf_kernels_reject_bad_input():
    c = np.zeros((2, 4, 3))
    with pytest.raises(ValueError, match="shape"):
        cf_kernels.cf_sums(c, np.zeros((2, 5, 3)), 3)
    with pytest.raises(ValueError, match="float32 or float64"):
        cf_kernels.cf_sums(c.astype(np.int64), c.astype(np.int64), 3)
    with pytest.raises(ValueError, match="kmax"):
        cf_kernels.cf_sums(c, c, 0)
    with pytest.raises(ValueError, match="coefficients"):
        cf_kernels.cf_grad(c, c, np.zeros((2, 3, 5)), np.zeros((2, 3, 5)))


def test_sigreg_rejects_unknown_backend():
    with pytest.raises(ValueError, match="backend"):
        sigreg(torch.randn(8, 2), 4, backend="cuda-magic")
    if not cf_kernels.available():
        with pytest.raises(ValueError, match="numba"):
            sigreg(torch.randn(8, 2), 4, backend="numba")
    with pytest.raises(ValueError, match="floating-point"):
        sigreg(torch.randn(8, 2, dtype=torch.float64).to(torch.complex128), 4, backend="numba")


def test_sigreg_population_values_agree_with_pycheck():
    from pycheck import sigreg as sg

    assert sigreg_null_mean() == pytest.approx(sg.null_mean(), rel=1e-14)
    # a collapsed embedding at 0: SIGReg = m S0 for every slice, both backends
    for backend in BACKENDS:
        v = float(sigreg(torch.zeros(2, 64, 3, dtype=torch.float64), 8, backend=backend))
        assert v == pytest.approx(64 * sg.collapse_value(), rel=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_sigreg_double_backward_raises_instead_of_being_silently_wrong(backend):
    # gradient-penalty pattern: the gradient depends on W through the projection x @ W
    g0 = _gen(0)
    x = torch.randn(2, 16, 3, generator=g0, dtype=torch.float64, requires_grad=True)
    w = torch.randn(3, 3, generator=g0, dtype=torch.float64, requires_grad=True)
    a = random_slices(3, 4, generator=g0, dtype=torch.float64)
    with pytest.raises(RuntimeError, match="second derivatives"):
        torch.autograd.grad(sigreg(x @ w, a, backend=backend), x, create_graph=True)
    (g,) = torch.autograd.grad(sigreg(x @ w, a, backend=backend), x)   # first derivatives are fine
    assert torch.isfinite(g).all()


@pytest.mark.parametrize("backend", BACKENDS)
def test_sigreg_half_precision_is_computed_in_float32(backend):
    g = _gen(5)
    h = torch.randn(2, 32, 3, generator=g)
    a = random_slices(3, 8, generator=g)
    v16 = sigreg(h.to(torch.bfloat16), a, backend=backend)
    v32 = sigreg(h.to(torch.bfloat16).float(), a, backend=backend)
    assert v16.dtype == torch.float32 and float(v16) == float(v32)


def test_sigreg_rejects_empty_and_non_float_input():
    with pytest.raises(ValueError, match="at least one group"):
        sigreg(torch.randn(0, 4, 2), 4)
    with pytest.raises(ValueError, match="at least one column"):
        sigreg(torch.randn(4, 2), torch.randn(2, 0))
    with pytest.raises(ValueError, match="floating-point"):
        sigreg(torch.ones(4, 2, dtype=torch.int64), 4)
    # numpy integers are integers
    assert torch.isfinite(sigreg(torch.randn(8, 2), np.int64(4), np.int64(5), generator=_gen(1)))


@pytest.mark.skipif(not cf_kernels.available(), reason="numba not installed")
def test_cf_grad_rejects_zero_knots():
    c = np.zeros((1, 2, 3))
    with pytest.raises(ValueError, match="K >= 1"):
        cf_kernels.cf_grad(c, c, np.zeros((1, 0, 2)), np.zeros((1, 0, 2)))


# ------------------------------------------------------------------ the authors' convention

def test_authors_alignment_is_ours_over_4n_and_their_formula():
    h1, h2 = _pair()
    n = h1.shape[1]
    h = torch.stack((h1, h2))
    theirs = float((h.mean(0) - h).square().mean())          # mean over views, samples, dimensions
    assert float(alignment_loss_authors(h1, h2)) == pytest.approx(theirs, rel=1e-12)
    assert float(alignment_loss_authors(h1, h2)) == pytest.approx(float(alignment_loss(h1, h2)) / (4 * n), rel=1e-12)


def _loss_cfg(kind: str, convention: str, lam: float) -> dict:
    from lejepa_experiments.config import make_config

    return make_config({"loss": {"kind": kind, "convention": convention, "lam": lam, "slices": 16}})["loss"]


def test_authors_objective_of_the_collapsed_encoder_is_lam_2m_s0():
    from lejepa_experiments.engine import objective

    from pycheck import sigreg as sg

    m, n, lam = 64, 3, 0.01
    z = torch.zeros(m, n, dtype=torch.float64)
    got = float(objective(_loss_cfg("sigreg", "authors", lam), z, z))
    assert got == pytest.approx(lam * 2 * m * sg.collapse_value(), rel=1e-12)
    ours = float(objective(_loss_cfg("sigreg", "ours", lam), z, z))
    assert ours == pytest.approx(lam * m * sg.collapse_value(), rel=1e-12)     # per view: m S0


def test_authors_objective_of_h_equal_qz_by_monte_carlo():
    # E J_a(Qz) = lam N_rho + (1 - lam) (1 - rho)/2 (pycheck.sigreg fact 5); 400 batches, 6 standard errors
    from lejepa_experiments.data import haar_orthogonal
    from lejepa_experiments.engine import objective

    from pycheck import sigreg as sg

    torch.manual_seed(3)
    m, n, rho, lam = 32, 3, 0.8, 0.3
    cfg = _loss_cfg("sigreg", "authors", lam)
    q = haar_orthogonal(n, torch.Generator().manual_seed(0), dtype=torch.float64)
    vals = []
    for _ in range(400):
        z = torch.randn(m, n, dtype=torch.float64)
        z2 = rho * z + math.sqrt(1 - rho ** 2) * torch.randn(m, n, dtype=torch.float64)
        vals.append(float(objective(cfg, z @ q.T, z2 @ q.T)))
    v = np.array(vals)
    want = lam * sg.pair_null_mean(rho) + (1 - lam) * (1 - rho) / 2
    assert abs(v.mean() - want) <= 6 * v.std(ddof=1) / math.sqrt(v.size)


def test_authors_whitening_is_of_the_concatenation_over_n_squared():
    from lejepa_experiments.engine import objective

    h1, h2 = _pair()
    n = h1.shape[1]
    c = np.cov(np.concatenate([h1.numpy(), h2.numpy()]), rowvar=False)
    lam = 0.5
    want = lam * np.sum((c - np.eye(n)) ** 2) / n ** 2 + (1 - lam) * float(alignment_loss(h1, h2)) / (4 * n)
    assert float(objective(_loss_cfg("whitening", "authors", lam), h1, h2)) == pytest.approx(want, rel=1e-12)


def test_convention_is_validated():
    from lejepa_experiments.config import make_config

    with pytest.raises(ValueError, match="loss.convention"):
        make_config({"loss": {"convention": "theirs"}})
