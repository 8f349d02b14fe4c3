"""``lejepa check --checkpoints DIR``: one pair of rows per checkpoint that loads, and a corrupt
``.pt`` is its own FAIL row whose reason is printed in the table (not only in ``--json``); the
other checkpoints' rows are kept. A missing DIR is a usage error (exit 2) before any training."""

from __future__ import annotations


import pytest

torch = pytest.importorskip("torch")

from lejepa_experiments import checks_trained, cli  # noqa: E402
from lejepa_experiments.config import make_config  # noqa: E402
from lejepa_experiments.engine import build  # noqa: E402


def _write_checkpoint(path, seed: int = 0) -> None:
    """An untrained but well-formed ``lejepa train`` checkpoint (identity world, small MLP)."""
    cfg = make_config({"latent": {"dim": 2}, "mixing": {"kind": "identity"}, "encoder": {"kind": "mlp", "width": 8, "depth": 2}})
    torch.manual_seed(seed)
    mix, enc = build(cfg, torch.device("cpu"))
    torch.save({"config": cfg, "seed": seed, "encoder": enc.state_dict(), "mixing": mix.state_dict(),
                "metrics": {}, "format": "lejepa-checkpoint-1"}, path)


@pytest.fixture
def fast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checks_trained, "ON_THE_SPOT", {})          # only the checkpoint rows
    monkeypatch.setattr(checks_trained, "checkpoint_pairs", lambda n: 2000)


def test_corrupt_checkpoint_is_its_own_row_with_its_reason(tmp_path, fast, capsys) -> None:
    _write_checkpoint(tmp_path / "a_good.pt")
    (tmp_path / "b_bad.pt").write_bytes(b"not a checkpoint")
    _write_checkpoint(tmp_path / "c_good.pt", seed=1)
    rc = cli.main(["check", "--only", "checks_trained", "--checkpoints", str(tmp_path), "--quiet"])
    out = capsys.readouterr().out
    assert rc == 1                                                   # the bad file fails the run
    quantities = [line for line in out.splitlines() if line.startswith("Thm 4.3")]
    assert sum("a_good.pt:" in q for q in quantities) == 2           # both good files keep their rows
    assert sum("c_good.pt:" in q for q in quantities) == 2
    bad = [q for q in quantities if "b_bad.pt" in q]
    assert len(bad) == 1 and bad[0].rstrip().endswith("FAIL") and "could not be loaded" in bad[0]
    reason = [line for line in out.splitlines() if line.startswith("FAIL: b_bad.pt")]
    assert len(reason) == 1 and "not a PyTorch checkpoint" in reason[0]   # the reason, in the table text
    assert "module raised" not in out


def test_missing_directory_is_a_usage_error_and_a_fail_row_in_the_api(tmp_path, fast, capsys) -> None:
    missing = tmp_path / "nope"
    rc = cli.main(["check", "--only", "checks_trained", "--checkpoints", str(missing), "--json", "--quiet"])
    captured = capsys.readouterr()
    assert rc == 2 and captured.out == ""                            # refused before any training
    assert "does not exist" in captured.err and "Traceback" not in captured.err
    (row,) = checks_trained._checkpoint_rows(str(missing))          # the module itself: a FAIL row
    assert str(missing) in row.quantity and "does not exist" in row.note and row.verdict == "FAIL"
