"""The training loop: online data, AdamW, constant-then-cosine schedule, held-out evaluation.

``train(cfg, seed)`` returns a :class:`TrainResult` (encoder, mixing, final metrics, curves).
Randomness: the held-out evaluation set is drawn first from the global torch RNG seeded with
``seed + eval.seed_offset``; then the RNG is reseeded with ``init_seed(seed, train.restart)`` (``seed``
itself for restart 0) for the encoder's initialisation, the training batches (fresh every step, never the
evaluation points) and the SIGReg slices. So the restarts of one seed (the paper's best-of-K) share the
evaluation set and differ in initialisation and batches; the final metrics include the training
objective on the held-out set (:func:`heldout_objective`), the criterion that picks the best restart. Same seed, same device, same thread count => same numbers (see "Determinism"
below for exactly what that covers).

Checkpoints and resuming: with ``checkpoint=fn`` and ``train.checkpoint_every = K > 0``, ``fn(state)``
is called after every K-th step (not after the last) with the full training state (see
:func:`training_state`: step, encoder, optimizer and scheduler state, learning curves, the running
loss accumulator, elapsed seconds, and the RNG states of torch (CPU and, on CUDA, the device),
numpy and Python's ``random``). ``train(cfg, seed, resume=state)`` continues from such a state; the
result equals the uninterrupted run's bit for bit (``tests/test_resume.py``): the schedule and the
lambda ramp are functions of the step, the data batches and SIGReg slices come from the restored
torch RNG, and the evaluation set is redrawn from its own seed.

Objectives (``loss.kind``), with ``align = mean ||h1 - h2||^2`` and ``lam = loss.lam``:

* ``sigreg``: ``lam * SIGReg(h1, h2) + (1 - lam) * align`` (SIGReg of each view, averaged);
  with ``loss.lam_end`` set, lam ramps linearly from ``loss.lam`` to ``loss.lam_end`` over the
  learning-rate decay phase (see :func:`lam_at`; small lam early unwinds the mixing fast, larger lam
  late removes the shrinkage bias of the objective, see ``docs/training.md``);
* ``whitening``: ``lam * (||C(h1) - I||_F^2 + ||C(h2) - I||_F^2) / 2 + (1 - lam) * align``;
* ``vicreg``: VICReg with weights ``vicreg_sim / vicreg_var / vicreg_cov`` (includes its own invariance);
* ``infonce``: Gaussian-kernel InfoNCE with ``temperature``.

``loss.convention = authors`` switches ``sigreg`` and ``whitening`` to the units of the authors' code
(their lam is comparable only in these units): alignment ``align / (4n)``
(:func:`.losses.alignment_loss_authors`), SIGReg of the two views concatenated (2m samples, the
statistic times 2m) and whitening ``||C([h1; h2]) - I||_F^2 / n^2`` of the concatenation. ``vicreg``
and ``infonce`` are the same in both conventions (the authors have no real VICReg; their InfoNCE is
this one with ``sigma^2 = temperature``). Conversion: ``docs/training.md``, "λ in the authors' units".

Determinism (CPU; measured with ``benchmarks/bench_threads.py``, tested in ``tests/test_determinism.py``
and ``tests/test_resume.py``, details in ``docs/training.md``): two runs with the same config, seed,
torch build, device and ``runtime.threads`` give bit-identical weights, curves and metrics, for 1 and
for 2 threads, also when the runs compete for the cores (load does not change how torch's OpenMP
loops or the numba SIGReg kernels split their work). The OLS fits behind the metrics use the
``gelsd`` least-squares driver: MKL's default ``gelsy`` gave last-bit differences depending on the
memory placement of its inputs (see :func:`.metrics._ols`). A different thread count may change
results in the last bits (torch splits reductions above its grain size by thread), and so may another
torch/MKL build, CPU type or device. ``runtime.deterministic`` additionally asks torch for
deterministic kernels (relevant on CUDA).
"""

from __future__ import annotations

import json
import math
import platform
import random
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import torch

