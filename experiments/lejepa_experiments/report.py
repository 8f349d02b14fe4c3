"""The ``lejepa report`` subcommand: figures and tables from a directory of ``lejepa sweep`` results.

``lejepa report RESULTS_DIR --out DIR`` reads the sweeps named by the constants below (each
``RESULTS_DIR/NAME/summary.json`` plus the per-run ``.json``/``.pt`` that ``lejepa sweep`` writes) and
``RESULTS_DIR/planning/*.json`` (``lejepa plan --out``) and ``RESULTS_DIR/reacher/plan.json`` (``lejepa
reacher --out RESULTS_DIR/reacher``, the Reacher step of ``lejepa reproduce``; ``plan.md`` when only
that exists), and writes into ``DIR``, each file atomically:

* ``report.md``: the paper's scaling layout (ours as mean ± std over seeds, identification rate =
  fraction of seeds with R² > :data:`~lejepa_experiments.tables.IDENT_R2`, best-of-seeds by held-out
  alignment, the published value beside), the generalized-normal, (λ, ρ)-grid (λ in our units and
  the authors', with λ* in both), 2-D, planning and Reacher planning tables; each figure with the findings that differ
  from the paper stated next to it; a note for every section whose sweep is missing;
* ``report.json``: the same numbers, machine-readable;
* figures, PNG and PDF: ``twod_panels`` (latent / observation / embedding coloured by latent angle,
  one row per mixing; needs the checkpoints), ``scaling_r2`` (1 − R² vs N per objective),
  ``gennorm_r2`` (R² vs α per objective with Theorem 4.2's affinity defect and correlation gap from
  :mod:`pycheck.uniqueness`), ``bound_vs_error`` (corrected and paper-form bound vs recovery error,
  y = x), ``lam_rho_heatmaps``, ``learning_curves``.

:func:`build_report` is the API (``lejepa reproduce`` calls it). Only the standard library is
imported at module level; matplotlib, numpy and torch are imported inside the functions that use them.
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Callable

from .tables import IDENT_R2, CellStats, cell_stats, group, sort_key

# ------------------------------------------------------------------ sweep-name convention (shared)

TWOD_MIXINGS = ("spiral", "banana", "sinusoid", "coupling")
"""2-D mixings; sweep ``twod_<mixing>`` (any grid, e.g. over ``loss.kind`` or seeds only)."""
SCALING_OBJECTIVES = ("sigreg", "whitening", "vicreg", "infonce")
"""Scaling objectives; sweep ``scaling_<objective>`` with ``--grid latent.dim=...`` (config
``experiments/configs/scaling.yaml`` for SIGReg, ``scaling_<objective>.yaml`` for the others)."""
SCALING_DIM_KEY = "dim"
"""Summary column of the scaling sweeps' grid key ``latent.dim``."""
GENNORM_SWEEP = "gennorm"
"""Generalized-normal ablation: ``--grid loss.kind=... --grid latent.alpha=...`` (columns ``kind``, ``alpha``)."""
LAM_RHO_SWEEP = "lam_rho"
"""(λ, ρ) grid: ``--grid loss.lam=... --grid pair.rho=...`` (columns ``lam``, ``rho``)."""
PLANNING_DIR = "planning"
"""``lejepa plan --out RESULTS_DIR/planning/NAME.json`` files."""
REACHER_DIR = "reacher"
"""``lejepa reacher --out RESULTS_DIR/reacher``: ``plan.json``, ``plan.md``, ``reacher.png``."""
PAPER_REACHER = {"ou": 1.0, "traj": 1.5}
"""The paper's normalised Reacher planning cost (≈), OU-pair and trajectory-trained encoders."""


def twod_sweep(mixing: str) -> str:
    """Sweep name of the 2-D experiment for ``mixing``."""
    return f"twod_{mixing}"


def scaling_sweep(objective: str) -> str:
    """Sweep name of the scaling column ``objective``."""
    return f"scaling_{objective}"


ALL_SWEEPS = ([twod_sweep(m) for m in TWOD_MIXINGS] + [scaling_sweep(o) for o in SCALING_OBJECTIVES]
              + [GENNORM_SWEEP, LAM_RHO_SWEEP])

# ------------------------------------------------------------------ the paper's numbers (PAPER.md)

PAPER_SCALING: dict[int, dict[str, float]] = {
    2: {"x": 0.781, "sigreg": 0.999998, "whitening": 0.999996, "infonce": 0.950961},
    4: {"x": 0.727, "sigreg": 0.999996, "whitening": 0.999987, "infonce": 0.910871},
    8: {"x": 0.728, "sigreg": 0.999993, "whitening": 0.999988, "infonce": 0.886818},
    16: {"x": 0.734, "sigreg": 0.999988, "whitening": 0.999987, "infonce": 0.999880},
    32: {"x": 0.737, "sigreg": 0.999981, "whitening": 0.999981, "infonce": 0.907809},
    64: {"x": 0.737, "sigreg": 0.999966, "whitening": 0.999968, "infonce": 0.648496},
    128: {"x": 0.739, "sigreg": 0.999938, "whitening": 0.999942, "infonce": 0.566955},
    256: {"x": 0.742, "sigreg": 0.999884, "whitening": 0.999889, "infonce": 0.696587},
    512: {"x": 0.749, "sigreg": 0.999775, "whitening": 0.999785, "infonce": 0.704393},
    1024: {"x": 0.763, "sigreg": 0.999561, "whitening": 0.999582, "infonce": 0.720241},
}
"""Published R²(h→z), mean over 5 seeds (``x`` = R²(x→z) of the observations). The paper's "VICReg"
column is the authors' plain covariance whitening, listed here under ``whitening``; real VICReg has
no published column."""
OBJECTIVE_LABELS = {"sigreg": "SIGReg", "whitening": "whitening (paper's \"VICReg\")",
                    "vicreg": "VICReg (real)", "infonce": "InfoNCE"}
PAPER_LAM_RANGE = (1e-3, 1e-2)
"""The paper's recommended λ, in the authors' units."""
PAPER_RHO_RANGE = (0.8, 0.95)
R2_DIGITS = 6


# ------------------------------------------------------------------ loading

