"""The paper's best-of-K restarts: selection by the held-out training objective (``tables.best_of_k``),
the engine's ``train.restart`` (new initialisation, same held-out set) and ``heldout_objective``."""

from __future__ import annotations

import math

import pytest

from lejepa_experiments.tables import best_of_k


def _row(dim, seed, restart, obj, r2):
    return {"dim": dim, "seed": seed, "restart": restart, "heldout_objective": obj, "r2_h_to_z": r2,
            "run": f"dim={dim}_restart={restart}_s{seed}"}


def test_best_of_k_picks_the_smallest_heldout_objective_per_point_and_seed():
    rows = [_row(8, 0, 0, 2.9, 0.86), _row(8, 0, 1, 1.6, 0.99999), _row(8, 0, 2, 2.8, 0.87),
            # seed 1: the smallest objective is NOT the largest R2: the criterion never looks at R2
            _row(8, 1, 0, 1.7, 0.95), _row(8, 1, 1, 1.9, 0.999), _row(8, 1, 2, math.nan, 0.5),
            _row(64, 0, 0, 12.9, 0.9999), _row(64, 0, 1, 12.8, 0.9998), _row(64, 0, 2, 13.0, 0.99995)]
    best = best_of_k(rows, ["dim", "seed"])
    assert [(b["dim"], b["seed"], b["restart"]) for b in best] == [(8, 0, 1), (8, 1, 0), (64, 0, 1)]
    assert [b["restarts"] for b in best] == [3, 3, 3] and [b["restarts_finite"] for b in best] == [3, 2, 3]
    assert rows[0].get("restarts") is None          # the input rows are not modified


def test_best_of_k_ties_and_groups_without_a_finite_criterion():
    best = best_of_k([_row(2, 0, 2, 1.0, 0.9), _row(2, 0, 1, 1.0, 0.8)], ["dim", "seed"])
    assert best[0]["restart"] == 1                  # a tie goes to the smaller restart
    best = best_of_k([_row(2, 0, 0, math.inf, 0.9), _row(2, 0, 1, None, 0.8)], ["dim", "seed"])
    assert best[0]["restart"] == 0 and best[0]["restarts_finite"] == 0


@pytest.mark.parametrize("keys,rows,needle", [
    (["dim", "restart"], [_row(2, 0, 0, 1.0, 0.9)], "must not be a grouping key"),
    (["dim", "seed"], [{"dim": 2, "seed": 0, "restart": 0, "run": "x"}], "heldout_objective"),
    (["N", "seed"], [_row(2, 0, 0, 1.0, 0.9)], "'N'"),
])
def test_best_of_k_bad_input_is_named(keys, rows, needle):
    with pytest.raises(ValueError, match=needle):
        best_of_k(rows, keys)


torch = pytest.importorskip("torch")

from lejepa_experiments.config import make_config  # noqa: E402
from lejepa_experiments.engine import (embed_pairs, evaluate, heldout_objective, make_eval_set,  # noqa: E402
                                       objective, train)
from lejepa_experiments.losses import alignment_loss, whitening_loss  # noqa: E402

TINY = {"latent": {"dim": 4}, "mixing": {"kind": "coupling", "layers": 2}, "encoder": {"kind": "matched"},
        "loss": {"slices": 8, "lam": 0.3}, "train": {"steps": 12, "batch": 32, "log_every": 4},
        "eval": {"size": 200, "every": 6}, "runtime": {"progress": False, "device": "cpu"}}


def _cfg(**over):
    import copy

    c = copy.deepcopy(TINY)
    for sec, kv in over.items():
        c[sec] = {**c.get(sec, {}), **kv}
    return make_config(c)


def test_a_restart_changes_the_initialisation_but_not_the_heldout_set():
    c0, c1 = _cfg(), _cfg(train={"restart": 1})
    r0, r0b, r1 = train(c0, 3), train(_cfg(train={"restart": 0}), 3), train(c1, 3)
    assert r0.metrics == r0b.metrics                # restart 0 is the plain run
    w0, w1 = r0.encoder.state_dict(), r1.encoder.state_dict()
    assert any(not torch.equal(w0[k], w1[k]) for k in w0)
    assert r0.metrics["heldout_objective"] != r1.metrics["heldout_objective"]
    # restart 1 was evaluated on restart 0's held-out pairs: re-evaluating it there gives its own metrics
    ev0 = make_eval_set(c0, 3, torch.device("cpu"))
    again = evaluate(r1.encoder, r1.mixing, ev0)
    assert again["r2_h_to_z"] == r1.metrics["r2_h_to_z"] and again["align"] == r1.metrics["align"]


def test_heldout_objective_is_the_mean_over_heldout_minibatches():
    cfg = _cfg(loss={"kind": "whitening"})
    res = train(cfg, 0)
    ev = make_eval_set(cfg, 0, torch.device("cpu"))
    h, h2 = embed_pairs(res.encoder, res.mixing, ev.z, ev.z2)
    b, nb = 32, 200 // 32                           # 6 full minibatches of the 200 points, 8 left out
    chunks = [(h[j * b:(j + 1) * b], h2[j * b:(j + 1) * b]) for j in range(nb)]
    align = sum(float(alignment_loss(x, y)) for x, y in chunks) / nb
    reg = sum(float(0.5 * (whitening_loss(x) + whitening_loss(y))) for x, y in chunks) / nb
    m = res.metrics
    assert m["heldout_batches"] == nb
    assert m["heldout_align_term"] == pytest.approx(align, rel=1e-6)
    assert m["heldout_reg_term"] == pytest.approx(reg, rel=1e-6)
    assert m["heldout_objective"] == pytest.approx(0.3 * reg + 0.7 * align, rel=1e-6)
    assert m["heldout_objective"] == pytest.approx(
        sum(float(objective(cfg["loss"], x, y)) for x, y in chunks) / nb, rel=1e-6)


def test_heldout_sigreg_objective_is_reproducible_and_leaves_the_rng_alone():
    cfg = _cfg()
    res = train(cfg, 1)
    ev = make_eval_set(cfg, 1, torch.device("cpu"))
    torch.manual_seed(123)
    state = torch.random.get_rng_state()
    a = heldout_objective(cfg, res.encoder, res.mixing, ev, 1)
    assert torch.equal(torch.random.get_rng_state(), state)
    b = heldout_objective(cfg, res.encoder, res.mixing, ev, 1)
    assert a == b and a["heldout_objective"] == res.metrics["heldout_objective"]
    assert a["heldout_objective"] == pytest.approx(0.3 * a["heldout_reg_term"] + 0.7 * a["heldout_align_term"],
                                                   rel=1e-5)
