"""``lejepa check`` rows: Theorem 4.3 (approximate identifiability) on trained encoders.

* Encoders trained on the spot (CPU-sized, a few seconds): a short LeJEPA (SIGReg) run on the 2-D
  spiral and one on an additive-coupling world (N = 4) with the matched encoder.
* Every checkpoint ``*.pt`` written by ``lejepa train`` under ``options['checkpoints']`` (every
  subdirectory, recursively: :func:`find_checkpoints`) whose latents are Gaussian (the theorem's
  hypothesis); others are counted and skipped. A file that does not load is its own failing row with
  the reason; a missing directory too (``lejepa check`` refuses one before any training, exit 2).
  On-the-spot encoders are evaluated on 5000 pairs (their margins are wide), checkpoints on
  ``checkpoint_pairs(n)`` (1M in 2-D; a near-linear encoder needs that many for a conclusive CI).
  ``options['log']`` (a ``str -> None`` callable, optional) is told when each training and each
  checkpoint starts and what it gave (``lejepa check`` prints these on stderr unless ``--quiet``).

For each encoder f with mixing g, the map h = f o g is evaluated on m fresh OU pairs
(z, z' = r z + sqrt(1 - r^2) eta, r the trained pair's correlation) and
:func:`pycheck.bounds.estimate_from_samples` gives bootstrap CIs (normal approximation,
value +- ``Z_SCORE`` = 3 standard errors, 200 resamples, fixed seed): a two-sided confidence level of
``CONFIDENCE`` = 2 Phi(3) - 1 = 99.73 %, so each one-sided limit used below holds at 99.87 %. Rows:

* ``err <= bound``: the recovery error E||h - Qz||^2 (Q the Procrustes rotation) against the corrected
  bound ||mu||^2 + D_tr + (eps + D_tr)^2, decided by the CI [lo, hi] of margin = bound - err
  (:func:`pycheck.report.ci_row`): PASS iff lo >= 0 (the bound holds with confidence, not only as a
  point comparison), FAIL iff hi < 0 (violated with confidence), UNDECIDED iff the CI straddles 0
  (inconclusive: more pairs would be needed; not a failure);
* ``delta_tr >= 0``: the trace gap is never negative in population; a consistency check: PASS iff its
  upper CI limit is >= 0 (the sample does not contradict the identity), FAIL iff it is < 0.
"""

from __future__ import annotations

import math
import os
import time
from typing import Any, Callable

from pycheck.report import CheckRow, ci_row

CLAIM = "Thm 4.3 (corrected) on trained encoder"
Z_SCORE = 3.0
"""Half-width of every bootstrap CI here, in standard errors (normal approximation)."""
CONFIDENCE = math.erf(Z_SCORE / math.sqrt(2.0))
"""Two-sided confidence level of value +- ``Z_SCORE`` se: 2 Phi(3) - 1 = 0.9973 (one-sided limits 0.99865)."""

Log = Callable[[str], None]


def checkpoint_pairs(n: int) -> int:
    """Fresh pairs for a checkpoint's rows: ``bootstrap_pairs(n, 1M)`` (1M in 2-D, about 5-12 s on this
    project's CPU; fewer in high dimension, where the bootstrap's cost grows like n^2). A well-trained
    encoder has a small margin and delta_tr's sampling noise dominates the bound's CI, hence so many."""
    from .metrics import bootstrap_pairs

    return bootstrap_pairs(n, 1_000_000)


def find_checkpoints(ckdir: str) -> list[str]:
    """Sorted paths of every ``*.pt`` file under ``ckdir``, in every subdirectory (recursive;
    ``lejepa train``'s resume files end in ``.resume.ckpt`` and its temporaries in ``.tmp``, so
    neither is taken)."""
    return sorted(os.path.join(d, f) for d, _, fs in os.walk(ckdir) for f in fs if f.endswith(".pt"))


def _rows_for(label: str, cfg: dict[str, Any], mix: Any, enc: Any, *, m: int = 5000, seed: int = 12345
              ) -> list[CheckRow]:
    import torch

    from pycheck.bounds import estimate_from_samples

    from .data import pair_correlation, sample_pair

    r = pair_correlation(cfg["pair"]["kind"], cfg["pair"]["rho"])
    state = torch.random.get_rng_state()
    try:
        torch.manual_seed(seed)
        z, z2 = sample_pair("gaussian", "ou", r, m, cfg["latent"]["dim"], device="cpu")
    finally:
        torch.random.set_rng_state(state)
    dev = next(iter(enc.parameters())).device
    with torch.no_grad():
        h = enc(mix(z.to(dev))).double().cpu().numpy()
        h2 = enc(mix(z2.to(dev))).double().cpu().numpy()
    est = estimate_from_samples(z.double().numpy(), h, h2, r, n_boot=200, z_score=Z_SCORE, seed=0)
    mg, dtr = est.margin, est.delta_tr
    note = (f"{label}: rho={r:g}, m={m}, bound={est.bound.value:.4g}, err={est.err.value:.4g}, "
            f"eps={est.eps.value:.3g}, D_tr={est.D_tr.value:.3g}; margin CI [{mg.lo:.3g}, {mg.hi:.3g}] "
            f"(bootstrap, {Z_SCORE:g} se, {CONFIDENCE:.2%} two-sided)")
    if mg.lo < 0 <= mg.hi:
        note += "; the CI straddles 0: inconclusive (neither shown nor refuted)"
    return [
        ci_row(CLAIM, f"{label}: err <= bound (CI of bound - err)", float(est.err.value),
               float(est.bound.value), float(mg.lo), float(mg.hi), "<= (CI)", note),
        CheckRow(CLAIM, f"{label}: delta_tr >= 0 (CI upper limit)", float(dtr.hi), 0.0, 0.0,
                 bool(math.isfinite(dtr.hi) and dtr.hi >= 0), ">= (CI)",
                 f"delta_tr = {dtr.value:.4g} +- {Z_SCORE:g} x {dtr.se:.2g}"),
    ]


