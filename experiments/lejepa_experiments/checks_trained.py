"""``lejepa check`` rows: Theorem 4.3 (approximate identifiability) on trained encoders.

* Encoders trained on the spot (CPU-sized, a few seconds): a short LeJEPA (SIGReg) run on the 2-D
  spiral and one on an additive-coupling world (N = 4) with the matched encoder.
* Every checkpoint ``*.pt`` written by ``lejepa train`` under ``options['checkpoints']`` (recursive)
  whose latents are Gaussian (the theorem's hypothesis); others are counted and skipped. A file
  that does not load, or a missing directory, is its own failing row with the reason.
  On-the-spot encoders are evaluated on 5000 pairs (their margins are wide), checkpoints on
  ``checkpoint_pairs(n)`` (1M in 2-D; a near-linear encoder needs that many for a conclusive CI).
  A CI that straddles 0 ('inconclusive') fails the row: the bound is not shown to hold.

For each encoder f with mixing g, the map h = f o g is evaluated on m fresh OU pairs
(z, z' = r z + sqrt(1 - r^2) eta, r the trained pair's correlation) and
:func:`pycheck.bounds.estimate_from_samples` gives bootstrap CIs (normal approximation,
``z_score`` 3, 200 resamples, fixed seed). Rows:

* ``err <= bound``: the recovery error E||h - Qz||^2 (Q the Procrustes rotation) against the corrected
  bound ||mu||^2 + D_tr + (eps + D_tr)^2; passes iff the lower CI limit of ``bound - err`` is >= 0
  (the bound holds with confidence, not only as a point comparison);
* ``delta_tr >= 0``: the trace gap is never negative in population; passes iff its upper CI limit is >= 0.
"""

from __future__ import annotations

import math
import os
from typing import Any

from pycheck.report import CheckRow

CLAIM = "Thm 4.3 (corrected) on trained encoder"
# A well-trained encoder has a small margin and delta_tr's sampling noise dominates the bound's CI:
# checkpoints are evaluated on bootstrap_pairs(n, 1M) pairs (1M in 2-D: about 5-12 s on this CPU;
# fewer in high dimension, where the bootstrap's cost grows like n^2).


def checkpoint_pairs(n: int) -> int:
    from .metrics import bootstrap_pairs

    return bootstrap_pairs(n, 1_000_000)
Z_SCORE = 3.0


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
            f"(bootstrap, {Z_SCORE:g} se)")
    return [
        CheckRow(CLAIM, f"{label}: err <= bound (CI lower limit of bound - err)", float(est.err.value),
                 float(est.bound.value), 0.0, bool(math.isfinite(mg.lo) and mg.lo >= 0), "<= (CI)", note),
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


def _train_on_spot(name: str) -> list[CheckRow]:
    import torch

    from .config import make_config
    from .engine import train

    over = dict(ON_THE_SPOT[name])
    over["runtime"] = {"device": "cpu", "threads": min(2, torch.get_num_threads()), "progress": False}
    cfg = make_config(over)
    res = train(cfg, seed=0)
    return _rows_for(f"{name} trained {cfg['train']['steps']} steps", cfg, res.mixing, res.encoder)


def _fail_row(quantity: str, reason: str) -> CheckRow:
    return CheckRow(CLAIM, quantity, math.nan, math.nan, math.nan, False, "==", reason)


def _checkpoint_rows(ckdir: str) -> list[CheckRow]:
    """Rows for every ``*.pt`` training checkpoint under ``ckdir`` (recursive): two per checkpoint
    that loads, one failing row (naming the file and the reason) per checkpoint that does not,
    one failing row if ``ckdir`` is missing or holds no checkpoint."""
    from .commands import load_checkpoint, load_error
    from .metrics import MAX_BOOTSTRAP_DIM

    if not os.path.isdir(ckdir):
        return [_fail_row(f"checkpoints under {ckdir}", f"checkpoints directory {ckdir!r} does not exist "
                          "or is not a directory")]
    paths = sorted(os.path.join(d, f) for d, _, fs in os.walk(ckdir) for f in fs if f.endswith(".pt"))
    if not paths:
        return [CheckRow(CLAIM, f"checkpoints under {ckdir}", 0.0, 1.0, 0.0, False, ">=", "no *.pt checkpoint found")]
    out: list[CheckRow] = []
    skipped = []
    for p in paths:
        rel = os.path.relpath(p, ckdir)
        try:
            cfg, mix, enc = load_checkpoint(p)
        except Exception as exc:  # noqa: BLE001 - a bad file is its own failing row
            out.append(_fail_row(f"{rel}: could not be loaded", load_error(exc)))
            continue
        if cfg["latent"]["dist"] != "gaussian" or cfg["latent"]["dim"] > MAX_BOOTSTRAP_DIM:
            skipped.append(rel)
            continue
        try:
            out.extend(_rows_for(rel, cfg, mix, enc, m=checkpoint_pairs(cfg["latent"]["dim"])))
        except Exception as exc:  # noqa: BLE001
            out.append(_fail_row(f"{rel}: evaluation raised", f"{type(exc).__name__}: {exc}"))
    if skipped:
        out.append(CheckRow(CLAIM, f"checkpoints skipped, non-Gaussian or n > {MAX_BOOTSTRAP_DIM} ({len(skipped)})", float(len(skipped)),
                            float(len(paths)), 0.0, True, "<=",
                            "the theorem needs Gaussian latents; latent.dim > "
                            f"{MAX_BOOTSTRAP_DIM} is also skipped (bootstrap cost): " + ", ".join(skipped[:5])))
    return out


def rows(**options: Any) -> list[CheckRow]:
    """Rows for the on-the-spot encoders and for every checkpoint under ``options['checkpoints']``."""
    out: list[CheckRow] = []
    for name in ON_THE_SPOT:
        out.extend(_train_on_spot(name))
    if options.get("checkpoints") is not None:
        out.extend(_checkpoint_rows(options["checkpoints"]))
    return out
