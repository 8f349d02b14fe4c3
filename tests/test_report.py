"""``lejepa report``: a tiny results directory (real sweeps + two synthetic summaries) -> files whose
table numbers equal the summaries; missing sweeps are skipped with a note."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("matplotlib")

from lejepa_experiments import cli, report, sweep  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIGS = os.path.join(ROOT, "experiments", "configs")
QUIET = ["runtime.progress=false", "runtime.threads=1"]
TINY_2D = ["train.steps=20", "train.log_every=5", "eval.size=256", "eval.every=10", "encoder.width=16",
           "encoder.depth=2", "loss.slices=16", "loss.lam_end=null"]
TINY_SCALING = ["train.steps=20", "train.log_every=5", "eval.size=256", "eval.every=10", "loss.slices=16"]

# Synthetic summaries (justified: the seed statistics need controlled values, e.g. a seed that
# identifies but is not the best by alignment, which very short trainings do not give).
INFONCE_ROWS = [  # N = 2: three seeds; the smallest alignment loss is seed 1 (not the largest R²)
    {"dim": "2", "seed": 0, "run": "dim=2_s0", "r2_h_to_z": 0.9995, "align": 0.50},
    {"dim": "2", "seed": 1, "run": "dim=2_s1", "r2_h_to_z": 0.9000, "align": 0.40},
    {"dim": "2", "seed": 2, "run": "dim=2_s2", "r2_h_to_z": 0.99995, "align": 0.45},
    {"dim": "8", "seed": 0, "run": "dim=8_s0", "r2_h_to_z": 0.70, "align": 3.0},
]
GENNORM_ROWS = [  # peaks at alpha = 3, not 2
    {"kind": k, "alpha": a, "seed": 0, "run": f"kind={k}_alpha={a}_s0", "r2_h_to_z": v, "align": 0.3}
    for k, a, v in [("sigreg", "1", 0.80), ("sigreg", "2", 0.95), ("sigreg", "3", 0.99),
                    ("infonce", "1", 0.90), ("infonce", "2", 0.99), ("infonce", "3", 0.98)]
]


def _write_rows(d: str, rows: list[dict]) -> None:
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "summary.json"), "w") as f:
        json.dump(rows, f)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    res = str(tmp_path_factory.mktemp("results"))
    log = lambda s: None
    # four very short real trainings through the sweep API
    sweep.run_sweep(os.path.join(CONFIGS, "scaling.yaml"), report.scaling_sweep("sigreg"), res,
                    ["latent.dim=2"], [0, 1], overrides=TINY_SCALING + QUIET, log=log)
    sweep.run_sweep(os.path.join(CONFIGS, "spiral2d_fast.yaml"), report.twod_sweep("spiral"), res,
                    ["loss.kind=sigreg"], [0], overrides=TINY_2D + QUIET, log=log)
    sweep.run_sweep(os.path.join(CONFIGS, "spiral2d_fast.yaml"), report.LAM_RHO_SWEEP, res,
                    ["loss.lam=0.0001", "pair.rho=0.9"], [0], overrides=TINY_2D + QUIET + ["loss.convention=authors"],
                    log=log)
    _write_rows(os.path.join(res, report.scaling_sweep("infonce")), INFONCE_ROWS)
    _write_rows(os.path.join(res, report.GENNORM_SWEEP), GENNORM_ROWS)
    # planning result through `lejepa plan --out`
    ck = os.path.join(res, report.twod_sweep("spiral"), "kind=sigreg_s0.pt")
    os.makedirs(os.path.join(res, report.PLANNING_DIR))
    plan_out = os.path.join(res, report.PLANNING_DIR, "spiral.json")
    assert cli.main(["plan", "--checkpoint", ck, "--episodes", "8", "--horizon", "2", "--candidates", "4",
                     "--out", plan_out]) == 0
    out = str(tmp_path_factory.mktemp("report"))
    paths = report.build_report(res, out)
    with open(paths["report.md"], encoding="utf-8") as f:
        md = f.read()
    with open(paths["report.json"], encoding="utf-8") as f:
        js = json.load(f)
    return res, out, paths, md, js


def _table_row(md: str, first_cell: str, header_contains: str) -> list[str]:
    """Cells of the row starting with ``first_cell`` in the first table whose header contains the text."""
    lines = md.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("|") and header_contains in line:
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                cells = [c.strip() for c in row.strip("|").split("|")]
                if cells[0] == first_cell:
                    return cells
    raise AssertionError(f"no row {first_cell!r} under a header with {header_contains!r}")


def test_files_exist(built):
    _, out, paths, _, _ = built
    for stem in ("scaling_r2", "twod_panels", "gennorm_r2", "lam_rho_heatmaps", "bound_vs_error", "learning_curves"):
        for ext, magic in (("png", b"\x89PNG"), ("pdf", b"%PDF")):
            p = os.path.join(out, f"{stem}.{ext}")
            assert paths[f"{stem}.{ext}"] == p
            with open(p, "rb") as f:
                assert f.read(4) == magic
    assert sorted(os.listdir(out)) == sorted(paths)          # nothing else (no temporary files left)


def test_scaling_table_equals_the_summaries(built):
    res, _, _, md, js = built
    rows = json.load(open(os.path.join(res, "scaling_sigreg", "summary.json")))
    r2 = np.array([r["r2_h_to_z"] for r in rows])
    k = int(np.sum(r2 > 0.999))
    cells = _table_row(md, "2", "SIGReg: ours")
    want = f"{r2.mean():.6f} ± {r2.std(ddof=1):.6f} · {k}/2"
    assert cells[2] == want and cells[3] == "0.999998"                    # ours, then the paper's
    # the synthetic InfoNCE column (no restarts: one run per seed): mean, std, 2 of 3 identify
    v = np.array([0.9995, 0.9000, 0.99995])
    assert cells[8] == f"{v.mean():.6f} ± {v.std(ddof=1):.6f} · 2/3"
    assert cells[9] == "0.950961"
    assert cells[4] == "not run" and cells[6] == "not run"                 # whitening, vicreg missing
    assert cells[7] == "0.999996"                    # real VICReg is compared with the paper's "VICReg" column
    got = js["scaling"]["infonce"]["2"]
    assert got["protocol_mean"] == pytest.approx(v.mean(), rel=1e-15) and got["identified"] == 2
    assert got["n_seeds"] == 3 and got["restarts"] == 1 and got["single_mean"] == got["protocol_mean"]
    assert got["paper"] == 0.950961 and got["diff"] == pytest.approx(v.mean() - 0.950961, rel=1e-12)
    assert js["scaling"]["sigreg"]["2"]["protocol_mean"] == pytest.approx(r2.mean(), rel=1e-15)
    # N = 8 only for InfoNCE, N = 1024 only in the paper
    assert _table_row(md, "8", "SIGReg: ours")[8].startswith("0.700000 ± 0.000000 · 0/1")
    assert _table_row(md, "1024", "SIGReg: ours")[2] == "not run"
    # the per-objective comparison table: InfoNCE N = 2 within 0.01 + the 95 % half-width -> reproduced
    row = _table_row(md, "2", "paper InfoNCE | ours − paper")
    assert row[1] == "3 × 1" and row[4] == "2/3" and row[-1].startswith("reproduced")


def test_lam_rho_table_in_both_units(built):
    from pycheck import sigreg as sg

    res, _, _, md, js = built
    row = json.load(open(os.path.join(res, "lam_rho", "summary.json")))[0]
    lo, hi = sorted(sg.lam_from_authors(1e-4, 2, c) for c in sg.conversion_factors(0.9))
    label = f"0.0001 (ours ≈ {lo:.2g}–{hi:.2g})"
    cells = _table_row(md, label, "λ, authors' units (ours)")
    assert cells[1] == f"{row['r2_h_to_z']:.4g} †"                        # below lam*_a = 2.45e-4
    star = _table_row(md, "λ* authors' / ours", "λ, authors' units (ours)")
    assert star[1] == f"{sg.collapse_threshold_authors(0.9, 256):.2g} / {sg.collapse_threshold(0.9, 2, 256):.2g}"
    cell = js["lam_rho"]["cells"][0]
    assert cell["convention"] == "authors" and cell["below_lam_star"] is True
    assert cell["recovery_error"] == row["recovery_error"]
    assert "lies entirely above it" in md


def test_gennorm_table_overlay_and_finding(built):
    from pycheck import uniqueness as U

    _, _, _, md, js = built
    cells = _table_row(md, "SIGReg", "α = 2")
    assert cells[1:4] == ["0.8 ± 0 (0/1)", "0.95 ± 0 (0/1)", "0.99 ± 0 (0/1)"]
    gap = js["gennorm"]["theorem_4_2"]["1.0"]["corr_gap"]
    assert gap == pytest.approx(U.maximal_correlation(U.gennorm(1.0), 0.9, spacing=0.1).gap, rel=1e-12)
    assert abs(js["gennorm"]["theorem_4_2"]["2.0"]["corr_gap"]) < 1e-9
    assert cells[-1] == "differs: R² 0.8 < 0.95 at α = 1 (peak at α = 3)"     # the paper: ≈ 0.95-1.0 at every α
    assert _table_row(md, "InfoNCE", "α = 2")[-1] == "differs: R² 0.9 < 0.95 at α = 1 (peak at α = 2)"
    assert "no sweep `gennorm_whitening`" in md and "gennorm_whitening" in js["skipped"]


def test_twod_planning_and_bound_sections(built):
    res, _, _, md, js = built
    row = json.load(open(os.path.join(res, "twod_spiral", "summary.json")))[0]
    cells = _table_row(md, "spiral", "grid point")
    assert cells[1] == "kind=sigreg" and cells[3].startswith(f"{row['r2_h_to_z']:.4g} ± ")
    assert cells[7] == f"{row['r2_h_to_z']:.4g}"                              # the drawn seed
    plan = json.load(open(os.path.join(res, "planning", "spiral.json")))
    enc = _table_row(md, "spiral.json", "representation")                   # first row: oracle
    assert enc[1] == "oracle" and enc[3] == "1"
    assert f"{plan['results']['encoder']['ratio_to_oracle']:.3g}" in md
    # bound points: every Gaussian real run (2 scaling + 1 twod + 1 lam_rho), synthetic rows have no run JSON
    assert len(js["bound_points"]) == 4


def test_missing_sections_are_skipped_with_a_note(built, tmp_path):
    _, _, _, md, js = built
    for name in ("scaling_whitening", "scaling_vicreg", "twod_banana", "twod_sinusoid", "twod_coupling"):
        assert f"*Skipped: no sweep `{name}`" in md and name in js["skipped"]
    # an empty results directory: every section noted, no figure
    empty = tmp_path / "empty"
    empty.mkdir()
    paths = report.build_report(str(empty), str(tmp_path / "out"))
    assert sorted(paths) == ["report.json", "report.md"]
    text = open(paths["report.md"]).read()
    for name in report.ALL_SWEEPS:
        assert f"no sweep `{name}`" in text
    assert "no `planning/*.json`" in text
    # a sweep lacking the expected grid keys is skipped with the reason
    _write_rows(str(empty / "gennorm"), [{"lam": "0.1", "seed": 0, "run": "x", "r2_h_to_z": 0.5, "align": 1.0}])
    text = open(report.build_report(str(empty), str(tmp_path / "out2"))["report.md"]).read()
    assert "Skipped: sweep 'gennorm' has no grid column 'alpha'" in text
    _write_rows(str(empty / "scaling_vicreg"), [{"lr": "0.1", "seed": 0, "run": "y", "r2_h_to_z": 0.5, "align": 1.0}])
    text = open(report.build_report(str(empty), str(tmp_path / "out3"))["report.md"]).read()
    assert "Skipped: sweep `scaling_vicreg` has no grid column `dim`" in text


def test_cli_and_bad_input(built, tmp_path, capsys):
    res = built[0]
    assert cli.main(["report", res, "--out", str(tmp_path / "r")]) == 0
    assert os.path.isfile(tmp_path / "r" / "report.md")
    assert cli.main(["report", str(tmp_path / "nope"), "--out", str(tmp_path / "r2")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_report_module_imports_nothing_heavy():
    code = ("import sys, lejepa_experiments.report as r; "
            "bad = [m for m in ('torch', 'matplotlib', 'numpy') if m in sys.modules]; "
            "assert not bad, bad; print(r.ALL_SWEEPS[0])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "twod_spiral"


def test_sweep_name_constants():
    assert [report.scaling_sweep(o) for o in report.SCALING_OBJECTIVES] == [
        "scaling_sigreg", "scaling_whitening", "scaling_vicreg", "scaling_infonce"]
    assert report.twod_sweep("coupling") == "twod_coupling"
    # every scaling objective has a config with the matched encoder
    from lejepa_experiments.config import load_config

    for o in report.SCALING_OBJECTIVES:
        name = "scaling.yaml" if o == "sigreg" else f"scaling_{o}.yaml"
        cfg = load_config(os.path.join(CONFIGS, name))
        assert cfg["loss"]["kind"] == o and cfg["encoder"]["kind"] == "matched"
        assert math.isclose(cfg["pair"]["rho"], 0.9)


def _reacher_payload() -> dict:
    """A ``plan.json`` as ``lejepa reacher`` writes it (``reacher.run_plan``), with chosen numbers
    (justified: rendering is not needed to test how the report reads the file)."""
    from lejepa_experiments import reacher

    def rep(ratio, lo, hi, eq):
        return {"final_distance": 0.5 * ratio, "final_distance_se": 0.05, "ratio_to_oracle": ratio,
                "first_action_agreement": 0.75, "ratio_ci": [lo, hi], "ci_contains_1": lo <= 1 <= hi,
                "equivalent": eq, "final_distances": [0.5 * ratio] * 6}

    met = {"r2_h_to_z": 0.8766, "r2_z_to_h": 0.8, "orthogonality": 0.4321, "procrustes_matrix": 0.2,
           "whitened_procrustes": 0.1}
    return {"preset_settings": reacher.PRESETS["smoke"], "seed": 0, "dynamics": "kinematic joint space z <- z + u",
            "cost": "joint-space distance to the goal (radians)",
            "verdict_rules": {"ci": "95% paired bootstrap CI", "equivalent": "90% CI inside [0.909, 1.100]"},
            "metrics": {"ou": met, "traj": dict(met, r2_h_to_z=0.2468)},
            "results": {"oracle": {"final_distance": 0.5, "final_distance_se": 0.05, "ratio_to_oracle": 1.0,
                                   "first_action_agreement": 1.0},
                        "ou": rep(1.0371, 0.9512, 1.0633, True), "traj": rep(4.9876, 3.9, 6.6, False)}}


def test_reacher_section_from_plan_json(tmp_path):
    res = tmp_path / "res"
    (res / "reacher").mkdir(parents=True)
    payload = _reacher_payload()
    (res / "reacher" / "plan.json").write_text(json.dumps(payload))
    (res / "reacher" / "reacher.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    out = tmp_path / "out"
    paths = report.build_report(str(res), str(out))
    md = open(paths["report.md"]).read()
    sec = md[md.index("## Reacher planning"):]
    # the numbers of plan.json, in the table and in the comparison with the paper
    assert "| encoder (OU pairs) | 0.877 |" in sec and "0.432" in sec and "| encoder (trajectory pairs) | 0.247 |" in sec
    assert "OU-pair encoder: normalised cost 1.037 [0.951, 1.063] (paper ≈ 1.0); equivalent to the oracle: yes" in sec
    assert "trajectory-trained encoder: normalised cost 4.988 [3.900, 6.600] (paper ≈ 1.5)" in sec
    assert "![Reacher](../res/reacher/reacher.png)" in sec                 # the figure, relative to the report
    js = json.load(open(paths["report.json"]))
    assert js["reacher"]["results"]["ou"]["ratio_to_oracle"] == 1.0371 and "reacher" not in js["skipped"]
    assert js["reacher"]["metrics"]["traj"]["r2_h_to_z"] == 0.2468
    # plan.md alone: included verbatim; neither: a note
    (res / "reacher" / "plan.json").unlink()
    (res / "reacher" / "plan.md").write_text("| representation | marker 12.345 |\n")
    md = open(report.build_report(str(res), str(tmp_path / "out2"))["report.md"]).read()
    assert "marker 12.345" in md[md.index("## Reacher planning"):]
    (res / "reacher" / "plan.md").unlink()
    paths = report.build_report(str(res), str(tmp_path / "out3"))
    assert "no `reacher/plan.json`" in open(paths["report.md"]).read()
    assert "reacher" in json.load(open(paths["report.json"]))["skipped"]
