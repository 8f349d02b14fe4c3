"""Determinism (issue #13): what the engine docstring promises, with 2 threads, and its cause when it failed.

The last-bit differences seen in ``orthogonality`` and ``recovery_error`` came from MKL's default
least-squares driver (``gelsy``), whose result depends on where its input buffers lie in memory;
neither load nor the thread count was needed (``benchmarks/bench_threads.py``, ``docs/training.md``).
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from lejepa_experiments.config import DEFAULTS, make_config  # noqa: E402
from lejepa_experiments.engine import train  # noqa: E402
from lejepa_experiments.metrics import _ols, identifiability_metrics  # noqa: E402


def _at_offset(t: torch.Tensor, off: int) -> torch.Tensor:
    """A copy of ``t`` placed ``off`` elements into a fresh buffer (same values, other address)."""
    buf = torch.empty(t.numel() + 16, dtype=t.dtype)
    v = buf[off: off + t.numel()].view(t.shape)
    v.copy_(t)
    return v


@pytest.mark.parametrize("n", [2, 8, 64])
def test_ols_is_bitwise_independent_of_memory_placement(n):
    g = torch.Generator().manual_seed(n)
    x = torch.randn(2000, n, generator=g, dtype=torch.float64)
    y = torch.tanh(x @ torch.randn(n, n, generator=g, dtype=torch.float64)) + 0.1 * x ** 2
    ref = _ols(x, y)
    for i in range(60):
        junk = [torch.empty((i * 13) % 97 + 1, dtype=torch.float64) for _ in range(i % 5)]  # move the allocator on
        got = _ols(_at_offset(x, i % 8), _at_offset(y, (i * 3) % 8))
        for a, b in zip(ref, got):
            assert torch.equal(a, b), f"call {i}"
        del junk


def test_metrics_bitwise_independent_of_memory_placement():
    g = torch.Generator().manual_seed(1)
    z = torch.randn(5000, 8, generator=g, dtype=torch.float64)
    h = torch.tanh(z @ torch.randn(8, 8, generator=g, dtype=torch.float64))
    h2 = h + 0.1 * torch.randn(5000, 8, generator=g, dtype=torch.float64)
    ref = identifiability_metrics(z, h, h2, 0.9)
    for i in range(30):
        assert identifiability_metrics(_at_offset(z, i % 8), _at_offset(h, (i + 3) % 8), h2, 0.9) == ref


TWO_THREADS = {"encoder": {"width": 32, "depth": 2}, "loss": {"slices": 16},
               "train": {"steps": 12, "batch": 64, "log_every": 4},
               # 20000 x 2 evaluation points: reductions above torch's grain size (32768), split over the threads
               "eval": {"size": 20000, "every": 6},
               "runtime": {"progress": False, "device": "cpu", "threads": 2}}


def test_two_thread_runs_are_bit_identical():
    cfg = make_config(TWO_THREADS)
    old = torch.get_num_threads()
    try:
        a, b = train(cfg, 7), train(cfg, 7)
    finally:
        torch.set_num_threads(old)
    assert a.info["threads"] == 2 and b.info["threads"] == 2
    assert a.curves == b.curves and a.metrics == b.metrics
    for k, v in a.encoder.state_dict().items():
        assert torch.equal(v, b.encoder.state_dict()[k]), k


def test_default_thread_count_is_one():
    """Chosen from benchmarks/bench_threads.py: 1 thread was 4-9x faster than 2 for the spiral configs."""
    assert DEFAULTS["runtime"]["threads"] == 1 and make_config({})["runtime"]["threads"] == 1
