"""The ``lejepa sweep`` subcommand: a grid of trainings, resumable, with a summary table.

``lejepa sweep --config FILE --name NAME --out DIR --grid KEY=V1,V2,... [--grid ...] [--seeds S ...]
[--preset P] [--set KEY=VALUE ...] [--time-limit SEC]``

runs :func:`lejepa_experiments.commands.run_training` for every point of the Cartesian product of
the ``--grid`` values and every seed. Each run writes ``DIR/NAME/<run>.json`` and ``.pt`` atomically,
with ``<run>`` made of the grid values and the seed (``lam=0.01_rho=0.8_s0``). Before the first and
after each run the summary ``DIR/NAME/summary.json`` and ``summary.csv`` (one row per finished run: grid values, seed,
R² both ways, orthogonality error, ε, the alignment loss (for best-of-seeds selection without ground
truth), δ_tr, D_tr, the corrected bound, the paper-form bound, the
recovery error, all on the evaluation set; then the recovery error, corrected bound, margin and the
margin's lower confidence limit from the final bootstrap check on fresh pairs, its verdict, seconds)
are rebuilt from the verified result files in ``DIR/NAME`` (:func:`verified_rows`) and rewritten
atomically when they differ: a summary is a cache, checked and repaired, never trusted; ``lejepa
report`` and ``lejepa reproduce`` rebuild it the same way. A verified result in the folder that the
current grid does not name (a grid shrunk since) keeps its row, after the grid's runs.

Resuming: a run whose JSON already exists with the same resolved config and seed is not trained
again, so an interrupted sweep loses no finished run (a run that a ``--time-limit`` stopped early
is kept only when the sweep is resumed with the same limit); one that exists with a different
config is an error naming the file (a changed sweep must get a new name). Every grid point is
validated before the first training starts. Before anything trains, every existing result is
verified: the JSON must be a complete run record (``run``, ``seed``, ``config``, ``metrics``) and
its ``.pt`` must load as a checkpoint of the same config and seed; a file that fails is named as
corrupt (remove it, and its partner, to retrain). A ``.pt`` without its ``.json`` is an unfinished
write (see :mod:`.commands`) and is trained again. A run interrupted with a resume checkpoint
(``train.checkpoint_every``) continues from it.

Failures: a run whose loss becomes non-finite is recorded (``<run>.json`` with ``status: "failed"``,
step, reason), logged in one line, and the sweep goes on; the failures are listed at the end (exit
status 1). A rerun skips recorded failures unless ``--retry-failed``.

Signals: SIGTERM and SIGHUP end the sweep as Ctrl-C does (lock released, exit status 128 + signal;
finished runs kept).

Concurrency: the sweep holds an exclusive ``fcntl`` lock on ``DIR/NAME/.lock`` (holder pid, host and
start time written inside) from the check of existing results to the end; a second sweep of the
same ``--name`` refuses at once with the holder named. The lock file is removed on exit.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import itertools
import json
import os
import sys
from typing import Any, Callable, Iterator

from .commands import RESUME_SUFFIX, TrainingFailed, atomic_write, exclusive_lock, load_error, run_training
from ._checks import is_safe_name

MAX_NAME_BYTES = 200
"""Longest run name (file names get ``.json``/``.pt`` and temporary-file affixes; the limit is 255)."""

RESERVED_COLUMNS = {"seed", "run", "verdict", "steps_done", "stopped_early", "seconds", "check_err", "check_bound",
                    "check_margin", "check_margin_lo"}

SUMMARY_FIELDS = ("r2_h_to_z", "r2_z_to_h", "orthogonality", "epsilon", "align", "delta_tr", "D_tr", "bound",
                  "bound_paper", "recovery_error", "heldout_objective")
RESERVED_COLUMNS |= set(SUMMARY_FIELDS)


def parse_grid(items: list[str]) -> list[tuple[str, list[str]]]:
    """``["loss.lam=0.01,0.1", ...]`` -> ``[("loss.lam", ["0.01", "0.1"]), ...]`` (values kept as text,
    parsed later as YAML like ``--set``); rejects empty, duplicate or malformed entries."""
    grid: list[tuple[str, list[str]]] = []
    for item in items:
        if "=" not in item:
            raise ValueError(f"--grid {item!r} must look like section.key=v1,v2,...")
        key, vals = item.split("=", 1)
        key = key.strip()
        values = [v.strip() for v in vals.split(",")]
        if not key or any(not v for v in values):
            raise ValueError(f"--grid {item!r} has an empty key or value")
        if key in (k for k, _ in grid):
            raise ValueError(f"--grid key {key!r} given twice")
        if len(set(values)) != len(values):
            raise ValueError(f"--grid {item!r} repeats a value")
        grid.append((key, values))
    if not grid:
        raise ValueError("give at least one --grid KEY=V1,V2,...")
    return grid


def _short(key: str) -> str:
    return key.rsplit(".", 1)[-1]


def run_name(point: dict[str, str], seed: int) -> str:
    """File-safe run name from a grid point and a seed, e.g. ``lam=0.01_rho=0.8_s0``."""
    parts = [f"{_short(k)}={v}" for k, v in point.items()]
    name = "_".join(parts + [f"s{seed}"])
    return "".join(c if (c.isalnum() or c in "=._-+") else "-" for c in name)


def plan(config: str, grid: list[tuple[str, list[str]]], seeds: list[int], preset: str | None,
         overrides: list[str]) -> list[tuple[str, dict[str, str], int, list[str], dict[str, Any]]]:
    """Every run of the sweep as ``(name, point, seed, overrides, resolved config)``; validates all."""
    from .config import load_config

    if not seeds:
        raise ValueError("--seeds must name at least one seed")
    for s in seeds:
        if isinstance(s, bool) or not isinstance(s, int) or s < 0:
            raise ValueError(f"--seeds must be integers >= 0, got {s!r}")
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"--seeds repeats a seed: {seeds}")
    shorts = [_short(k) for k, _ in grid]
    if len(set(shorts)) != len(shorts):
        raise ValueError(f"--grid keys must differ in their last part (used in run names), got {shorts}")
    set_keys = {o.split("=", 1)[0].strip() for o in overrides}
    both = sorted(set_keys & {k for k, _ in grid})
    if both:
        raise ValueError(f"key(s) {both} given both as --set and as --grid; keep one")
    clash = sorted(set(shorts) & RESERVED_COLUMNS)
    if clash:
        raise ValueError(f"--grid key(s) ending in {clash} would clash with summary columns of the same "
                         "name; sweep that setting with separate --name runs instead")
    runs = []
    keys = [k for k, _ in grid]
    for values in itertools.product(*(v for _, v in grid)):
        point = dict(zip(keys, values))
        ov = list(overrides) + [f"{k}={v}" for k, v in point.items()]
        try:
            cfg = load_config(config, preset, ov)
        except ValueError as exc:
            raise ValueError(f"grid point {point}: {exc}") from None
        for seed in seeds:
            runs.append((run_name(point, seed), point, seed, ov, cfg))
    names = [r[0] for r in runs]
    if len(set(names)) != len(names):
        raise ValueError("two grid points give the same run name; use values that differ as text")
    long = [n for n in names if len(n.encode()) > MAX_NAME_BYTES]
    if long:
        raise ValueError(f"run name {long[0]!r} is longer than {MAX_NAME_BYTES} bytes; use shorter values")
    return runs


LOCK_NAME = ".lock"


@contextlib.contextmanager
def sweep_lock(out_dir: str) -> Iterator[None]:
    """Hold an exclusive ``fcntl.flock`` on ``out_dir/.lock`` (non-blocking); ``ValueError`` naming the
    holder (pid, host, start time as written in the file) if another process holds it. The file is
    removed on release; a contender that locked a file removed meanwhile retries on the new one."""
    path = os.path.join(out_dir, LOCK_NAME)
    with exclusive_lock(path, lambda holder: (
            f"sweep directory {out_dir!r} is in use by another lejepa sweep ({holder}; lock file {path!r}); "
            "wait for it to finish or give this sweep another --name"), what="the sweep lock"):
        yield


def _corrupt(path: str, why: str, partner: str) -> ValueError:
    return ValueError(f"{path!r} is corrupt ({why}); remove it and {os.path.basename(partner)!r} to retrain that run")


def _load_result(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as f:
            res = json.load(f)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path!r} could not be read as a run result ({exc}); remove it to retrain") from None
    if not isinstance(res, dict):
        raise ValueError(f"{path!r} is not a run result; remove it to retrain")
    return res


def _check_record(json_path: str, res: dict[str, Any]) -> str:
    """The record's status (``ok`` or ``failed``) if ``res`` is a complete run record;
    ``ValueError`` naming the file otherwise."""
    pt_path = json_path[: -len(".json")] + ".pt"
    status = res.get("status", "ok")           # results written before the status field: ok
    need = ("run", "seed", "config") + (("metrics",) if status == "ok" else ("step", "reason"))
    missing = [k for k in need if k not in res]
    if status not in ("ok", "failed") or missing:
        raise _corrupt(json_path, f"not a complete run record: missing {missing}" if missing
                       else f"unknown status {status!r}", pt_path)
    if status == "ok" and not isinstance(res["metrics"], dict):
        raise _corrupt(json_path, "'metrics' is not a mapping", pt_path)
    if not isinstance(res["config"], dict):
        raise _corrupt(json_path, "'config' is not a mapping", pt_path)
    return str(status)


def _check_checkpoint(json_path: str, cfg: dict[str, Any], seed: int) -> None:
    """``ValueError`` naming the file unless the ``.pt`` beside ``json_path`` loads as a lejepa
    checkpoint of ``cfg`` and ``seed``."""
    from .engine import same_run_config

    pt_path = json_path[: -len(".json")] + ".pt"
    if not os.path.exists(pt_path):
        raise _corrupt(json_path, f"its checkpoint {os.path.basename(pt_path)!r} is missing", pt_path)
    import torch

    try:
        ck = torch.load(pt_path, map_location="cpu", weights_only=True)
    except Exception as exc:  # truncated, foreign or unreadable file
        raise _corrupt(pt_path, f"does not load: {load_error(exc)}",
                       json_path) from None
    if not isinstance(ck, dict) or ck.get("format") != "lejepa-checkpoint-1" or "encoder" not in ck \
            or "mixing" not in ck:
        raise _corrupt(pt_path, "not a lejepa training checkpoint", json_path)
    if not isinstance(ck.get("config"), dict) or not same_run_config(ck["config"], cfg) or ck.get("seed") != seed:
        raise _corrupt(pt_path, "its config or seed differs from its JSON's", json_path)


def verify_result(json_path: str, cfg: dict[str, Any], seed: int) -> dict[str, Any]:
    """The run record at ``json_path`` if it is a complete result or failure record of ``cfg`` and
    ``seed``, with (for a result) a loadable ``.pt`` of the same config and seed beside it;
    ``ValueError`` naming the corrupt or mismatching file otherwise."""
    from .engine import same_run_config

    res = _load_result(json_path)
    status = _check_record(json_path, res)
    if not same_run_config(res["config"], cfg) or res["seed"] != seed:
        raise ValueError(f"{json_path!r} holds a run with another config or seed; give the changed sweep a new --name")
    if status == "ok":
        _check_checkpoint(json_path, cfg, seed)
    return res


def _verify_found(json_path: str) -> dict[str, Any]:
    """A run record found in a sweep directory, checked against itself: a complete record named
    after its run, its ``.pt`` a checkpoint of the record's config and seed (when torch is
    installed; else a zip archive whose CRCs match, as ``torch.save`` writes). ``ValueError`` names
    the file that fails."""
    res = _load_result(json_path)
    status = _check_record(json_path, res)
    pt_path = json_path[: -len(".json")] + ".pt"
    if res["run"] != os.path.basename(json_path)[: -len(".json")]:
        raise _corrupt(json_path, f"it holds run {res['run']!r}, not the run its name says", pt_path)
    if status != "ok":
        return res
    try:
        import torch  # noqa: F401
    except ImportError:
        import zipfile

        try:
            with zipfile.ZipFile(pt_path) as z:
                bad = z.testzip()
        except FileNotFoundError:
            raise _corrupt(json_path, f"its checkpoint {os.path.basename(pt_path)!r} is missing", pt_path) from None
        except (OSError, zipfile.BadZipFile) as exc:
            raise _corrupt(pt_path, f"not a checkpoint archive: {exc}", json_path) from None
        if bad is not None:
            raise _corrupt(pt_path, f"member {bad!r} fails its CRC check", json_path)
        return res
    _check_checkpoint(json_path, res["config"], res["seed"])
    return res


class SweepRows(list):  # type: ignore[type-arg]
    """The summary rows of a sweep (a list), with ``failures``: the failure records, in grid order."""

    failures: list[dict[str, Any]]


def _summary_row(point: dict[str, str], seed: int, res: dict[str, Any]) -> dict[str, Any]:
    m, bc = res["metrics"], res.get("bound_check", {})
    row: dict[str, Any] = {_short(k): v for k, v in point.items()}
    row["seed"] = seed
    row["run"] = res["run"]
    for f in SUMMARY_FIELDS:
        row[f] = m.get(f)
    # Theorem 4.3 on the fresh pairs of the final bootstrap check (the eval-set values above are
    # point estimates; delta_tr there can be slightly negative from sampling noise)
    for f in ("err", "bound", "margin"):
        v = bc.get(f)
        row[f"check_{f}"] = v.get("value") if isinstance(v, dict) else None
    row["check_margin_lo"] = bc["margin"].get("lo") if isinstance(bc.get("margin"), dict) else None
    row["verdict"] = bc.get("verdict", bc.get("skipped"))
    row["steps_done"] = res.get("steps_done")
    row["stopped_early"] = res.get("stopped_early")
    row["seconds"] = res.get("seconds")
    return row


SUMMARY_JSON, SUMMARY_CSV = "summary.json", "summary.csv"


def _summary_texts(rows: list[dict[str, Any]]) -> tuple[str, str]:
    """The text of ``summary.json`` and ``summary.csv`` for ``rows``."""
    buf = io.StringIO()
    if rows:
        w = csv.DictWriter(buf, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return json.dumps(rows, indent=2), buf.getvalue()


def _write_summary(out_dir: str, rows: list[dict[str, Any]]) -> None:
    js, cs = _summary_texts(rows)
    atomic_write(os.path.join(out_dir, SUMMARY_JSON), lambda f: f.write(js))
    atomic_write(os.path.join(out_dir, SUMMARY_CSV), lambda f: f.write(cs))


def grid_point(res: dict[str, Any]) -> dict[str, str] | None:
    """The grid point of a sweep run, read from its record: the shortest run of consecutive
    ``overrides`` (``key=value``, latest first) whose :func:`run_name` with the record's seed is the
    record's ``run`` (a sweep appends the point to the ``--set`` overrides; an executor may append
    ``runtime.threads``). None when no such run exists (not a sweep's run)."""
    ov, run, seed = res.get("overrides"), res.get("run"), res.get("seed")
    if not isinstance(ov, list) or not all(isinstance(o, str) and "=" in o for o in ov) or not isinstance(seed, int):
        return None
    items = [tuple(o.split("=", 1)) for o in ov]
    for k in range(1, len(items) + 1):
        for j in range(len(items), k - 1, -1):
            point = dict(items[j - k: j])
            if len(point) == k and run_name(point, seed) == run:
                return point
    return None


def _rank_key(old: list[dict[str, Any]], cols: list[str]) -> Callable[[dict[str, Any]], Any]:
    """Sort key restoring the grid order (``itertools.product`` of the grid values, seeds innermost)
    of rows from the ``old`` summary rows: for each column, value ``a`` goes before ``b`` when more
    groups of old rows (equal in the columns before it) list ``a`` first than ``b``; ties (values the
    old rows do not order, or do not hold) in the values' ascending order (:func:`.tables.sort_key`)."""
    from functools import cmp_to_key

    from .tables import sort_key

    votes: dict[tuple[str, str, str], int] = {}
    for i, c in enumerate(cols):
        groups: dict[tuple[str, ...], list[str]] = {}
        for r in old:
            seq = groups.setdefault(tuple(str(r.get(x)) for x in cols[:i]), [])
            if str(r.get(c)) not in seq:
                seq.append(str(r.get(c)))
        for seq in groups.values():
            for j, a in enumerate(seq):
                for b in seq[j + 1:]:
                    votes[c, a, b] = votes.get((c, a, b), 0) + 1

    def cmp(r: dict[str, Any], s: dict[str, Any]) -> int:
        for c in cols:
            a, b = r.get(c), s.get(c)
            d = votes.get((c, str(b), str(a)), 0) - votes.get((c, str(a), str(b)), 0)
            if d:
                return d
            ka, kb = sort_key(a), sort_key(b)
            if ka != kb:
                return -1 if ka < kb else 1
        return 0

    return cmp_to_key(cmp)


def verified_rows(sweep_dir: str, order: list[str] | None = None, known: dict[str, dict[str, Any]] | None = None,
                  log: Callable[[str], None] | None = None) -> list[dict[str, Any]]:
    """The summary rows of every finished run in ``sweep_dir``, rebuilt from its verified result files;
    ``summary.json``/``summary.csv`` are rewritten when they differ (a summary is a cache: checked
    and repaired, never trusted).

    Every ``<run>.json`` in the directory (not hidden, not the summary) must be a complete run
    record named after its run with a checkpoint of the same config and seed beside it
    (``ValueError`` naming the file otherwise); failure records give no row. ``known``: records of
    runs already verified by the caller (``run -> record``), not read again. The grid point of each
    run comes from its record (:func:`grid_point`). Row order: the runs named in ``order`` (the
    sweep's plan, grid order) first, in that order; the others in the grid order restored from the
    old summary's rows where it is readable (:func:`_rank_key`), else in ascending order of the grid
    values and seed. A directory without any result file keeps its summary as it is (results copied
    without their run files, or written by hand); then a summary that is not a list of rows with
    ``run`` and ``seed`` is a ``ValueError`` naming it. A rewrite that fails (a read-only
    directory) leaves the old files; the rebuilt rows are returned all the same. ``log`` gets one
    line per repaired summary."""
    known = known or {}
    jpath = os.path.join(sweep_dir, SUMMARY_JSON)
    old_text: str | None = None
    old: list[dict[str, Any]] | None = None
    why = "missing"
    try:
        with open(jpath, encoding="utf-8") as f:
            old_text = f.read()
        parsed = json.loads(old_text)
        if not isinstance(parsed, list) or not all(isinstance(r, dict) and "run" in r and "seed" in r
                                                   for r in parsed):
            raise ValueError("not a list of rows with 'run' and 'seed'")
        old, why = parsed, ""
    except FileNotFoundError:
        pass
    except (OSError, UnicodeDecodeError, ValueError) as exc:   # json.JSONDecodeError is a ValueError
        why = f"unreadable: {exc}"
    names = sorted(n for n in os.listdir(sweep_dir) if n.endswith(".json") and not n.startswith(".")
                   and n != SUMMARY_JSON)
    if not names and not any(n.endswith((".pt", RESUME_SUFFIX)) and not n.startswith(".")
                             for n in os.listdir(sweep_dir)):
        if old is None and why != "missing":
            raise ValueError(f"{jpath!r} is not a sweep summary ({why}) and {sweep_dir!r} holds no result "
                             "files to rebuild it from; remove it or rerun the sweep")
        return list(old or [])
    found: list[tuple[dict[str, str], dict[str, Any]]] = []
    for n in names:
        run = n[: -len(".json")]
        path = os.path.join(sweep_dir, n)
        res = known[run] if run in known else _verify_found(path)
        if res.get("status", "ok") != "ok":
            continue
        point = grid_point(res)
        if point is None:
            raise ValueError(f"{path!r} is not a run of a lejepa sweep (its name and 'overrides' give no grid "
                             f"point); move it out of {sweep_dir!r}")
        found.append((point, res))
    rows = [_summary_row(point, int(res["seed"]), res) for point, res in found]
    cols = list(dict.fromkeys(k for r in rows for k in r if k not in RESERVED_COLUMNS and k != "run")) + ["seed"]
    pos = {run: i for i, run in enumerate(order or [])}
    key = _rank_key(old or [], cols)
    rows.sort(key=lambda r: (0, pos[r["run"]], ()) if r["run"] in pos else (1, 0, key(r)))
    js, cs = _summary_texts(rows)
    try:
        with open(os.path.join(sweep_dir, SUMMARY_CSV), encoding="utf-8", newline="") as f:
            same_csv = f.read() == cs
    except (OSError, UnicodeDecodeError):
        same_csv = False
    if old_text != js or not same_csv:
        if old_text != js and log is not None and (rows or why != "missing"):   # a new sweep: no note
            have = {r["run"] for r in old} if old is not None else set()
            new = {r["run"] for r in rows}
            what = why or (f"{len(new - have)} row(s) missing, {len(have - new)} without a result"
                           if have != new else "rows differ from the result files")
            log(f"note: {jpath} was stale ({what}); rebuilt from the {len(rows)} verified result file(s)")
        try:
            _write_summary(sweep_dir, rows)
        except OSError as exc:
            if log is not None:
                log(f"note: could not rewrite {jpath} ({exc.strerror or exc}); using the rebuilt rows")
    return rows


def run_sweep(config: str, name: str, out: str, grid_items: list[str], seeds: list[int], *,
              preset: str | None = None, overrides: list[str] | None = None,
              time_limit_s: float | None = None, progress: bool | None = False,
              retry_failed: bool = False, log=print) -> SweepRows:
    """Run (or resume) the sweep; return the summary rows of the finished runs in grid order
    (``.failures``: the failed runs' records)."""
    if not is_safe_name(name):
        raise ValueError(f"--name must be a non-empty file-name-safe name, got {name!r}")
    grid = parse_grid(grid_items)
    runs = plan(config, grid, seeds, preset, list(overrides or []))
    out_dir = os.path.join(out, name)
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise ValueError(f"{out_dir!r} exists and is not a directory")
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"--out: cannot create {out_dir!r}: {exc.strerror or exc}") from None
    with sweep_lock(out_dir):
        return _run_locked(config, out_dir, runs, preset, time_limit_s, progress, retry_failed, log)


