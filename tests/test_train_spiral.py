"""A short CPU training of a 2-D spiral encoder identifies the latent, and Theorem 4.3 holds on it.

Fixed seed; the step budget is generous for the target but still fast (tens of seconds on 2 cores).
"The bound holds" is the statistical statement of :func:`pycheck.bounds.estimate_from_samples`: the
lower bootstrap confidence limit (3 bootstrap standard errors, one-sided 99.9%) of ``bound - err`` is >= 0, on 100k fresh pairs.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from lejepa_experiments.config import make_config  # noqa: E402
from lejepa_experiments.data import sample_pair  # noqa: E402
from lejepa_experiments.engine import train  # noqa: E402

SPIRAL_TEST = {
    "latent": {"dim": 2}, "pair": {"kind": "ou", "rho": 0.9}, "mixing": {"kind": "spiral"},
    "encoder": {"kind": "mlp", "width": 128, "depth": 4},
    "loss": {"kind": "sigreg", "lam": 0.05, "lam_end": 0.3, "slices": 64},
    "train": {"steps": 8000, "batch": 256, "lr": 3e-3, "constant_frac": 0.3},
    "eval": {"size": 10000, "every": 100000},
    "runtime": {"device": "cpu", "threads": 1, "progress": False},
}


def test_short_spiral_training_identifies_and_bound_holds():
    bounds = pytest.importorskip("pycheck.bounds")
    res = train(make_config(SPIRAL_TEST), seed=0)
    m = res.metrics
    assert m["r2_h_to_z"] > 0.99, m
    assert m["r2_z_to_h"] > 0.99, m
    # Theorem 4.3 on fresh pairs, with a confidence interval
    torch.manual_seed(2024)
    z, z2 = sample_pair("gaussian", "ou", 0.9, 100_000, 2, dtype=torch.float32)
    with torch.no_grad():
        h = res.encoder(res.mixing(z)).double().numpy()
        h2 = res.encoder(res.mixing(z2)).double().numpy()
    est = bounds.estimate_from_samples(z.double().numpy(), h, h2, 0.9, n_boot=200, z_score=3.0, seed=0)
    assert est.verdict == "holds", (est.margin, est.bound, est.err)
    # the delta_tr the bound uses is not significantly negative (it is >= 0 in population)
    assert est.delta_tr.hi >= 0
