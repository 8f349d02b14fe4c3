"""Markdown tables from a ``lejepa sweep`` summary: one grid key down, one across, one field inside.

Usage::

    python experiments/figures/sweep_table.py runs/lam_rho/summary.json --rows lam --cols rho \\
        --fields r2_h_to_z epsilon delta_tr bound recovery_error [--select mean|best-align]

With several seeds per cell, ``--select mean`` averages them and ``--select best-align`` keeps the
seed with the smallest held-out alignment loss (a selection that needs no ground truth latents).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
from typing import Any


def _key(v: Any) -> tuple[int, Any]:
    try:
        return (0, float(v))
    except (TypeError, ValueError):
        return (1, str(v))


def pivot(rows: list[dict[str, Any]], row_key: str, col_key: str, field: str, select: str = "mean") -> str:
    """Markdown table of ``field`` with ``row_key`` values down and ``col_key`` values across."""
    for k in (row_key, col_key):
        if not rows or k not in rows[0]:
            raise ValueError(f"summary rows have no key {k!r}; keys: {sorted(rows[0]) if rows else []}")
    if field not in rows[0] and field != "verdict":
        raise ValueError(f"summary rows have no field {field!r}")
    if select not in ("mean", "best-align"):
        raise ValueError(f"select must be 'mean' or 'best-align', got {select!r}")
    rvals = sorted({r[row_key] for r in rows}, key=_key)
    cvals = sorted({r[col_key] for r in rows}, key=_key)
    lines = [f"| {field}: {row_key} \\ {col_key} | " + " | ".join(str(c) for c in cvals) + " |",
             "|---" * (len(cvals) + 1) + "|"]
    for rv in rvals:
        cells = []
        for cv in cvals:
            cell = [r for r in rows if r[row_key] == rv and r[col_key] == cv]
            if not cell:
                cells.append("")
                continue
            if select == "best-align":
                cell = [min(cell, key=lambda r: r["align"] if r["align"] is not None else math.inf)]
            vals = [r[field] for r in cell]
            if all(isinstance(v, (int, float)) and v is not None for v in vals):
                cells.append(f"{statistics.fmean(vals):.4g}")
            else:
                cells.append("/".join(str(v) for v in vals))
        lines.append(f"| {rv} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("summary", help="summary.json written by lejepa sweep")
    ap.add_argument("--rows", required=True, help="grid key down the table (short name, e.g. lam)")
    ap.add_argument("--cols", required=True, help="grid key across the table (e.g. rho)")
    ap.add_argument("--fields", nargs="+", default=["r2_h_to_z"])
    ap.add_argument("--select", choices=("mean", "best-align"), default="mean")
    args = ap.parse_args()
    with open(args.summary, encoding="utf-8") as f:
        rows = json.load(f)
    for field in args.fields:
        print(pivot(rows, args.rows, args.cols, field, args.select))
        print()


if __name__ == "__main__":
    main()