def _run_locked(config: str, out_dir: str, runs: list[tuple[str, dict[str, str], int, list[str], dict[str, Any]]],
                preset: str | None, time_limit_s: float | None, progress: bool | None, retry_failed: bool,
                log) -> SweepRows:
    # check every existing result before training anything
    done: dict[str, dict[str, Any]] = {}
    failed: dict[str, dict[str, Any]] = {}
    for run, _, seed, _, cfg in runs:
        path = os.path.join(out_dir, run + ".json")
        if os.path.exists(path):
            res = verify_result(path, dict(cfg, name=run), seed)
            if res.get("status") == "failed":
                failed[run] = res
                continue
            # a run cut short by a time limit counts as done only under the same limit
            if res.get("stopped_early") and res.get("time_limit_s") != time_limit_s:
                continue
            done[run] = res
    failures: list[dict[str, Any]] = []
    order = [r[0] for r in runs]
    finished: dict[str, dict[str, Any]] = {}
    rows = verified_rows(out_dir, order, dict(done), log)   # a stale summary is repaired before training
    for i, (run, point, seed, ov, _) in enumerate(runs):
        tag = f"[{i + 1}/{len(runs)}] {run}"
        if run in done:
            log(f"{tag}: done before, kept")
            finished[run] = done[run]
            continue
        if run in failed and not retry_failed:
            rec = failed[run]
            log(f"{tag}: failed before at step {rec['step']} ({rec['reason']}); skipped (--retry-failed trains it again)")
            failures.append(rec)
            continue
        resume = os.path.exists(os.path.join(out_dir, run + RESUME_SUFFIX)) and run not in failed
        try:
            res = run_training(config, run, seed, out_dir, preset=preset, overrides=ov, progress=progress,
                               time_limit_s=time_limit_s, overwrite=not resume, resume=resume)
        except TrainingFailed as exc:
            log(f"{tag}: FAILED at step {exc.record['step']}: {exc.record['reason']}")
            failures.append(exc.record)
            finished[run] = exc.record
            rows = verified_rows(out_dir, order, finished | done)
            continue
        log(f"{tag}: R2(h->z) = {res['metrics']['r2_h_to_z']:.5f}, {res['seconds']:.1f} s"
            + (f" (resumed from step {res['resumed_from_step']})" if resume else ""))
        finished[run] = res
        rows = verified_rows(out_dir, order, finished | done)
    out = SweepRows(rows)
    out.failures = failures
    if failures:
        log(f"{len(failures)} run(s) failed: "
            + "; ".join(f"{r['run']} (step {r['step']}: {r['reason']})" for r in failures))
    return out


