"""The training loop: online data, AdamW, constant-then-cosine schedule, held-out evaluation.

``train(cfg, seed)`` returns a :class:`TrainResult` (encoder, mixing, final metrics, curves).
Randomness: the held-out evaluation set is drawn first from the global torch RNG seeded with
``seed + eval.seed_offset``; then the RNG is reseeded with ``seed`` for the encoder's
initialisation, the training batches (fresh every step, never the evaluation points) and the
SIGReg slices. Same seed, same device, same thread count => same numbers.

Objectives (``loss.kind``), with ``align = mean ||h1 - h2||^2`` and ``lam = loss.lam``:

* ``sigreg``: ``lam * SIGReg(h1, h2) + (1 - lam) * align`` (SIGReg of each view, averaged);
  with ``loss.lam_end`` set, lam ramps linearly from ``loss.lam`` to ``loss.lam_end`` over the
  learning-rate decay phase (see :func:`lam_at`; small lam early unwinds the mixing fast, larger lam
  late removes the shrinkage bias of the objective, see ``docs/training.md``);
* ``whitening``: ``lam * (||C(h1) - I||_F^2 + ||C(h2) - I||_F^2) / 2 + (1 - lam) * align``;
* ``vicreg``: VICReg with weights ``vicreg_sim / vicreg_var / vicreg_cov`` (includes its own invariance);
* ``infonce``: Gaussian-kernel InfoNCE with ``temperature``.
"""

from __future__ import annotations

import math
import platform
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import torch

from . import __version__, cf_kernels
from .data import Mixing, pair_correlation, sample_latent, sample_pair
from .losses import alignment_loss, infonce_gaussian, sigreg, vicreg_loss, whitening_loss
from .metrics import identifiability_metrics
from .models import build_encoder