@dataclass
class Sweep:
    """One sweep's summary rows, grid keys (columns before ``seed``) and lazily loaded run results."""

    name: str
    path: str
    rows: list[dict[str, Any]]
    grid_keys: list[str]
    _runs: dict[str, dict[str, Any] | None] = field(default_factory=dict)

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


def load_sweep(results_dir: str, name: str) -> Sweep | None:
    """The sweep ``results_dir/name`` (rows rebuilt from its verified result files, its summary
    repaired: :func:`.sweep.verified_rows`; ``ValueError`` names a corrupt file) or None without rows."""
    from .sweep import verified_rows

    path = os.path.join(results_dir, name)
    rows = verified_rows(path, log=lambda s: print(s, file=sys.stderr)) if os.path.isdir(path) else []
    if not rows:
        return None
    keys = list(rows[0])
    grid = keys[: keys.index("seed")] if "seed" in keys else []
    return Sweep(name, path, rows, grid)


def _finite(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def fmt(v: Any, digits: int = 4) -> str:
    """A number for a table: ``digits`` significant digits, R² near 1 with enough to show 1 − R²."""
    if not _finite(v):
        return "—"
    return f"{v:.{digits}g}"


def fmt_r2(v: Any) -> str:
    """R² with :data:`R2_DIGITS` decimals (the paper's precision)."""
    return f"{v:.{R2_DIGITS}f}" if _finite(v) else "—"


def fmt_cell(c: CellStats) -> str:
    """``mean ± std (k/K) best`` for a scaling cell."""
    return f"{fmt_r2(c.mean)} ± {c.std:.{R2_DIGITS}f}" if _finite(c.std) else fmt_r2(c.mean)


def _skip(name: str, what: str) -> str:
    return f"*Skipped: no sweep `{name}` in the results directory (expected `{name}/summary.json`); {what}.*\n"


# ------------------------------------------------------------------ output helpers

class _Writer:
    """Collects the paths written; every file goes through :func:`.commands.atomic_write`."""

    def __init__(self, out_dir: str) -> None:
        self.out = out_dir
        self.paths: dict[str, str] = {}

    def text(self, name: str, text: str) -> str:
        from .commands import atomic_write

        p = os.path.join(self.out, name)
        atomic_write(p, lambda f: f.write(text))
        self.paths[name] = p
        return p

    def figure(self, stem: str, fig: Any) -> list[str]:
        import matplotlib.pyplot as plt

        from .commands import atomic_write

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


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


# ------------------------------------------------------------------ scaling

def scaling_data(sweeps: dict[str, Sweep | None]) -> dict[str, dict[int, CellStats]]:
    """Objective -> {N: :class:`CellStats` of R²(h→z) over seeds} for the scaling sweeps present."""
    out: dict[str, dict[int, CellStats]] = {}
    for obj in SCALING_OBJECTIVES:
        sw = sweeps.get(scaling_sweep(obj))
        if sw is None or SCALING_DIM_KEY not in sw.grid_keys:
            continue
        out[obj] = {}
        for (dim,), rows in sorted(group(sw.rows, [SCALING_DIM_KEY]).items(), key=lambda kv: sort_key(kv[0][0])):
            out[obj][int(float(dim))] = cell_stats(rows)
    return out


def scaling_table(data: dict[str, dict[int, CellStats]]) -> str:
    """The paper's scaling layout: N, published R²(x→z), then per objective ours beside the published
    value; ours = ``mean ± std · k/K · best b``: mean ± std over seeds, k of K seeds with
    R² > :data:`IDENT_R2`, the R² of the seed with the smallest held-out alignment loss."""
    dims = sorted(set(PAPER_SCALING) | {n for d in data.values() for n in d})
    head = ["N", "paper R²(x→z)"]
    for obj in SCALING_OBJECTIVES:
        head += [f"{OBJECTIVE_LABELS[obj]}: ours", "paper"]
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for n in dims:
        paper = PAPER_SCALING.get(n, {})
        cells = [str(n), fmt(paper.get("x"), 3)]
        for obj in SCALING_OBJECTIVES:
            c = data.get(obj, {}).get(n)
            ours = "not run" if c is None else f"{fmt_cell(c)} · {c.k}/{c.runs} · best {fmt_r2(c.best)}"
            cells += [ours, fmt_r2(paper.get(obj)) if obj in paper else "—"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def scaling_findings(data: dict[str, dict[int, CellStats]]) -> list[str]:
    """Where ours differ from the published mean (by more than 1e-3 in R², or seeds that fail to identify)."""
    out = []
    for obj, cells in data.items():
        worse, better, unident = [], [], []
        for n, c in cells.items():
            p = PAPER_SCALING.get(n, {}).get(obj)
            if p is not None and _finite(c.mean):
                if c.mean < p - 1e-3:
                    worse.append(f"N = {n}: {fmt_r2(c.mean)} vs {fmt_r2(p)}")
                elif c.mean > p + 1e-3:
                    better.append(f"N = {n}: {fmt_r2(c.mean)} vs {fmt_r2(p)}")
            if p is not None and p > IDENT_R2 and c.k < c.runs:
                unident.append(f"N = {n}: {c.k}/{c.runs}")
        lab = OBJECTIVE_LABELS[obj]
        if worse:
            out.append(f"Differs from the paper ({lab}): mean R² below the published value by > 1e-3 at " + "; ".join(worse) + ".")
        if better:
            out.append(f"Differs from the paper ({lab}): mean R² above the published value by > 1e-3 at " + "; ".join(better) + ".")
        if unident:
            out.append(f"Differs from the paper ({lab}): not every seed identifies (R² > {IDENT_R2}) where the "
                       "published mean does: " + "; ".join(unident) + " (best-of-seeds by alignment in the table).")
        if obj == "vicreg":
            out.append("Real VICReg (variance hinge, 25/25/1) has no published column: the paper's \"VICReg\" is "
                       "the authors' plain whitening (column `whitening`).")
        if not (worse or better or unident) and obj != "vicreg":
            out.append(f"Agrees with the paper ({lab}): mean R² within 1e-3 of the published value at every N run.")
    return out


def scaling_figure(w: _Writer, data: dict[str, dict[int, CellStats]]) -> list[str]:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    colors = dict(zip(SCALING_OBJECTIVES, ("C0", "C1", "C2", "C3")))
    for obj, cells in data.items():
        ns = sorted(cells)
        mean = [max(1 - cells[n].mean, 1e-8) for n in ns]
        best = [max(1 - cells[n].best, 1e-8) if _finite(cells[n].best) else math.nan for n in ns]
        ax.plot(ns, mean, "o-", color=colors[obj], label=f"{OBJECTIVE_LABELS[obj]} (mean)")
        ax.plot(ns, best, "x:", color=colors[obj], label=f"{OBJECTIVE_LABELS[obj]} (best by align)")
        if obj in ("sigreg", "whitening", "infonce"):
            pn = sorted(PAPER_SCALING)
            ax.plot(pn, [1 - PAPER_SCALING[n][obj] for n in pn], "--", color=colors[obj], alpha=0.5,
                    label=f"{OBJECTIVE_LABELS[obj]} (paper)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("latent dimension N")
    ax.set_ylabel("1 − R²(h→z)")
    ax.set_title("N-scaling (coupling world, matched encoder)")
    ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return w.figure("scaling_r2", fig)


# ------------------------------------------------------------------ generalized normal

def gennorm_data(sw: Sweep) -> dict[str, dict[float, CellStats]]:
    """Objective (``kind``, or the config's loss.kind) -> {α: CellStats of R²}."""
    if "alpha" not in sw.grid_keys:
        raise ValueError(f"sweep {sw.name!r} has no grid column 'alpha' (grid: {sw.grid_keys})")
    kind_key = "kind" if "kind" in sw.grid_keys else None
    default_kind = (sw.config() or {}).get("loss", {}).get("kind", "run")
    out: dict[str, dict[float, CellStats]] = {}
    keys = [kind_key, "alpha"] if kind_key else ["alpha"]
    for k, rows in group(sw.rows, keys).items():
        kind, alpha = (k[0], k[1]) if kind_key else (default_kind, k[0])
        out.setdefault(str(kind), {})[float(alpha)] = cell_stats(rows)
    return {kd: dict(sorted(v.items())) for kd, v in out.items()}


def uniqueness_overlay(alphas: list[float], rho: float) -> dict[float, dict[str, float]]:
    """Theorem 4.2's two quantities per α at cheap settings (``pycheck.uniqueness``): the affinity
    defect of the first eigenfunction of ``-L`` on the default truncated domain (for α ≤ 1 no L²
    eigenfunction exists and this is the truncated problem's) and the maximal-minus-linear
    correlation gap of the OU pair (grid spacing 0.1)."""
    from pycheck import uniqueness as U

    out = {}
    for a in alphas:
        law = U.gennorm(a)
        try:
            defect = U.affinity_defect(U.law_eigenpair(law))
        except (ValueError, ArithmeticError):
            defect = math.nan
        try:
            gap = U.maximal_correlation(law, rho, spacing=0.1).gap
        except (ValueError, ArithmeticError):
            gap = math.nan
        out[a] = {"affinity_defect": float(defect), "corr_gap": float(max(gap, 0.0))}
    return out


def gennorm_table(data: dict[str, dict[float, CellStats]], overlay: dict[float, dict[str, float]]) -> str:
    alphas = sorted({a for d in data.values() for a in d})
    lines = ["| R²(h→z), mean ± std over seeds (best by align) | " + " | ".join(f"α = {a:g}" for a in alphas) + " |",
             "|---" * (len(alphas) + 1) + "|"]
    for kind, cells in data.items():
        row = [f"{fmt(cells[a].mean)} ± {fmt(cells[a].std, 2)} ({fmt(cells[a].best)})" if a in cells else ""
               for a in alphas]
        lines.append(f"| {OBJECTIVE_LABELS.get(kind, kind)} | " + " | ".join(row) + " |")
    lines.append("| Thm 4.2: affinity defect | " + " | ".join(fmt(overlay.get(a, {}).get("affinity_defect"), 3)
                                                       for a in alphas) + " |")
    lines.append("| Thm 4.2: correlation gap | " + " | ".join(fmt(overlay.get(a, {}).get("corr_gap"), 3)
                                                       for a in alphas) + " |")
    return "\n".join(lines)


def gennorm_findings(data: dict[str, dict[float, CellStats]]) -> list[str]:
    out = []
    for kind, cells in data.items():
        if len(cells) < 2:
            continue
        best_a = max(cells, key=lambda a: cells[a].mean if _finite(cells[a].mean) else -math.inf)
        lab = OBJECTIVE_LABELS.get(kind, kind)
        if best_a != 2.0:
            out.append(f"Differs from the paper's claim of a sharp peak at α = 2 ({lab}): mean R² is largest at "
                       f"α = {best_a:g} ({fmt(cells[best_a].mean)}; α = 2: "
                       f"{fmt(cells[2.0].mean) if 2.0 in cells else 'not run'}).")
        else:
            out.append(f"Agrees with the paper ({lab}): mean R² is largest at α = 2 ({fmt(cells[2.0].mean)}).")
    out.append("Theorem 4.2 concerns the population optimum: the correlation gap that separates α = 2 from its "
               "neighbours is small near 2 (table), so finite training need not resolve it.")
    return out


def gennorm_figure(w: _Writer, data: dict[str, dict[float, CellStats]], overlay: dict[float, dict[str, float]]
                   ) -> list[str]:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for kind, cells in data.items():
        al = sorted(cells)
        ax.errorbar(al, [cells[a].mean for a in al], yerr=[cells[a].std for a in al], marker="o", capsize=3,
                    label=OBJECTIVE_LABELS.get(kind, kind))
    ax.axvline(2.0, color="grey", lw=0.8, ls=":")
    ax.set_xlabel("generalized-normal shape α")
    ax.set_ylabel("R²(h→z)")
    ax2 = ax.twinx()
    al = sorted(overlay)
    for key, style, lab in (("affinity_defect", "k--", "affinity defect"), ("corr_gap", "k-.", "correlation gap")):
        ys = [max(overlay[a][key], 1e-12) if _finite(overlay[a][key]) else math.nan for a in al]
        ax2.plot(al, ys, style, lw=1, label=f"Thm 4.2: {lab}")
    ax2.set_yscale("log")
    ax2.set_ylabel("Theorem 4.2 quantities (log)")
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, fontsize=7, loc="lower right")
    ax.set_title("Generalized-normal latents")
    return w.figure("gennorm_r2", fig)


# ------------------------------------------------------------------ (lambda, rho) grid

@dataclass
class GridInfo:
    """What the (λ, ρ) table needs from the sweep's config: convention, n, batch m, knots, t_max, pair kind."""

    convention: str
    n: int
    m: int
    knots: int
    t_max: float
    pair_kind: str


def grid_info(sw: Sweep) -> GridInfo:
    cfg = sw.config() or {}
    loss = cfg.get("loss", {})
    return GridInfo(loss.get("convention", "ours"), int(cfg.get("latent", {}).get("dim", 2)),
                    int(cfg.get("train", {}).get("batch", 256)), int(loss.get("knots", 17)),
                    float(loss.get("t_max", 3.0)), cfg.get("pair", {}).get("kind", "ou"))


def lam_in_both_units(lam: float, rho: float, gi: GridInfo) -> dict[str, Any]:
    """λ of the run in its own convention plus its equivalent in the other (the interval of
    ``pycheck.sigreg.lam_to_authors``/``lam_from_authors`` over ``c`` in ``conversion_factors``),
    and λ* in both conventions, for the pair correlation of ``rho`` (ρ², two-view pairs)."""
    from pycheck import sigreg as sg

    r = rho ** 2 if gi.pair_kind == "two_view" else rho
    cs = sg.conversion_factors(r, gi.knots, gi.t_max)
    star_o = sg.collapse_threshold(r, gi.n, gi.m, gi.knots, gi.t_max)
    star_a = sg.collapse_threshold_authors(r, gi.m, gi.knots, gi.t_max)
    if gi.convention == "authors":
        lam_a = lam
        eq = sorted(sg.lam_from_authors(lam, gi.n, c) for c in cs)
        lam_o = None
    else:
        lam_o = lam
        eq = sorted(sg.lam_to_authors(lam, gi.n, c) for c in cs)
        lam_a = None
    return {"lam": lam, "convention": gi.convention, "lam_ours": lam_o, "lam_authors": lam_a,
            "equivalent_other": eq, "lam_star_ours": star_o, "lam_star_authors": star_a,
            "below_lam_star": lam < (star_a if gi.convention == "authors" else star_o), "pair_correlation": r}


def _lam_label(u: dict[str, Any]) -> str:
    lo, hi = u["equivalent_other"]
    if u["convention"] == "authors":
        return f"{u['lam']:g} (ours ≈ {lo:.2g}–{hi:.2g})"
    return f"≈ {lo:.2g}–{hi:.2g} (ours {u['lam']:g})"


GRID_FIELDS = (("r2_h_to_z", "R²(h→z)"), ("epsilon", "ε"), ("recovery_error", "recovery error"),
               ("bound", "corrected bound"), ("bound_paper", "paper-form bound"), ("verdict", "verdict (corrected)"))


def lam_rho_data(sw: Sweep) -> dict[str, Any]:
    """Cells (λ, ρ) -> seed means of :data:`GRID_FIELDS`, with λ in both units; λ or ρ not in the grid
    is taken from the sweep's config (a λ scan at one ρ, say)."""
    gi = grid_info(sw)
    cfg = sw.config() or {}
    fixed = {"lam": cfg.get("loss", {}).get("lam"), "rho": cfg.get("pair", {}).get("rho")}
    for k in ("lam", "rho"):
        if k not in sw.grid_keys and not _finite(fixed[k]):
            raise ValueError(f"sweep {sw.name!r} has no grid column {k!r} and no readable run config giving it")
    if not ({"lam", "rho"} & set(sw.grid_keys)):
        raise ValueError(f"sweep {sw.name!r} varies neither lam nor rho (grid: {sw.grid_keys})")

    def val(r: dict[str, Any], k: str) -> float:
        return float(r[k]) if k in sw.grid_keys else float(fixed[k])

    cells: dict[tuple[float, float], dict[str, Any]] = {}
    by: dict[tuple[float, float], list[dict[str, Any]]] = {}
    for r in sw.rows:
        by.setdefault((val(r, "lam"), val(r, "rho")), []).append(r)
    for key, rows in by.items():
        c: dict[str, Any] = {f: cell_stats(rows, f).mean for f, _ in GRID_FIELDS if f != "verdict"}
        c["verdict"] = "/".join(str(r.get("verdict")) for r in rows)
        c["seeds"] = len(rows)
        cells[key] = c
    lams = sorted({k[0] for k in cells})
    rhos = sorted({k[1] for k in cells})
    units = {(lam, rho): lam_in_both_units(lam, rho, gi) for lam in lams for rho in rhos}
    return {"info": gi, "lams": lams, "rhos": rhos, "cells": cells, "units": units}


def lam_rho_tables(d: dict[str, Any]) -> str:
    gi, lams, rhos, cells, units = d["info"], d["lams"], d["rhos"], d["cells"], d["units"]
    own = "the authors'" if gi.convention == "authors" else "ours"
    parts = [f"λ as run: {own} units (`loss.convention = {gi.convention}`), n = {gi.n}, batch m = {gi.m} per view. "
             "Row labels: λ in the authors' units (ours beside); the conversion is an interval because the "
             "ratio of the two SIGReg statistics lies between its value at the null and 2 (docs/training.md, "
             "\"λ in the authors' units\"). Cells below λ* are marked †.", ""]
    head = "| λ, authors' units (ours) \\ ρ | " + " | ".join(f"{r:g}" for r in rhos) + " |"
    star = ("| λ* authors' / ours | " + " | ".join(
        f"{units[(lams[0], r)]['lam_star_authors']:.2g} / {units[(lams[0], r)]['lam_star_ours']:.2g}" for r in rhos) + " |")
    for f, lab in GRID_FIELDS:
        lines = [f"**{lab}**", "", head, "|---" * (len(rhos) + 1) + "|"]
        for lam in lams:
            row = []
            for rho in rhos:
                c = cells.get((lam, rho))
                if c is None:
                    row.append("")
                    continue
                v = c[f] if f == "verdict" else fmt(c[f])
                row.append(v + (" †" if units[(lam, rho)]["below_lam_star"] else ""))
            lines.append(f"| {_lam_label(units[(lam, rhos[0])])} | " + " | ".join(row) + " |")
        lines.append(star)
        parts += lines + [""]
    return "\n".join(parts)


def lam_rho_findings(d: dict[str, Any]) -> list[str]:
    from pycheck import sigreg as sg

    gi, cells, units = d["info"], d["cells"], d["units"]
    out = []
    stars = {r: sg.collapse_threshold_authors(r, gi.m, gi.knots, gi.t_max) for r in PAPER_RHO_RANGE}
    lo = PAPER_LAM_RANGE[0]
    if max(stars.values()) < lo:
        out.append(f"In the authors' units the collapse threshold λ* is {stars[0.8]:.2g} at ρ = 0.8 and "
                   f"{stars[0.95]:.2g} at ρ = 0.95 (m = {gi.m}): the paper's recommended λ ∈ [1e-3, 1e-2] lies "
                   "entirely above it, so it does not admit the collapse that our units suggested "
                   f"(λ* = {sg.collapse_threshold(0.8, gi.n, gi.m, gi.knots, gi.t_max):.2g} / "
                   f"{sg.collapse_threshold(0.95, gi.n, gi.m, gi.knots, gi.t_max):.2g} in ours at n = {gi.n}).")
    below = [k for k, u in units.items() if u["below_lam_star"] and k in cells]
    coll = [k for k in below if _finite(cells[k]["r2_h_to_z"]) and cells[k]["r2_h_to_z"] < 0.5]
    above_coll = [k for k, u in units.items() if not u["below_lam_star"] and k in cells
                  and _finite(cells[k]["r2_h_to_z"]) and cells[k]["r2_h_to_z"] < 0.5]
    out.append(f"Cells with λ < λ*: {len(below)}, of which {len(coll)} collapsed (R² < 0.5); cells with λ ≥ λ* "
               f"that collapsed: {len(above_coll)} (λ* compares two encoders, not the optimum: training can "
               "collapse somewhat above it).")
    neg = [k for k, c in cells.items() if _finite(c["bound_paper"]) and c["bound_paper"] < 0]
    if neg:
        out.append(f"Differs from the paper (Theorem 4.3 as stated): the paper-form bound is negative in {len(neg)} of "
                   f"{len(cells)} cells (shrunk encoders have δ_n < 0); the corrected bound uses tr Cov h.")
    viol = [k for k, c in cells.items() if "fails" in str(c["verdict"])]
    out.append(f"Corrected bound: bootstrap verdict 'fails' in {len(viol)} of {len(cells)} cells.")
    return out


def lam_rho_figure(w: _Writer, d: dict[str, Any]) -> list[str]:
    import numpy as np

    plt = _plt()
    lams, rhos, cells, units = d["lams"], d["rhos"], d["cells"], d["units"]
    fields = (("r2_h_to_z", "R²(h→z)"), ("epsilon", "ε"), ("recovery_error", "recovery error"),
              ("bound", "corrected bound"))
    fig, axes = plt.subplots(1, len(fields), figsize=(3.2 * len(fields) + 2.5, 0.5 * len(lams) + 2.4),
                             sharey=True, constrained_layout=True)
    for ax, (f, lab) in zip(axes, fields):
        grid = np.array([[cells.get((la, r), {}).get(f, math.nan) for r in rhos] for la in lams], dtype=float)
        im = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis")
        for i, la in enumerate(lams):
            for j, r in enumerate(rhos):
                if np.isfinite(grid[i, j]):
                    ax.text(j, i, f"{grid[i, j]:.3g}" + ("†" if units[(la, r)]["below_lam_star"] else ""),
                            ha="center", va="center", fontsize=7,
                            color="k" if im.norm(grid[i, j]) > 0.6 else "w")
        ax.set_xticks(range(len(rhos)), [f"{r:g}" for r in rhos])
        ax.set_yticks(range(len(lams)), [_lam_label(units[(la, rhos[0])]) for la in lams], fontsize=7)
        ax.set_xlabel("ρ")
        ax.set_title(lab)
        fig.colorbar(im, ax=ax, shrink=0.8, pad=0.02)
    axes[0].set_ylabel("λ, authors' units (ours)")
    fig.suptitle("(λ, ρ) grid; † = below the collapse threshold λ*")
    return w.figure("lam_rho_heatmaps", fig)


# ------------------------------------------------------------------ bound vs recovery error

def bound_points(sweeps: dict[str, Sweep | None]) -> list[dict[str, Any]]:
    """Gaussian-latent runs: recovery error and both bounds (fresh-pair check values where present,
    else the evaluation set's), tagged with the sweep."""
    pts = []
    for name, sw in sweeps.items():
        if sw is None:
            continue
        for r in sw.rows:
            res = sw.result(r["run"])
            if res is None or res.get("config", {}).get("latent", {}).get("dist") != "gaussian":
                continue
            err = r.get("check_err") if _finite(r.get("check_err")) else r.get("recovery_error")
            bound = r.get("check_bound") if _finite(r.get("check_bound")) else r.get("bound")
            if _finite(err) and _finite(bound):
                pts.append({"sweep": name, "run": r["run"], "err": err, "bound": bound,
                            "bound_paper": r.get("bound_paper") if _finite(r.get("bound_paper")) else None})
    return pts


def bound_figure(w: _Writer, pts: list[dict[str, Any]]) -> list[str]:
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2))
    for ax, key, title in ((axes[0], "bound", "corrected bound (Lejepa.Approx)"),
                           (axes[1], "bound_paper", "paper form D_n + (ε + D_n)²")):
        xs = [p["err"] for p in pts if p[key] is not None]
        ys = [p[key] for p in pts if p[key] is not None]
        ax.scatter(xs, ys, s=14)
        lim = max([1e-3] + xs + [abs(y) for y in ys]) * 1.1
        ax.plot([0, lim], [0, lim], "k--", lw=1, label="y = x")
        ax.axhline(0, color="grey", lw=0.6)
        ax.set_xlabel("recovery error E‖h(z) − Qz‖²")
        ax.set_ylabel("bound")
        ax.set_title(title)
        ax.legend(fontsize=7)
    return w.figure("bound_vs_error", fig)


