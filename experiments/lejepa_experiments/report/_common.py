"""What every section of ``lejepa report`` shares: the sweep-name convention, the ONE loader of sweep
summaries (:func:`load_sweep_rows`), the best-of-K protocol rows, number formatting, the data label
that every figure carries, and the writer that puts each file in place atomically.

Only the standard library is imported at module level.
"""

from __future__ import annotations

import json
import math
import os
import sys
import statistics
from dataclasses import dataclass, field
from typing import Any

from ..tables import BEST_OF_K_CRITERION, IDENT_R2, best_of_k, finite, sort_key

# ------------------------------------------------------------------ sweep-name convention

TWOD_MIXINGS = ("spiral", "banana", "sinusoid", "coupling")
"""2-D mixings; sweep ``twod_<mixing>`` (any grid, e.g. over ``loss.kind`` or seeds only)."""
SCALING_OBJECTIVES = ("sigreg", "whitening", "vicreg", "infonce")
"""Scaling objectives; sweep ``scaling_<objective>`` with ``--grid latent.dim=...`` (config
``experiments/configs/scaling.yaml`` for SIGReg, ``scaling_<objective>.yaml`` for the others)."""
SCALING_DIM_KEY = "dim"
"""Summary column of the scaling sweeps' grid key ``latent.dim``."""
RESTART_KEY = "restart"
"""Summary column of the grid key ``train.restart`` (best-of-K restarts, :func:`protocol_rows`)."""
GENNORM_SWEEP = "gennorm"
"""Generalized-normal ablation: ``--grid loss.kind=... --grid latent.alpha=...`` (columns ``kind``, ``alpha``)."""
GENNORM_WHITENING_SWEEP = "gennorm_whitening"
"""The same ablation for whitening (the authors' "VICReg"), in its own sweep (its own units and λ);
merged into the generalized-normal section."""
LAM_RHO_SWEEP = "lam_rho"
"""(λ, ρ) grid: ``--grid loss.lam=... --grid pair.rho=...`` (columns ``lam``, ``rho``)."""
PLANNING_DIR = "planning"
"""``lejepa plan --out RESULTS_DIR/planning/NAME.json`` files."""
REACHER_DIR = "reacher"
"""``lejepa reacher --out RESULTS_DIR/reacher``: ``plan.json``, ``plan.md``, ``reacher.png``."""


def twod_sweep(mixing: str) -> str:
    """Sweep name of the 2-D experiment for ``mixing``."""
    return f"twod_{mixing}"


def scaling_sweep(objective: str) -> str:
    """Sweep name of the scaling column ``objective``."""
    return f"scaling_{objective}"


ALL_SWEEPS = ([twod_sweep(m) for m in TWOD_MIXINGS] + [scaling_sweep(o) for o in SCALING_OBJECTIVES]
              + [GENNORM_SWEEP, GENNORM_WHITENING_SWEEP, LAM_RHO_SWEEP])

OBJECTIVE_LABELS = {"sigreg": "SIGReg", "whitening": "whitening (paper's \"VICReg\")",
                    "vicreg": "VICReg (real)", "infonce": "InfoNCE"}
R2_DIGITS = 6


# ------------------------------------------------------------------ loading (the one place)

def load_sweep_rows(results_dir: str, name: str) -> list[dict[str, Any]] | None:
    """The rows of the sweep ``results_dir/name``, one dict per run with a ``run`` key, or None when the
    sweep is missing or has no rows. Every section of the report reads sweeps through this function
    only. The rows are rebuilt from the sweep's verified result files and its summary is repaired
    when it differs (:func:`..sweep.verified_rows`: results on disk are the truth, a summary is a
    cache); a corrupt result file raises ``ValueError`` naming it."""
    from ..sweep import verified_rows

    path = os.path.join(results_dir, name)
    if not os.path.isdir(path):
        return None
    rows = verified_rows(path, log=lambda s: print(s, file=sys.stderr))
    return rows or None


