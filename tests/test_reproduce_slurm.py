"""A 2-run sweep through a real single-node SLURM cluster on localhost (slurmctld + slurmd + munge),
via submitit job arrays (:class:`lejepa_experiments.executors.Slurm`).

The fixture starts the cluster with ``tests/slurm/start_local_slurm.sh`` (Debian's ``slurm-wlm`` and
``munge``; ``.ci/run`` installs them) and stops it afterwards if it started it. The test skips, with
the script's output, only where the daemons cannot be started (not root, packages missing, or
slurmctld/slurmd refusing to come up)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

pytest.importorskip("torch")
submitit = pytest.importorskip("submitit")

from lejepa_experiments import sweep  # noqa: E402
from lejepa_experiments.executors import Slurm  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
START = os.path.join(HERE, "slurm", "start_local_slurm.sh")
STOP = os.path.join(HERE, "slurm", "stop_local_slurm.sh")

TINY_YAML = """\
latent: {dim: 2}
mixing: {kind: spiral}
encoder: {width: 8, depth: 2}
loss: {kind: sigreg, slices: 8}
train: {steps: 10, batch: 32, log_every: 5}
eval: {size: 128, every: 5}
"""


def _sinfo_up() -> bool:
    if shutil.which("sinfo") is None:
        return False
    try:
        out = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return False
    return any(s in out for s in ("idle", "mix", "alloc"))


@pytest.fixture(scope="module")
def local_slurm():
    if _sinfo_up():
        yield
        return
    if os.geteuid() != 0:
        pytest.skip("local SLURM: slurmctld cannot be started here (not root)")
    if shutil.which("slurmctld") is None or shutil.which("munged") is None:
        pytest.skip("local SLURM: slurmctld cannot be started here: slurm-wlm/munge are not installed "
                    "(apt-get install -y slurm-wlm munge; .ci/run does this)")
    p = subprocess.run(["bash", START], capture_output=True, text=True, timeout=120)
    if p.returncode != 0 or not _sinfo_up():
        subprocess.run(["bash", STOP], capture_output=True, timeout=30)
        pytest.skip(f"local SLURM: slurmctld/slurmd did not start (exit {p.returncode}):\n{p.stdout}\n{p.stderr}")
    yield
    subprocess.run(["bash", STOP], capture_output=True, timeout=30)


def test_two_run_sweep_through_real_slurm(local_slurm, tmp_path):
    cfg = tmp_path / "tiny.yaml"
    cfg.write_text(TINY_YAML)
    out = tmp_path / "out"
    ex = Slurm(str(tmp_path / "slurm"), {"time_min": 5, "cpus_per_task": 1}, poll_s=0.5)
    assert ex.parameters()["cpus_per_task"] == 1 and ex.parameters()["timeout_min"] == 5
    logs: list[str] = []
    rows = sweep.run_sweep(str(cfg), "g", str(out), ["loss.lam=0.01,0.2"], [0], executor=ex, log=logs.append)
    assert [r["run"] for r in rows] == ["lam=0.01_s0", "lam=0.2_s0"]
    assert all(r["steps_done"] == 10 for r in rows)
    job_ids = set()
    for r in rows:
        res = json.load(open(out / "g" / (r["run"] + ".json")))
        # trained inside a SLURM job (the submitting process is not one), one thread as requested
        assert res["slurm_job_id"] is not None and res["threads"] == 1
        assert res["config"]["loss"]["lam"] == float(r["lam"])
        job_ids.add(res["slurm_job_id"])
    assert len(job_ids) == 2                               # two array tasks, two jobs
    assert os.environ.get("SLURM_JOB_ID") is None or os.environ["SLURM_JOB_ID"] not in job_ids
    assert json.load(open(out / "g" / "summary.json")) == rows
    assert any(f.endswith("_log.out") for f in os.listdir(tmp_path / "slurm"))   # submitit's job logs
    # resuming submits nothing: the executor is never called with a task
    seen: list[int] = []

    def never(tasks):
        seen.append(len(tasks))
        return iter(())

    again = sweep.run_sweep(str(cfg), "g", str(out), ["loss.lam=0.01,0.2"], [0], executor=never, log=logs.append)
    assert seen == [0] and again == rows