def bound_findings(pts: list[dict[str, Any]]) -> list[str]:
    viol = [p for p in pts if p["bound"] < p["err"]]
    negp = [p for p in pts if p["bound_paper"] is not None and p["bound_paper"] < 0]
    belowp = [p for p in pts if p["bound_paper"] is not None and p["bound_paper"] < p["err"]]
    out = [f"Corrected bound below the recovery error (point estimates) in {len(viol)} of {len(pts)} runs "
           "(the statistical verdict is the bootstrap column of the tables)."]
    if belowp:
        out.append(f"Differs from the paper (Theorem 4.3 as stated): the paper-form bound is below the recovery "
                   f"error in {len(belowp)} of {len(pts)} runs, negative in {len(negp)}.")
    else:
        out.append(f"The paper-form bound is above the recovery error in all {len(pts)} runs.")
    return out


# ------------------------------------------------------------------ 2-D

def twod_rows(sw: Sweep) -> list[tuple[tuple[Any, ...], CellStats, dict[str, Any]]]:
    """Per non-seed grid point: R² cell stats and the best-by-align row."""
    out = []
    for k, rows in group(sw.rows, sw.grid_keys).items():
        best = min(rows, key=lambda r: r["align"] if _finite(r.get("align")) else math.inf)
        out.append((k, cell_stats(rows), best))
    return out


