"""A 2-run sweep through a real single-node SLURM cluster on localhost (slurmctld + slurmd + munge):
``lejepa reproduce --executor slurm`` (submitit job arrays, :class:`lejepa_experiments.executors.Slurm`).

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

from lejepa_experiments import reproduce  # noqa: E402
from lejepa_experiments.executors import Slurm  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
START = os.path.join(HERE, "slurm", "start_local_slurm.sh")
STOP = os.path.join(HERE, "slurm", "stop_local_slurm.sh")
CONFIGS = os.path.dirname(reproduce.PRESET_DIR)

PRESET = """\
sweeps:
  - {{name: g, config: {cfg}, grid: ["loss.lam=0.01,0.2"], seeds: [0],
     set: [train.steps=10, train.batch=32, encoder.width=8, encoder.depth=2, loss.slices=8,
           eval.size=128, eval.every=5]}}
slurm: {{time_min: 5, cpus_per_task: 1}}
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


def test_two_run_sweep_through_real_slurm(local_slurm, tmp_path, monkeypatch):
    preset = tmp_path / "preset.yaml"
    preset.write_text(PRESET.format(cfg=os.path.join(CONFIGS, "spiral2d_fast.yaml")))
    out = tmp_path / "out"
    job_ids: list[str | None] = []
    real_call = Slurm.__call__

    def recording(self, tasks):                    # the parent sees what each job returned
        assert self.parameters()["cpus_per_task"] == 1 and self.parameters()["timeout_min"] == 5
        for task, res in real_call(self, tasks):
            job_ids.append(None if isinstance(res, BaseException) else res.get("slurm_job_id"))
            yield task, res

    monkeypatch.setattr(Slurm, "__call__", recording)
    logs: list[str] = []
    res = reproduce.reproduce(str(preset), str(out), executor="slurm", report=False, progress=False,
                              log=logs.append)
    assert res["trained"] == 2 and not res["failed"], (res, logs)
    with open(out / "g" / "summary.json") as f:
        rows = json.load(f)
    assert [r["run"] for r in rows] == ["lam=0.01_s0", "lam=0.2_s0"]
    assert all(r["steps_done"] == 10 for r in rows)
    for r in rows:
        with open(out / "g" / (r["run"] + ".json")) as f:
            run = json.load(f)
        assert run["threads"] == 1 and run["config"]["loss"]["lam"] == float(r["lam"])
    # trained inside two SLURM array tasks (the submitting process is not a SLURM job)
    assert len(job_ids) == 2 and all(j is not None for j in job_ids) and len(set(job_ids)) == 2
    assert os.environ.get("SLURM_JOB_ID") not in job_ids
    logs_dir = out / ".slurm"
    assert sum(f.endswith("_log.err") for f in os.listdir(logs_dir)) == 2      # submitit's job logs
    # resuming submits nothing
    again = reproduce.reproduce(str(preset), str(out), executor="slurm", report=False, progress=False,
                                log=logs.append)
    assert again["trained"] == 0 and again["done_before"] == 2
    assert len(job_ids) == 2