def resolve_device(name: str) -> torch.device:
    """``auto`` -> CUDA if available else CPU."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"config key 'runtime.device' = {name!r} but CUDA is not available")
    return torch.device(name)


def lr_factor(step: int, steps: int, constant_frac: float, warmup_steps: int, min_lr_frac: float) -> float:
    """Learning-rate multiplier: linear warm-up over ``warmup_steps``, constant until
    ``constant_frac * steps``, then cosine decay ``min + (1 - min) (1 + cos(pi s)) / 2`` to ``min_lr_frac``."""
    if warmup_steps and step < warmup_steps:
        return (step + 1) / warmup_steps
    start = int(constant_frac * steps)
    if step < start or steps <= start:
        return 1.0
    s = (step - start) / max(1, steps - start)
    return min_lr_frac + (1.0 - min_lr_frac) * 0.5 * (1.0 + math.cos(math.pi * min(1.0, s)))


def build(cfg: dict[str, Any], device: torch.device) -> tuple[Mixing, torch.nn.Module]:
    """Mixing and (freshly initialised, global RNG) encoder of a config, on ``device``."""
    mix = Mixing(cfg["mixing"]["kind"], cfg["latent"]["dim"], layers=cfg["mixing"]["layers"],
                 seed=cfg["mixing"]["seed"]).to(device)
    enc = build_encoder(cfg["encoder"]["kind"], cfg["latent"]["dim"], width=cfg["encoder"]["width"],
                        depth=cfg["encoder"]["depth"], activation=cfg["encoder"]["activation"],
                        mixing_kind=cfg["mixing"]["kind"], mixing_layers=cfg["mixing"]["layers"]).to(device)
    return mix, enc


def lam_at(step: int, steps: int, lam: float, lam_end: float | None, constant_frac: float) -> float:
    """The weight lambda at ``step``: ``lam`` during the constant phase, then (if ``lam_end`` is set)
    a linear ramp to ``lam_end`` over the decay phase (the steps after ``constant_frac * steps``)."""
    if lam_end is None:
        return lam
    start = int(constant_frac * steps)
    if step <= start or steps <= start:
        return lam
    return lam + (lam_end - lam) * min(1.0, (step - start) / (steps - start))


def objective(cfg_loss: dict[str, Any], h1: torch.Tensor, h2: torch.Tensor, lam: float | None = None
              ) -> torch.Tensor:
    """The training loss of ``loss.kind`` (module docstring) for one batch of embedded pairs
    (``lam`` overrides ``loss.lam``, for the lambda ramp)."""
    kind = cfg_loss["kind"]
    lam = cfg_loss["lam"] if lam is None else lam
    if kind == "sigreg":
        reg = sigreg(torch.stack((h1, h2)), cfg_loss["slices"], cfg_loss["knots"], cfg_loss["t_max"])
        return lam * reg + (1.0 - lam) * alignment_loss(h1, h2)
    if kind == "whitening":
        reg = 0.5 * (whitening_loss(h1) + whitening_loss(h2))
        return lam * reg + (1.0 - lam) * alignment_loss(h1, h2)
    if kind == "vicreg":
        return vicreg_loss(h1, h2, cfg_loss["vicreg_sim"], cfg_loss["vicreg_var"], cfg_loss["vicreg_cov"])
    if kind == "infonce":
        return infonce_gaussian(h1, h2, cfg_loss["temperature"])
    raise ValueError(f"config key 'loss.kind' unknown: {kind!r}")


def make_optimizer(enc: torch.nn.Module, tr: dict[str, Any]) -> torch.optim.Optimizer:
    """AdamW (fused single-kernel implementation where this torch build supports it)."""
    kw = dict(lr=tr["lr"], betas=(tr["beta1"], tr["beta2"]), weight_decay=tr["weight_decay"])
    try:
        return torch.optim.AdamW(enc.parameters(), fused=True, **kw)
    except (RuntimeError, TypeError, ValueError):
        return torch.optim.AdamW(enc.parameters(), foreach=True, **kw)


@dataclass
class EvalSet:
    """Held-out latents ``z``, OU partners ``z2`` (pair correlation ``rho``), all on the device."""

    z: torch.Tensor
    z2: torch.Tensor
    rho: float


def make_eval_set(cfg: dict[str, Any], seed: int, device: torch.device) -> EvalSet:
    """Evaluation pairs: z from the latent law, z' = r z + sqrt(1 - r^2) eta with r the trained pair's
    correlation (rho for ``ou``, rho^2 for ``two_view``); seeded with ``seed + eval.seed_offset``."""
    lat = cfg["latent"]
    r = pair_correlation(cfg["pair"]["kind"], cfg["pair"]["rho"])
    torch.manual_seed(seed + cfg["eval"]["seed_offset"])
    z, z2 = sample_pair(lat["dist"], "ou", r, cfg["eval"]["size"], lat["dim"], alpha=lat["alpha"], device=device)
    return EvalSet(z, z2, r)


EVAL_CURVE_KEYS = ("r2_h_to_z", "epsilon", "delta_tr", "bound", "recovery_error", "orthogonality")
"""Metrics recorded in the learning curves at each evaluation."""


@torch.no_grad()
def embed_pairs(enc: torch.nn.Module, mix: Mixing, z: torch.Tensor, z2: torch.Tensor, chunk: int = 65536
                ) -> tuple[torch.Tensor, torch.Tensor]:
    """``(enc(mix(z)), enc(mix(z2)))`` in eval mode, in chunks of ``chunk`` rows (training mode restored)."""
    was = enc.training
    enc.eval()
    h = torch.cat([enc(mix(b)) for b in z.split(chunk)])
    h2 = torch.cat([enc(mix(b)) for b in z2.split(chunk)])
    enc.train(was)
    return h, h2


@torch.no_grad()
def evaluate(enc: torch.nn.Module, mix: Mixing, ev: EvalSet, chunk: int = 65536) -> dict[str, float]:
    """Identifiability metrics of ``enc o mix`` on the evaluation set (see :mod:`.metrics`)."""
    h, h2 = embed_pairs(enc, mix, ev.z, ev.z2, chunk)
    return identifiability_metrics(ev.z, h, h2, ev.rho)


@torch.no_grad()
def final_bound_check(enc: torch.nn.Module, mix: Mixing, cfg: dict[str, Any], seed: int, m: int | None = None
                      ) -> dict[str, Any]:
    """Bootstrap verdict of Theorem 3 (:func:`.metrics.bound_check`) on ``m`` fresh Gaussian OU pairs
    (default :func:`.metrics.bootstrap_pairs` with cap 100k; seeded with ``seed + 2 * eval.seed_offset``;
    ``applies`` is False for non-Gaussian latents, where the theorem says nothing)."""
    from .metrics import MAX_BOOTSTRAP_DIM, bootstrap_pairs, bound_check

    if cfg["latent"]["dim"] > MAX_BOOTSTRAP_DIM:
        return {"skipped": f"latent.dim > {MAX_BOOTSTRAP_DIM}: the bootstrap's n^2 moment stacks are too large",
                "verdict": "not computed", "applies": cfg["latent"]["dist"] == "gaussian"}
    if m is None:
        m = bootstrap_pairs(cfg["latent"]["dim"], 100_000)
    dev = next(iter(enc.parameters())).device
    r = pair_correlation(cfg["pair"]["kind"], cfg["pair"]["rho"])
    state = torch.random.get_rng_state()
    torch.manual_seed(seed + 2 * cfg["eval"]["seed_offset"])
    z, z2 = sample_pair("gaussian", "ou", r, m, cfg["latent"]["dim"], device=dev)
    torch.random.set_rng_state(state)
    h, h2 = embed_pairs(enc, mix, z, z2)
    out = bound_check(z, h, h2, r)
    out["applies"] = cfg["latent"]["dist"] == "gaussian"
    return out


def versions() -> dict[str, str]:
    import numpy

    out = {"python": platform.python_version(), "torch": torch.__version__, "numpy": numpy.__version__,
           "lejepa_experiments": __version__, "platform": platform.platform()}
    if cf_kernels.available():  # SIGReg on CPU runs its numba kernels then
        import numba

        out["numba"] = numba.__version__
    return out


@dataclass
class TrainResult:
    encoder: torch.nn.Module
    mixing: Mixing
    metrics: dict[str, float]
    curves: dict[str, list[Any]]
    device: str
    seconds: float
    steps_per_second: float
    info: dict[str, Any] = field(default_factory=dict)


def train(cfg: dict[str, Any], seed: int = 0, *, progress: bool | None = None,
          on_eval: Callable[[int, dict[str, float]], bool | None] | None = None,
          time_limit_s: float | None = None) -> TrainResult:
    """Train one encoder as configured by the (validated) ``cfg``; see the module docstring.

    ``time_limit_s`` stops early (after the current step) once exceeded and is recorded in
    ``info['stopped_early']``. ``on_eval(step, metrics)`` is called after each intermediate
    evaluation; a true return value stops the training there (also ``stopped_early``).
    """
    rt, tr, lat, pr = cfg["runtime"], cfg["train"], cfg["latent"], cfg["pair"]
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    torch.set_num_threads(rt["threads"])
    cf_kernels.set_threads(rt["threads"])   # SIGReg's numba kernels use as many threads as torch
    if rt["deterministic"]:
        torch.use_deterministic_algorithms(True)
    device = resolve_device(rt["device"])
    show = rt["progress"] if progress is None else progress

    ev = make_eval_set(cfg, seed, device)
    torch.manual_seed(seed)
    mix, enc = build(cfg, device)
    opt = make_optimizer(enc, tr)
    steps = tr["steps"]
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: lr_factor(s, steps, tr["constant_frac"], tr["warmup_steps"], tr["min_lr_frac"]))

    curves: dict[str, list[Any]] = {"step": [], "loss": [], "lr": [], "eval_step": [], "eval": []}
    bar = None
    if show:
        from tqdm import tqdm

        bar = tqdm(total=steps, desc=cfg["name"], unit="step", file=sys.stderr, dynamic_ncols=True)
    run_loss = torch.zeros((), device=device)
    n_acc = 0
    t0 = time.perf_counter()
    stopped_early = False
    step = 0
    every = cfg["eval"]["every"]
    for step in range(1, steps + 1):
        z1, z2 = sample_pair(lat["dist"], pr["kind"], pr["rho"], tr["batch"], lat["dim"], alpha=lat["alpha"],
                             device=device)
        h = enc(mix(torch.cat((z1, z2))))
        h1, h2 = h[: tr["batch"]], h[tr["batch"]:]
        lam = lam_at(step, steps, cfg["loss"]["lam"], cfg["loss"]["lam_end"], tr["constant_frac"])
        loss = objective(cfg["loss"], h1, h2, lam)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if tr["grad_clip"] > 0:
            torch.nn.utils.clip_grad_norm_(enc.parameters(), tr["grad_clip"])
        opt.step()
        sched.step()
        run_loss += loss.detach()
        n_acc += 1
        if step % tr["log_every"] == 0 or step == steps:
            lv = float(run_loss) / n_acc
            if not math.isfinite(lv):
                if bar is not None:
                    bar.close()
                raise FloatingPointError(f"training loss became non-finite at step {step}")
            curves["step"].append(step)
            curves["loss"].append(lv)
            curves["lr"].append(sched.get_last_lr()[0])
            run_loss.zero_()
            n_acc = 0
            if bar is not None:
                bar.set_postfix(loss=f"{lv:.4g}", refresh=False)
        if bar is not None:
            bar.update(1)
        over_time = time_limit_s is not None and time.perf_counter() - t0 > time_limit_s
        if step % every == 0 and step != steps and not over_time:
            m = evaluate(enc, mix, ev)
            curves["eval_step"].append(step)
            curves["eval"].append({k: m[k] for k in EVAL_CURVE_KEYS})
            if on_eval is not None and on_eval(step, m):
                stopped_early = True       # the callback asked to stop (e.g. a target reached)
                break
        if over_time:
            stopped_early = step < steps
            break
    seconds = time.perf_counter() - t0
    if bar is not None:
        bar.close()
    final = evaluate(enc, mix, ev)
    curves["eval_step"].append(step)
    curves["eval"].append({k: final[k] for k in EVAL_CURVE_KEYS})
    info = {"steps_done": step, "stopped_early": stopped_early,
            "pair": {"kind": pr["kind"], "rho": pr["rho"], "pair_correlation": ev.rho,
                     "description": ("z' = rho z + sqrt(1-rho^2) eta (OU, correlation rho)" if pr["kind"] == "ou"
                                     else "two noisy views rho z + sqrt(1-rho^2) eta_i (correlation rho^2)")},
            "threads": torch.get_num_threads()}
    return TrainResult(enc, mix, final, curves, str(device), seconds, step / max(seconds, 1e-9), info)
