"""``analysis.error_by_radius``: the residual of the linear fit per latent-radius bin."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from lejepa_experiments.analysis import error_by_radius  # noqa: E402


def test_error_by_radius_decomposes_one_minus_r2():
    torch.manual_seed(0)
    m = 200_000
    z = torch.randn(m, 2, dtype=torch.float64)
    enc = lambda x: x + 0.1 * x ** 3            # noqa: E731  (nonlinear, error grows with the radius)
    rows = error_by_radius(enc, torch.nn.Identity(), z)
    assert [(r["r_lo"], r["r_hi"]) for r in rows] == [(0.0, 1.0), (1.0, 1.5), (1.5, 2.0), (2.0, 2.5), (2.5, 3.0),
                                                      (3.0, math.inf)]
    assert sum(r["frac_samples"] for r in rows) == pytest.approx(1.0, abs=1e-12)
    assert sum(r["frac_residual"] for r in rows) == pytest.approx(1.0, abs=1e-12)
    # P(||z|| < 1) = 1 - exp(-1/2) for a 2-D standard normal; 6 sigma
    p = 1 - math.exp(-0.5)
    assert abs(rows[0]["frac_samples"] - p) <= 6 * math.sqrt(p * (1 - p) / m)
    # the parts sum to the pooled 1 - R^2 of the OLS fit z ~ B h + c (numpy's lstsq as reference)
    import numpy as np

    h = enc(z).numpy()
    X = np.hstack([h, np.ones((m, 1))])
    coef = np.linalg.lstsq(X, z.numpy(), rcond=None)[0]
    res = ((z.numpy() - X @ coef) ** 2).sum()
    tot = ((z.numpy() - z.numpy().mean(0)) ** 2).sum()
    assert sum(r["one_minus_r2_part"] for r in rows) == pytest.approx(res / tot, rel=1e-9)
    # the cubic's error lives at large radius: the outer bins hold far more residual than samples
    assert rows[-1]["frac_residual"] > 5 * rows[-1]["frac_samples"]
    assert rows[0]["frac_residual"] < rows[0]["frac_samples"]