from . import __version__, cf_kernels
from .data import Mixing, pair_correlation, sample_pair
from .losses import alignment_loss, alignment_loss_authors, infonce_gaussian, sigreg, vicreg_loss, whitening_loss
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
    if cfg_loss.get("convention", "ours") == "authors" and kind in ("sigreg", "whitening"):
        both = torch.cat((h1, h2))
        if kind == "sigreg":
            reg = sigreg(both, cfg_loss["slices"], cfg_loss["knots"], cfg_loss["t_max"])
        else:
            reg = whitening_loss(both) / h1.shape[1] ** 2
        return lam * reg + (1.0 - lam) * alignment_loss_authors(h1, h2)
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


def init_seed(seed: int, restart: int) -> int:
    """The training RNG's seed of restart ``restart`` of seed ``seed``: ``seed`` itself for restart 0 (a run
    without restarts is unchanged), else the first 32-bit word of ``numpy.random.SeedSequence([seed,
    restart])`` (torch's CPU generator keeps only 32 bits of a seed, so ``seed + restart * 2^32`` would
    repeat restart 0; a hashed seed is distinct for every pair and unrelated to the small seeds and the
    ``seed + eval.seed_offset`` of ordinary runs)."""
    if restart == 0:
        return seed
    import numpy as np

    return int(np.random.SeedSequence([seed, restart]).generate_state(1)[0])


