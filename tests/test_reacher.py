"""``lejepa reacher``: metric properties (the authors' whitened metric is blind to every invertible
linear map, ours is not), the paired ratio CI, the CNN, resumable prerendering and the smoke preset
end to end. Tests that render skip, naming what is missing, when mujoco/dm_control/OSMesa are absent."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")

from lejepa_experiments import (
    cli,  # noqa: E402
    reacher,  # noqa: E402
)
from lejepa_experiments.metrics import (  # noqa: E402
    identifiability_metrics,
    linear_map,
    procrustes_matrix_error,
    whitened_procrustes_error,
)
from lejepa_experiments.models import ConvEncoder  # noqa: E402

_OK, _WHY = reacher.reacher_available("cpu")
needs_render = pytest.mark.skipif(not _OK, reason=_WHY or "reacher rendering unavailable")


# ------------------------------------------------------------------------------- metric properties

def _latents(m: int = 4000, n: int = 2, seed: int = 0) -> torch.Tensor:
    return torch.randn(m, n, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def _nonlinear(z: torch.Tensor) -> torch.Tensor:
    w = torch.tensor([[0.7, -0.4], [0.3, 0.9]], dtype=torch.float64)
    return z + 0.4 * torch.tanh(z @ w) + 0.1 * z.square()


_matrix = st.lists(st.floats(-3, 3, allow_nan=False), min_size=4, max_size=4).map(
    lambda v: np.array(v, dtype=np.float64).reshape(2, 2)).filter(lambda a: abs(np.linalg.det(a)) > 0.05)


@settings(max_examples=40, deadline=None)
@given(m=_matrix, b=st.lists(st.floats(-5, 5), min_size=2, max_size=2))
def test_whitened_metric_is_invariant_to_every_invertible_linear_map(m, b):
    """hw -> hw W with W orthogonal for h -> h M + b, so the authors' value cannot change (to rounding)."""
    z = _latents()
    h = _nonlinear(z)
    mt, bt = torch.from_numpy(m), torch.tensor(b, dtype=torch.float64)
    base = whitened_procrustes_error(z, h)
    assert base > 1e-3                                   # the non-linear part is seen ...
    assert whitened_procrustes_error(z, h @ mt + bt) == pytest.approx(base, rel=1e-7, abs=1e-12)
    assert whitened_procrustes_error(z @ mt + bt, h) == pytest.approx(base, rel=1e-7, abs=1e-12)
    # ... but every linear encoder, however sheared or scaled, scores a perfect 0
    assert whitened_procrustes_error(z, z @ mt + bt) < 1e-12


@settings(max_examples=40, deadline=None)
@given(m=_matrix)
def test_our_orthogonality_error_sees_the_linear_map(m):
    """For h = z M + b: A = M^T, so ||A^T A - I||_F = ||M M^T - I||_F and ||A - Q||_F = ||s - 1||_2
    (s the singular values of M), both exactly (OLS recovers a noiseless linear map)."""
    z = _latents()
    h = z @ torch.from_numpy(m) + 1.5
    a = linear_map(z, h)
    assert torch.allclose(a, torch.from_numpy(m).T, atol=1e-9)
    orth = float(torch.linalg.matrix_norm(a.T @ a - torch.eye(2, dtype=torch.float64)))
    assert orth == pytest.approx(np.linalg.norm(m @ m.T - np.eye(2)), rel=1e-8, abs=1e-9)
    s = np.linalg.svd(m, compute_uv=False)
    assert procrustes_matrix_error(a) == pytest.approx(np.linalg.norm(s - 1), rel=1e-8, abs=1e-9)


def test_whitened_metric_cannot_tell_an_orthogonal_from_a_sheared_encoder_ours_can():
    z = _latents(seed=1)
    q = torch.tensor([[0.6, -0.8], [0.8, 0.6]], dtype=torch.float64)          # orthogonal
    shear = torch.tensor([[1.0, 0.9], [0.0, 0.4]], dtype=torch.float64)       # det 0.4, far from O(2)
    h_orth, h_shear = _nonlinear(z) @ q, _nonlinear(z) @ shear
    w1, w2 = whitened_procrustes_error(z, h_orth), whitened_procrustes_error(z, h_shear)
    assert w1 == pytest.approx(w2, rel=1e-7)
    z2 = 0.9 * z + (1 - 0.81) ** 0.5 * _latents(seed=2)
    m1 = identifiability_metrics(z, z @ q, z2 @ q, 0.9)
    m2 = identifiability_metrics(z, z @ shear, z2 @ shear, 0.9)
    assert m1["orthogonality"] < 1e-9 and procrustes_matrix_error(linear_map(z, z @ q)) < 1e-9
    assert m2["orthogonality"] > 0.5 and procrustes_matrix_error(linear_map(z, z @ shear)) > 0.3


