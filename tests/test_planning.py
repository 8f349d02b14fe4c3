"""Latent planning (Corollary 4.5 analogue): an orthogonal encoder plans exactly like the oracle, a
distorting representation does not; CLI output and bad input."""

from __future__ import annotations

import json
import math

import pytest

torch = pytest.importorskip("torch")

from lejepa_experiments import cli  # noqa: E402
from lejepa_experiments.data import Mixing  # noqa: E402
from lejepa_experiments.planning import plan  # noqa: E402


def test_orthogonal_and_similarity_encoders_plan_like_the_oracle():
    q = torch.linalg.qr(torch.randn(3, 3, generator=torch.Generator().manual_seed(1), dtype=torch.float64))[0]
    reps = {"oracle": lambda z: z, "rotated": lambda z: z @ q.T + 5.0, "scaled": lambda z: -2.5 * z @ q}
    res = plan(reps, 3, episodes=200, horizon=6, candidates=32, seed=3)
    for name in ("rotated", "scaled"):
        # Corollary 4.5: same costs up to the (monotone) scale, hence the same argmin at every step
        assert res[name]["first_action_agreement"] == 1.0
        assert res[name]["final_distance"] == pytest.approx(res["oracle"]["final_distance"], rel=1e-12)
    assert res["rotated"]["cost_error"] < 1e-10          # the rotation keeps the costs themselves
    assert res["scaled"]["cost_error"] > 1.0              # scaling keeps the plans, not the costs


def test_spiral_observations_plan_worse_than_the_oracle():
    mix = Mixing("spiral", 2).double()
    res = plan({"oracle": lambda z: z, "observation": lambda z: mix(z)}, 2, episodes=400, seed=0)
    obs, ora = res["observation"], res["oracle"]
    # the spiral distorts distances: the planner on raw observations ends farther from the goal,
    # by more than 6 standard errors of the difference of the two means
    se = math.hypot(obs["final_distance_se"], ora["final_distance_se"])
    assert obs["final_distance"] - ora["final_distance"] > 6 * se
    assert obs["first_action_agreement"] < 0.9


@pytest.mark.parametrize("kw,needle", [
    (dict(episodes=1), "episodes"), (dict(horizon=-1), "horizon"), (dict(candidates=1), "candidates"),
    (dict(step=float("nan")), "step"), (dict(seed=-2), "seed"),
])
def test_plan_rejects_bad_input(kw, needle):
    with pytest.raises(ValueError, match=needle):
        plan({"oracle": lambda z: z}, 2, **kw)


def test_plan_needs_oracle_and_finite_representations():
    with pytest.raises(ValueError, match="oracle"):
        plan({"enc": lambda z: z}, 2, episodes=2)
    with pytest.raises(ValueError, match="finite"):
        plan({"oracle": lambda z: z, "bad": lambda z: z / 0.0}, 2, episodes=2)


def test_plan_cli_on_a_trained_checkpoint(tmp_path, capsys):
    cfg = tmp_path / "tiny.yaml"
    cfg.write_text("latent: {dim: 2}\nmixing: {kind: spiral}\nencoder: {width: 8, depth: 2}\n"
                   "loss: {kind: sigreg, slices: 8}\ntrain: {steps: 4, batch: 32, log_every: 2}\n"
                   "eval: {size: 128, every: 2}\n")
    out = tmp_path / "runs"
    assert cli.main(["train", "--config", str(cfg), "--run", "t", "--out", str(out), "--no-progress"]) == 0
    capsys.readouterr()
    res_file = tmp_path / "plan.json"
    assert cli.main(["plan", "--checkpoint", str(out / "t.pt"), "--episodes", "20", "--horizon", "3",
                     "--out", str(res_file)]) == 0
    text = capsys.readouterr().out
    assert "oracle" in text and "encoder" in text and "observation" in text
    res = json.loads(res_file.read_text())["results"]
    assert res["oracle"]["ratio_to_oracle"] == 1.0 and res["oracle"]["first_action_agreement"] == 1.0
    assert cli.main(["plan", "--checkpoint", str(tmp_path / "missing.pt")]) == 2
    assert "does not exist" in capsys.readouterr().err
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a checkpoint")
    assert cli.main(["plan", "--checkpoint", str(junk)]) == 2
    assert "could not be loaded" in capsys.readouterr().err