@torch.no_grad()
def heldout_objective(cfg: dict[str, Any], enc: torch.nn.Module, mix: Mixing, ev: EvalSet, seed: int
                      ) -> dict[str, float]:
    """The training objective at the current weights, estimated on the held-out evaluation pairs:
    ``heldout_objective = (1/M) sum_j L(h[B_j], h2[B_j])`` over the ``M = floor(m / batch)`` consecutive
    minibatches ``B_j`` of ``train.batch`` pairs (the whole set when ``m < batch``), with ``L`` the loss of
    :func:`objective` at the final lambda (the ramp's end). A minibatch mean because SIGReg's and
    InfoNCE's values depend on the batch size; it estimates the expected training loss, the quantity the
    optimiser minimises, without the last minibatch's noise. For ``sigreg`` and ``whitening`` also its two
    terms in the loss's units: ``heldout_align_term`` (lambda = 0) and ``heldout_reg_term`` (lambda = 1).
    SIGReg's random slices come from a generator seeded with ``seed + 3 * eval.seed_offset``, the same
    for every restart of a seed (the global RNG is left as it was)."""
    h, h2 = embed_pairs(enc, mix, ev.z, ev.z2)
    b = cfg["train"]["batch"]
    nb = max(1, h.shape[0] // b)
    size = b if h.shape[0] >= b else h.shape[0]
    tr, lo = cfg["train"], cfg["loss"]
    lam_final = lam_at(tr["steps"], tr["steps"], lo["lam"], lo["lam_end"], tr["constant_frac"])

    def mean_loss(lam: float) -> float:
        devices = [h.device] if h.device.type == "cuda" else []
        with torch.random.fork_rng(devices=devices):
            torch.manual_seed(seed + 3 * cfg["eval"]["seed_offset"])
            tot = sum(float(objective(lo, h[j * size:(j + 1) * size], h2[j * size:(j + 1) * size], lam))
                      for j in range(nb))
        return tot / nb

    out = {"heldout_objective": mean_loss(lam_final), "heldout_batches": float(nb)}
    if lo["kind"] in ("sigreg", "whitening"):
        out["heldout_align_term"] = mean_loss(0.0)
        out["heldout_reg_term"] = mean_loss(1.0)
    return out


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
    """Bootstrap verdict of Theorem 4.3 (:func:`.metrics.bound_check`) on ``m`` fresh Gaussian OU pairs
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


class NonFiniteLoss(FloatingPointError):
    """The training diverged: the loss (or, seen at an evaluation, the weights) became NaN or infinite;
    ``step`` is the step where it was seen (a logging or evaluation step), ``value`` the loss there."""

    def __init__(self, step: int, value: float, what: str = "training loss"):
        super().__init__(f"{what} became non-finite ({value}) at step {step}")
        self.step = step
        self.value = value


def _check_finite(step: int, enc: torch.nn.Module, run_loss: torch.Tensor, n_acc: int) -> None:
    """Before an evaluation: raise :class:`NonFiniteLoss` if the loss accumulated since the last log
    or any weight is non-finite (the evaluation would otherwise fail on non-finite embeddings)."""
    if n_acc and not bool(torch.isfinite(run_loss)):
        raise NonFiniteLoss(step, float(run_loss) / n_acc)
    if not all(bool(torch.isfinite(p).all()) for p in enc.parameters()):
        raise NonFiniteLoss(step, float("nan"), "encoder weights")


RESUME_FORMAT = "lejepa-resume-1"


def rng_state(device: torch.device) -> dict[str, Any]:
    """Every RNG state a training may touch: torch CPU (and the CUDA device), numpy's and Python's global
    generators, as tensors/lists (so that ``torch.load(weights_only=True)`` reads them back)."""
    import numpy as np

    npst = np.random.get_state(legacy=False)
    py = random.getstate()
    out: dict[str, Any] = {
        "torch": torch.random.get_rng_state(),
        "numpy": {"key": torch.from_numpy(np.asarray(npst["state"]["key"], dtype=np.int64)),
                  "pos": int(npst["state"]["pos"]), "has_gauss": int(npst["has_gauss"]),
                  "gauss": float(npst["gauss"])},
        "python": [py[0], list(py[1]), py[2]],
    }
    if device.type == "cuda":
        out["cuda"] = torch.cuda.get_rng_state(device)
    return out


def set_rng_state(st: dict[str, Any], device: torch.device) -> None:
    """Restore what :func:`rng_state` recorded."""
    import numpy as np

    torch.random.set_rng_state(st["torch"])
    if "cuda" in st and device.type == "cuda":
        torch.cuda.set_rng_state(st["cuda"], device)
    n = st["numpy"]
    np.random.set_state({"bit_generator": "MT19937",
                         "state": {"key": n["key"].numpy().astype(np.uint32), "pos": n["pos"]},
                         "has_gauss": n["has_gauss"], "gauss": n["gauss"]})
    v, internal, gauss = st["python"]
    random.setstate((v, tuple(internal), gauss))


def training_state(step: int, seed: int, cfg: dict[str, Any], enc: torch.nn.Module, opt: torch.optim.Optimizer,
                   sched: Any, curves: dict[str, list[Any]], run_loss: torch.Tensor, n_acc: int, seconds: float,
                   device: torch.device) -> dict[str, Any]:
    """The state after ``step`` steps from which :func:`train` can continue (``resume=``). Its tensors
    alias the live model: serialise it (``torch.save``) before training goes on."""
    return {"format": RESUME_FORMAT, "step": step, "seed": seed, "config": cfg, "encoder": enc.state_dict(),
            "optimizer": opt.state_dict(), "scheduler": sched.state_dict(), "curves": curves,
            "run_loss": run_loss.detach().clone(), "n_acc": n_acc, "seconds": seconds, "rng": rng_state(device)}


def same_run_config(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Configs equal up to ``train.checkpoint_every`` (which does not change the numbers) and up to a
    JSON round trip (tuples vs lists)."""
    def norm(c: dict[str, Any]) -> Any:
        c = json.loads(json.dumps(c))
        if isinstance(c.get("train"), dict):
            c["train"].pop("checkpoint_every", None)
        return c
    return norm(a) == norm(b)


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
    state: dict[str, Any] = field(default_factory=dict)
    """The final training state (:func:`training_state` after the last step)."""


def train(cfg: dict[str, Any], seed: int = 0, *, progress: bool | None = None,
          on_eval: Callable[[int, dict[str, float]], bool | None] | None = None,
          time_limit_s: float | None = None, checkpoint: Callable[[dict[str, Any]], None] | None = None,
          resume: dict[str, Any] | None = None) -> TrainResult:
    """Train one encoder as configured by the (validated) ``cfg``; see the module docstring.

    ``time_limit_s`` stops early (after the current step) once exceeded (the clock includes the
    seconds before a resume) and is recorded in ``info['stopped_early']``. ``checkpoint`` and
    ``resume``: see the module docstring. A non-finite loss raises :class:`NonFiniteLoss`.
    ``on_eval(step, metrics)`` is called after each intermediate evaluation; a true return value
    stops the training there (also ``stopped_early``).
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
    torch.manual_seed(init_seed(seed, tr["restart"]))
    mix, enc = build(cfg, device)
    opt = make_optimizer(enc, tr)
    steps = tr["steps"]
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: lr_factor(s, steps, tr["constant_frac"], tr["warmup_steps"], tr["min_lr_frac"]))

    curves: dict[str, list[Any]] = {"step": [], "loss": [], "lr": [], "eval_step": [], "eval": []}
    run_loss = torch.zeros((), device=device)
    n_acc = 0
    start, before = 0, 0.0
    if resume is not None:
        if resume.get("format") != RESUME_FORMAT or resume.get("seed") != seed \
                or not same_run_config(resume.get("config", {}), cfg):
            raise ValueError("the resume state belongs to another config or seed (or is not a resume checkpoint)")
        start = int(resume["step"])
        if not 0 <= start < steps:
            raise ValueError(f"the resume state is at step {start}, outside 0..{steps - 1}")
        enc.load_state_dict(resume["encoder"])
        opt.load_state_dict(resume["optimizer"])
        sched.load_state_dict(resume["scheduler"])
        curves = {k: list(v) for k, v in resume["curves"].items()}
        run_loss = resume["run_loss"].to(device=device, dtype=run_loss.dtype).clone()
        n_acc = int(resume["n_acc"])
        before = float(resume["seconds"])
        set_rng_state(resume["rng"], device)
    bar = None
    if show:
        from tqdm import tqdm

        bar = tqdm(total=steps, initial=start, desc=cfg["name"], unit="step", file=sys.stderr, dynamic_ncols=True)
    t0 = time.perf_counter() - before
    stopped_early = False
    step = start
    every = cfg["eval"]["every"]
    ck_every = tr["checkpoint_every"] if checkpoint is not None else 0
    for step in range(start + 1, steps + 1):
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
                raise NonFiniteLoss(step, lv)
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
            try:
                _check_finite(step, enc, run_loss, n_acc)
            except NonFiniteLoss:
                if bar is not None:
                    bar.close()
                raise
            m = evaluate(enc, mix, ev)
            curves["eval_step"].append(step)
            curves["eval"].append({k: m[k] for k in EVAL_CURVE_KEYS})
            if on_eval is not None and on_eval(step, m):
                stopped_early = True       # the callback asked to stop (e.g. a target reached)
                break
        if over_time:
            stopped_early = step < steps
            break
        if ck_every and step % ck_every == 0 and step != steps and checkpoint is not None:
            checkpoint(training_state(step, seed, cfg, enc, opt, sched, curves, run_loss, n_acc,
                                      time.perf_counter() - t0, device))
    seconds = time.perf_counter() - t0
    if bar is not None:
        bar.close()
    _check_finite(step, enc, run_loss, n_acc)
    final = evaluate(enc, mix, ev)
    curves["eval_step"].append(step)
    curves["eval"].append({k: final[k] for k in EVAL_CURVE_KEYS})
    final.update(heldout_objective(cfg, enc, mix, ev, seed))
    info = {"steps_done": step, "stopped_early": stopped_early,
            "pair": {"kind": pr["kind"], "rho": pr["rho"], "pair_correlation": ev.rho,
                     "description": ("z' = rho z + sqrt(1-rho^2) eta (OU, correlation rho)" if pr["kind"] == "ou"
                                     else "two noisy views rho z + sqrt(1-rho^2) eta_i (correlation rho^2)")},
            "threads": torch.get_num_threads()}
    state = training_state(step, seed, cfg, enc, opt, sched, curves, run_loss, n_acc, seconds, device)
    return TrainResult(enc, mix, final, curves, str(device), seconds, (step - start) / max(seconds - before, 1e-9),
                       info, state)