def test_whitened_metric_bad_input():
    z = _latents(100)
    with pytest.raises(ValueError, match="singular"):
        whitened_procrustes_error(z, torch.cat((z[:, :1], z[:, :1]), 1))
    with pytest.raises(ValueError, match="shape"):
        whitened_procrustes_error(z, z[:50])
    with pytest.raises(ValueError, match="finite"):
        whitened_procrustes_error(z, torch.full_like(z, float("nan")))
    with pytest.raises(ValueError, match="square"):
        procrustes_matrix_error(torch.ones(2, 3))


# ------------------------------------------------------------------------------------ statistics

def test_ratio_ci_paired_bootstrap():
    rng = np.random.default_rng(0)
    d0 = rng.uniform(0.5, 2.0, 200)
    assert reacher.ratio_ci(d0, d0) == (1.0, 1.0, 1.0)     # identical plans: no uncertainty at all
    r, lo, hi = reacher.ratio_ci(1.5 * d0 + 0.01 * rng.standard_normal(200), d0)
    assert lo <= r <= hi and 1.45 < lo and hi < 1.55       # pairing removes the episode-to-episode spread
    _, lo2, hi2 = reacher.ratio_ci(rng.permutation(1.5 * d0), d0)
    assert hi2 - lo2 > 3 * (hi - lo)                       # unpaired data: a much wider interval
    with pytest.raises(ValueError, match="paired"):
        reacher.ratio_ci(d0, d0[:10])
    with pytest.raises(ValueError, match="level"):
        reacher.ratio_ci(d0, d0, level=1.5)


# ----------------------------------------------------------------------------------------- model

def test_conv_encoder_shapes_and_bad_input():
    enc = ConvEncoder(2, [4, 8, 8, 8], 8).eval()
    x = torch.randint(0, 256, (5, 64, 64, 3), dtype=torch.uint8)
    assert enc(x).shape == (5, 2)
    assert torch.allclose(enc(x), enc(x.float() / 255.0), atol=1e-6)
    with pytest.raises(ValueError, match="frames must have shape"):
        enc(torch.zeros(5, 3, 64, 64))
    with pytest.raises(ValueError, match="channels"):
        ConvEncoder(2, [], 8)


def test_presets_and_light_import():
    assert set(reacher.PRESETS) == {"smoke", "quick", "full"}
    smoke = reacher.PRESETS["smoke"]["data"]
    frames = 2 * (smoke["ou_pairs"] + smoke["traj_pairs"] + smoke["eval_pairs"])
    assert frames <= 1000                                  # "a few hundred frames"
    quick = reacher.PRESETS["quick"]["data"]
    assert 2 * (quick["ou_pairs"] + quick["traj_pairs"] + quick["eval_pairs"]) <= 40000   # ~1-2 min at 32 px
    code = "import sys, lejepa_experiments.reacher, lejepa_experiments.cli; " \
           "print(sorted(m for m in ('torch', 'numpy', 'mujoco', 'matplotlib') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_cli_reports_missing_renderer(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(reacher, "reacher_available", lambda device="cpu": (False, "no libOSMesa (test)"))
    assert cli.main(["reacher", "prerender", "--preset", "smoke", "--out", str(tmp_path / "o")]) == 3
    assert "no libOSMesa (test)" in capsys.readouterr().err


# ------------------------------------------------------------------------------ rendering, data

def _tiny_cfg() -> dict:
    cfg = copy.deepcopy(reacher.PRESETS["smoke"])
    cfg["data"].update({"size": 32, "ou_pairs": 10, "traj_pairs": 10, "eval_pairs": 6, "chunk": 4})
    return cfg


@needs_render
def test_frames_depend_on_the_joint_angles_only():
    scene = reacher.ReacherScene(32)
    try:
        q = np.array([[0.3, -0.5], [0.3, -0.5], [0.3 + 2 * np.pi, -0.5], [1.0, 0.2]])
        f = scene.render(q)
        assert f.dtype == np.uint8 and f.shape == (4, 32, 32, 3)
        assert np.array_equal(f[0], f[1]) and np.array_equal(f[0], f[2])   # same state, same frame
        assert np.abs(f[0].astype(int) - f[3]).sum() > 0                   # the arm moved
        with pytest.raises(ValueError, match="joint angles"):
            scene.render(np.zeros((3, 3)))
        # the scripted policy is non-isotropic: the shoulder spreads and moves more than the wrist
        traj = np.unwrap(scene.trajectory(2000, np.random.default_rng(0), reacher.PRESETS["smoke"]["data"]["traj"]), axis=0)
        spread, step = traj.std(0), np.diff(traj, axis=0).std(0)
        assert spread[0] > 1.5 * spread[1] and step[0] > 1.5 * step[1]
    finally:
        scene.close()