@dataclass
class Sweep:
    """One sweep's summary rows, grid keys (columns before ``seed``, ``restart`` included) and lazily
    loaded run results."""

    name: str
    path: str
    rows: list[dict[str, Any]]
    grid_keys: list[str]
    _runs: dict[str, dict[str, Any] | None] = field(default_factory=dict)

    @property
    def point_keys(self) -> list[str]:
        """The grid keys that define a grid point: every grid key but :data:`RESTART_KEY`."""
        return [k for k in self.grid_keys if k != RESTART_KEY]

    @property
    def restarts(self) -> int:
        """Distinct restarts per (grid point, seed): 1 without a ``restart`` grid column."""
        if RESTART_KEY not in self.grid_keys:
            return 1
        return len({r.get(RESTART_KEY) for r in self.rows})

    def result(self, run: str) -> dict[str, Any] | None:
        """The run's ``.json`` (None when missing or unreadable)."""
        if run not in self._runs:
            p = os.path.join(self.path, run + ".json")
            try:
                with open(p, encoding="utf-8") as f:
                    self._runs[run] = json.load(f)
            except (OSError, json.JSONDecodeError):
                self._runs[run] = None
        return self._runs[run]

    def config(self) -> dict[str, Any] | None:
        """The resolved config of the first run with a readable result."""
        for r in self.rows:
            res = self.result(r["run"])
            if res is not None and isinstance(res.get("config"), dict):
                return res["config"]
        return None

    def checkpoint(self, run: str) -> str | None:
        p = os.path.join(self.path, run + ".pt")
        return p if os.path.isfile(p) else None

    def steps(self) -> int | None:
        """Training steps of the runs: the config's ``train.steps``, else the largest ``steps_done``."""
        s = ((self.config() or {}).get("train") or {}).get("steps")
        if isinstance(s, int):
            return s
        done = [r["steps_done"] for r in self.rows if isinstance(r.get("steps_done"), int)]
        return max(done) if done else None

    def seeds(self) -> list[Any]:
        return sorted({r.get("seed") for r in self.rows}, key=sort_key)


def load_sweep(results_dir: str, name: str) -> Sweep | None:
    """The sweep ``results_dir/name`` (rows from :func:`load_sweep_rows`) or None."""
    rows = load_sweep_rows(results_dir, name)
    if rows is None:
        return None
    keys = list(rows[0])
    grid = keys[: keys.index("seed")] if "seed" in keys else []
    return Sweep(name, os.path.join(results_dir, name), rows, grid)


def protocol_rows(sw: Sweep) -> list[dict[str, Any]]:
    """One row per (grid point, seed): with a ``restart`` grid column the paper's best of K by the
    held-out training objective (:func:`..tables.best_of_k`), else the rows as they are. ``ValueError``
    naming the sweep when restarts exist but a row has no ``heldout_objective``."""
    if RESTART_KEY not in sw.grid_keys:
        return sw.rows
    try:
        return best_of_k(sw.rows, [*sw.point_keys, "seed"], RESTART_KEY, BEST_OF_K_CRITERION)
    except ValueError as exc:
        raise ValueError(f"sweep {sw.name!r}: {exc}") from None


def data_label(sweeps: list[Sweep], label: str | None, rows: list[dict[str, Any]] | None = None) -> str:
    """What a figure shows, for its title: ``5 seeds × best of 3, 4000 steps, preset paper-cpu``
    (seeds per grid point, restarts, steps; ranges when the sweeps differ)."""
    seeds = sorted({len(sw.seeds()) for sw in sweeps})
    ks = sorted({sw.restarts for sw in sweeps})
    steps = sorted({s for s in (sw.steps() for sw in sweeps) if s is not None})

    def rng(v: list[int]) -> str:
        return "?" if not v else str(v[0]) if len(v) == 1 else f"{v[0]}–{v[-1]}"

    out = f"{rng(seeds)} seed{'s' if seeds != [1] else ''}"
    if ks != [1]:
        out += f" × best of {rng(ks)}"
    out += f", {rng(steps)} steps"
    return out + (f", preset {label}" if label else "")


# ------------------------------------------------------------------ numbers

def fmt(v: Any, digits: int = 4) -> str:
    """A number for a table: ``digits`` significant digits; ``—`` when not a finite number."""
    if not finite(v):
        return "—"
    return f"{v:.{digits}g}"


def fmt_r2(v: Any) -> str:
    """R² with :data:`R2_DIGITS` decimals (the paper's precision)."""
    return f"{v:.{R2_DIGITS}f}" if finite(v) else "—"


