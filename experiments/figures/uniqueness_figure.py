"""Figure for Theorem 4.2: affinity defect of the first Langevin eigenfunction and maximal-minus-
linear correlation of additive-noise pairs, versus the generalized-normal shape alpha.

Command (from the repository root):

    .venv/bin/python experiments/figures/uniqueness_figure.py --out uniqueness_alpha.png \
        [--table uniqueness_alpha.json] [--r2 RESULTS.csv|RESULTS.json] [--rho 0.9] [--quick]
        [--from-table uniqueness_alpha.json]   # redraw without recomputing

It computes everything with :mod:`pycheck.uniqueness` (numpy/scipy only, a few minutes on one core;
``--quick`` uses a coarser alpha grid), prints a Markdown table, writes the table as JSON if asked,
and draws the figure with matplotlib (Agg backend). ``--r2`` overlays training-based R^2 from a
gennorm sweep on a right-hand axis: a CSV with a header containing ``alpha`` and one or more R^2
columns (every other numeric column; an optional text column ``method``/``loss``/``objective``
splits the series), or a JSON list of such records, or a JSON object ``{series: {alpha: r2}}``,
or ``lejepa train`` run JSON files / a directory of them (e.g. the gennorm_spiral sweep with
``--set latent.alpha=A``): ``metrics.r2_h_to_z`` versus ``config.latent.alpha``, one series per
``config.loss.kind``, averaged over seeds. Nothing from the training engine is imported.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from pycheck import uniqueness as U  # noqa: E402

ALPHAS = [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0, 6.0, 8.0, 16.0, 32.0]
QUICK_ALPHAS = [0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 8.0, 32.0]
GROUP_KEYS = ("method", "loss", "objective", "series", "name")


def _run_record(data: object) -> tuple[str, float, float] | None:
    """(loss kind, alpha, r2_h_to_z) from a ``lejepa train`` run JSON, else None."""
    if not (isinstance(data, dict) and isinstance(data.get("config"), dict)
            and isinstance(data.get("metrics"), dict)):
        return None
    cfg, met = data["config"], data["metrics"]
    latent = cfg.get("latent", {})
    if latent.get("dist") != "gennorm" or "r2_h_to_z" not in met:
        return None
    return str(cfg.get("loss", {}).get("kind", "run")), float(latent["alpha"]), float(met["r2_h_to_z"])


def load_r2(paths: str | list[str]) -> dict[str, list[tuple[float, float]]]:
    """Series name -> sorted [(alpha, r2)] from CSV/JSON tables (formats in the module doc) or
    from ``lejepa train`` run JSON files (a directory means its ``*.json``): for those, series =
    ``config.loss.kind``, alpha = ``config.latent.alpha`` (gennorm latents only), value =
    ``metrics.r2_h_to_z``, averaged over runs (seeds) with the same series and alpha."""
    files: list[Path] = []
    for path in ([paths] if isinstance(paths, str) else list(paths)):
        p = Path(path)
        if p.is_dir():
            files += sorted(p.glob("*.json"))
        elif p.exists():
            files.append(p)
        else:
            raise ValueError(f"R^2 file not found: {path}")
    runs: dict[tuple[str, float], list[float]] = defaultdict(list)
    out: dict[str, list[tuple[float, float]]] = {}
    for f in files:
        rec = _run_record(json.loads(f.read_text())) if f.suffix.lower() == ".json" else None
        if rec is not None:
            runs[(rec[0], rec[1])].append(rec[2])
        elif not (f.suffix.lower() == ".json" and "config" in json.loads(f.read_text())):
            for k, v in _load_r2_table(f).items():
                out[k] = sorted(out.get(k, []) + v)
    for (kind, alpha), vals in runs.items():
        out.setdefault(f"{kind} (runs)", []).append((alpha, sum(vals) / len(vals)))
    out = {k: sorted(v) for k, v in out.items()}
    if not out:
        raise ValueError("no R^2 values found in --r2 input")
    return out


def _load_r2_table(p: Path) -> dict[str, list[tuple[float, float]]]:
    """One CSV or JSON table (formats in the module doc)."""
    records: list[dict] = []
    if p.suffix.lower() == ".json":
        data = json.loads(p.read_text())
        if isinstance(data, dict) and "rows" in data and isinstance(data["rows"], list):
            data = data["rows"]
        if isinstance(data, list):
            records = data
        elif isinstance(data, dict):
            out = {}
            for name, series in data.items():
                if not isinstance(series, dict):
                    raise ValueError("JSON object form must be {series: {alpha: r2}}")
                out[str(name)] = sorted((float(a), float(v)) for a, v in series.items())
            return out
        else:
            raise ValueError("unsupported JSON layout for --r2")
    else:
        with p.open(newline="") as fh:
            records = list(csv.DictReader(fh))
    out: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for rec in records:
        if "alpha" not in rec:
            raise ValueError(f"--r2 records need an 'alpha' field, got keys {sorted(rec)}")
        alpha = float(rec["alpha"])
        group = next((str(rec[k]) for k in GROUP_KEYS if k in rec), "")
        for key, val in rec.items():
            if key == "alpha" or key in GROUP_KEYS:
                continue
            try:
                v = float(val)
            except (TypeError, ValueError):
                continue
            if not any(t in key.lower() for t in ("r2", "r^2", "rsq")) and len(rec) > 2 + bool(group):
                continue
            out[f"{group} {key}".strip()].append((alpha, v))
    if not out:
        raise ValueError("no R^2 columns found in --r2 file")
    return {k: sorted(v) for k, v in out.items()}


def markdown(table: list[dict]) -> str:
    head = ("| law | first eigenfunction | λ₁ (largest interval) | affinity defect (± change) "
            "| max corr | linear corr | gap (± error) |\n|---|---|---|---|---|---|---|")
    lines = [head]
    for r in table:
        d = (f"{r['defect']:.3e} (±{r['defect_change']:.0e})" if math.isfinite(r["defect"])
             else "— (none)")
        gap = f"{r['corr_gap']:.3e} (±{r['corr_error']:.0e})"
        if r["tail_driven"]:
            gap += " tail-driven, lower bound"
        elif r["corr_error"] > max(0.1 * abs(r["corr_gap"]), 1e-12):
            gap += " NOT converged"
        lam = f"{r['lambda1']:.4g}" + (f" → {r['lambda_limit']:.4g}" if r["status"] != "eigenfunction" else "")
        lines.append(f"| {r['law']} | {r['status']} | {lam} | {d} | {r['sigma2']:.6f} | "
                     f"{r['linear']:.6f} | {gap} |")
    return "\n".join(lines)


def draw(table: list[dict], out: str, r2: dict | None, rho: float) -> None:
    rows = sorted((r for r in table if math.isfinite(r["alpha"])), key=lambda r: r["alpha"])
    a = [r["alpha"] for r in rows]
    floor = 1e-16
    fig, ax = plt.subplots(figsize=(8, 6.2))
    ok = [r for r in rows if math.isfinite(r["defect"])]
    ax.plot([r["alpha"] for r in ok], [max(r["defect"], floor) for r in ok], "o-", color="C0",
            label="affinity defect of first eigenfunction (floored at 1e-16)")
    none = [r for r in rows if not math.isfinite(r["defect"])]
    if none:
        ax.plot([r["alpha"] for r in none], [1.0] * len(none), "x", color="C0", ms=9,
                label="no first eigenfunction (" + ", ".join(sorted({r['status'] for r in none})) + ")")
    good = lambda r: not r["tail_driven"] and r["corr_error"] <= max(0.1 * abs(r["corr_gap"]), 1e-12)  # noqa: E731
    conv = [r for r in rows if good(r)]
    tail = [r for r in rows if not good(r)]
    ax.plot([r["alpha"] for r in conv], [max(r["corr_gap"], floor) for r in conv], "s-", color="C3",
            label=f"max corr − linear corr, rho={rho:g}")
    if tail:
        ax.plot([r["alpha"] for r in tail], [max(r["corr_gap"], floor) for r in tail], "s", color="C3",
                mfc="none", label="  (tail-driven lower bound, or not converged)")
    ax.axvline(2.0, color="grey", lw=0.8, ls=":")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(a)
    ax.set_xticklabels([f"{x:g}" for x in a], rotation=45)
    ax.set_xlabel("generalized-normal shape alpha  (p ∝ exp(-|z/a|^alpha), unit variance)")
    ax.set_ylabel("defect / correlation gap")
    ax.set_ylim(floor / 3, 3.0)
    handles, labels = ax.get_legend_handles_labels()
    if r2:
        ax2 = ax.twinx()
        for i, (name, pts) in enumerate(sorted(r2.items())):
            h, = ax2.plot([p[0] for p in pts], [p[1] for p in pts], "^--", color=f"C{4 + i}",
                          label=f"R² {name}")
            handles.append(h)
            labels.append(f"R² {name}")
        ax2.set_ylabel("training R² (from --r2)")
        ax2.set_ylim(0, 1.02)
    ax.legend(handles, labels, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
    ax.set_title("Theorem 4.2: only alpha = 2 has an affine first eigenfunction / zero gap")
    fig.tight_layout()
    fig.savefig(out, dpi=150)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="uniqueness_alpha.png", help="PNG path")
    ap.add_argument("--table", default=None, help="write the table as JSON here")
    ap.add_argument("--r2", default=None, nargs="+",
                    help="CSV/JSON tables of R^2 vs alpha, or lejepa-train run JSONs / directories")
    ap.add_argument("--rho", type=float, default=0.9)
    ap.add_argument("--quick", action="store_true", help="coarse alpha grid, other laws skipped")
    ap.add_argument("--from-table", default=None,
                    help="redraw from a JSON table written earlier by --table (no recomputation)")
    args = ap.parse_args(argv)
    r2 = load_r2(args.r2) if args.r2 else None
    if args.from_table:
        table = json.loads(Path(args.from_table).read_text())
    else:
        alphas = QUICK_ALPHAS if args.quick else ALPHAS
        laws = [U.gennorm(x) for x in alphas]
        if not args.quick:
            laws += [U.laplace(), U.logistic()] + [U.student_t(v) for v in (3.0, 5.0, 10.0, 30.0)] \
                + [U.gaussian_mixture(0.8)]
        table = U.family_table(laws, args.rho)
    print(markdown(table))
    if args.table:
        Path(args.table).write_text(json.dumps(table, indent=1, default=float))
    draw(table, args.out, r2, args.rho)
    print(f"figure written to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
