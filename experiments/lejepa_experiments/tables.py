"""Tables from ``lejepa sweep`` summaries: cells over seeds (mean ± std, identification rate,
best-of-seeds by held-out alignment) and Markdown pivots (one grid key down, one across).

Plain Python (json/statistics only), shared by ``lejepa report`` (:mod:`.report`) and the
``experiments/figures/sweep_table.py`` script.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any

IDENT_R2 = 0.999
"""A seed "identifies" when its held-out R²(h→z) exceeds this (the identification rate's threshold)."""

SELECTS = ("mean", "best-align")


def sort_key(v: Any) -> tuple[int, Any]:
    """Numbers in numeric order, then everything else as text."""
    try:
        return (0, float(v))
    except (TypeError, ValueError):
        return (1, str(v))


def finite(v: Any) -> bool:
    """A real number that is not NaN or infinite (bools excluded)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


@dataclass(frozen=True)
class CellStats:
    """A table cell over the seeds of one grid point.

    ``mean``/``std`` (sample std, 0 for one seed) of the field over seeds with a finite value;
    ``k`` of ``runs`` seeds with R²(h→z) > :data:`IDENT_R2`; ``best`` = the field of the seed with
    the smallest held-out alignment loss (``best_seed`` its seed), a selection needing no ground truth.
    """

    mean: float
    std: float
    runs: int
    k: int
    best: float
    best_seed: Any


def cell_stats(rows: list[dict[str, Any]], field: str = "r2_h_to_z", threshold: float = IDENT_R2) -> CellStats:
    """:class:`CellStats` of ``field`` over ``rows`` (one grid point, several seeds)."""
    if not rows:
        raise ValueError("cell_stats needs at least one summary row")
    vals = [r[field] for r in rows if finite(r.get(field))]
    mean = statistics.fmean(vals) if vals else math.nan
    std = statistics.stdev(vals) if len(vals) > 1 else (0.0 if vals else math.nan)
    k = sum(1 for r in rows if finite(r.get("r2_h_to_z")) and r["r2_h_to_z"] > threshold)
    best_row = min(rows, key=lambda r: r["align"] if finite(r.get("align")) else math.inf)
    best = best_row.get(field)
    best_value = float(best) if best is not None and finite(best) else math.nan
    return CellStats(mean, std, len(rows), k, best_value, best_row.get("seed"))


def group(rows: list[dict[str, Any]], keys: list[str]) -> dict[tuple[Any, ...], list[dict[str, Any]]]:
    """Rows grouped by the values of ``keys`` (insertion order of first appearance)."""
    out: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for r in rows:
        out.setdefault(tuple(r.get(k) for k in keys), []).append(r)
    return out


def pivot(rows: list[dict[str, Any]], row_key: str, col_key: str, field: str, select: str = "mean",
          fmt: str = ".4g") -> str:
    """Markdown table of ``field`` with ``row_key`` values down and ``col_key`` values across.

    With several seeds per cell, ``select = "mean"`` averages them and ``"best-align"`` keeps the seed
    with the smallest held-out alignment loss; non-numeric fields (``verdict``) are joined with ``/``.
    """
    for k in (row_key, col_key):
        if not rows or k not in rows[0]:
            raise ValueError(f"summary rows have no key {k!r}; keys: {sorted(rows[0]) if rows else []}")
    if field not in rows[0] and field != "verdict":
        raise ValueError(f"summary rows have no field {field!r}")
    if select not in SELECTS:
        raise ValueError(f"select must be one of {SELECTS}, got {select!r}")
    rvals = sorted({r[row_key] for r in rows}, key=sort_key)
    cvals = sorted({r[col_key] for r in rows}, key=sort_key)
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
                cell = [min(cell, key=lambda r: r["align"] if finite(r.get("align")) else math.inf)]
            vals = [r[field] for r in cell]
            if all(finite(v) for v in vals):
                cells.append(format(statistics.fmean(vals), fmt))
            else:
                cells.append("/".join(str(v) for v in vals))
        lines.append(f"| {rv} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


BEST_OF_K_CRITERION = "heldout_objective"
"""The field that picks a seed's best restart: the training objective on the held-out evaluation
pairs (``engine.heldout_objective``), no ground truth (R²) and no last-minibatch noise."""


def best_of_k(rows: list[dict[str, Any]], keys: list[str], restart_key: str = "restart",
              criterion: str = BEST_OF_K_CRITERION) -> list[dict[str, Any]]:
    """The paper's best-of-K: among the rows that share the values of ``keys`` (the grid point and the
    seed, e.g. ``["dim", "seed"]``) and differ in ``restart_key``, keep the one with the smallest finite
    ``criterion`` (ties: the smallest restart), i.e. ``argmin_r criterion(point, seed, r)``. Returns one
    copy per group, in order of first appearance, with ``restarts`` (how many restarts the group had) and
    ``restarts_finite`` (how many had a finite criterion) added. A group without a finite criterion keeps
    its first row (``restarts_finite = 0``) so that a table can still show it. Raises ``ValueError``
    naming the problem when ``restart_key`` is among ``keys`` or a row lacks a key or the criterion."""
    if restart_key in keys:
        raise ValueError(f"best_of_k: the restart key {restart_key!r} must not be a grouping key")
    for i, r in enumerate(rows):
        missing = [k for k in [*keys, restart_key, criterion] if k not in r]
        if missing:
            raise ValueError(f"best_of_k: row {i} ({r.get('run', '?')}) has no {missing}")
    out = []
    for grp in group(rows, keys).values():
        ok = [r for r in grp if finite(r[criterion])]
        best = min(ok, key=lambda r: (r[criterion], sort_key(r[restart_key]))) if ok else grp[0]
        out.append(dict(best, restarts=len(grp), restarts_finite=len(ok)))
    return out
