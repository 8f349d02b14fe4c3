"""The ``lejepa`` command.

``lejepa check``  runs the numerical cross-checks (``pycheck.checks``) and prints a table
                  (``--json`` for JSON); exit status 1 if any row fails.
``lejepa train``  trains one encoder from a config file (needs the ``train`` extra).

Subcommands register themselves through :data:`SUBCOMMANDS`: a name mapped to a pair
``(add_arguments(parser), run(args) -> int)``; heavy imports stay inside ``run``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Callable

AddArgs = Callable[[argparse.ArgumentParser], None]
Run = Callable[[argparse.Namespace], int]


def _check_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print the rows as JSON")
    p.add_argument("--only", action="append", metavar="MODULE",
                   help="run only this check module (repeatable), e.g. theorem1")
    p.add_argument("--checkpoints", metavar="DIR", default=None,
                   help="also check the bound on every checkpoint under DIR")


def _check_run(args: argparse.Namespace) -> int:
    from pycheck.report import format_json, format_table, run_checks

    options = {}
    if args.checkpoints is not None:
        options["checkpoints"] = args.checkpoints
    rows = run_checks(args.only, **options)
    print(format_json(rows) if args.json else format_table(rows))
    return 0 if rows and all(r.passed for r in rows) else 1


SUBCOMMANDS: dict[str, tuple[str, AddArgs, Run]] = {
    "check": ("run the numerical cross-checks and print a table", _check_args, _check_run),
    "reacher": ("pixel-based Reacher planning: prerender, train, plan (needs the reacher extra)", lambda p: __import__("lejepa_experiments.reacher", fromlist=["add_args"]).add_args(p), lambda a: __import__("lejepa_experiments.reacher", fromlist=["run"]).run(a)),
}


def _register_optional() -> None:
    """Subcommands defined in other modules of this package (they import torch lazily)."""
    import importlib
    import importlib.util

    if importlib.util.find_spec("lejepa_experiments.commands") is not None:
        importlib.import_module("lejepa_experiments.commands")  # registers into SUBCOMMANDS


def main(argv: list[str] | None = None) -> int:
    _register_optional()
    parser = argparse.ArgumentParser(prog="lejepa", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (help_, add_args, _) in SUBCOMMANDS.items():
        add_args(sub.add_parser(name, help=help_))
    args = parser.parse_args(argv)
    return SUBCOMMANDS[args.command][2](args)


if __name__ == "__main__":
    sys.exit(main())