def twod_table(twod: dict[str, Sweep]) -> str:
    lines = ["| mixing | grid point | seeds | R²(h→z) mean ± std | R² > 0.999 | best by align: R² | ‖AᵀA − I‖_F | ε | "
             "recovery error | verdict |", "|---" * 10 + "|"]
    for mix, sw in twod.items():
        for k, c, best in twod_rows(sw):
            point = ", ".join(f"{g}={v}" for g, v in zip(sw.grid_keys, k)) or "—"
            lines.append(f"| {mix} | {point} | {c.runs} | {fmt(c.mean)} ± {fmt(c.std, 2)} | {c.k}/{c.runs} | "
                         f"{fmt(best.get('r2_h_to_z'))} | {fmt(best.get('orthogonality'))} | {fmt(best.get('epsilon'))} | "
                         f"{fmt(best.get('recovery_error'))} | {best.get('verdict')} |")
    return "\n".join(lines)


def twod_figure(w: _Writer, twod: dict[str, Sweep], points: int = 3000, max_rows_per_mixing: int = 3
                ) -> tuple[list[str], list[str]]:
    """Latent / observation / embedding scatter coloured by the latent angle; one row per (mixing,
    grid point) with a checkpoint (best seed by alignment). Returns (files, notes about skipped rows)."""
    import numpy as np
    import torch

    from .commands import load_checkpoint

    panels, notes = [], []
    for mix, sw in twod.items():
        for k, _, best in twod_rows(sw)[:max_rows_per_mixing]:
            ck = sw.checkpoint(best["run"])
            if ck is None:
                notes.append(f"{sw.name}/{best['run']}: no checkpoint (.pt), panel skipped")
                continue
            panels.append((mix, ", ".join(f"{g}={v}" for g, v in zip(sw.grid_keys, k)), ck, best))
    if not panels:
        return [], notes + ["no 2-D checkpoints: panels skipped"]
    plt = _plt()
    fig, axes = plt.subplots(len(panels), 3, figsize=(9, 3 * len(panels)), squeeze=False)
    gen = torch.Generator().manual_seed(0)
    for i, (mix, point, ck, best) in enumerate(panels):
        cfg, mixing, enc = load_checkpoint(ck, "cpu")
        z = torch.randn(points, cfg["latent"]["dim"], generator=gen)
        with torch.no_grad():
            x = mixing(z)
            h = enc(x)
        ang = np.arctan2(z[:, 1].numpy(), z[:, 0].numpy())
        for ax, arr, lab in zip(axes[i], (z, x, h), ("latent z", "observation x = g(z)", "embedding h(x)")):
            a = arr.numpy()
            ax.scatter(a[:, 0], a[:, 1], c=ang, cmap="hsv", s=2)
            ax.set_aspect("equal", adjustable="datalim")
            ax.set_title(f"{mix} ({point}): {lab}" if lab != "embedding h(x)" else
                         f"{lab}, R² {fmt(best.get('r2_h_to_z'))}", fontsize=8)
    return w.figure("twod_panels", fig), notes


