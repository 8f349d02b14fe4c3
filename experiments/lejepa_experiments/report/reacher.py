"""Reacher planning from pixels (Corollary 4.5): ``RESULTS_DIR/reacher/plan.json`` (``lejepa reacher
--out``) → its table, its figure (linked), and the normalised costs beside the paper's."""

from __future__ import annotations

import json
import os
from typing import Any

from ._common import REACHER_DIR, Context, bullets

PAPER_REACHER = {"ou": 1.0, "traj": 1.5}
"""The paper's normalised Reacher planning cost (≈), OU-pair and trajectory-trained encoders."""


def reacher_section(results_dir: str, out_dir: str) -> tuple[str | None, dict[str, Any] | None]:
    """Markdown of the Reacher planning section from ``RESULTS_DIR/reacher/plan.json`` (the table of
    :func:`.reacher.plan_table`, the figure's path, a comparison with the paper) or, without it,
    ``plan.md`` verbatim; ``(None, None)`` when neither exists. The JSON part: per representation the
    normalised cost, its CI and the verdicts, and the encoders' metrics."""
    from ..reacher import plan_table

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
            + (bullets(notes) + "\n" if notes else ""))
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


def section(ctx: Context) -> None:
    ctx.md.append("## Reacher planning (pixels, Corollary 4.5)\n")
    text, js = reacher_section(ctx.results_dir, ctx.out_dir)
    if text is None:
        ctx.skip(REACHER_DIR, f"no `{REACHER_DIR}/plan.json` (from `lejepa reacher --out {REACHER_DIR}` or "
                              "`lejepa reproduce --with-reacher`) in the results directory")
        return
    ctx.md.append(text)
    ctx.js["reacher"] = js