def _sweep_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", required=True, metavar="FILE", help="YAML or JSON experiment config")
    p.add_argument("--name", required=True, metavar="NAME", help="sweep name (sub-directory of --out)")
    p.add_argument("--out", required=True, metavar="DIR", help="output directory (created if missing)")
    p.add_argument("--grid", action="append", default=[], metavar="KEY=V1,V2",
                   help="a config key and its values (repeatable; the sweep is the Cartesian product)")
    p.add_argument("--seeds", type=int, nargs="+", default=[0], metavar="S")
    p.add_argument("--preset", default=None, metavar="P", help="apply the config's preset P (e.g. cpu)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="overrides",
                   help="override one config key for every run (repeatable)")
    p.add_argument("--time-limit", type=float, default=None, metavar="SEC",
                   help="stop each run after this many seconds of training")
    p.add_argument("--retry-failed", action="store_true",
                   help="train again the runs recorded as failed (non-finite loss) by an earlier sweep")


def _sweep_run(args: argparse.Namespace) -> int:
    from .executors import signals_interrupt

    try:
        with signals_interrupt():
            rows = run_sweep(args.config, args.name, args.out, args.grid, args.seeds, preset=args.preset,
                             overrides=args.overrides, time_limit_s=args.time_limit, retry_failed=args.retry_failed)
    except ValueError as exc:
        print(f"lejepa sweep: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:   # SIGINT, or SIGTERM/SIGHUP (executors.Terminated)
        print(f"lejepa sweep: interrupted ({str(exc) or 'SIGINT'}); finished runs are kept, the same command resumes",
              file=sys.stderr)
        return 128 + getattr(exc, "signum", 2)
    nf = len(rows.failures)
    print(f"{len(rows) + nf} runs, {len(rows)} finished; summary in {os.path.join(args.out, args.name)}/summary.csv"
          + (f"; {nf} failed (records in their <run>.json)" if nf else ""))
    return 1 if rows.failures else 0