@dataclass(frozen=True)
class SeedStats:
    """Mean and sample std (0 for one value) of one number over seeds, the identification count
    (R²(h→z) > :data:`IDENT_R2`) and the 95 % half-width of the mean (Student t; nan for one value)."""

    mean: float
    std: float
    n: int
    k: int
    half95: float

    @property
    def rate(self) -> float:
        return self.k / self.n if self.n else math.nan


T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
        15: 2.131, 20: 2.086, 30: 2.042}
"""Student-t 0.975 quantiles by degrees of freedom (the table's values; between entries the next
smaller entry, i.e. a slightly wider interval; beyond 30: 1.96)."""


def t975(df: int) -> float:
    if df <= 0:
        return math.nan
    below = [d for d in T975 if d <= df]
    return T975[max(below)] if df <= 30 else 1.96


def seed_stats(rows: list[dict[str, Any]], fld: str = "r2_h_to_z", transform: Any = None) -> SeedStats:
    """:class:`SeedStats` of ``fld`` (optionally ``transform(value)``) over ``rows`` with a finite value."""
    vals = [r[fld] for r in rows if finite(r.get(fld))]
    if transform is not None:
        vals = [transform(v) for v in vals]
    n = len(vals)
    mean = statistics.fmean(vals) if vals else math.nan
    std = statistics.stdev(vals) if n > 1 else (0.0 if n else math.nan)
    k = sum(1 for r in rows if finite(r.get("r2_h_to_z")) and r["r2_h_to_z"] > IDENT_R2)
    return SeedStats(mean, std, len(rows), k, t975(n - 1) * std / math.sqrt(n) if n > 1 else math.nan)


def pm(s: SeedStats, r2: bool = True, digits: int = 3) -> str:
    """``mean ± std``: R² at the paper's precision, other numbers with ``digits`` significant digits."""
    if r2:
        return f"{fmt_r2(s.mean)} ± {s.std:.{R2_DIGITS}f}" if finite(s.std) else fmt_r2(s.mean)
    return f"{fmt(s.mean, digits)} ± {fmt(s.std, 2)}"


# ------------------------------------------------------------------ output

class Writer:
    """Collects the paths written; every file goes through :func:`..commands.atomic_write`."""

    def __init__(self, out_dir: str) -> None:
        self.out = out_dir
        self.paths: dict[str, str] = {}

    def text(self, name: str, text: str) -> str:
        from ..commands import atomic_write

        p = os.path.join(self.out, name)
        atomic_write(p, lambda f: f.write(text))
        self.paths[name] = p
        return p

    def figure(self, stem: str, fig: Any) -> list[str]:
        import matplotlib.pyplot as plt

        from ..commands import atomic_write

        written = []
        for ext in ("png", "pdf"):
            p = os.path.join(self.out, f"{stem}.{ext}")

            def save(f: Any, ext: str = ext) -> None:
                fig.savefig(f, format=ext, dpi=110, bbox_inches="tight")

            atomic_write(p, save, binary=True)
            self.paths[f"{stem}.{ext}"] = p
            written.append(p)
        plt.close(fig)
        return written


def plt() -> Any:
    """``matplotlib.pyplot`` on the Agg backend (imported on first use)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot

    return pyplot


@dataclass
class Context:
    """What a section reads (the sweeps, the results directory, the data label's preset name) and
    where it writes (``md`` lines, the ``js`` dict, the figure writer)."""

    results_dir: str
    out_dir: str
    label: str | None
    sweeps: dict[str, Sweep | None]
    writer: Writer
    md: list[str] = field(default_factory=list)
    js: dict[str, Any] = field(default_factory=lambda: {"skipped": []})

    def skip(self, name: str, text: str) -> None:
        """A one-line skip note in the report and ``name`` in ``report.json``'s ``skipped``."""
        self.md.append(f"*Skipped: {text}.*\n")
        self.js["skipped"].append(name)

    def skip_missing(self, name: str, what: str) -> None:
        self.skip(name, f"no sweep `{name}` in the results directory (expected `{name}/summary.json`); {what}")

    def figure(self, files: list[str], caption: str) -> None:
        """The figure's PNGs in ``report.md`` with a caption naming its data."""
        pngs = [os.path.relpath(f, self.out_dir) for f in files if f.endswith(".png")]
        if pngs:
            self.md.append("\n".join(f"![{p}]({p})" for p in pngs) + f"\n\n*Figure: {caption}*\n")


def bullets(items: list[str]) -> str:
    return "\n".join(f"- {s}" for s in items)
