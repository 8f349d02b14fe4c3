"""``lejepa reacher`` as a new user runs it (issue #13): no traceback for a damaged encoder file, an
unwritable --out or a bad --device, and no silent mixing of a run's frames or encoders with another
seed (``train``/``plan --seed 1`` on seed-0 data used to retrain over, or plan with, the seed-0 files)."""

from __future__ import annotations

import os
import shutil

import pytest

torch = pytest.importorskip("torch")

from lejepa_experiments import cli, reacher  # noqa: E402

_OK, _WHY = reacher.reacher_available("cpu")
needs_render = pytest.mark.skipif(not _OK, reason=_WHY or "reacher rendering unavailable")


def _main(*argv):
    try:
        return cli.main(["reacher", *argv, "--no-progress"])
    except Exception as exc:  # noqa: BLE001 - a traceback is what these tests rule out
        pytest.fail(f"lejepa reacher raised {type(exc).__name__}: {exc}")


@pytest.fixture(scope="module")
def smoke_dir(tmp_path_factory):
    if not _OK:
        pytest.skip(_WHY or "reacher rendering unavailable")
    out = tmp_path_factory.mktemp("reacher") / "smoke"
    assert cli.main(["reacher", "all", "--preset", "smoke", "--out", str(out), "--no-progress"]) == 0
    return out


def test_bad_device_is_one_error_line(tmp_path, capsys):
    assert _main("all", "--preset", "smoke", "--out", str(tmp_path / "o"), "--device", "nonsense") == 2
    assert "--device 'nonsense' is not a torch device" in capsys.readouterr().err


@needs_render
def test_out_under_a_regular_file_is_one_error_line(tmp_path, capsys):
    (tmp_path / "afile").write_text("x")
    assert _main("all", "--preset", "smoke", "--out", str(tmp_path / "afile" / "x")) == 2
    assert "--out" in capsys.readouterr().err


@needs_render
@pytest.mark.parametrize("stage", ["train", "plan"])
def test_other_seed_on_existing_frames_is_refused(smoke_dir, stage, capsys):
    before = (smoke_dir / "ou.pt").read_bytes()
    assert _main(stage, "--preset", "smoke", "--out", str(smoke_dir), "--seed", "1") == 2
    assert "holds frames rendered with other settings or seed (seed 0)" in capsys.readouterr().err
    assert (smoke_dir / "ou.pt").read_bytes() == before          # the seed-0 encoder is not overwritten


@needs_render
def test_plan_with_an_encoder_of_another_seed_is_refused(smoke_dir, tmp_path, capsys):
    out = tmp_path / "copy"
    shutil.copytree(smoke_dir, out)
    ck = torch.load(out / "ou.pt", weights_only=True)
    ck["seed"] = 7
    torch.save(ck, out / "ou.pt")
    assert _main("plan", "--preset", "smoke", "--out", str(out)) == 2
    assert "ou.pt' was trained with other settings or seed (seed 7)" in capsys.readouterr().err


@needs_render
@pytest.mark.parametrize("stage", ["train", "plan"])
def test_corrupt_encoder_file_is_named(smoke_dir, tmp_path, stage, capsys):
    out = tmp_path / "copy"
    shutil.copytree(smoke_dir, out)
    (out / "ou.pt").write_bytes(b"garbage")
    assert _main(stage, "--preset", "smoke", "--out", str(out)) == 2
    err = capsys.readouterr().err
    assert f"{os.path.join(str(out), 'ou.pt')!r} is corrupt (not a PyTorch checkpoint" in err
