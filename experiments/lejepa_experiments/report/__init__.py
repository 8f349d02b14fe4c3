"""The ``lejepa report`` subcommand: figures and tables from a directory of ``lejepa sweep`` results.

``lejepa report RESULTS_DIR --out DIR`` reads the sweeps named in :mod:`._common` (each
``RESULTS_DIR/NAME/summary.json`` plus the per-run ``.json``/``.pt`` that ``lejepa sweep`` writes),
``RESULTS_DIR/planning/*.json`` (``lejepa plan --out``) and ``RESULTS_DIR/reacher/plan.json``
(``lejepa reacher --out RESULTS_DIR/reacher``), and writes into ``DIR``, each file atomically,
``report.md``, ``report.json`` and the figures (PNG and PDF).

One module per experiment, each its data → its table(s) → its figure, with a ``section(ctx)`` that
appends to the report:

* :mod:`.scaling`: the paper's scaling table with its protocol (best of K restarts per seed by the
  held-out objective, then mean ± std over seeds), single-run statistics beside it, a verdict per row;
  ``scaling_r2`` (1 − R² vs N, log–log, error bars, the paper's values);
* :mod:`.twod`: the 2-D mixings; ``twod_panels``;
* :mod:`.gennorm`: the generalized-normal ablation (sweeps ``gennorm`` and ``gennorm_whitening``
  merged), Theorem 4.2's quantities; ``gennorm_r2``;
* :mod:`.lam_rho`: the (λ, ρ) grid (λ in both units) and Theorem 4.3's bound; ``lam_rho_heatmaps``,
  ``bound_vs_error`` (log–log, y = x, colour = ρ, collapsed runs ringed);
* :mod:`.curves`: ``learning_curves``; :mod:`.planning`, :mod:`.reacher`: the planning tables.

Every sweep is read by :func:`._common.load_sweep_rows` (the one loader). Every figure's title or
caption names its data (seeds, restarts, steps, preset). :func:`build_report` is the API (``lejepa
reproduce`` calls it). Only the standard library is imported here; matplotlib, numpy and torch are
imported inside the functions that use them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from ._common import (ALL_SWEEPS, GENNORM_SWEEP, GENNORM_WHITENING_SWEEP, LAM_RHO_SWEEP, OBJECTIVE_LABELS,
                      PLANNING_DIR, REACHER_DIR, SCALING_DIM_KEY, SCALING_OBJECTIVES, TWOD_MIXINGS, Context, Sweep,
                      Writer, load_sweep, load_sweep_rows, scaling_sweep, twod_sweep)

__all__ = ["ALL_SWEEPS", "GENNORM_SWEEP", "GENNORM_WHITENING_SWEEP", "LAM_RHO_SWEEP", "OBJECTIVE_LABELS",
           "PLANNING_DIR", "REACHER_DIR", "SCALING_DIM_KEY", "SCALING_OBJECTIVES", "TWOD_MIXINGS", "Sweep",
           "build_report", "load_sweep", "load_sweep_rows", "scaling_sweep", "twod_sweep"]

SECTIONS = ("scaling", "twod", "gennorm", "lam_rho", "curves", "planning", "reacher")
"""The report's sections in order: each a module of this package with ``section(ctx)``."""


def build_report(results_dir: str, out_dir: str, label: str | None = None) -> dict[str, str]:
    """Write ``report.md``, ``report.json`` and the figures (module docstring) for whatever subset of
    the named sweeps exists under ``results_dir``; return {file name: path} of everything written.
    ``label`` names the data in every figure (default: the results directory's name, e.g. the preset's
    ``--out`` folder)."""
    import importlib

    if not os.path.isdir(results_dir):
        raise ValueError(f"results directory {results_dir!r} does not exist")
    from ..commands import check_out_dir

    check_out_dir(out_dir)   # creates it; ValueError naming the reason when it cannot be written
    if label is None:
        label = os.path.basename(os.path.normpath(os.path.abspath(results_dir))) or None
    sweeps = {name: load_sweep(results_dir, name) for name in ALL_SWEEPS}
    ctx = Context(results_dir, out_dir, label, sweeps, Writer(out_dir))
    ctx.md.append(f"# Reproduction report\n\nResults: `{os.path.abspath(results_dir)}`"
                  + (f" (label `{label}`)" if label else "") + ". Sweeps found: "
                  + (", ".join(f"`{n}`" for n, s in sweeps.items() if s is not None) or "none") + ".\n")
    ctx.js.update({"results_dir": os.path.abspath(results_dir), "label": label})
    for name in SECTIONS:
        importlib.import_module(f"{__name__}.{name}").section(ctx)
    ctx.writer.text("report.json", json.dumps(ctx.js, indent=2, default=str))
    ctx.writer.text("report.md", "\n".join(ctx.md))
    return dict(ctx.writer.paths)


def _report_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("results_dir", metavar="RESULTS_DIR", help="directory holding the sweeps (lejepa sweep --out)")
    p.add_argument("--out", required=True, metavar="DIR", help="where to write report.md, report.json and figures")
    p.add_argument("--label", default=None, metavar="NAME",
                   help="names the data in every figure title (default: RESULTS_DIR's folder name, e.g. the preset)")


def _report_run(args: argparse.Namespace) -> int:
    try:
        paths = build_report(args.results_dir, args.out, getattr(args, "label", None))
    except ValueError as exc:
        print(f"lejepa report: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:   # a write failing mid-way (disk full, permissions changed)
        print(f"lejepa report: error: could not write the report under {args.out!r}: "
              f"{exc.strerror or exc}{f' ({exc.filename})' if exc.filename else ''}", file=sys.stderr)
        return 2
    if not any(load_sweep_rows(args.results_dir, name) is not None for name in ALL_SWEEPS):
        print(f"lejepa report: note: no sweep of the paper's ({', '.join(ALL_SWEEPS[:3])}, ...) found under "
              f"{args.results_dir!r}; every sweep section says 'Skipped' (lejepa reproduce --out writes them)",
              file=sys.stderr)
    print(f"wrote {len(paths)} files; see {paths['report.md']}")
    return 0
