"""Markdown tables from a ``lejepa sweep`` summary: one grid key down, one across, one field inside.

Usage::

    python experiments/figures/sweep_table.py runs/lam_rho/summary.json --rows lam --cols rho \\
        --fields r2_h_to_z epsilon delta_tr bound recovery_error [--select mean|best-align]

With several seeds per cell, ``--select mean`` averages them and ``--select best-align`` keeps the
seed with the smallest held-out alignment loss (a selection that needs no ground truth latents).
The logic lives in :mod:`lejepa_experiments.tables` (also used by ``lejepa report``).
"""

from __future__ import annotations

import argparse
import json

from lejepa_experiments.tables import SELECTS, pivot


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("summary", help="summary.json written by lejepa sweep")
    ap.add_argument("--rows", required=True, help="grid key down the table (short name, e.g. lam)")
    ap.add_argument("--cols", required=True, help="grid key across the table (e.g. rho)")
    ap.add_argument("--fields", nargs="+", default=["r2_h_to_z"])
    ap.add_argument("--select", choices=SELECTS, default="mean")
    args = ap.parse_args()
    with open(args.summary, encoding="utf-8") as f:
        rows = json.load(f)
    for field in args.fields:
        print(pivot(rows, args.rows, args.cols, field, args.select))
        print()


if __name__ == "__main__":
    main()
