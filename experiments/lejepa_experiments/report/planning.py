"""Planning on the synthetic worlds (Corollary 4.5): ``RESULTS_DIR/planning/*.json`` from
``lejepa plan --out`` → a table of final distance and its ratio to the oracle's. The paper's
comparison point: OU-pair encoders plan at ≈ 1.0 × the oracle's cost (its Reacher experiment)."""

from __future__ import annotations

import glob
import json
import os
from typing import Any

from ._common import PLANNING_DIR, Context, bullets, fmt

PAPER_RATIO = 1.0
EQUIV = (0.909, 1.1)
"""Ratio to the oracle counted as "matches the oracle" (the Reacher step's equivalence margin)."""


def planning_records(results_dir: str) -> list[dict[str, Any]]:
    recs = []
    for p in sorted(glob.glob(os.path.join(results_dir, PLANNING_DIR, "*.json"))):
        try:
            with open(p, encoding="utf-8") as f:
                d = json.load(f)
        except (OSError, json.JSONDecodeError):
            continue
        if isinstance(d, dict) and isinstance(d.get("results"), dict):
            recs.append({"file": os.path.basename(p), **d})
    return recs


def planning_table(recs: list[dict[str, Any]]) -> str:
    lines = ["| file | representation | final distance | / oracle | 1st action = oracle | cost error | paper | verdict |",
             "|---|---|---|---|---|---|---|---|"]
    for d in recs:
        for rep, r in d["results"].items():
            ratio = r.get("ratio_to_oracle")
            v = "—"
            if rep == "encoder" and isinstance(ratio, (int, float)):
                v = ("matches the oracle" if EQUIV[0] <= ratio <= EQUIV[1]
                     else f"differs: {ratio:.3g}× the oracle's distance (outside [{EQUIV[0]}, {EQUIV[1]}])")
            lines.append(f"| {d['file']} | {rep} | {fmt(r.get('final_distance'))} | {fmt(ratio, 3)} | "
                         f"{fmt(r.get('first_action_agreement'), 3)} | {fmt(r.get('cost_error'), 3)} | "
                         f"{f'≈ {PAPER_RATIO}' if rep == 'encoder' else '—'} | {v} |")
    return "\n".join(lines)


def section(ctx: Context) -> None:
    ctx.md.append("## Planning (Corollary 4.5, synthetic)\n")
    recs = planning_records(ctx.results_dir)
    if not recs:
        ctx.skip(PLANNING_DIR, f"no `{PLANNING_DIR}/*.json` (from `lejepa plan --out`) in the results directory")
        return
    ctx.md.append(planning_table(recs) + "\n")
    enc = [(d["file"], d["results"]["encoder"]["ratio_to_oracle"]) for d in recs if "encoder" in d["results"]]
    ctx.md.append(bullets([f"{f}: encoder's final distance / oracle's = {r:.3g} (the paper's OU-pair Reacher "
                           "encoders: ≈ 1.0)" for f, r in enc]) + "\n")
    ctx.js["planning"] = recs