# ------------------------------------------------------------------ learning curves

def learning_figure(w: _Writer, sweeps: dict[str, Sweep | None], max_runs: int = 12) -> list[str]:
    present = [sw for sw in sweeps.values() if sw is not None]
    curves = []
    for sw in present:
        runs = []
        for r in sw.rows[:max_runs]:
            res = sw.result(r["run"])
            cv = (res or {}).get("curves", {})
            if cv.get("eval_step") and cv.get("eval"):
                runs.append((r["run"], cv))
        if runs:
            curves.append((sw.name, runs))
    if not curves:
        return []
    plt = _plt()
    cols = min(3, len(curves))
    rows = math.ceil(len(curves) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.5 * cols, 3.3 * rows), squeeze=False)
    for ax, (name, runs) in zip(axes.flat, curves):
        for run, cv in runs:
            ys = [max(1 - e["r2_h_to_z"], 1e-8) if _finite(e.get("r2_h_to_z")) else math.nan for e in cv["eval"]]
            ax.plot(cv["eval_step"], ys, lw=1, label=run)
        ax.set_yscale("log")
        ax.set_xlabel("step")
        ax.set_ylabel("1 − R²(h→z), held out")
        ax.set_title(name, fontsize=9)
        ax.legend(fontsize=5)
    for ax in list(axes.flat)[len(curves):]:
        ax.set_visible(False)
    return w.figure("learning_curves", fig)