@needs_render
def test_prerender_is_resumable_and_deterministic(tmp_path, monkeypatch):
    cfg = _tiny_cfg()
    ref = tmp_path / "ref"
    reacher.prerender(str(ref), cfg, seed=3, progress=False)
    # interrupted run: the renderer fails on the 4th chunk
    calls = {"n": 0}
    orig = reacher.ReacherScene.render

    def flaky(self, q):
        calls["n"] += 1
        if calls["n"] == 4:
            raise KeyboardInterrupt
        return orig(self, q)

    out = tmp_path / "out"
    monkeypatch.setattr(reacher.ReacherScene, "render", flaky)
    with pytest.raises(KeyboardInterrupt):
        reacher.prerender(str(out), cfg, seed=3, progress=False)
    monkeypatch.setattr(reacher.ReacherScene, "render", orig)
    done = sorted(p for p in os.listdir(out / "data") if p.endswith(".npz"))
    assert len(done) == 3 and not [p for p in os.listdir(out / "data") if p.endswith(".tmp")]
    stamps = {p: os.stat(out / "data" / p).st_mtime_ns for p in done}
    reacher.prerender(str(out), cfg, seed=3, progress=False)            # resumes
    assert all(os.stat(out / "data" / p).st_mtime_ns == t for p, t in stamps.items())   # not redone
    for ds in reacher.DATASETS:
        x1, z1 = reacher.load_dataset(str(ref), ds)
        x2, z2 = reacher.load_dataset(str(out), ds)
        assert np.array_equal(x1, x2) and np.array_equal(z1, z2)
        assert x1.shape == (cfg["data"][f"{ds}_pairs"], 2, 32, 32, 3) and x1.dtype == np.uint8
    man = json.loads((out / "data" / "manifest.json").read_text())
    assert man["seed"] == 3 and man["counts"] == {"ou": 10, "traj": 10, "eval": 6}
    # a damaged chunk is rendered again; other settings in the same directory are refused
    (out / "data" / "ou_00001.npz").write_bytes(b"garbage")
    reacher.prerender(str(out), cfg, seed=3, progress=False)
    assert np.array_equal(reacher.load_dataset(str(out), "ou")[0], reacher.load_dataset(str(ref), "ou")[0])
    with pytest.raises(ValueError, match="other settings or seed"):
        reacher.prerender(str(out), cfg, seed=4, progress=False)
    # OU latent pairs: z' = rho z + sqrt(1 - rho^2) eta exactly as drawn
    z = reacher.load_dataset(str(ref), "ou")[1]
    assert z.shape == (10, 2, 2) and np.all(np.abs(z) < 10)


@needs_render
def test_smoke_preset_end_to_end(tmp_path, capsys):
    out = tmp_path / "smoke"
    assert cli.main(["reacher", "all", "--preset", "smoke", "--out", str(out), "--no-progress"]) == 0
    for f in ("data/manifest.json", "ou.pt", "traj.pt", "metrics.json", "plan.json", "plan.md", "reacher.png"):
        assert (out / f).exists(), f
    assert (out / "reacher.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    payload = json.loads((out / "plan.json").read_text())
    res = payload["results"]
    assert set(res) == {"oracle", "ou", "traj", "ou_shear", "pixels"}
    assert res["oracle"]["ratio_to_oracle"] == 1.0
    episodes = reacher.PRESETS["smoke"]["plan"]["episodes"]
    for name in ("ou", "traj", "ou_shear", "pixels"):
        r = res[name]
        lo, hi = r["ratio_ci"]
        assert lo <= r["ratio_to_oracle"] <= hi and len(r["final_distances"]) == episodes
        assert r["ratio_to_oracle"] == pytest.approx(np.mean(r["final_distances"]) / res["oracle"]["final_distance"])
    for name in ("ou", "traj"):
        m = payload["metrics"][name]
        assert np.isfinite([m["r2_h_to_z"], m["orthogonality"], m["whitened_procrustes"]]).all()
    table = (out / "plan.md").read_text()
    assert "| encoder (OU pairs) |" in table and "whitened" in table
    # rerun: data and encoders are reused (same settings), results identical
    assert cli.main(["reacher", "all", "--preset", "smoke", "--out", str(out), "--no-progress"]) == 0
    assert json.loads((out / "plan.json").read_text())["results"] == res


@needs_render
def test_cached_render_equals_direct_render_across_cache_clears():
    scene = reacher.ReacherScene(16)
    try:
        render = reacher._CachedRender(scene, max_items=5)
        z = torch.tensor([[0.1, 0.2], [0.3, -0.4], [0.1, 0.2], [1.0, 1.0]], dtype=torch.float64)
        first = render(z)
        assert render.renders == 4 and np.array_equal(render(z), first)
        assert render.renders == 4                                    # the second call is served from the cache
        z2 = torch.tensor([[0.1, 0.2], [2.0, 0.0], [-1.0, 0.5], [0.7, 0.7]], dtype=torch.float64)
        second = render(z2)                                           # overflows the cache: it is cleared
        assert np.array_equal(first, scene.render(z.numpy())) and np.array_equal(second, scene.render(z2.numpy()))
    finally:
        scene.close()
