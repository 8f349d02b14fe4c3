"""The ``lejepa train`` subcommand (registered into :data:`lejepa_experiments.cli.SUBCOMMANDS`).

``lejepa train --config FILE --run NAME --seed S --out DIR [--preset P] [--set section.key=value ...]``
trains one encoder and writes, atomically (temporary file in DIR, then ``os.replace``):

* ``DIR/NAME.json``: run name, seed, the full resolved config, final metrics (evaluation set),
  ``bound_check`` (Theorem 3 with bootstrap CIs on 100k fresh pairs, :func:`.engine.final_bound_check`),
  learning curves, pair structure, versions, device, thread count, seconds and steps per second;
* ``DIR/NAME.pt``: checkpoint (config, seed, encoder and mixing state dicts, final metrics),
  loadable with :func:`load_checkpoint`.

An interrupted run leaves no half-written file (the temporary files are removed on error).
Torch is imported only when the command runs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from typing import Any, Callable

from .cli import SUBCOMMANDS


def _train_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", required=True, metavar="FILE", help="YAML or JSON experiment config")
    p.add_argument("--run", required=True, metavar="NAME", help="run name (output file stem)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (>= 0)")
    p.add_argument("--out", required=True, metavar="DIR", help="output directory (created if missing)")
    p.add_argument("--preset", default=None, metavar="P", help="apply the config's preset P (e.g. cpu)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="overrides",
                   help="override one config key, e.g. --set train.steps=500 (repeatable)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--time-limit", type=float, default=None, metavar="SEC",
                   help="stop after this many seconds of training (recorded in the result)")


def atomic_write(path: str, write: Callable[[Any], None], binary: bool = False) -> None:
    """Write ``path`` through a temporary file in the same directory, then ``os.replace``."""
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})) as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _check_name(name: str) -> str:
    from .config import is_safe_name

    if not is_safe_name(name):
        raise ValueError(f"--run must be a non-empty file-name-safe name, got {name!r}")
    return name


def run_training(config: str, run: str, seed: int, out: str, *, preset: str | None = None,
                 overrides: list[str] | None = None, progress: bool | None = None,
                 time_limit_s: float | None = None) -> dict[str, Any]:
    """Validate, train, write ``out/run.json`` and ``out/run.pt``; return the result dict."""
    import torch

    from .config import load_config
    from .engine import final_bound_check, train, versions

    _check_name(run)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"--seed must be an integer >= 0, got {seed!r}")
    if time_limit_s is not None and not (time_limit_s > 0):
        raise ValueError(f"--time-limit must be > 0 seconds, got {time_limit_s!r}")
    cfg = load_config(config, preset, overrides)
    cfg["name"] = run
    if os.path.exists(out) and not os.path.isdir(out):
        raise ValueError(f"--out {out!r} exists and is not a directory")
    os.makedirs(out, exist_ok=True)
    res = train(cfg, seed, progress=progress, time_limit_s=time_limit_s)
    check = final_bound_check(res.encoder, res.mixing, cfg, seed)
    result = {
        "run": run, "seed": seed, "config_file": os.path.abspath(config), "preset": preset,
        "overrides": list(overrides or []), "config": cfg, "pair": res.info["pair"],
        "metrics": res.metrics, "bound_check": check, "curves": res.curves, "versions": versions(), "device": res.device,
        "threads": res.info["threads"], "seconds": res.seconds, "steps_per_second": res.steps_per_second,
        "steps_done": res.info["steps_done"], "stopped_early": res.info["stopped_early"],
        "time_limit_s": time_limit_s,
    }
    ckpt = {"config": cfg, "seed": seed, "encoder": res.encoder.state_dict(), "mixing": res.mixing.state_dict(),
            "metrics": res.metrics, "format": "lejepa-checkpoint-1"}
    base = os.path.join(out, run)
    atomic_write(base + ".pt", lambda f: torch.save(ckpt, f), binary=True)
    atomic_write(base + ".json", lambda f: json.dump(result, f, indent=2, sort_keys=False))
    return result


def load_checkpoint(path: str, device: str = "cpu") -> tuple[dict[str, Any], Any, Any]:
    """``(config, mixing, encoder)`` rebuilt from a checkpoint written by ``lejepa train``."""
    import torch

    from .config import validate
    from .engine import build

    ck = torch.load(path, map_location=device, weights_only=True)
    if not isinstance(ck, dict) or ck.get("format") != "lejepa-checkpoint-1":
        raise ValueError(f"{path!r} is not a lejepa training checkpoint")
    cfg = validate(ck["config"])
    mix, enc = build(cfg, torch.device(device))
    enc.load_state_dict(ck["encoder"])
    mix.load_state_dict(ck["mixing"])
    enc.eval()
    return cfg, mix, enc


def _train_run(args: argparse.Namespace) -> int:
    try:
        res = run_training(args.config, args.run, args.seed, args.out, preset=args.preset,
                           overrides=args.overrides, progress=False if args.no_progress else None,
                           time_limit_s=args.time_limit)
    except ValueError as exc:
        print(f"lejepa train: error: {exc}", file=sys.stderr)
        return 2
    m, bc = res["metrics"], res["bound_check"]
    thm = (f"Theorem 3: {bc['skipped']}" if "skipped" in bc else
           f"Theorem 3 on {bc['m']} fresh pairs: err = {bc['err']['value']:.4g}, bound = {bc['bound']['value']:.4g}, "
           f"margin CI [{bc['margin']['lo']:.3g}, {bc['margin']['hi']:.3g}] -> {bc['verdict']}")
    print(f"{args.run}: {res['steps_done']} steps in {res['seconds']:.1f} s on {res['device']} "
          f"({res['threads']} threads); R2(h->z) = {m['r2_h_to_z']:.6f}, eps = {m['epsilon']:.4g}, "
          f"delta_tr = {m['delta_tr']:.4g}; {thm}; wrote {os.path.join(args.out, args.run)}.json/.pt")
    return 0


SUBCOMMANDS["train"] = ("train one encoder from a config file (needs the train extra)", _train_args, _train_run)


from . import planning as _planning  # noqa: E402,F401  (registers ``lejepa plan``)
from . import sweep as _sweep  # noqa: E402,F401  (registers ``lejepa sweep``; it imports this module)


def _reproduce_args(p: argparse.ArgumentParser) -> None:
    from .reproduce import _reproduce_args as add

    add(p)


def _reproduce_run(args: argparse.Namespace) -> int:
    from .reproduce import _reproduce_run as run

    return run(args)


SUBCOMMANDS["reproduce"] = ("run the paper's sweeps (quick or full preset), then the report",
                            _reproduce_args, _reproduce_run)
