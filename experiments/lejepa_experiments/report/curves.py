"""Learning curves: held-out 1 − R²(h→z) over training steps, one panel per sweep (up to
``max_runs`` runs each; restart 0 only where a sweep has restarts)."""

from __future__ import annotations

import math

from ._common import RESTART_KEY, Context, Sweep, data_label, finite, plt


def learning_figure(ctx: Context, max_runs: int = 12) -> tuple[list[str], list[Sweep]]:
    curves: list[tuple[Sweep, list]] = []
    for sw in ctx.sweeps.values():
        if sw is None:
            continue
        rows = [r for r in sw.rows if str(r.get(RESTART_KEY, 0)) in ("0", "0.0")]
        runs = []
        for r in rows[:max_runs]:
            cv = (sw.result(r["run"]) or {}).get("curves", {})
            if cv.get("eval_step") and cv.get("eval"):
                runs.append((r["run"], cv))
        if runs:
            curves.append((sw, runs))
    if not curves:
        return [], []
    pyplot = plt()
    cols = min(3, len(curves))
    nrows = math.ceil(len(curves) / cols)
    fig, axes = pyplot.subplots(nrows, cols, figsize=(4.5 * cols, 3.3 * nrows), squeeze=False)
    for ax, (sw, runs) in zip(axes.flat, curves):
        for run, cv in runs:
            ys = [max(1 - e["r2_h_to_z"], 1e-8) if finite(e.get("r2_h_to_z")) else math.nan for e in cv["eval"]]
            ax.plot(cv["eval_step"], ys, lw=1, label=run)
        ax.set_yscale("log")
        ax.set_xlabel("step")
        ax.set_ylabel("1 − R²(h→z), held out")
        ax.set_title(f"{sw.name}: {len(runs)} of {len(sw.rows)} runs ({data_label([sw], None)})", fontsize=8)
        ax.legend(fontsize=5)
    for ax in list(axes.flat)[len(curves):]:
        ax.set_visible(False)
    if ctx.label:
        fig.suptitle(f"Learning curves, preset {ctx.label}", fontsize=10)
    fig.tight_layout()
    return ctx.writer.figure("learning_curves", fig), [sw for sw, _ in curves]


def section(ctx: Context) -> None:
    ctx.md.append("## Learning curves\n")
    files, used = learning_figure(ctx)
    if files:
        ctx.figure(files, "held-out 1 − R²(h→z) during training, per sweep (the first runs; restart 0). Data: "
                   + "; ".join(f"`{sw.name}` {data_label([sw], None)}" for sw in used)
                   + (f"; preset {ctx.label}" if ctx.label else "") + ".")
    else:
        ctx.md.append("*Skipped: no run with learning curves.*\n")