ON_THE_SPOT = {
    "spiral2d": {"latent": {"dim": 2}, "mixing": {"kind": "spiral"},
                 "encoder": {"kind": "mlp", "width": 32, "depth": 3},
                 "loss": {"kind": "sigreg", "lam": 0.05, "slices": 32},
                 "train": {"steps": 200, "batch": 256, "lr": 3e-3, "constant_frac": 0.3},
                 "eval": {"size": 1000, "every": 100000}},
    "coupling4d_matched": {"latent": {"dim": 4}, "mixing": {"kind": "coupling", "layers": 2},
                           "encoder": {"kind": "matched"},
                           "loss": {"kind": "sigreg", "lam": 0.05, "slices": 32},
                           "train": {"steps": 100, "batch": 256, "lr": 1e-2, "constant_frac": 0.3},
                           "eval": {"size": 1000, "every": 100000}},
}


def _train_on_spot(name: str, log: Log | None = None) -> list[CheckRow]:
    import torch

    from .config import make_config
    from .engine import train

    over = dict(ON_THE_SPOT[name])
    over["runtime"] = {"device": "cpu", "threads": min(2, torch.get_num_threads()), "progress": False}
    cfg = make_config(over)
    if log is not None:
        log(f"training {name} on the spot ({cfg['train']['steps']} steps) ...")
    res = train(cfg, seed=0)
    return _rows_for(f"{name} trained {cfg['train']['steps']} steps", cfg, res.mixing, res.encoder)


def _fail_row(quantity: str, reason: str) -> CheckRow:
    return CheckRow(CLAIM, quantity, math.nan, math.nan, math.nan, False, "==", reason)


def _checkpoint_rows(ckdir: str, log: Log | None = None) -> list[CheckRow]:
    """Rows for every ``*.pt`` training checkpoint under ``ckdir`` (recursive, :func:`find_checkpoints`):
    two per checkpoint that loads, one failing row (naming the file and the reason) per checkpoint
    that does not, one failing row if ``ckdir`` is missing or holds no checkpoint. ``log`` is told
    the number of checkpoints, then each one's start and verdicts (with its seconds)."""
    from .commands import load_checkpoint, load_error
    from .metrics import MAX_BOOTSTRAP_DIM

    if not os.path.isdir(ckdir):
        return [_fail_row(f"checkpoints under {ckdir}", f"checkpoints directory {ckdir!r} does not exist "
                          "or is not a directory")]
    paths = find_checkpoints(ckdir)
    if not paths:
        return [CheckRow(CLAIM, f"checkpoints under {ckdir}", 0.0, 1.0, 0.0, False, ">=", "no *.pt checkpoint found")]
    out: list[CheckRow] = []
    skipped = []
    if log is not None:
        log(f"{len(paths)} checkpoint(s) under {ckdir} (all subdirectories); about 5-20 s each in 2-D")
    for i, p in enumerate(paths):
        rel = os.path.relpath(p, ckdir)
        t0 = time.perf_counter()
        if log is not None:
            log(f"checkpoint {i + 1}/{len(paths)} {rel} ...")
        got: list[CheckRow] = []
        try:
            cfg, mix, enc = load_checkpoint(p)
        except Exception as exc:  # noqa: BLE001 - a bad file is its own failing row
            got = [_fail_row(f"{rel}: could not be loaded", load_error(exc))]
        else:
            if cfg["latent"]["dist"] != "gaussian" or cfg["latent"]["dim"] > MAX_BOOTSTRAP_DIM:
                skipped.append(rel)
            else:
                try:
                    got = _rows_for(rel, cfg, mix, enc, m=checkpoint_pairs(cfg["latent"]["dim"]))
                except Exception as exc:  # noqa: BLE001
                    got = [_fail_row(f"{rel}: evaluation raised", f"{type(exc).__name__}: {exc}")]
        out.extend(got)
        if log is not None:
            verdicts = "/".join(r.verdict for r in got) if got else "skipped (non-Gaussian or too many dimensions)"
            log(f"checkpoint {i + 1}/{len(paths)} {rel}: {verdicts}, {time.perf_counter() - t0:.1f} s")
    if skipped:
        out.append(CheckRow(CLAIM, f"checkpoints skipped, non-Gaussian or n > {MAX_BOOTSTRAP_DIM} ({len(skipped)})", float(len(skipped)),
                            float(len(paths)), 0.0, True, "<=",
                            "the theorem needs Gaussian latents; latent.dim > "
                            f"{MAX_BOOTSTRAP_DIM} is also skipped (bootstrap cost): " + ", ".join(skipped[:5])))
    return out


def rows(**options: Any) -> list[CheckRow]:
    """Rows for the on-the-spot encoders and for every checkpoint under ``options['checkpoints']``;
    ``options['log']`` receives progress lines (module docstring)."""
    log = options.get("log")
    out: list[CheckRow] = []
    for name in ON_THE_SPOT:
        out.extend(_train_on_spot(name, log))
    if options.get("checkpoints") is not None:
        out.extend(_checkpoint_rows(options["checkpoints"], log))
    return out
