"""The ``lejepa`` command.

``lejepa check``  runs the numerical cross-checks (``pycheck.checks``) and prints a table
                  (``--json`` for JSON); each row PASS, FAIL, UNDECIDED (an inconclusive
                  statistical test) or SKIP; exit status 1 if any row FAILs (UNDECIDED is not a
                  failure), 2 on a usage error.
``lejepa train``  trains one encoder from a config file (needs the ``train`` extra).
``lejepa sweep``  trains a grid of encoders (needs the ``train`` extra).
``lejepa plan``   plans in latent space with a trained encoder (needs the ``train`` extra).

Adding a subcommand is one entry in :data:`SUBCOMMANDS`::

    "name": ("one-line help", "lejepa_experiments.module:add_args", "lejepa_experiments.module:run"),

for example ``"report": ("summarise result files", "lejepa_experiments.report:add_args",
"lejepa_experiments.report:run")`` with, in ``report.py``, ``def add_args(p): p.add_argument(...)``
and ``def run(args): import torch; ...; return 0``. ``add_args(parser: argparse.ArgumentParser)
-> None`` declares the arguments and ``run(args: argparse.Namespace) -> int`` runs the command and
returns the exit status (0 ok, 1 a check failed, 2 bad input, by convention). Both are
named by string and imported lazily: ``lejepa --help`` imports no subcommand module, and
``lejepa NAME ...`` imports only NAME's module. The module should import nothing heavy (torch,
sympy, matplotlib) at top level so that ``lejepa NAME --help`` is fast; heavy imports go inside
``run``. A subcommand whose module needs torch on an install without torch exits 2 with a line
saying which extra to install, not with a traceback. No subcommand module imports this one (the
table lives here, the modules do not register themselves), so there is no import circle.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from typing import Any, Callable

from . import __version__

AddArgs = Callable[[argparse.ArgumentParser], None]
Run = Callable[[argparse.Namespace], int]

SUBCOMMANDS: dict[str, tuple[str, str, str]] = {
    "check": ("run the numerical cross-checks and print a table",
              "lejepa_experiments.cli:_check_args", "lejepa_experiments.cli:_check_run"),
    "train": ("train one encoder from a config file (needs the train extra)",
              "lejepa_experiments.commands:_train_args", "lejepa_experiments.commands:_train_run"),
    "sweep": ("train a grid of encoders (resumable; summary table; needs the train extra)",
              "lejepa_experiments.sweep:_sweep_args", "lejepa_experiments.sweep:_sweep_run"),
    "plan": ("plan in latent space with a trained encoder (Corollary 4.5 analogue; needs the train extra)",
             "lejepa_experiments.planning:_plan_args", "lejepa_experiments.planning:_plan_run"),
    "report": ("figures and tables from sweep results (report.md, PNG/PDF)",
               "lejepa_experiments.report:_report_args", "lejepa_experiments.report:_report_run"),
    "reproduce": ("run the paper's sweeps (quick or full preset), the Reacher step, then the report (needs the train extra)",
                  "lejepa_experiments.reproduce:_reproduce_args", "lejepa_experiments.reproduce:_reproduce_run"),
    "reacher": ("pixel-based Reacher planning: prerender, train, plan (needs the reacher extra)",
                "lejepa_experiments.reacher:add_args", "lejepa_experiments.reacher:run"),
    "blueprint": ("build the web blueprint: statements, dependency graph, Lean source pages, checks (needs the blueprint extra)",
                  "lejepa_experiments.blueprint:add_args", "lejepa_experiments.blueprint:run"),
}
"""name -> (help, "module:add_args", "module:run"); see the module docstring."""


def resolve(ref: str) -> Any:
    """The object named by ``"package.module:attribute"`` (imports the module)."""
    mod, _, attr = ref.partition(":")
    return getattr(importlib.import_module(mod), attr)


# ---------------------------------------------------------------------------------------- check
def _check_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print the rows as JSON (progress goes to stderr)")
    p.add_argument("--only", action="append", metavar="MODULE",
                   help="run only this check module (repeatable), e.g. theorem1; "
                        "one of: " + ", ".join(_check_modules()))
    p.add_argument("--checkpoints", metavar="DIR", default=None,
                   help="also check Theorem 4.3 on every *.pt checkpoint under DIR and all its subdirectories "
                        "(module checks_trained; about 5-20 s per 2-D checkpoint)")
    p.add_argument("--quiet", action="store_true", help="no per-module or per-checkpoint progress on stderr")


def _check_modules() -> list[str]:
    """Short names of the check modules, in print order (``lejepa_experiments.checks_trained`` ->
    ``checks_trained``)."""
    from pycheck import checks

    return [m.rsplit(".", 1)[-1] for m in checks.MODULES]


def _full_module_name(short: str) -> str:
    from pycheck import checks

    for m in checks.MODULES:
        if short in (m, m.rsplit(".", 1)[-1], f"pycheck.checks.{m}"):
            return m
    raise KeyError(short)


def _check_run(args: argparse.Namespace) -> int:
    from pycheck.report import count_verdicts, format_json, format_table, run_checks, summary_line

    valid = _check_modules()
    if args.only:
        try:
            modules = [_full_module_name(m) for m in args.only]
        except KeyError as exc:
            print(f"lejepa check: error: unknown check module {exc.args[0]!r}; valid modules: "
                  + ", ".join(valid), file=sys.stderr)
            return 2
    else:
        from pycheck import checks

        modules = list(checks.MODULES)
    options = {}
    if args.checkpoints is not None:
        if not any(m.endswith("checks_trained") for m in modules):
            print("lejepa check: error: --checkpoints is read only by the checks_trained module, which "
                  "--only leaves out; add --only checks_trained", file=sys.stderr)
            return 2
        problem = _checkpoints_problem(args.checkpoints)
        if problem:
            print(f"lejepa check: error: --checkpoints {args.checkpoints!r} {problem}", file=sys.stderr)
            return 2
        options["checkpoints"] = args.checkpoints

    progress = None
    if not args.quiet:
        def log(line: str) -> None:
            print(f"lejepa check:   {line}", file=sys.stderr, flush=True)

        options["log"] = log
        t0: list[float] = []

        def progress(i: int, name: str, rows: list[Any] | None) -> None:
            tag = f"lejepa check: [{i + 1}/{len(modules)}] {name.rsplit('.', 1)[-1]}"
            if rows is None:
                t0[:] = [time.perf_counter()]
                print(f"{tag} ...", file=sys.stderr, flush=True)
            else:
                print(f"{tag}: {len(rows)} rows, {summary_line(rows)}, {time.perf_counter() - t0[0]:.1f} s",
                      file=sys.stderr, flush=True)

    rows = run_checks(modules, progress=progress, **options)
    print(format_json(rows) if args.json else format_table(rows))
    return 0 if rows and count_verdicts(rows)["failed"] == 0 else 1


def _checkpoints_problem(path: str) -> str | None:
    """Why ``--checkpoints path`` cannot be used (checked before any training), or None."""
    from .checks_trained import find_checkpoints

    if not os.path.exists(path):
        return "does not exist"
    if not os.path.isdir(path):
        return "is not a directory"
    if not os.access(path, os.R_OK | os.X_OK):
        return "cannot be read (permission denied)"
    if not find_checkpoints(path):
        return "holds no *.pt checkpoint (searched in all subdirectories)"
    return None


# ----------------------------------------------------------------------------------------- main
def _selected(argv: list[str]) -> str | None:
    """The subcommand named in ``argv`` (the first argument not starting with ``-``), if known."""
    for a in argv:
        if not a.startswith("-"):
            return a if a in SUBCOMMANDS else None
    return None


OPTIONAL = {"torch": "train", "yaml": "train", "tqdm": "train", "numba": "fast", "matplotlib": "plot",
            "plasTeX": "blueprint", "leanblueprint": "blueprint", "pygments": "blueprint"}
"""Top-level package -> the extra that installs it (a command missing one exits 2 naming the extra)."""


def _missing_extra(name: str, exc: ModuleNotFoundError) -> int:
    """Exit status 2 with a one-line message if ``exc`` is a missing optional package; else re-raise."""
    top = (exc.name or "").split(".")[0]
    if top not in OPTIONAL:
        raise exc
    print(f"lejepa {name}: error: this command needs {top!r}, which is not installed; "
          f"install it with: pip install -e '.[{OPTIONAL[top]}]'", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(
        prog="lejepa", epilog="'lejepa COMMAND --help' lists a command's options.",
        description="Numerical cross-checks and experiments for 'When Does LeJEPA Learn a World Model?'.")
    parser.add_argument("--version", action="version", version=f"lejepa {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    chosen = _selected(argv)
    for name, (help_, add_ref, _) in SUBCOMMANDS.items():
        p = sub.add_parser(name, help=help_, description=help_)
        if name == chosen:
            try:
                add_args: AddArgs = resolve(add_ref)
            except ModuleNotFoundError as exc:
                return _missing_extra(name, exc)
            add_args(p)
    args = parser.parse_args(argv)
    try:
        run: Run = resolve(SUBCOMMANDS[args.command][2])
        return run(args)
    except ModuleNotFoundError as exc:
        return _missing_extra(args.command, exc)
    except KeyboardInterrupt:   # Ctrl-C: one line, not a traceback; finished results are on disk already
        print(f"lejepa {args.command}: interrupted; finished results are kept (a sweep or reproduce resumes "
              "when rerun; a train run with train.checkpoint_every > 0 continues with --resume)", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