# ------------------------------------------------------------------ planning

def planning_table(results_dir: str) -> tuple[str | None, list[dict[str, Any]]]:
    files = sorted(glob.glob(os.path.join(results_dir, PLANNING_DIR, "*.json")))
    recs = []
    for p in files:
        try:
            with open(p, encoding="utf-8") as f:
                d = json.load(f)
        except (OSError, json.JSONDecodeError):
            continue
        if isinstance(d, dict) and isinstance(d.get("results"), dict):
            recs.append({"file": os.path.basename(p), **d})
    if not recs:
        return None, []
    lines = ["| file | representation | final distance | / oracle | 1st action = oracle | cost error |",
             "|---|---|---|---|---|---|"]
    for d in recs:
        for rep, r in d["results"].items():
            lines.append(f"| {d['file']} | {rep} | {fmt(r.get('final_distance'))} | {fmt(r.get('ratio_to_oracle'), 3)} | "
                         f"{fmt(r.get('first_action_agreement'), 3)} | {fmt(r.get('cost_error'), 3)} |")
    return "\n".join(lines), recs


# ------------------------------------------------------------------ Reacher

def reacher_section(results_dir: str, out_dir: str) -> tuple[str | None, dict[str, Any] | None]:
    """Markdown of the Reacher planning section from ``RESULTS_DIR/reacher/plan.json`` (the table of
    :func:`.reacher.plan_table`, the figure's path, a comparison with the paper) or, without it,
    ``plan.md`` verbatim; ``(None, None)`` when neither exists. The JSON part: per representation the
    normalised cost, its CI and the verdicts, and the encoders' metrics."""
    from .reacher import plan_table

    rdir = os.path.join(results_dir, REACHER_DIR)
    fig = os.path.join(rdir, "reacher.png")
    fig_md = f"![Reacher]({os.path.relpath(fig, out_dir)})\n\n" if os.path.isfile(fig) else ""
    try:
        with open(os.path.join(rdir, "plan.json"), encoding="utf-8") as f:
            payload = json.load(f)
        if not isinstance(payload, dict) or not isinstance(payload.get("results"), dict):
            payload = None
    except (OSError, json.JSONDecodeError):
        payload = None
    if payload is None:
        try:
            with open(os.path.join(rdir, "plan.md"), encoding="utf-8") as f:
                return f.read() + "\n" + fig_md, {"source": os.path.join(rdir, "plan.md")}
        except OSError:
            return None, None
    res = payload["results"]
    settings = payload.get("preset_settings", {})
    notes = []
    for k, paper in PAPER_REACHER.items():
        r = res.get(k)
        if r and "ratio_ci" in r:
            lo, hi = r["ratio_ci"]
            notes.append(f"{'OU-pair' if k == 'ou' else 'trajectory-trained'} encoder: normalised cost "
                         f"{r['ratio_to_oracle']:.3f} [{lo:.3f}, {hi:.3f}] (paper ≈ {paper}); "
                         f"equivalent to the oracle: {'yes' if r.get('equivalent') else 'no'}")
    text = (f"Seed {payload.get('seed')}, `{os.path.join(rdir, 'plan.json')}`"
            + (f", figure `{fig}`" if fig_md else "") + ".\n\n" + plan_table(payload) + "\n" + fig_md
            + (_bullets(notes) + "\n" if notes else ""))
    js = {"plan_json": os.path.join(rdir, "plan.json"), "figure": fig if fig_md else None,
          "seed": payload.get("seed"), "size": settings.get("data", {}).get("size"),
          "episodes": settings.get("plan", {}).get("episodes"),
          "results": {k: {f: r.get(f) for f in ("ratio_to_oracle", "ratio_ci", "equivalent", "ci_contains_1",
                                                  "final_distance", "final_distance_se", "first_action_agreement")}
                      for k, r in res.items()},
          "metrics": {k: {f: m.get(f) for f in ("r2_h_to_z", "orthogonality", "procrustes_matrix",
                                                  "whitened_procrustes")}
                      for k, m in (payload.get("metrics") or {}).items()}}
    return text, js


