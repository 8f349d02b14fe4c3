"""The ``lejepa train`` subcommand (listed in :data:`lejepa_experiments.cli.SUBCOMMANDS`).

``lejepa train --config FILE --run NAME --seed S --out DIR [--preset P] [--set section.key=value ...]
[--overwrite] [--resume]`` trains one encoder and writes:

* ``DIR/NAME.json``: ``status: "ok"``, run name, seed, the full resolved config, final metrics
  (evaluation set), ``bound_check`` (Theorem 4.3 with bootstrap CIs on 100k fresh pairs,
  :func:`.engine.final_bound_check`), learning curves, pair structure, versions, device, thread
  count, seconds and steps per second;
* ``DIR/NAME.pt``: checkpoint (config, seed, encoder and mixing state dicts, final metrics),
  loadable with :func:`load_checkpoint`.

Results on disk (the invariant every reader may rely on):

* ``NAME.json`` with status ``ok`` exists only when its ``NAME.pt`` is complete: both are first
  written to temporary files in DIR (mode ``0o666 & ~umask``), then an old ``NAME.json`` is
  removed, ``NAME.pt`` renamed into place, and ``NAME.json`` last. A ``NAME.pt`` without its
  ``NAME.json`` is therefore an unfinished write: it counts as not done and is replaced.
* A training whose loss becomes non-finite writes ``NAME.json`` with ``status: "failed"``, the
  ``step`` and the ``reason`` (and no ``NAME.pt``), prints one line and exits with status 1.
* DIR is created and a probe file written (and removed) before training starts, so an unwritable
  or full DIR is an error before any time is spent.
* An existing ``NAME.json`` (a result or a failure record) is refused unless ``--overwrite``.
* With ``train.checkpoint_every = K > 0`` the full training state is written every K steps to
  ``DIR/NAME.resume.ckpt`` (atomically); ``--resume`` continues from it (same config and seed
  required), with results equal bit for bit to an uninterrupted run. It is removed once the result
  pair is written. A run with a resume checkpoint is refused without ``--resume`` or ``--overwrite``.

An interrupted run leaves no half-written file (the temporary files are removed on error).
Torch is imported only when the command runs.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import shutil
import socket
import sys
import tempfile
import time
from typing import IO, Any, Callable, Iterator

RESUME_SUFFIX = ".resume.ckpt"
"""Suffix of the periodic resume checkpoint beside a run's result pair (not ``.pt``, so that
``lejepa check --checkpoints`` does not take it for a finished encoder)."""

MIN_FREE_BYTES = 1 << 20
"""Free space the output directory must have before a training starts."""


class TrainingFailed(RuntimeError):
    """A training ended without a result (non-finite loss); ``record`` is the failure record written."""

    def __init__(self, message: str, record: dict[str, Any]):
        super().__init__(message)
        self.record = record


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
    p.add_argument("--overwrite", action="store_true", help="replace an existing result of this --run")
    p.add_argument("--resume", action="store_true",
                   help="continue an interrupted run from DIR/NAME.resume.ckpt (needs train.checkpoint_every > 0)")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _write_temp(path: str, write: Callable[[Any], None], binary: bool = False) -> str:
    """Write a temporary file beside ``path`` (mode ``0o666 & ~umask``, fsynced); return its path."""
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_umask())      # mkstemp creates 0600
        f: IO[Any] = os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8")
        with f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return tmp


def atomic_write(path: str, write: Callable[[Any], None], binary: bool = False) -> None:
    """Write ``path`` through a temporary file in the same directory, then ``os.replace``."""
    tmp = _write_temp(path, write, binary)
    try:
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_result_pair(base: str, ckpt: dict[str, Any], result: dict[str, Any]) -> None:
    """Write ``base.pt`` and ``base.json`` so that neither is left alone (module docstring): both to
    temporaries, remove an old ``base.json``, rename ``.pt``, then ``.json``; on any error nothing
    new is left (a renamed ``.pt`` is removed again)."""
    import torch

    tmps: list[str] = []
    pt_done = False
    try:
        tmps.append(_write_temp(base + ".pt", lambda f: torch.save(ckpt, f), binary=True))
        tmps.append(_write_temp(base + ".json", lambda f: json.dump(result, f, indent=2, sort_keys=False)))
        if os.path.exists(base + ".json"):
            os.unlink(base + ".json")
        os.replace(tmps[0], base + ".pt")
        pt_done = True
        os.replace(tmps[1], base + ".json")
    except BaseException:
        for t in tmps:
            if os.path.exists(t):
                os.unlink(t)
        if pt_done and not os.path.exists(base + ".json") and os.path.exists(base + ".pt"):
            os.unlink(base + ".pt")
        raise


def _check_name(name: str) -> str:
    from .config import is_safe_name

    if not is_safe_name(name):
        raise ValueError(f"--run must be a non-empty file-name-safe name, got {name!r}")
    return name


def check_out_dir(out: str, need_bytes: int = 0, *, create: bool = True, what: str | None = None) -> None:
    """Create ``out`` (unless ``create`` is False: then a missing ``out`` is an error) and prove it
    writable (a probe file written, fsynced, removed) with at least ``need_bytes + MIN_FREE_BYTES``
    free; else ``ValueError`` naming ``what`` (default ``--out 'out'``) and the reason."""
    what = f"--out {out!r}" if what is None else what
    if os.path.exists(out) and not os.path.isdir(out):
        raise ValueError(f"{what} exists and is not a directory")
    if not create and not os.path.isdir(out):
        raise ValueError(f"{what} does not exist")
    try:
        os.makedirs(out, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=out, prefix=".write-probe.", suffix=".tmp")
        try:
            os.write(fd, b"lejepa write probe\n")
            os.fsync(fd)
        finally:
            os.close(fd)
            os.unlink(probe)
        free = shutil.disk_usage(out).free
    except OSError as exc:
        raise ValueError(f"{what} is not writable: {exc.strerror or exc}") from None
    if free < need_bytes + MIN_FREE_BYTES:
        raise ValueError(f"{what} has only {free} bytes free (need at least {need_bytes + MIN_FREE_BYTES})")


def check_out_file(path: str, flag: str = "--out") -> None:
    """Before the work: ``path`` can be written as a file by :func:`atomic_write`, i.e. it is not a
    directory and its parent directory exists and is writable (:func:`check_out_dir` with
    ``create=False``: a missing parent is an error, not created); else ``ValueError`` naming it."""
    if os.path.isdir(path):
        raise ValueError(f"{flag} {path!r} is a directory; give a file name")
    parent = os.path.dirname(os.path.abspath(path))
    check_out_dir(parent, create=False, what=f"{flag} {path!r}: its directory {parent!r}")


def _bytes_needed(cfg: dict[str, Any]) -> int:
    """Rough size of what a run writes: the weights (the ``.pt``, and the temporary copy while the old one is
    replaced), plus weights and the two AdamW moments for a resume checkpoint."""
    import torch

    from .engine import build

    with torch.random.fork_rng(devices=[]):   # building initialises on the CPU RNG: leave no trace
        mix, enc = build(cfg, torch.device("meta"))
    weights = sum(t.numel() * t.element_size() for t in (*enc.state_dict().values(), *mix.state_dict().values()))
    return 2 * weights + (3 * weights if cfg["train"]["checkpoint_every"] else 0)


def run_training(config: str, run: str, seed: int, out: str, *, preset: str | None = None,
                 overrides: list[str] | None = None, progress: bool | None = None,
                 time_limit_s: float | None = None, overwrite: bool = False,
                 resume: bool = False) -> dict[str, Any]:
    """:func:`_run_training` holding the lock ``out/.run.lock``, so that two ``lejepa train`` with the
    same ``--out`` and ``--run`` started together cannot both pass the "no result yet" check and
    then overwrite each other: the second is refused, naming the holder."""
    _check_name(run)
    with contextlib.suppress(OSError):   # else _run_training names the reason (check_out_dir)
        os.makedirs(out, exist_ok=True)
    if not os.path.isdir(out):
        return _run_training(config, run, seed, out, preset=preset, overrides=overrides, progress=progress,
                             time_limit_s=time_limit_s, overwrite=overwrite, resume=resume)
    path = os.path.join(out, f".{run}.lock")
    with exclusive_lock(path, lambda holder: (
            f"--run {run!r} in {out!r} is being trained by another lejepa process ({holder}; lock file "
            f"{path!r}); wait for it to finish or choose another --run"), what="the run lock"):
        return _run_training(config, run, seed, out, preset=preset, overrides=overrides, progress=progress,
                             time_limit_s=time_limit_s, overwrite=overwrite, resume=resume)


def _run_training(config: str, run: str, seed: int, out: str, *, preset: str | None = None,
                  overrides: list[str] | None = None, progress: bool | None = None,
                  time_limit_s: float | None = None, overwrite: bool = False,
                  resume: bool = False) -> dict[str, Any]:
    """Validate, train, write ``out/run.json`` and ``out/run.pt``; return the result dict.

    Raises ``ValueError`` for bad input, an unwritable ``out``, an existing result without
    ``overwrite``, or a missing/mismatched resume checkpoint; :class:`TrainingFailed` (after
    writing the failure record) when the loss becomes non-finite.
    """
    import torch

    from .config import load_config
    from .engine import NonFiniteLoss, final_bound_check, same_run_config, train, versions

    _check_name(run)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"--seed must be an integer >= 0, got {seed!r}")
    if time_limit_s is not None and not (time_limit_s > 0):
        raise ValueError(f"--time-limit must be > 0 seconds, got {time_limit_s!r}")
    cfg = load_config(config, preset, overrides)
    cfg["name"] = run
    base = os.path.join(out, run)
    json_path, pt_path, ck_path = base + ".json", base + ".pt", base + RESUME_SUFFIX
    if os.path.exists(json_path) and not overwrite:
        raise ValueError(f"--run {run!r} already has a result (or failure record) in {json_path!r}; pass "
                         "--overwrite to replace it or choose another --run")
    state = None
    if resume and not overwrite:
        if not os.path.exists(ck_path):
            raise ValueError(f"--resume: no resume checkpoint {ck_path!r} (a run writes one every "
                             "train.checkpoint_every steps when that is > 0)")
        try:
            state = torch.load(ck_path, map_location="cpu", weights_only=True)
        except Exception as exc:  # truncated or foreign file
            raise ValueError(f"--resume: {ck_path!r} is corrupt ({load_error(exc)}); remove it to start over") \
                from None
        if not isinstance(state, dict) or state.get("format") != "lejepa-resume-1" or state.get("seed") != seed \
                or not same_run_config(state.get("config", {}), cfg):
            raise ValueError(f"--resume: {ck_path!r} holds a run with another config or seed; resume with the "
                             "same config, preset, --set and --seed, or pass --overwrite to start over")
    elif os.path.exists(ck_path) and not overwrite:
        raise ValueError(f"--run {run!r} has an interrupted run ({ck_path!r}); pass --resume to continue it "
                         "or --overwrite to start over")
    check_out_dir(out, _bytes_needed(cfg))
    if overwrite and os.path.exists(ck_path):   # starting over: an old interrupted state must not be resumed later
        os.unlink(ck_path)

    def save_state(st: dict[str, Any]) -> None:
        try:
            atomic_write(ck_path, lambda f: torch.save(st, f), binary=True)
        except (OSError, RuntimeError) as exc:   # torch.save reports a failed write as RuntimeError
            raise ValueError(f"could not write the resume checkpoint {ck_path!r} at step {st['step']}: "
                             f"{getattr(exc, 'strerror', None) or exc}") from None

    record = {"run": run, "seed": seed, "config_file": os.path.abspath(config), "preset": preset,
              "overrides": list(overrides or []), "config": cfg, "time_limit_s": time_limit_s}
    try:
        res = train(cfg, seed, progress=progress, time_limit_s=time_limit_s,
                    checkpoint=save_state if cfg["train"]["checkpoint_every"] else None, resume=state)
    except NonFiniteLoss as exc:
        fail = dict(record, status="failed", step=exc.step, reason=str(exc), versions=versions(),
                    threads=torch.get_num_threads())
        for p in (pt_path, ck_path):   # a failure record has no checkpoint beside it
            if os.path.exists(p):
                os.unlink(p)
        try:
            atomic_write(json_path, lambda f: json.dump(fail, f, indent=2))
        except OSError as werr:
            raise ValueError(f"run {run!r} failed ({exc}) and its failure record could not be written to "
                             f"{json_path!r}: {werr.strerror or werr}") from None
        raise TrainingFailed(f"run {run!r} failed: {exc}; recorded in {json_path}", fail) from None
    check = final_bound_check(res.encoder, res.mixing, cfg, seed)
    result = dict(record, status="ok", **{
        "pair": res.info["pair"],
        "metrics": res.metrics, "bound_check": check, "curves": res.curves, "versions": versions(), "device": res.device,
        "threads": res.info["threads"], "seconds": res.seconds, "steps_per_second": res.steps_per_second,
        "steps_done": res.info["steps_done"], "stopped_early": res.info["stopped_early"],
        "resumed_from_step": None if state is None else int(state["step"]),
    })
    ckpt = {"config": cfg, "seed": seed, "encoder": res.encoder.state_dict(), "mixing": res.mixing.state_dict(),
            "metrics": res.metrics, "format": "lejepa-checkpoint-1"}
    try:
        write_result_pair(base, ckpt, result)
    except (OSError, RuntimeError) as exc:   # torch.save reports a failed write as RuntimeError
        raise ValueError(f"could not write the results of run {run!r} to {out!r}: "
                         f"{getattr(exc, 'strerror', None) or exc}") from None
    if os.path.exists(ck_path):
        os.unlink(ck_path)
    return result


@contextlib.contextmanager
def exclusive_lock(path: str, busy: Callable[[str], str], what: str = "the lock file") -> Iterator[None]:
    """Hold an exclusive ``fcntl.flock`` on the file ``path`` (non-blocking); ``ValueError(busy(holder))``
    if another process (or another holder in this one) has it, ``holder`` being the pid, host and start
    time written in the file. The file is removed on release; a contender that locked a file removed
    meanwhile retries on the new one. Used for a sweep directory and for one ``lejepa train --run``."""
    import fcntl

    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as exc:   # the sweep directory exists but cannot be written
            raise ValueError(f"--out: cannot write {what} {path!r}: {exc.strerror or exc}; the "
                             "directory must be writable") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                os.close(fd)
                raise
            try:
                holder = os.read(fd, 4096).decode("utf-8", "replace").strip()
            finally:
                os.close(fd)
            raise ValueError(busy(holder or "holder not yet recorded")) from None
        try:
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)   # the previous holder removed the file between our open and flock
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"pid {os.getpid()} on host {socket.gethostname()} since "
                     f"{time.strftime('%Y-%m-%d %H:%M:%S %z')}\n".encode())
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)
        os.close(fd)


def load_error(exc: BaseException) -> str:
    """One line saying why ``torch.load`` failed. Torch's own message for a file that is not a
    checkpoint is a multi-line advice to retry with ``weights_only=False`` (unsafe, and wrong here:
    the file is damaged or foreign), so that case reads "not a PyTorch checkpoint"."""
    text = str(exc)
    if "Weights only load failed" in text or "invalid load key" in text or "failed finding central directory" in text:
        return "not a PyTorch checkpoint (truncated, damaged or another kind of file)"
    first = text.strip().splitlines()[0] if text.strip() else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


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
                           time_limit_s=args.time_limit, overwrite=args.overwrite, resume=args.resume)
    except ValueError as exc:
        print(f"lejepa train: error: {exc}", file=sys.stderr)
        return 2
    except TrainingFailed as exc:
        print(f"lejepa train: {exc}", file=sys.stderr)
        return 1
    m, bc = res["metrics"], res["bound_check"]
    thm = (f"Theorem 4.3: {bc['skipped']}" if "skipped" in bc else
           f"Theorem 4.3 on {bc['m']} fresh pairs: err = {bc['err']['value']:.4g}, bound = {bc['bound']['value']:.4g}, "
           f"margin CI [{bc['margin']['lo']:.3g}, {bc['margin']['hi']:.3g}] -> {bc['verdict']}")
    print(f"{args.run}: {res['steps_done']} steps in {res['seconds']:.1f} s on {res['device']} "
          f"({res['threads']} threads); R2(h->z) = {m['r2_h_to_z']:.6f}, eps = {m['epsilon']:.4g}, "
          f"delta_tr = {m['delta_tr']:.4g}; {thm}; wrote {os.path.join(args.out, args.run)}.json/.pt")
    return 0
