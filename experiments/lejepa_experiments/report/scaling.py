"""N-scaling (the paper's scaling table): data → table → figure.

The paper's protocol: per N and seed the best of K restarts by the held-out training objective
(:func:`._common.protocol_rows`), then mean ± std of R²(h→z) over the seeds. Beside it the
single-run statistics (every restart counted) so that the effect of best-of-K is visible. Each row
gets a verdict against the published mean (rule: :data:`AGREE_TOL` and the 95 % interval of the seed
mean; :func:`verdict`).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from ..tables import IDENT_R2, group, sort_key
from ._common import (OBJECTIVE_LABELS, SCALING_DIM_KEY, SCALING_OBJECTIVES, Context, SeedStats, Sweep,
                      bullets, data_label, finite, fmt, fmt_r2, plt, pm, protocol_rows, scaling_sweep, seed_stats)

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
"""Published R²(h→z), mean over 5 seeds of the best of K = 3 restarts (``x`` = R²(x→z) of the
observations). The paper's "VICReg" column is the authors' plain covariance whitening, listed here
under ``whitening``; real VICReg has no published column and is compared with that one."""
PAPER_COLUMN = {"sigreg": ("sigreg", "SIGReg"), "whitening": ("whitening", "\"VICReg\""),
                "vicreg": ("whitening", "\"VICReg\" (= whitening)"), "infonce": ("infonce", "InfoNCE")}
"""Objective -> (key in :data:`PAPER_SCALING`, the paper's column name) it is compared with."""
PAPER_K = 3
AGREE_TOL = {"sigreg": 1e-4, "whitening": 1e-4, "vicreg": 1e-4, "infonce": 0.01}
"""Agreement rule: |ours − paper| ≤ max(tolerance, 95 % half-width of the seed mean). 1e-4 for the
identifying columns (the issue's R² ≥ 0.9999 standard), 0.01 for InfoNCE (its published values jump
between N, e.g. 0.91 → 0.9999 → 0.91)."""


@dataclass
class ScalingCell:
    """One (objective, N): the protocol statistics, the single-run ones, the paper's value, the verdict."""

    n: int
    protocol: SeedStats                 # best of K per seed, over seeds
    single: SeedStats                   # every run (all restarts)
    restarts: int                       # the most restarts a seed has (K)
    align_unident: float                # mean held-out alignment of the protocol seeds not identified
    r2_unident: float
    align_ident: float
    align_opt: float                    # 2 (1 − ρ) N, the alignment at the optimum
    paper: float | None
    diff: float | None
    verdict: str = ""
    reproduced: bool = False
    restarts_min: int = 1               # the fewest (< K while a sweep is still running)

    @property
    def k_text(self) -> str:
        return str(self.restarts) if self.restarts_min == self.restarts else f"{self.restarts_min}–{self.restarts}"


def _rho(sw: Sweep) -> float:
    pair = (sw.config() or {}).get("pair") or {}
    rho = float(pair.get("rho", 0.9))
    return rho ** 2 if pair.get("kind") == "two_view" else rho


def _mean(vals: list[Any]) -> float:
    """Mean of the finite numbers in ``vals`` (nan when none)."""
    got = [float(v) for v in vals if finite(v)]
    return sum(got) / len(got) if got else math.nan


def verdict(obj: str, c: ScalingCell) -> tuple[bool, str]:
    """(reproduced?, the row's one-line verdict); the rule is in the module docstring and the section's text."""
    p = c.protocol
    how = f"best of {c.k_text}" if c.restarts > 1 else "one run per seed"
    if c.paper is None:
        return False, f"no published value at N = {c.n}"
    vs = "vs the paper's \"VICReg\" (whitening) column: " if obj == "vicreg" else ""
    tol = max(AGREE_TOL[obj], p.half95 if finite(p.half95) else 0.0)
    if c.paper > IDENT_R2 and p.k < p.n:
        return False, (f"{vs}not reproduced: {p.n - p.k} of {p.n} seeds not identified after {how} "
                f"(R² ≈ {fmt(c.r2_unident, 3)}); their held-out alignment ≈ {fmt(c.align_unident, 3)} vs "
                f"{fmt(c.align_opt, 3)} at the optimum 2(1 − ρ)N"
                + (f" (identified seeds: {fmt(c.align_ident, 3)})" if finite(c.align_ident) else ""))
    assert c.diff is not None
    if abs(c.diff) <= tol:
        return True, f"{vs}reproduced (ours within {abs(c.diff):.1g} of the paper, ≤ {tol:.1g})"
    why = ""
    if obj == "infonce" and c.restarts < PAPER_K:
        why = f"; ours is {how} (paper: best of {PAPER_K})"
    if c.paper > IDENT_R2:
        ratio = (1 - p.mean) / (1 - c.paper)
        return False, (f"{vs}differs: every seed identifies, but 1 − R² is {ratio:.2g}× the paper's "
                f"({1 - p.mean:.1e} vs {1 - c.paper:.1e}){why}")
    return False, f"{vs}differs by {c.diff:+.3g} (> {tol:.2g}){why}"


def scaling_data(sweeps: dict[str, Sweep | None]) -> dict[str, dict[int, ScalingCell]]:
    """Objective -> {N: :class:`ScalingCell`} for the scaling sweeps present (with a ``dim`` column)."""
    out: dict[str, dict[int, ScalingCell]] = {}
    for obj in SCALING_OBJECTIVES:
        sw = sweeps.get(scaling_sweep(obj))
        if sw is None or SCALING_DIM_KEY not in sw.grid_keys:
            continue
        prot = group(protocol_rows(sw), [SCALING_DIM_KEY])
        every = group(sw.rows, [SCALING_DIM_KEY])
        rho = _rho(sw)
        cells = {}
        for (dim,), rows in sorted(prot.items(), key=lambda kv: sort_key(kv[0][0])):
            n = int(float(dim))
            unident = [r for r in rows if not (finite(r.get("r2_h_to_z")) and r["r2_h_to_z"] > IDENT_R2)]
            ident = [r for r in rows if r not in unident]
            key = PAPER_COLUMN[obj][0]
            paper = PAPER_SCALING.get(n, {}).get(key)
            ps = seed_stats(rows)
            c = ScalingCell(n, ps, seed_stats(every[(dim,)]), max(r.get("restarts", 1) for r in rows),
                            _mean([r.get("align") for r in unident]), _mean([r.get("r2_h_to_z") for r in unident]),
                            _mean([r.get("align") for r in ident]), 2 * (1 - rho) * n, paper,
                            ps.mean - paper if paper is not None and finite(ps.mean) else None)
            c.restarts_min = min(r.get("restarts", 1) for r in rows)
            c.reproduced, c.verdict = verdict(obj, c)
            cells[n] = c
        out[obj] = cells
    return out


def overview_table(data: dict[str, dict[int, ScalingCell]]) -> str:
    """The paper's layout: N, published R²(x→z), per objective ours (protocol: ``mean ± std · k/n``)
    beside the published value."""
    dims = sorted(set(PAPER_SCALING) | {n for d in data.values() for n in d})
    head = ["N", "paper R²(x→z)"]
    for obj in SCALING_OBJECTIVES:
        head += [f"{OBJECTIVE_LABELS[obj]}: ours", f"paper {PAPER_COLUMN[obj][1]}"]
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for n in dims:
        paper = PAPER_SCALING.get(n, {})
        cells = [str(n), fmt(paper.get("x"), 3)]
        for obj in SCALING_OBJECTIVES:
            c = data.get(obj, {}).get(n)
            ours = "not run" if c is None else f"{pm(c.protocol)} · {c.protocol.k}/{c.protocol.n}"
            cells += [ours, fmt_r2(paper.get(PAPER_COLUMN[obj][0]))]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def comparison_table(obj: str, cells: dict[int, ScalingCell]) -> str:
    """Per N: protocol R² and 1 − R² (mean ± std over seeds), identification rate, the single-run
    statistics (every restart), the paper's value, the difference and the verdict."""
    col = PAPER_COLUMN[obj][1]
    lines = [f"| N | seeds × K | R²(h→z), best of K: mean ± std | 1 − R² | identified (R² > {IDENT_R2}) | "
             f"every run: R² mean ± std (identified) | paper {col} | ours − paper | verdict |",
             "|---" * 9 + "|"]
    for n, c in cells.items():
        p, s = c.protocol, c.single
        lines.append(
            f"| {n} | {p.n} × {c.k_text} | {pm(p)} | {1 - p.mean:.2e} ± {p.std:.1e} | {p.k}/{p.n} | "
            f"{pm(s)} ({s.k}/{s.n}) | {fmt_r2(c.paper)} | {f'{c.diff:+.2e}' if c.diff is not None else '—'} | "
            f"{c.verdict} |")
    return "\n".join(lines)


def scaling_json(data: dict[str, dict[int, ScalingCell]]) -> dict[str, Any]:
    """report.json's ``scaling``: per objective and N the protocol fields (``protocol_mean``,
    ``protocol_std``, ``n_seeds``, ``restarts``, ...) and the single-run ones; ``mean``/``std``/``k``
    /``runs`` repeat the protocol's for readers of the older layout."""
    out: dict[str, Any] = {}
    for obj, cells in data.items():
        out[obj] = {}
        for n, c in cells.items():
            out[obj][str(n)] = {
                "protocol_mean": c.protocol.mean, "protocol_std": c.protocol.std,
                "protocol_one_minus_r2": 1 - c.protocol.mean if finite(c.protocol.mean) else None,
                "n_seeds": c.protocol.n, "restarts": c.restarts, "restarts_min": c.restarts_min, "identified": c.protocol.k,
                "ident_rate": c.protocol.rate, "ident_threshold": IDENT_R2,
                "single_mean": c.single.mean, "single_std": c.single.std, "single_runs": c.single.n,
                "single_identified": c.single.k,
                "paper": c.paper, "paper_column": PAPER_COLUMN[obj][1], "diff": c.diff, "verdict": c.verdict,
                "reproduced": c.reproduced,
                "align_unidentified": c.align_unident if finite(c.align_unident) else None,
                "r2_unidentified": c.r2_unident if finite(c.r2_unident) else None,
                "align_identified": c.align_ident if finite(c.align_ident) else None,
                "align_optimum": c.align_opt,
                "mean": c.protocol.mean, "std": c.protocol.std, "k": c.protocol.k, "runs": c.protocol.n,
                "protocol": asdict(c.protocol), "single": asdict(c.single)}
    return out


COLORS = dict(zip(SCALING_OBJECTIVES, ("C0", "C1", "C2", "C3")))
FLOOR = 1e-8


def scaling_figure(ctx: Context, data: dict[str, dict[int, ScalingCell]], rows: dict[str, tuple[list, list]],
                   labels: dict[str, str]) -> list[str]:
    """1 − R² (log) vs N (log2): left the protocol (best of K per seed), right every run; mean ± std
    over seeds as error bars (the lower bar clipped at the axis floor), each seed as a faint dot, the
    paper's means as dashed lines."""
    import numpy as np

    pyplot = plt()
    fig, axes = pyplot.subplots(1, 2, figsize=(11.5, 4.4), sharey=True)
    rng = np.random.default_rng(0)
    for ax, which, title in ((axes[0], 0, "best of K per seed (the paper's protocol)"),
                             (axes[1], 1, "every run (all restarts, no selection)")):
        for i, (obj, cells) in enumerate(data.items()):
            ns = sorted(cells)
            shift = 2 ** (0.06 * (i - (len(data) - 1) / 2))     # objectives side by side, not on top
            st = [cells[n].protocol if which == 0 else cells[n].single for n in ns]
            m = np.array([max(1 - s.mean, FLOOR) for s in st])
            sd = np.array([s.std for s in st])
            lo = np.minimum(sd, m - np.maximum(m - sd, m / 20))   # clip the lower bar at m/20 on the log axis
            ax.errorbar([n * shift for n in ns], m, yerr=[lo, sd], marker="o", ms=5, capsize=3, color=COLORS[obj], lw=1.5,
                        label=f"{OBJECTIVE_LABELS[obj]} ({labels[obj]})")
            pts = rows[obj][which]
            xs = [float(r["dim"]) * shift * 2 ** rng.uniform(-0.03, 0.03) for r in pts if finite(r.get("r2_h_to_z"))]
            ys = [max(1 - r["r2_h_to_z"], FLOOR) for r in pts if finite(r.get("r2_h_to_z"))]
            ax.scatter(xs, ys, s=16, color=COLORS[obj], alpha=0.45, lw=0)
        for key, lab in (("sigreg", "SIGReg"), ("whitening", "\"VICReg\" (whitening)"), ("infonce", "InfoNCE")):
            top = max((n for cells in data.values() for n in cells), default=1024)
            pn = [n for n in sorted(PAPER_SCALING) if n <= max(top, 8)]
            ax.plot(pn, [1 - PAPER_SCALING[n][key] for n in pn], "--", color=COLORS[key], alpha=0.6, lw=1,
                    marker="s", mfc="none", ms=4, label=f"paper {lab}")
        ax.axhline(1 - IDENT_R2, color="grey", lw=0.7, ls=":")
        ax.text(2.05, (1 - IDENT_R2) * 1.2, f"R² = {IDENT_R2}", fontsize=7, color="grey")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("latent dimension N")
        ax.set_title(title, fontsize=10)
        ax.grid(True, which="major", alpha=0.3)
    axes[0].set_ylabel("1 − R²(h→z), held out (mean ± std over seeds; dots: seeds)")
    axes[1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.suptitle("N-scaling: coupling world, matched encoder" + (f" — preset {ctx.label}" if ctx.label else ""),
                 fontsize=11)
    return ctx.writer.figure("scaling_r2", fig)


def findings(data: dict[str, dict[int, ScalingCell]]) -> list[str]:
    """One line per objective: how many N are reproduced, and the N = 8-type stalls."""
    out = []
    for obj, cells in data.items():
        ok = [n for n, c in cells.items() if c.reproduced]
        bad = [n for n in cells if n not in ok and cells[n].paper is not None]
        lab = OBJECTIVE_LABELS[obj]
        line = f"{lab}: reproduced at N = {', '.join(map(str, ok)) or 'none'}"
        if bad:
            line += f"; not at N = {', '.join(map(str, bad))}"
        gain = [n for n, c in cells.items() if c.restarts > 1 and c.protocol.k > c.single.k * c.protocol.n / c.single.n]
        if gain:
            line += (f"; best of K raises the identification rate at N = {', '.join(map(str, gain))} ("
                     + ", ".join(f"{cells[n].single.k}/{cells[n].single.n} runs → {cells[n].protocol.k}/"
                                 f"{cells[n].protocol.n} seeds" for n in gain) + ")")
        out.append(line + ".")
    if "vicreg" in data:
        out.append("Real VICReg (variance hinge, 25/25/1) has no published column: it is compared with the paper's "
                   "\"VICReg\" column, which is the authors' plain whitening (our `whitening`).")
    return out


def section(ctx: Context) -> None:
    ctx.md.append("## N-scaling (the paper's scaling table)\n")
    data = scaling_data(ctx.sweeps)
    for o in SCALING_OBJECTIVES:
        if o in data:
            continue
        name = scaling_sweep(o)
        if ctx.sweeps.get(name) is not None:   # present but not a grid over latent.dim
            ctx.skip(name, f"sweep `{name}` has no grid column `{SCALING_DIM_KEY}` (`--grid latent.dim=...`); "
                           f"column {OBJECTIVE_LABELS[o]} shows 'not run'")
        else:
            ctx.skip_missing(name, f"column {OBJECTIVE_LABELS[o]} shows 'not run'")
    if not data:
        return
    sws = {o: ctx.sweeps[scaling_sweep(o)] for o in data}
    labels = {o: data_label([sw], None) for o, sw in sws.items() if sw is not None}
    ctx.md.append(
        "The paper's protocol: per N and seed the best of K restarts chosen by the training objective on the "
        "held-out pairs (never by R²), then mean ± std over seeds. Identified: R²(h→z) > "
        f"{IDENT_R2}. Verdict rule: reproduced when every seed identifies (identifying columns) and "
        "|ours − paper| ≤ max(tolerance, 95 % half-width of our seed mean); tolerance 1e-4 for SIGReg, "
        "whitening and VICReg, 0.01 for InfoNCE. The paper's \"VICReg\" column is plain covariance whitening; "
        "our real VICReg is compared with it. Data: "
        + "; ".join(f"{OBJECTIVE_LABELS[o]} {labels[o]}" for o in labels)
        + (f", preset {ctx.label}" if ctx.label else "") + ".\n")
    ctx.md.append(overview_table(data) + "\n")
    rows = {o: (protocol_rows(sw), sw.rows) for o, sw in sws.items() if sw is not None}
    files = scaling_figure(ctx, data, rows, labels)
    ctx.figure(files, "1 − R²(h→z) vs N on log axes; error bars = std over seeds, dots = single seeds (or runs), "
                      "dashed = the paper's means. Data: " + "; ".join(f"{OBJECTIVE_LABELS[o]} {labels[o]}" for o in labels)
               + (f"; preset {ctx.label}" if ctx.label else "") + ".")
    for obj, cells in data.items():
        ctx.md.append(f"### {OBJECTIVE_LABELS[obj]}\n\n" + comparison_table(obj, cells) + "\n")
    ctx.md.append(bullets(findings(data)) + "\n")
    ctx.js["scaling"] = scaling_json(data)
