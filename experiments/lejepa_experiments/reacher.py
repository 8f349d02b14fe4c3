"""``lejepa reacher``: the paper's pixel-based Reacher planning experiment, rerunnable end to end.

``lejepa reacher prerender|train|plan|all --preset smoke|quick|full --out DIR [--seed S]``

Environment: dm_control's ``reacher`` (``hard``: target radius 0.015) through the PyPI packages
``dm-control`` and ``mujoco`` (the ``reacher`` extra), rendered headless by ``mujoco.Renderer`` from
the suite's fixed top-down camera (camera 0) at ``size x size`` pixels; ``MUJOCO_GL`` defaults to
``osmesa`` on CPU and ``egl`` when the device is CUDA. Shadows, reflections and the skybox are
switched off (about 9x faster under OSMesa; the arm, the arena and the target are unchanged). The
target is fixed at ``data.target`` so that the frame depends on the two joint angles only.

Latents ``z = (shoulder, wrist)`` in radians, written directly into ``qpos`` (velocities zero) and
propagated by ``mj_forward`` before rendering. Datasets (each a list of pairs ``(x, x')`` of uint8
frames with their latents):

* ``ou``: ``z ~ N(0, I)``, ``z' = rho z + sqrt(1 - rho^2) eta`` (the paper's Gaussian world);
* ``traj``: consecutive frames of trajectories of the real MuJoCo arm driven by a scripted,
  deliberately non-isotropic policy (a PD controller towards random waypoints, wide in the shoulder,
  narrow in the wrist, with action noise): the stand-in for the authors' unpublished policy data;
* ``eval``: held-out ``ou`` pairs (for metrics).

Prerendering writes ``DIR/data/<dataset>_<i>.npz`` chunks (``x``: ``(C, 2, H, W, 3)`` uint8, ``z``:
``(C, 2, 2)``) atomically, each from its own seed ``(seed, dataset, i)``, and ``DIR/data/manifest.json``
(seed, counts, settings, versions); a rerun skips finished chunks, so an interrupted prerender resumes
and produces the same data.

Training: one :class:`~lejepa_experiments.models.ConvEncoder` per dataset (``ou``, ``traj``; the
presets flatten the last feature map instead of average-pooling it: with global average pooling a
translation-equivariant CNN hardly tells an arm at angle theta from one at theta + pi) with the
engine's objective (:func:`~lejepa_experiments.engine.objective`, ``lam SIGReg + (1 - lam) align``),
AdamW and its constant-then-cosine schedule; ``DIR/<dataset>.pt``.

Metrics on the ``eval`` pairs (``z ~ N(0, I)``): R^2 both directions and the Theorem-3 quantities
(:func:`~lejepa_experiments.metrics.identifiability_metrics`); the slope ``A`` of ``h ~ A z + b``,
``||A^T A - I||_F`` (the objective sets the scale: ``Cov h = I`` with ``Cov z = I``, so ``A`` itself
must be orthogonal, no rescaling), ``||A - polar(A)||_F`` and the singular values of ``A``; and, for
comparison, the authors' whitened metric (:func:`~lejepa_experiments.metrics.whitened_procrustes_error`),
invariant to every invertible linear map.

Planning: :func:`lejepa_experiments.planning.plan` (random shooting, common random numbers) with the
kinematic joint-space model ``z <- z + u``: the representations are the oracle ``r(z) = z``, each
encoder on the rendered frame ``r(z) = h(render(z))`` and (optionally) the raw pixels. The cost is
the joint-space distance to the goal, the O(2)-invariant cost of Corollary 4.5. We do not plan
through the MuJoCo step: a single frame shows positions, not velocities, so an encoder of one frame
cannot be the state of the second-order dynamics, and the corollary is a statement about the
representation of the state, which the kinematic model isolates. Reported per representation: the
normalised cost ``mean d_rep / mean d_oracle`` (``d`` the final joint-space distance), a paired
bootstrap CI over episodes, and two verdicts: "CI contains 1" (no detectable difference) and
"equivalent" (the two-sided ``1 - 2 alpha`` CI lies inside ``[1/(1+margin), 1+margin]``, a TOST
equivalence test at level alpha).

Outputs: ``DIR/metrics.json``, ``DIR/plan.json``, ``DIR/plan.md`` and ``DIR/reacher.png``. Only
argparse is imported at module level; numpy, torch, mujoco and matplotlib inside the functions.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import os
import sys
import time
from typing import Any

HELP = "pixel-based Reacher: prerender frames, train CNN encoders, plan against the oracle (reacher extra)"
STAGES = ("prerender", "train", "plan", "all")
DATASETS = ("ou", "traj", "eval")
ENCODED = ("ou", "traj")   # datasets an encoder is trained on

_BASE: dict[str, Any] = {
    "data": {"size": 64, "rho": 0.9, "ou_pairs": 4000, "traj_pairs": 4000, "eval_pairs": 1000, "chunk": 500,
             "target": [0.12, -0.12],
             "traj": {"frame_skip": 2, "waypoint_every": 25, "shoulder_range": 2.5, "wrist_range": 1.0,
                      "kp": [2.0, 2.0], "kd": [0.4, 0.4], "action_noise": [0.3, 0.05]}},
    "encoder": {"channels": [32, 64, 128, 256], "head": 256, "pool": "flatten"},
    "train": {"steps": 20000, "batch": 256, "lr": 1e-3, "weight_decay": 0.01, "lam": 0.1, "slices": 256,
              "constant_frac": 0.2, "device": "auto", "threads": 1},
    "plan": {"episodes": 200, "horizon": 8, "candidates": 16, "step": 0.15, "pixels": True,
             "shear": [[1.0, 0.75], [0.0, 0.75]],
             "bootstrap": 2000, "level": 0.95, "alpha": 0.05, "margin": 0.1, "grid": 7},
}


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for k, v in over.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) else v
    return out


PRESETS: dict[str, dict[str, Any]] = {
    # CI: a few hundred frames, a few training steps, a handful of episodes (tens of seconds on CPU)
    "smoke": _merge(_BASE, {"data": {"ou_pairs": 96, "traj_pairs": 96, "eval_pairs": 64, "chunk": 32},
                            "encoder": {"channels": [8, 16, 16, 16], "head": 16},
                            "train": {"steps": 4, "batch": 16, "slices": 32},
                            "plan": {"episodes": 6, "horizon": 2, "candidates": 4, "bootstrap": 200,
                                     "grid": 3}}),
    # CPU, a few minutes: 32 px frames (~34k rendered, about a minute), two small CNNs, 100 planning
    # episodes; lam is larger than in full because the SIGReg statistic scales with the batch (64 vs 256)
    "quick": _merge(_BASE, {"data": {"size": 32, "ou_pairs": 8000, "traj_pairs": 8000, "eval_pairs": 1000,
                                     "chunk": 1000},
                            "encoder": {"channels": [16, 32, 64, 64], "head": 64},
                            "train": {"steps": 2000, "batch": 64, "slices": 128, "lam": 0.3},
                            "plan": {"episodes": 100}}),
    # GPU (EGL): 64 px, the paper's CNN channels, 20k steps of batch 256 (not run here: no GPU was lent)
    "full": _merge(_BASE, {"data": {"ou_pairs": 50000, "traj_pairs": 50000, "eval_pairs": 5000, "chunk": 2000},
                           "train": {"steps": 20000, "batch": 256, "threads": 4},
                           "plan": {"episodes": 400, "candidates": 32}}),
}


# ------------------------------------------------------------------------------------- environment

def _gl_default(device: str = "cpu") -> None:
    """Set ``MUJOCO_GL`` (and ``PYOPENGL_PLATFORM``) before mujoco is imported, unless already set:
    ``egl`` for a CUDA device, else ``osmesa``."""
    backend = os.environ.setdefault("MUJOCO_GL", "egl" if device.startswith("cuda") else "osmesa")
    os.environ.setdefault("PYOPENGL_PLATFORM", backend)


def reacher_available(device: str = "cpu") -> tuple[bool, str]:
    """``(True, "")`` if mujoco, dm_control and an offscreen GL context work here (one frame is
    rendered), else ``(False, reason)`` with the way to fix it."""
    _gl_default(device)
    try:
        scene = ReacherScene(16)
        scene.render([[0.0, 0.0]])
        scene.close()
    except Exception as exc:  # ImportError, GL context errors (no libOSMesa), mujoco/dm_control mismatch
        return False, (f"Reacher rendering is unavailable ({type(exc).__name__}: {exc}); install it with "
                       "`apt-get install libosmesa6` and `pip install -e '.[reacher]'` "
                       f"(MUJOCO_GL={os.environ.get('MUJOCO_GL')})")
    return True, ""


class ReacherScene:
    """dm_control's reacher (hard) with a fixed target and an offscreen renderer.

    ``render(q)`` sets ``qpos = q`` (shoulder, wrist; radians), ``qvel = 0``, runs ``mj_forward`` and
    returns the ``(B, size, size, 3)`` uint8 frames from camera 0. ``trajectory`` drives the real arm
    with the scripted policy of the module docstring."""

    def __init__(self, size: int = 64, target: tuple[float, float] | list[float] = (0.12, -0.12)):
        _gl_default()
        import mujoco
        from dm_control import suite

        self._mj = mujoco
        self.physics = suite.load("reacher", "hard", task_kwargs={"random": 0}).physics
        named = self.physics.named.model
        named.geom_size["target", 0] = 0.015
        named.geom_pos["target", "x"], named.geom_pos["target", "y"] = float(target[0]), float(target[1])
        self.model, self.data = self.physics.model.ptr, self.physics.data.ptr
        self.size = int(size)
        self.renderer = mujoco.Renderer(self.model, self.size, self.size)
        flags = mujoco.mjtRndFlag
        self._off = (flags.mjRND_SHADOW, flags.mjRND_REFLECTION, flags.mjRND_SKYBOX)

    def _frame(self) -> Any:
        self.renderer.update_scene(self.data, camera=0)
        for f in self._off:
            self.renderer.scene.flags[f] = 0
        return self.renderer.render()

    def render(self, q: Any) -> Any:
        import numpy as np

        q = np.asarray(q, dtype=np.float64)
        if q.ndim != 2 or q.shape[1] != 2 or not np.isfinite(q).all():
            raise ValueError(f"joint angles must be a finite (B, 2) array, got shape {q.shape}")
        out = np.empty((q.shape[0], self.size, self.size, 3), dtype=np.uint8)
        for i, row in enumerate(q):
            self.data.qpos[:2] = row
            self.data.qvel[:] = 0.0
            self._mj.mj_forward(self.model, self.data)
            out[i] = self._frame()
        return out

    def trajectory(self, frames: int, rng: Any, cfg: dict[str, Any]) -> Any:
        """``(frames, 2)`` joint angles (shoulder wrapped to (-pi, pi]) of one trajectory of the MuJoCo
        arm under the scripted policy ``u = clip(kp (w - q) - kd qdot + noise, -1, 1)`` with a fresh
        waypoint ``w`` (shoulder ~ U(+-shoulder_range), wrist ~ U(+-wrist_range)) every
        ``waypoint_every`` recorded frames, ``frame_skip`` control steps between recorded frames."""
        import numpy as np

        mj, m, d = self._mj, self.model, self.data
        mj.mj_resetData(m, d)
        span = np.array([cfg["shoulder_range"], cfg["wrist_range"]])
        kp, kd, sd = np.array(cfg["kp"]), np.array(cfg["kd"]), np.array(cfg["action_noise"])
        d.qpos[:2] = rng.uniform(-span, span)
        out = np.empty((frames, 2))
        w = rng.uniform(-span, span)
        for t in range(frames):
            if t and t % cfg["waypoint_every"] == 0:
                w = rng.uniform(-span, span)
            for _ in range(cfg["frame_skip"]):
                d.ctrl[:2] = np.clip(kp * (w - d.qpos[:2]) - kd * d.qvel[:2] + sd * rng.standard_normal(2), -1, 1)
                mj.mj_step(m, d)
            out[t] = d.qpos[:2]
        out[:, 0] = np.angle(np.exp(1j * out[:, 0]))
        return out

    def close(self) -> None:
        self.renderer.close()


# ------------------------------------------------------------------------------------------- data

def _seed_for(seed: int, dataset: str, chunk: int) -> Any:
    import numpy as np

    return np.random.default_rng(np.random.SeedSequence([seed, DATASETS.index(dataset), chunk]))


def _chunk_latents(dataset: str, n: int, rng: Any, dcfg: dict[str, Any], scene: ReacherScene) -> Any:
    """``(n, 2, 2)`` latent pairs of one chunk."""
    import numpy as np

    if dataset == "traj":
        q = scene.trajectory(n + 1, rng, dcfg["traj"])
        return np.stack((q[:-1], q[1:]), axis=1)
    rho = dcfg["rho"]
    z = rng.standard_normal((n, 2))
    return np.stack((z, rho * z + math.sqrt(1 - rho * rho) * rng.standard_normal((n, 2))), axis=1)


def _counts(dcfg: dict[str, Any]) -> dict[str, int]:
    return {"ou": dcfg["ou_pairs"], "traj": dcfg["traj_pairs"], "eval": dcfg["eval_pairs"]}


def _chunk_path(root: str, dataset: str, i: int) -> str:
    return os.path.join(root, "data", f"{dataset}_{i:05d}.npz")


def _chunk_ok(path: str, n: int, size: int) -> bool:
    import numpy as np

    try:
        with np.load(path) as f:
            return f["x"].shape == (n, 2, size, size, 3) and f["z"].shape == (n, 2, 2)
    except Exception:  # missing or unreadable: render again
        return False


def _chunks(dcfg: dict[str, Any], dataset: str) -> list[int]:
    """Sizes of the chunks of ``dataset``."""
    total, c = _counts(dcfg)[dataset], dcfg["chunk"]
    return [min(c, total - s) for s in range(0, total, c)]


def prerender(out: str, cfg: dict[str, Any], seed: int, progress: bool = True) -> dict[str, Any]:
    """Render every missing chunk of every dataset (module docstring) and write the manifest; returns it.
    A manifest written with other settings or seed raises ValueError (use another ``--out``)."""
    import numpy as np

    from .commands import atomic_write

    dcfg = cfg["data"]
    ddir = os.path.join(out, "data")
    os.makedirs(ddir, exist_ok=True)
    mpath = os.path.join(ddir, "manifest.json")
    manifest = {"format": "lejepa-reacher-data-1", "seed": seed, "settings": dcfg, "counts": _counts(dcfg),
                "chunks": {k: _chunks(dcfg, k) for k in DATASETS}, "env": "dm_control reacher-hard, fixed target",
                "versions": _versions()}
    if os.path.exists(mpath):
        check_manifest(out, cfg, seed)
    else:
        atomic_write(mpath, lambda f: json.dump(manifest, f, indent=2))
    todo = [(k, i, n) for k in DATASETS for i, n in enumerate(_chunks(dcfg, k))
            if not _chunk_ok(_chunk_path(out, k, i), n, dcfg["size"])]
    total = sum(2 * n for k in DATASETS for n in _chunks(dcfg, k))
    if todo:
        from tqdm import tqdm

        scene = ReacherScene(dcfg["size"], dcfg["target"])
        bar = tqdm(total=total, initial=total - sum(2 * n for _, _, n in todo), unit="frame",
                   desc="prerender", disable=not progress)
        try:
            for k, i, n in todo:
                z = _chunk_latents(k, n, _seed_for(seed, k, i), dcfg, scene)
                x = scene.render(z.reshape(-1, 2)).reshape(n, 2, dcfg["size"], dcfg["size"], 3)
                def save_chunk(f: Any, x: Any = x, z: Any = z) -> None:
                    np.savez_compressed(f, x=x, z=z)

                atomic_write(_chunk_path(out, k, i), save_chunk, binary=True)
                bar.update(2 * n)
        finally:
            bar.close()
            scene.close()
    return manifest


def load_dataset(out: str, dataset: str) -> tuple[Any, Any]:
    """``(x, z)``: all pairs of a prerendered dataset, ``(N, 2, H, W, 3)`` uint8 and ``(N, 2, 2)``."""
    import numpy as np

    mpath = os.path.join(out, "data", "manifest.json")
    if not os.path.exists(mpath):
        raise ValueError(f"no prerendered data in {out!r}: run `lejepa reacher prerender` first")
    with open(mpath, encoding="utf-8") as f:
        man = json.load(f)
    xs, zs = [], []
    for i, n in enumerate(man["chunks"][dataset]):
        p = _chunk_path(out, dataset, i)
        if not _chunk_ok(p, n, man["settings"]["size"]):
            raise ValueError(f"chunk {p!r} is missing or damaged: rerun `lejepa reacher prerender` (it resumes)")
        with np.load(p) as f:
            xs.append(f["x"])
            zs.append(f["z"])
    return np.concatenate(xs), np.concatenate(zs)


def _versions() -> dict[str, str]:
    import importlib.metadata as md

    out = {}
    for pkg in ("mujoco", "dm-control", "numpy", "torch"):
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            out[pkg] = "missing"
    return out


# -------------------------------------------------------------------------------------- training

def _device(name: str) -> Any:
    from .engine import resolve_device

    try:
        return resolve_device(name)
    except RuntimeError as exc:   # torch.device("nonsense")
        raise ValueError(f"--device {name!r} is not a torch device (auto, cpu, cuda, cuda:N): "
                         f"{str(exc).splitlines()[0]}") from None


def _load_ck(path: str, device: Any = "cpu") -> Any:
    """``torch.load`` of a reacher encoder; a damaged file is a ValueError naming it."""
    import torch

    from .commands import load_error

    try:
        return torch.load(path, map_location=device, weights_only=True)
    except Exception as exc:  # truncated, foreign or unreadable file
        raise ValueError(f"{path!r} is corrupt ({load_error(exc)}); remove it and rerun "
                         "`lejepa reacher train` (it retrains that encoder)") from None


def check_manifest(out: str, cfg: dict[str, Any], seed: int) -> None:
    """ValueError when ``out/data`` holds frames rendered with other settings or another seed (the
    train and plan stages would otherwise mix them with this preset and seed)."""
    mpath = os.path.join(out, "data", "manifest.json")
    if not os.path.exists(mpath):
        return
    try:
        with open(mpath, encoding="utf-8") as f:
            old = json.load(f)
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{mpath!r} could not be read ({exc}); remove {os.path.dirname(mpath)!r} to "
                         "prerender again") from None
    if not isinstance(old, dict) or old.get("settings") != cfg["data"] or old.get("seed") != seed:
        seen = old.get("seed") if isinstance(old, dict) else None
        raise ValueError(f"{os.path.dirname(mpath)} holds frames rendered with other settings or seed "
                         f"(seed {seen}); use a new --out or the same preset and seed")


def train_encoder(x: Any, cfg: dict[str, Any], seed: int, device: Any, progress: bool = True) -> tuple[Any, dict]:
    """Train a :class:`ConvEncoder` on the frame pairs ``x`` (``(N, 2, H, W, 3)`` uint8) with the
    engine's SIGReg objective (both views in one forward pass, so BatchNorm sees both); returns
    ``(encoder in eval mode, info)`` with the loss curve."""
    import torch

    from .engine import lr_factor, make_optimizer, objective
    from .models import ConvEncoder

    tr, ec = cfg["train"], cfg["encoder"]
    torch.manual_seed(seed)
    enc = ConvEncoder(2, ec["channels"], ec["head"], pool=ec["pool"], in_size=cfg["data"]["size"]).to(device)
    opt = make_optimizer(enc, {"lr": tr["lr"], "beta1": 0.9, "beta2": 0.999, "weight_decay": tr["weight_decay"]})
    loss_cfg = {"kind": "sigreg", "lam": tr["lam"], "slices": tr["slices"], "knots": 17, "t_max": 3.0}
    data = torch.from_numpy(x).to(device)
    gen = torch.Generator(device="cpu").manual_seed(seed)
    curve: list[tuple[int, float]] = []
    from tqdm import tqdm

    t0 = time.time()
    enc.train()
    for step in tqdm(range(tr["steps"]), desc="train", disable=not progress):
        for g in opt.param_groups:
            g["lr"] = tr["lr"] * lr_factor(step, tr["steps"], tr["constant_frac"], 0, 0.0)
        idx = torch.randint(data.shape[0], (tr["batch"],), generator=gen).to(device)
        xb = data[idx]
        h = enc(torch.cat((xb[:, 0], xb[:, 1])))
        loss = objective(loss_cfg, h[: tr["batch"]], h[tr["batch"]:])
        if not torch.isfinite(loss):
            raise ValueError(f"training diverged at step {step} (loss {float(loss)}); lower train.lr")
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % max(1, tr["steps"] // 50) == 0 or step == tr["steps"] - 1:
            curve.append((step, float(loss.detach())))
    enc.eval()
    return enc, {"seconds": time.time() - t0, "curve": curve, "steps": tr["steps"]}


def embed(enc: Any, x: Any, batch: int = 512) -> Any:
    """Float64 embeddings ``(B, 2)`` of uint8 frames ``(B, H, W, 3)`` (numpy or tensor), eval mode."""
    import torch

    dev = next(enc.parameters()).device
    x = torch.as_tensor(x)
    with torch.no_grad():
        return torch.cat([enc(b.to(dev)).double().cpu() for b in x.split(batch)]) if len(x) else torch.zeros(0, 2)


def _load_encoder(path: str, device: Any) -> tuple[Any, dict[str, Any]]:

    from .models import ConvEncoder

    if not os.path.exists(path):
        raise ValueError(f"no encoder at {path!r}: run `lejepa reacher train` first")
    ck = _load_ck(path, device)
    if not isinstance(ck, dict) or ck.get("format") != "lejepa-reacher-encoder-1":
        raise ValueError(f"{path!r} is not a lejepa reacher encoder")
    ec = ck["encoder_cfg"]
    enc = ConvEncoder(2, ec["channels"], ec["head"], pool=ec["pool"], in_size=ck["data_cfg"]["size"]).to(device)
    enc.load_state_dict(ck["state"])
    enc.eval()
    return enc, ck


def train_all(out: str, cfg: dict[str, Any], seed: int, progress: bool = True) -> dict[str, Any]:
    """Train (or reuse, when a checkpoint with the same settings exists) one encoder per dataset in
    :data:`ENCODED`, writing ``DIR/<dataset>.pt`` atomically."""
    import torch

    from .commands import atomic_write

    torch.set_num_threads(cfg["train"]["threads"])
    device = _device(cfg["train"]["device"])
    info = {}
    for k in ENCODED:
        path = os.path.join(out, f"{k}.pt")
        key = {"encoder_cfg": cfg["encoder"], "train_cfg": cfg["train"], "data_cfg": cfg["data"], "seed": seed}
        if os.path.exists(path):
            ck = _load_ck(path)
            if isinstance(ck, dict) and all(ck.get(a) == b for a, b in key.items()):
                info[k] = ck["info"]
                continue
        x, _ = load_dataset(out, k)
        enc, inf = train_encoder(x, cfg, seed + ENCODED.index(k), device, progress)
        ck = {"format": "lejepa-reacher-encoder-1", **key, "state": enc.state_dict(), "info": inf}
        def save_ck(f: Any, ck: dict[str, Any] = ck) -> None:
            torch.save(ck, f)

        atomic_write(path, save_ck, binary=True)
        info[k] = inf
    return info


# --------------------------------------------------------------------------------- metrics, plans

def encoder_metrics(enc: Any, x: Any, z: Any, rho: float) -> dict[str, Any]:
    """Metrics of the module docstring on eval pairs ``x`` (``(M, 2, H, W, 3)``), latents ``z`` (``(M, 2, 2)``)."""
    import torch

    from .metrics import (
        identifiability_metrics,
        linear_map,
        procrustes_matrix_error,
        whitened_procrustes_error,
    )

    zt = torch.as_tensor(z, dtype=torch.float64)
    h, h2 = embed(enc, x[:, 0]), embed(enc, x[:, 1])
    m: dict[str, Any] = dict(identifiability_metrics(zt[:, 0], h, h2, rho))
    a = linear_map(zt[:, 0], h)
    m.update({"A": a.tolist(), "singular_values": torch.linalg.svdvals(a).tolist(),
              "procrustes_matrix": procrustes_matrix_error(a),
              "whitened_procrustes": whitened_procrustes_error(zt[:, 0], h)})
    return m


def ratio_ci(d: Any, d_ref: Any, *, level: float = 0.95, n_boot: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """``(R, lo, hi)``: ``R = mean(d) / mean(d_ref)`` and its paired percentile-bootstrap CI at
    ``level`` (the same resampled episodes in numerator and denominator)."""
    import numpy as np

    d, d_ref = np.asarray(d, dtype=np.float64), np.asarray(d_ref, dtype=np.float64)
    if d.shape != d_ref.shape or d.ndim != 1 or len(d) < 2:
        raise ValueError("d and d_ref must be paired 1-D arrays of at least 2 episodes")
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    idx = np.random.default_rng(seed).integers(0, len(d), size=(n_boot, len(d)))
    r = d[idx].mean(1) / d_ref[idx].mean(1)
    lo, hi = np.quantile(r, [(1 - level) / 2, (1 + level) / 2])
    return float(d.mean() / d_ref.mean()), float(lo), float(hi)


class _CachedRender:
    """Renders joint angles, remembering frames by the exact state (bytes of the float64 row), so
    representations that take the same planning steps share the renders. Bounded: cleared when full."""

    def __init__(self, scene: ReacherScene, max_items: int = 20000):
        self.cache: dict[bytes, Any] = {}
        self.scene, self.max_items, self.renders = scene, max_items, 0

    def __call__(self, z: Any) -> Any:
        import numpy as np

        zs = np.ascontiguousarray(z.detach().cpu().double().numpy())
        keys = [r.tobytes() for r in zs]
        out = np.empty((len(keys), self.scene.size, self.scene.size, 3), dtype=np.uint8)
        miss = []
        for i, k in enumerate(keys):
            f = self.cache.get(k)
            if f is None:
                miss.append(i)
            else:
                out[i] = f
        if miss:
            out[miss] = self.scene.render(zs[miss])
            self.renders += len(miss)
            if len(self.cache) + len(miss) > self.max_items:
                self.cache.clear()
            for i in miss:
                self.cache[keys[i]] = out[i]
        return out


def run_plan(out: str, cfg: dict[str, Any], seed: int, progress: bool = True) -> dict[str, Any]:
    """Metrics of both encoders on the eval pairs, then planning for every representation; writes
    ``metrics.json``, ``plan.json``, ``plan.md`` and ``reacher.png``; returns the plan payload."""
    import numpy as np
    import torch
    from scipy import stats

    from .commands import atomic_write
    from .planning import plan

    torch.set_num_threads(cfg["train"]["threads"])
    device = _device(cfg["train"]["device"])
    pc, dcfg = cfg["plan"], cfg["data"]
    encs = {}
    for k in ENCODED:
        path = os.path.join(out, f"{k}.pt")
        encs[k], ck = _load_encoder(path, device)
        drop_dev = {a: b for a, b in cfg["train"].items() if a != "device"}   # planning may run elsewhere
        if ck.get("seed") != seed or ck.get("encoder_cfg") != cfg["encoder"] or ck.get("data_cfg") != cfg["data"] \
                or {a: b for a, b in (ck.get("train_cfg") or {}).items() if a != "device"} != drop_dev:
            raise ValueError(f"{path!r} was trained with other settings or seed (seed {ck.get('seed')}); rerun "
                             "`lejepa reacher train` with this preset and seed, or plan with the ones it was trained with")
    if pc["shear"] is not None:
        encs["ou_shear"] = _sheared(encs["ou"], pc["shear"])
    xe, ze = load_dataset(out, "eval")
    metrics = {k: encoder_metrics(e, xe, ze, dcfg["rho"]) for k, e in encs.items()}
    atomic_write(os.path.join(out, "metrics.json"), lambda f: json.dump(metrics, f, indent=2))

    scene = ReacherScene(dcfg["size"], dcfg["target"])
    try:
        render = _CachedRender(scene)
        reps: dict[str, Any] = {"oracle": lambda z: z}
        for k, e in encs.items():
            reps[k] = lambda z, e=e: embed(e, render(z))
        if pc["pixels"]:
            reps["pixels"] = lambda z: torch.from_numpy(render(z).reshape(len(z), -1)).double() / 255.0
        t0 = time.time()
        res = plan(reps, 2, episodes=pc["episodes"], horizon=pc["horizon"], candidates=pc["candidates"],
                   step=pc["step"], seed=seed, per_episode=True)
        seconds = time.time() - t0
        grid = _grid_embeddings(encs, render, pc["grid"])
        renders = render.renders
    finally:
        scene.close()
    d_or = np.asarray(res["oracle"]["final_distances"])
    lo_m, hi_m = 1 / (1 + pc["margin"]), 1 + pc["margin"]
    for name, r in res.items():
        d = np.asarray(r["final_distances"])
        if name == "oracle":
            continue
        _, lo, hi = ratio_ci(d, d_or, level=pc["level"], n_boot=pc["bootstrap"], seed=seed)
        _, lo2, hi2 = ratio_ci(d, d_or, level=1 - 2 * pc["alpha"], n_boot=pc["bootstrap"], seed=seed)
        diff = d - d_or
        p = float(stats.wilcoxon(diff).pvalue) if np.any(diff != 0) else 1.0
        r.update({"ratio_ci": [lo, hi], "ci_contains_1": bool(lo <= 1 <= hi),
                  "equivalence_ci": [lo2, hi2], "equivalent": bool(lo_m <= lo2 and hi2 <= hi_m),
                  "wilcoxon_p": p})
    payload = {"preset_settings": cfg, "seed": seed, "dynamics": "kinematic joint space z <- z + u",
               "cost": "joint-space distance to the goal (radians)", "planning_seconds": seconds,
               "renders": renders, "metrics": metrics, "results": res, "versions": _versions(),
               "verdict_rules": {"ci": f"{pc['level']:.0%} paired bootstrap CI of the normalised cost",
                                 "equivalent": f"{1 - 2 * pc['alpha']:.0%} CI inside [{lo_m:.3f}, {hi_m:.3f}] "
                                               f"(TOST, alpha = {pc['alpha']})"}}
    atomic_write(os.path.join(out, "plan.json"), lambda f: json.dump(payload, f, indent=2))
    atomic_write(os.path.join(out, "plan.md"), lambda f: f.write(plan_table(payload)))
    _figure(os.path.join(out, "reacher.png"), xe, grid, payload)
    return payload


def _sheared(enc: Any, m: Any) -> Any:
    """``x -> enc(x) M`` for a fixed invertible 2 x 2 ``M``: the OU encoder followed by a linear,
    non-orthogonal map. Its R^2 and its whitened (authors') error equal the encoder's exactly; its
    ``||A^T A - I||_F`` and its plans do not."""
    import torch

    mt = torch.as_tensor(m, dtype=torch.float32)
    if mt.shape != (2, 2) or not bool(torch.isfinite(mt).all()) or abs(float(torch.linalg.det(mt))) < 1e-6:
        raise ValueError(f"plan.shear must be an invertible finite 2 x 2 matrix, got {m!r}")

    class Sheared(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.enc = enc
            self.register_buffer("m", mt.to(next(enc.parameters()).device))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.enc(x) @ self.m

    return Sheared().eval()


def _grid_embeddings(encs: dict[str, Any], render: Any, lines: int) -> dict[str, Any]:
    """Embeddings of a grid of joint-space lines ``z_j = const`` over [-2, 2] (``lines`` per axis),
    (the figure removes each encoder's offset and rotation, keeping its scale and shear: an
    orthogonal encoder maps the grid onto the square grid, a sheared one onto parallelograms)."""
    import numpy as np
    import torch

    vals = np.linspace(-2, 2, lines)
    t = np.linspace(-2, 2, 25)
    segs = [np.stack((np.full_like(t, v), t), 1) for v in vals] + [np.stack((t, np.full_like(t, v)), 1) for v in vals]
    z = np.concatenate(segs)
    out: dict[str, Any] = {"z": z, "n_seg": len(segs), "seg_len": len(t)}
    for k, e in encs.items():
        h = embed(e, render(torch.from_numpy(z))).numpy()
        out[k] = h
    return out


_LABELS = {"ou": "encoder (OU pairs)", "traj": "encoder (trajectory pairs)", "pixels": "raw pixels",
           "ou_shear": "encoder (OU pairs) x shear M"}


def plan_table(payload: dict[str, Any]) -> str:
    """Markdown table of the metrics and the planning costs."""
    res, met = payload["results"], payload["metrics"]
    pc = payload["preset_settings"]["plan"]
    lines = [f"Reacher (dm_control reacher-hard, {payload['preset_settings']['data']['size']} px), "
             f"{pc['episodes']} episodes x {pc['horizon']} steps x {pc['candidates']} candidates, "
             f"dynamics: {payload['dynamics']}, cost: {payload['cost']}.", "",
             "| representation | R²(h→z) | R²(z→h) | ‖AᵀA−I‖_F | ‖A−Q‖_F | whitened Procrustes (authors') "
             "| final distance | normalised cost [CI] | CI ∋ 1 | equivalent | 1st action = oracle |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, r in res.items():
        m = met.get(name)
        mcols = (f"{m['r2_h_to_z']:.3f} | {m['r2_z_to_h']:.3f} | {m['orthogonality']:.3f} | "
                 f"{m['procrustes_matrix']:.3f} | {m['whitened_procrustes']:.4f}") if m else "– | – | – | – | –"
        if name == "oracle":
            cost = "1 (reference) | – | – | 1"
        else:
            lo, hi = r["ratio_ci"]
            cost = (f"{r['ratio_to_oracle']:.3f} [{lo:.3f}, {hi:.3f}] | {'yes' if r['ci_contains_1'] else 'no'} | "
                    f"{'yes' if r['equivalent'] else 'no'} | {r['first_action_agreement']:.2f}")
        label = _LABELS.get(name, name)
        lines.append(f"| {label} | {mcols} | {r['final_distance']:.3f} ± {r['final_distance_se']:.3f} | {cost} |")
    vr = payload["verdict_rules"]
    lines += ["", f"CI: {vr['ci']}. Equivalent: {vr['equivalent']}. ‖AᵀA−I‖_F and ‖A−Q‖_F: slope A of "
              "h ~ Az + b on held-out OU frames (z ~ N(0, I)); the whitened Procrustes error is invariant "
              "to every invertible linear map. Shear M = "
              f"{payload['preset_settings']['plan']['shear']} (h -> hM).", ""]
    return "\n".join(lines)


def _figure(path: str, xe: Any, grid: dict[str, Any], payload: dict[str, Any]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from .commands import atomic_write

    fig, ax = plt.subplots(1, 4, figsize=(13, 3.3))
    frames = [xe[i, 0] for i in range(min(4, len(xe)))]
    ax[0].imshow(np.concatenate([np.concatenate(frames[:2], 1), np.concatenate(frames[2:4], 1)], 0)
                 if len(frames) == 4 else frames[0])
    ax[0].set_title("frames (z ~ N(0, I))")
    ax[0].axis("off")
    z, ns, L = grid["z"], grid["n_seg"], grid["seg_len"]
    for j, k in enumerate(ENCODED):
        h = grid[k]
        zc = z - z.mean(0)
        coef, *_ = np.linalg.lstsq(np.c_[z, np.ones(len(z))], h, rcond=None)
        a, b = coef[:2].T, coef[2]
        q = np.linalg.svd(a)[0] @ np.linalg.svd(a)[2]
        hq = (h - b) @ q          # rotate back by the orthogonal polar factor only (keeps scale and shear)
        for s in range(ns):
            ax[j + 1].plot(zc[s * L:(s + 1) * L, 0], zc[s * L:(s + 1) * L, 1], color="0.85", lw=0.8)
            ax[j + 1].plot(hq[s * L:(s + 1) * L, 0], hq[s * L:(s + 1) * L, 1], color="C0" if s < ns // 2 else "C1", lw=1)
        met = payload["metrics"][k]
        ax[j + 1].set_title(f"{'OU' if k == 'ou' else 'trajectory'}-trained: ‖AᵀA−I‖={met['orthogonality']:.2f}\n"
                            f"whitened (authors')={met['whitened_procrustes']:.3f}", fontsize=9)
        ax[j + 1].set_aspect("equal")
    res = [(n, r) for n, r in payload["results"].items() if n != "oracle"]
    ys = [r["ratio_to_oracle"] for _, r in res]
    err = np.array([[r["ratio_to_oracle"] - r["ratio_ci"][0], r["ratio_ci"][1] - r["ratio_to_oracle"]] for _, r in res]).T
    colors = {"ou": "C2", "traj": "C3", "pixels": "C7", "ou_shear": "C1"}
    ax[3].bar(range(len(res)), ys, yerr=err, color=[colors.get(n, "C0") for n, _ in res], capsize=4)
    ax[3].axhline(1.0, color="k", lw=0.8)
    ax[3].set_xticks(range(len(res)), [{"ou": "OU", "traj": "traj.", "pixels": "pixels", "ou_shear": "OU·M"}.get(n, n)
                                       for n, _ in res])
    ax[3].set_ylabel("final distance / oracle")
    ax[3].set_title(f"planning cost ({payload['preset_settings']['plan']['episodes']} episodes)", fontsize=9)
    fig.tight_layout()
    atomic_write(path, lambda f: fig.savefig(f, format="png", dpi=80), binary=True)
    plt.close(fig)


# ---------------------------------------------------------------------------------------- command

def add_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("stage", choices=STAGES, help="prerender frames, train encoders, plan (and evaluate), or all")
    p.add_argument("--preset", choices=tuple(PRESETS), default="quick")
    p.add_argument("--out", required=True, metavar="DIR", help="output directory (created if missing)")
    p.add_argument("--seed", type=int, default=0, metavar="S")
    p.add_argument("--device", default=None, help="override the preset's device (auto, cpu, cuda)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")


def run(args: argparse.Namespace) -> int:
    cfg = copy.deepcopy(PRESETS[args.preset])
    if args.device:
        cfg["train"]["device"] = args.device
    try:
        if isinstance(args.seed, bool) or args.seed < 0:
            raise ValueError(f"--seed must be an integer >= 0, got {args.seed!r}")
        dev = str(_device(cfg["train"]["device"]))
        ok, why = reacher_available(dev)
        if not ok:
            print(f"lejepa reacher: {why}", file=sys.stderr)
            return 3
        from .commands import check_out_dir

        check_out_dir(args.out)   # creates it; names the reason when it cannot be written
        check_manifest(args.out, cfg, args.seed)
        progress = not args.no_progress
        if args.stage in ("prerender", "all"):
            prerender(args.out, cfg, args.seed, progress)
            print(f"prerendered into {os.path.join(args.out, 'data')}")
        if args.stage in ("train", "all"):
            info = train_all(args.out, cfg, args.seed, progress)
            print("trained " + ", ".join(f"{k} ({v['seconds']:.0f} s)" for k, v in info.items()))
        if args.stage in ("plan", "all"):
            payload = run_plan(args.out, cfg, args.seed, progress)
            print(plan_table(payload))
            print(f"wrote {args.out}/plan.md, plan.json, metrics.json, reacher.png")
    except ValueError as exc:
        print(f"lejepa reacher: error: {exc}", file=sys.stderr)
        return 2
    return 0
