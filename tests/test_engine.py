"""Engine pieces: latents, pairs, mixings, encoders, metrics, schedule, configs, determinism."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from lejepa_experiments.config import load_config, make_config  # noqa: E402
from lejepa_experiments.data import Mixing, pair_correlation, sample_latent, sample_pair  # noqa: E402
from lejepa_experiments.engine import lr_factor, train  # noqa: E402
from lejepa_experiments.metrics import identifiability_metrics, polar_factor  # noqa: E402
from lejepa_experiments.models import MLP, MatchedCoupling, build_encoder  # noqa: E402


@pytest.mark.parametrize("dist,alpha", [("gaussian", 2.0), ("laplace", 2.0), ("gennorm", 0.7),
                                        ("gennorm", 1.0), ("gennorm", 2.0), ("gennorm", 4.0)])
def test_latents_unit_variance_and_kurtosis(dist, alpha):
    """Mean 0, variance 1 and E x^4 = s^4 Gamma(5/a)/Gamma(1/a) (3 Gaussian, 6 Laplace); 6 sigma."""
    torch.manual_seed(0)
    x = sample_latent(dist, 200_000, 1, alpha=alpha, dtype=torch.float64).numpy().ravel()
    a = {"gaussian": 2.0, "laplace": 1.0}.get(dist, alpha)
    s2 = math.exp(math.lgamma(1 / a) - math.lgamma(3 / a))
    m4 = s2 ** 2 * math.exp(math.lgamma(5 / a) - math.lgamma(1 / a))
    m8 = s2 ** 4 * math.exp(math.lgamma(9 / a) - math.lgamma(1 / a))
    n = x.size
    assert abs(x.mean()) <= 6 / math.sqrt(n)
    assert abs((x ** 2).mean() - 1) <= 6 * math.sqrt((m4 - 1) / n)
    assert abs((x ** 4).mean() - m4) <= 6 * math.sqrt((m8 - m4 ** 2) / n)


@pytest.mark.parametrize("kind,rho", [("ou", 0.9), ("ou", 0.3), ("two_view", 0.9)])
def test_pair_correlation(kind, rho):
    torch.manual_seed(1)
    z1, z2 = sample_pair("gaussian", kind, rho, 100_000, 2, dtype=torch.float64)
    r = float((z1 * z2).mean())
    expected = pair_correlation(kind, rho)
    assert expected == (rho if kind == "ou" else rho * rho)
    # Var(z1 z2) = 1 + r^2 for a standard bivariate normal pair with correlation r
    assert abs(r - expected) <= 6 * math.sqrt((1 + expected ** 2) / z1.numel())
    assert abs(float(z2.var()) - 1) < 0.02


def test_pair_rejects_bad_rho_and_kind():
    for rho in (0.0, 1.0, -0.2, float("nan")):
        with pytest.raises(ValueError, match="rho"):
            sample_pair("gaussian", "ou", rho, 4, 2)
    with pytest.raises(ValueError, match="pair.kind"):
        sample_pair("gaussian", "views", 0.5, 4, 2)
    with pytest.raises(ValueError, match="latent.dist"):
        sample_latent("cauchy", 4, 2)


def test_mixings_formulas_and_inverses():
    torch.manual_seed(2)
    z = torch.randn(500, 2, dtype=torch.float64)
    sp = Mixing("spiral", 2)
    r = z.norm(dim=1)
    ang = math.pi * r
    x = sp.double()(z)
    expect = torch.stack((torch.cos(ang) * z[:, 0] - torch.sin(ang) * z[:, 1],
                          torch.sin(ang) * z[:, 0] + torch.cos(ang) * z[:, 1]), 1)
    torch.testing.assert_close(x, expect)
    torch.testing.assert_close(x.norm(dim=1), r)  # rotation preserves the radius
    torch.testing.assert_close(Mixing("banana", 2)(z), torch.stack((z[:, 0], z[:, 1] + z[:, 0] ** 2), 1))
    torch.testing.assert_close(Mixing("sinusoid", 2)(z),
                               torch.stack((z[:, 0] + torch.sin(1.5 * z[:, 1]), z[:, 1]), 1))
    for kind in ("spiral", "banana", "sinusoid"):
        g = Mixing(kind, 2).double()
        torch.testing.assert_close(g.inverse(g(z)), z)


@pytest.mark.parametrize("n,layers", [(2, 8), (6, 3), (64, 4)])
def test_coupling_weights_orthogonal_seeded_invertible(n, layers):
    g1, g2, g3 = Mixing("coupling", n, layers=layers, seed=3), Mixing("coupling", n, layers=layers, seed=3), \
        Mixing("coupling", n, layers=layers, seed=4)
    torch.testing.assert_close(g1.weights, g2.weights, rtol=0, atol=0)
    assert not torch.equal(g1.weights, g3.weights)
    w = g1.weights.double() / 2
    eye = torch.eye(n // 2, dtype=torch.float64).expand_as(w)
    torch.testing.assert_close(w.transpose(1, 2) @ w, eye, atol=1e-6, rtol=0)
    torch.manual_seed(0)
    z = torch.randn(100, n)
    x = g1(z)
    assert (x - z).abs().max() > 0.1  # it mixes
    torch.testing.assert_close(g1.inverse(x), z, atol=1e-4, rtol=0)
    # matched encoder with the true weights is exactly g^{-1}
    enc = MatchedCoupling(n, layers)
    with torch.no_grad():
        enc.weights.copy_(g1.weights)
    torch.testing.assert_close(enc(x), z, atol=1e-4, rtol=0)


def test_mixing_and_encoder_bad_input():
    with pytest.raises(ValueError, match="latent.dim"):
        Mixing("spiral", 3)
    with pytest.raises(ValueError, match="even"):
        Mixing("coupling", 5)
    with pytest.raises(ValueError, match="mixing.kind"):
        Mixing("swirl", 2)
    with pytest.raises(ValueError, match="coupling"):
        build_encoder("matched", 2, mixing_kind="spiral")
    with pytest.raises(ValueError, match="encoder.width"):
        MLP(2, width=0)


def test_mlp_shape_and_depth():
    enc = MLP(3, width=16, depth=4)
    lin = [m for m in enc.modules() if isinstance(m, torch.nn.Linear)]
    assert len(lin) == 5 and lin[0].in_features == 3 and lin[-1].out_features == 3
    assert enc(torch.randn(7, 3)).shape == (7, 3)


def test_metrics_exact_for_orthogonal_and_linear_maps():
    torch.manual_seed(5)
    n, m, rho = 3, 20000, 0.8
    z, z2 = sample_pair("gaussian", "ou", rho, m, n, dtype=torch.float64)
    q = torch.linalg.qr(torch.randn(n, n, dtype=torch.float64))[0]
    met = identifiability_metrics(z, z @ q.T, z2 @ q.T, rho)
    assert met["r2_h_to_z"] == pytest.approx(1.0, abs=1e-12)
    assert met["orthogonality"] < 1e-10 and met["recovery_error"] < 1e-20
    assert met["nonlinear_energy"] < 1e-20
    # delta_tr of a linear map is 0 up to sampling: L - 2(1-rho) tr Cov
    a = torch.diag(torch.tensor([0.5, 1.0, 2.0], dtype=torch.float64))
    met = identifiability_metrics(z, z @ a.T, z2 @ a.T, rho)
    assert met["orthogonality"] == pytest.approx(float(torch.linalg.matrix_norm(a.T @ a - torch.eye(3))), rel=1e-9)
    assert abs(met["delta_tr"]) < 0.05
    assert met["delta_n"] == pytest.approx(met["delta_tr"] + 2 * (1 - rho) * (met["trace_cov"] - n), rel=1e-9)
    torch.testing.assert_close(polar_factor(a), torch.eye(3, dtype=torch.float64))


def test_metrics_agree_with_pycheck_bounds_estimator():
    bounds = pytest.importorskip("pycheck.bounds")
    torch.manual_seed(6)
    rho = 0.9
    z, z2 = sample_pair("gaussian", "ou", rho, 5000, 2, dtype=torch.float64)
    f = lambda u: u + 0.1 * torch.tanh(u[:, [1, 0]]) + 0.05  # noqa: E731
    met = identifiability_metrics(z, f(z), f(z2), rho)
    est = bounds.estimate_from_samples(z.numpy(), f(z).numpy(), f(z2).numpy(), rho, n_boot=10)
    for mine, theirs in (("epsilon", "eps"), ("delta_tr", "delta_tr"), ("delta_n", "delta_n"),
                         ("D_tr", "D_tr"), ("bound", "bound"), ("bound_paper", "paper"), ("mean_sq", "mu_sq"),
                         ("align", "L"), ("orthogonality", "ortho")):
        assert met[mine] == pytest.approx(float(getattr(est, theirs).value), rel=1e-8, abs=1e-12), mine
    # a point estimate of the bound can dip below err by sampling noise (delta_tr ~ 0 here); the
    # bootstrap interval of bound - err must not lie entirely below 0
    assert est.verdict != "violated"


def test_metrics_bad_input():
    z = torch.randn(10, 2)
    with pytest.raises(ValueError, match="shape"):
        identifiability_metrics(z, z[:, :1], z, 0.5)
    with pytest.raises(ValueError, match="rho"):
        identifiability_metrics(z, z, z, 1.0)
    bad = z.clone()
    bad[0, 0] = float("nan")
    with pytest.raises(ValueError, match="non-finite"):
        identifiability_metrics(z, bad, z, 0.5)


def test_schedule_constant_then_cosine():
    f = [lr_factor(s, 100, 0.4, 0, 0.1) for s in range(101)]
    assert all(v == 1.0 for v in f[:41])
    assert f[70] == pytest.approx(0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * 0.5)))
    assert f[100] == pytest.approx(0.1)
    assert all(a >= b for a, b in zip(f, f[1:]))
    assert lr_factor(0, 100, 0.5, 10, 0.0) == pytest.approx(0.1)


TINY = {"encoder": {"width": 16, "depth": 2}, "loss": {"slices": 8},
        "train": {"steps": 12, "batch": 32, "log_every": 4}, "eval": {"size": 256, "every": 6},
        "runtime": {"progress": False, "device": "cpu"}}


def test_training_is_deterministic_per_seed():
    cfg = make_config(TINY)
    a, b, c = train(cfg, 3), train(cfg, 3), train(cfg, 4)
    assert a.curves["loss"] == b.curves["loss"] and a.metrics == b.metrics
    assert a.curves["loss"] != c.curves["loss"]
    for k, v in a.encoder.state_dict().items():
        assert torch.equal(v, b.encoder.state_dict()[k])
    assert a.curves["step"] == [4, 8, 12] and a.curves["eval_step"] == [6, 12]
    assert a.info["pair"]["kind"] == "ou" and a.info["pair"]["pair_correlation"] == 0.9


@pytest.mark.parametrize("over", [
    {"loss": {"kind": "vicreg"}}, {"loss": {"kind": "whitening"}}, {"loss": {"kind": "infonce"}},
    {"pair": {"kind": "two_view"}}, {"latent": {"dist": "laplace"}},
    {"latent": {"dim": 4, "dist": "gennorm", "alpha": 1.5}, "mixing": {"kind": "coupling", "layers": 2},
     "encoder": {"kind": "matched"}},
    {"mixing": {"kind": "banana"}}, {"mixing": {"kind": "sinusoid"}},
])
def test_every_option_trains(over):
    cfg = make_config(parse_merge(TINY, over))
    res = train(cfg, 0)
    assert math.isfinite(res.curves["loss"][-1])
    assert 0.0 <= res.metrics["recovery_error"] and math.isfinite(res.metrics["bound"])
    if cfg["pair"]["kind"] == "two_view":
        assert res.info["pair"]["pair_correlation"] == pytest.approx(0.81)


def parse_merge(base, over):
    import copy

    out = copy.deepcopy(base)
    for k, v in over.items():
        out.setdefault(k, {}).update(v)
    return out


def test_eval_set_is_held_out():
    """The evaluation latents come from a separately seeded stream: not among the training batches."""
    from lejepa_experiments.engine import make_eval_set

    cfg = make_config(TINY)
    ev = make_eval_set(cfg, 0, torch.device("cpu"))
    ev2 = make_eval_set(cfg, 0, torch.device("cpu"))
    assert torch.equal(ev.z, ev2.z) and ev.z.shape == (256, 2)  # reproducible
    torch.manual_seed(0)  # the training stream starts from the run seed, the eval one from seed + offset
    z1, _ = sample_pair("gaussian", "ou", 0.9, 4096, 2)
    assert float(torch.cdist(z1, ev.z).min()) > 1e-6


@pytest.mark.parametrize("over,key", [
    ({"train": {"lr": -1}}, "train.lr"), ({"train": {"steps": 0}}, "train.steps"),
    ({"train": {"stepz": 5}}, "train.stepz"), ({"pair": {"rho": 1.0}}, "pair.rho"),
    ({"pair": {"kind": "views"}}, "pair.kind"), ({"latent": {"dim": 3}}, "latent.dim"),
    ({"encoder": {"kind": "matched"}}, "encoder.kind"), ({"bogus": 1}, "bogus"),
    ({"loss": {"lam": 1.5}}, "loss.lam"), ({"runtime": {"threads": True}}, "runtime.threads"),
    ({"runtime": {"device": "tpu"}}, "runtime.device"), ({"train": 5}, "train"),
    ({"latent": {"alpha": float("nan")}}, "latent.alpha"),
])
def test_config_rejects_bad_values_naming_the_key(over, key):
    with pytest.raises(ValueError, match=key.replace(".", r"\.")):
        make_config(over)


def test_config_file_presets_and_overrides(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("train:\n  steps: 100\n  lr: 1e-3\npresets:\n  cpu:\n    train: {steps: 7}\n")
    assert load_config(p)["train"]["steps"] == 100
    assert load_config(p)["train"]["lr"] == 1e-3
    assert load_config(p, "cpu")["train"]["steps"] == 7
    assert load_config(p, "cpu", ["train.steps=9", "pair.rho=0.5"])["train"]["steps"] == 9
    with pytest.raises(ValueError, match="preset 'gpu'"):
        load_config(p, "gpu")
    with pytest.raises(ValueError, match="train.nope"):
        load_config(p, None, ["train.nope=1"])
    q = tmp_path / "bad.yaml"
    q.write_text("presets:\n  cpu:\n    train: {stepz: 7}\n")
    with pytest.raises(ValueError, match="presets.cpu.train.stepz"):
        load_config(q)
    with pytest.raises(ValueError, match="does not exist"):
        load_config(tmp_path / "missing.yaml")
    r = tmp_path / "list.yaml"
    r.write_text("- 1\n- 2\n")
    with pytest.raises(ValueError, match="mapping"):
        load_config(r)


def test_matched_encoder_init_is_haar_orthogonal():
    from lejepa_experiments.models import MatchedCoupling, haar_orthogonal

    # k = 1: both signs occur (plain QR would give [[1]] every time, one fixed basin at N = 2)
    signs = {float(haar_orthogonal(1, torch.Generator().manual_seed(s))) for s in range(20)}
    assert signs == {1.0, -1.0}
    q = haar_orthogonal(5, torch.Generator().manual_seed(0))
    torch.testing.assert_close(q.T @ q, torch.eye(5), atol=1e-6, rtol=0)
    # Haar: the mean of Q over draws is 0 (plain QR's diagonal is biased); 6 standard errors
    draws = torch.stack([haar_orthogonal(3, torch.Generator().manual_seed(s)) for s in range(4000)])
    mean, se = draws.mean(0), draws.std(0) / 4000 ** 0.5
    assert bool((mean.abs() <= 6 * se).all())
    torch.manual_seed(0)
    enc = MatchedCoupling(2, 4)
    assert set(torch.sign(enc.weights.flatten()).tolist()) <= {1.0, -1.0}


def test_training_collapses_below_the_collapse_threshold_and_not_far_above():
    """pycheck.sigreg.collapse_threshold predicts that below lam* the constant encoder beats every
    h = Qz; a short training (identity mixing, seed 0) indeed collapses (Cov h = 0, eps = sqrt(2)) at
    lam*/4 and whitens at 8 lam*. Generous margins: eps is 1.414 vs 0.34 in this configuration."""
    from pycheck.sigreg import collapse_threshold

    lam_star = collapse_threshold(0.9, 2, 256)
    eps = {}
    for lam in (lam_star / 4, 8 * lam_star):
        cfg = make_config({"latent": {"dim": 2}, "pair": {"rho": 0.9}, "mixing": {"kind": "identity"},
                           "encoder": {"width": 32, "depth": 2}, "loss": {"kind": "sigreg", "slices": 32, "lam": lam},
                           "train": {"steps": 800, "batch": 256, "lr": 3e-3, "log_every": 100},
                           "eval": {"size": 2000, "every": 800}, "runtime": {"threads": 1, "progress": False}})
        eps[lam] = train(cfg, 0).metrics["epsilon"]
    low, high = eps[lam_star / 4], eps[8 * lam_star]
    assert low > 1.3, eps           # collapsed: Cov h ~ 0, eps -> sqrt(2)
    assert high < 0.6, eps          # whitened enough to be far from collapse