# ------------------------------------------------------------------ the report

def _fig_md(files: list[str], out_dir: str) -> str:
    pngs = [os.path.relpath(f, out_dir) for f in files if f.endswith(".png")]
    return "\n".join(f"![{p}]({p})" for p in pngs)


def _bullets(items: list[str]) -> str:
    return "\n".join(f"- {s}" for s in items)


def _section_data(sweeps: dict[str, Any], name: str, loader: Callable[[Any], Any], missing: str,
                  md: list[str], js: dict[str, Any]) -> tuple[Any, Any]:
    """``(sweep, loader(sweep))`` for the sweep ``name``; ``(sweep or None, None)`` with a skip note in
    ``md`` and ``js["skipped"]`` when the sweep is missing (``missing`` says what is left out) or the
    loader refuses it (``ValueError``)."""
    sw = sweeps[name]
    if sw is None:
        md.append(_skip(name, missing))
        js["skipped"].append(name)
        return None, None
    try:
        return sw, loader(sw)
    except ValueError as exc:
        md.append(f"*Skipped: {exc}.*\n")
        js["skipped"].append(name)
        return sw, None


def build_report(results_dir: str, out_dir: str) -> dict[str, str]:
    """Write ``report.md``, ``report.json`` and the figures (module docstring) for whatever subset
    of the named sweeps exists under ``results_dir``; return {file name: path} of everything written."""
    if not os.path.isdir(results_dir):
        raise ValueError(f"results directory {results_dir!r} does not exist")
    from .commands import check_out_dir

    check_out_dir(out_dir)   # creates it; ValueError naming the reason when it cannot be written
    w = _Writer(out_dir)
    sweeps = {name: load_sweep(results_dir, name) for name in ALL_SWEEPS}
    md: list[str] = [f"# Reproduction report\n\nResults: `{os.path.abspath(results_dir)}`. Sweeps found: "
                     + (", ".join(f"`{n}`" for n, s in sweeps.items() if s is not None) or "none") + ".\n"]
    js: dict[str, Any] = {"results_dir": os.path.abspath(results_dir), "skipped": []}

    # scaling
    md.append("## N-scaling (the paper's scaling table)\n")
    sdata = scaling_data(sweeps)
    missing = [o for o in SCALING_OBJECTIVES if o not in sdata]
    for o in missing:
        if sweeps.get(scaling_sweep(o)) is not None:   # present but not a grid over latent.dim
            md.append(f"*Skipped: sweep `{scaling_sweep(o)}` has no grid column `{SCALING_DIM_KEY}` "
                      f"(`--grid latent.dim=...`); column {OBJECTIVE_LABELS[o]} shows 'not run'.*\n")
        else:
            md.append(_skip(scaling_sweep(o), f"column {OBJECTIVE_LABELS[o]} shows 'not run'"))
        js["skipped"].append(scaling_sweep(o))
    if sdata:
        md.append(f"Ours: `mean ± std · k/K · best b` = mean ± std of R²(h→z) over K seeds, k seeds with "
                  f"R² > {IDENT_R2} (identification rate k/K), R² b of the seed with the smallest held-out "
                  "alignment loss; paper: the published mean over 5 seeds.\n")
        md.append(scaling_table(sdata) + "\n")
        md.append(_fig_md(scaling_figure(w, sdata), out_dir) + "\n")
        md.append(_bullets(scaling_findings(sdata)) + "\n")
        js["scaling"] = {o: {str(n): vars(c) for n, c in cells.items()} for o, cells in sdata.items()}

    # 2-D
    md.append("## 2-D mixings\n")
    twod = {}
    for mix in TWOD_MIXINGS:
        sw = sweeps[twod_sweep(mix)]
        if sw is None:
            md.append(_skip(twod_sweep(mix), "no row or panel for this mixing"))
            js["skipped"].append(twod_sweep(mix))
        else:
            twod[mix] = sw
    if twod:
        md.append(twod_table(twod) + "\n")
        try:
            files, notes = twod_figure(w, twod)
        except ImportError as exc:   # torch missing: tables still come out
            files, notes = [], [f"panels need torch: {exc}"]
        md.append(_fig_md(files, out_dir) + "\n")
        if notes:
            md.append(_bullets(notes) + "\n")
        js["twod"] = {mix: [{"point": list(k), **vars(c), "best_run": b["run"]} for k, c, b in twod_rows(sw)]
                      for mix, sw in twod.items()}

    # gennorm
    md.append("## Generalized-normal latents (Theorem 4.2)\n")
    sw, gdata = _section_data(sweeps, GENNORM_SWEEP, gennorm_data, "no R² vs α figure", md, js)
    if sw is not None and gdata is not None:
        rho = float((sw.config() or {}).get("pair", {}).get("rho", 0.9))
        overlay = uniqueness_overlay(sorted({a for d in gdata.values() for a in d}), rho)
        md.append(gennorm_table(gdata, overlay) + "\n")
        md.append(_fig_md(gennorm_figure(w, gdata, overlay), out_dir) + "\n")
        md.append(_bullets(gennorm_findings(gdata)) + "\n")
        js["gennorm"] = {"r2": {k: {str(a): vars(c) for a, c in v.items()} for k, v in gdata.items()},
                         "theorem_4_2": {str(a): v for a, v in overlay.items()}, "rho": rho}

    # lambda, rho
    md.append("## (λ, ρ) grid: collapse threshold and Theorem 4.3\n")
    sw, d = _section_data(sweeps, LAM_RHO_SWEEP, lam_rho_data, "no grid tables or heatmaps", md, js)
    if sw is not None and d is not None:
        md.append(lam_rho_tables(d) + "\n")
        md.append(_fig_md(lam_rho_figure(w, d), out_dir) + "\n")
        md.append(_bullets(lam_rho_findings(d)) + "\n")
        js["lam_rho"] = {"info": vars(d["info"]),
                         "cells": [{"lam": la, "rho": r, **c, **d["units"][(la, r)]} for (la, r), c in d["cells"].items()]}

    # bound
    md.append("## Theorem 4.3: bound vs recovery error\n")
    pts = bound_points(sweeps)
    if pts:
        md.append(_fig_md(bound_figure(w, pts), out_dir) + "\n")
        md.append(_bullets(bound_findings(pts)) + "\n")
        js["bound_points"] = pts
    else:
        md.append("*Skipped: no Gaussian-latent run with a recovery error and a bound.*\n")
        js["skipped"].append("bound_vs_error")

    # learning curves
    md.append("## Learning curves\n")
    files = learning_figure(w, sweeps)
    md.append((_fig_md(files, out_dir) if files else "*Skipped: no run with learning curves.*") + "\n")

    # planning
    md.append("## Planning (Corollary 4.5, synthetic)\n")
    ptab, precs = planning_table(results_dir)
    if ptab is None:
        md.append(f"*Skipped: no `{PLANNING_DIR}/*.json` (from `lejepa plan --out`) in the results directory.*\n")
        js["skipped"].append(PLANNING_DIR)
    else:
        md.append(ptab + "\n")
        enc = [(d["file"], d["results"]["encoder"]["ratio_to_oracle"]) for d in precs if "encoder" in d["results"]]
        md.append(_bullets([f"{f}: encoder's final distance / oracle's = {r:.3g} (the paper's OU-pair Reacher "
                            "encoders: ≈ 1.0)" for f, r in enc]) + "\n")
        js["planning"] = precs

    # Reacher
    md.append("## Reacher planning (pixels, Corollary 4.5)\n")
    rtext, rjs = reacher_section(results_dir, out_dir)
    if rtext is None:
        md.append(f"*Skipped: no `{REACHER_DIR}/plan.json` (from `lejepa reacher --out {REACHER_DIR}` or "
                  "`lejepa reproduce --with-reacher`) in the results directory.*\n")
        js["skipped"].append(REACHER_DIR)
    else:
        md.append(rtext)
        js["reacher"] = rjs

    w.text("report.json", json.dumps(js, indent=2, default=str))
    w.text("report.md", "\n".join(md))
    return dict(w.paths)


def _report_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("results_dir", metavar="RESULTS_DIR", help="directory holding the sweeps (lejepa sweep --out)")
    p.add_argument("--out", required=True, metavar="DIR", help="where to write report.md, report.json and figures")


def _report_run(args: argparse.Namespace) -> int:
    try:
        paths = build_report(args.results_dir, args.out)
    except ValueError as exc:
        print(f"lejepa report: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:   # a write failing mid-way (disk full, permissions changed)
        print(f"lejepa report: error: could not write the report under {args.out!r}: "
              f"{exc.strerror or exc}{f' ({exc.filename})' if exc.filename else ''}", file=sys.stderr)
        return 2
    if not any(load_sweep(args.results_dir, name) is not None for name in ALL_SWEEPS):
        print(f"lejepa report: note: no sweep of the paper's ({', '.join(ALL_SWEEPS[:3])}, ...) found under "
              f"{args.results_dir!r}; every sweep section says 'Skipped' (lejepa reproduce --out writes them)",
              file=sys.stderr)
    print(f"wrote {len(paths)} files; see {paths['report.md']}")
    return 0

