"""Fault injection for the result pipeline (issue 19): train -> sweep -> reproduce -> report.

A reference results directory comes from one uninterrupted ``lejepa reproduce`` of a tiny preset
(two sweeps, five runs, one planning result; ``--threads 1`` everywhere, so that a run gives the
same numbers in this process, in a pool worker or after a restart). Each test damages a copy of it
(or interrupts a fresh reproduce by a signal at a seeded random point), reruns, and compares the
report's tables (``report.md`` and ``report.json``, figures left out) with the reference's, bit for
bit apart from the results path and wall-clock seconds. The hygiene tests send SIGTERM, SIGINT,
SIGHUP or SIGKILL to ``lejepa reproduce --jobs 2`` and check by PID (``/proc``) that no process it
started outlives it by more than a few seconds.
"""

from __future__ import annotations

import json
import os
import queue
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from lejepa_experiments import cli, commands, report, reproduce, sweep  # noqa: E402

CONFIGS = os.path.dirname(reproduce.PRESET_DIR)        # experiments/configs
LINUX = sys.platform.startswith("linux") and os.path.isdir("/proc/self")
RUNS = 5


def _preset_text(steps: int) -> str:
    tiny = f"train.steps={steps}, eval.size=256, eval.every=10, loss.slices=8"
    return f"""\
description: fault-injection preset (tests/test_faults.py)
reduced: true
sweeps:
  - {{name: twod_spiral, config: {CONFIGS}/spiral2d_fast.yaml, grid: [mixing.kind=spiral], seeds: [0],
     set: [{tiny}, encoder.width=16, encoder.depth=2]}}
  - {{name: scaling_sigreg, config: {CONFIGS}/scaling.yaml, grid: ["latent.dim=2,4"], seeds: [0, 1], set: [{tiny}]}}
planning: {{from: [twod_spiral], episodes: 8, candidates: 8, horizon: 3}}
"""


def quiet(_: str) -> None:
    pass


def _strip_seconds(x: Any) -> Any:
    """``x`` without wall-clock ``seconds``, a planning result's ``checkpoint`` path cut to
    ``sweep/run.pt`` (a copied results directory keeps the path it was planned at)."""
    if isinstance(x, dict):
        return {k: ("/".join(v.split(os.sep)[-2:]) if k == "checkpoint" and isinstance(v, str) else _strip_seconds(v))
                for k, v in x.items() if k != "seconds"}
    if isinstance(x, list):
        return [_strip_seconds(v) for v in x]
    return x


def _no_figures(mp: pytest.MonkeyPatch) -> None:
    """Replace each figure function in the report module that calls it (one module per experiment)."""
    from lejepa_experiments.report import curves, gennorm, lam_rho, scaling, twod

    for mod, fn in ((scaling, "scaling_figure"), (gennorm, "gennorm_figure"), (lam_rho, "lam_rho_figure"),
                    (lam_rho, "bound_figure")):
        mp.setattr(mod, fn, lambda *a, **k: [])
    mp.setattr(curves, "learning_figure", lambda *a, **k: ([], []))
    mp.setattr(twod, "twod_figure", lambda *a, **k: ([], []))


@pytest.fixture(autouse=True)
def no_figures(monkeypatch):
    """The report's figures are not what these tests compare (and take most of its time)."""
    _no_figures(monkeypatch)


def tables(results: str, tmp: str) -> tuple[str, str]:
    """``report.md`` and ``report.json`` of ``results`` (figures left out: their functions return
    nothing), the results path replaced by ``<R>`` and wall-clock ``seconds`` dropped."""
    with pytest.MonkeyPatch.context() as mp:
        _no_figures(mp)
        paths = report.build_report(results, tmp, label="fault-test")   # the label names the data, not the folder
    root = os.path.abspath(results)
    with open(paths["report.md"], encoding="utf-8") as f:
        md = f.read().replace(root, "<R>")
    with open(paths["report.json"], encoding="utf-8") as f:
        js = json.dumps(_strip_seconds(json.load(f)), indent=1, sort_keys=True).replace(root, "<R>")
    return md, js


def summary_rows(results: str, name: str) -> list[dict[str, Any]]:
    with open(os.path.join(results, name, "summary.json"), encoding="utf-8") as f:
        return _strip_seconds(json.load(f))


def summary_bytes(results: str) -> dict[str, bytes]:
    out = {}
    for name in ("twod_spiral", "scaling_sigreg"):
        for fn in ("summary.json", "summary.csv"):
            with open(os.path.join(results, name, fn), "rb") as f:
                out[f"{name}/{fn}"] = f.read()
    return out


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    """(preset path, reference results, its tables, its summary files' bytes)."""
    base = tmp_path_factory.mktemp("faults")
    preset = str(base / "preset.yaml")
    with open(preset, "w", encoding="utf-8") as f:
        f.write(_preset_text(20))
    out = str(base / "ref")
    res = reproduce.reproduce(preset, out, threads=1, report=False, progress=False, log=quiet)
    assert res["trained"] == RUNS and not res["failed"]
    return preset, out, tables(out, str(base / "ref_report")), summary_bytes(out)


@pytest.fixture()
def damaged(ref, tmp_path):
    """A copy of the reference results to damage."""
    d = str(tmp_path / "res")
    shutil.copytree(ref[1], d)
    return d


def rerun(preset: str, out: str, capsys) -> tuple[int, str, str]:
    rc = cli.main(["reproduce", "--preset", preset, "--out", out, "--threads", "1", "--no-progress", "--no-report"])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


# ------------------------------------------------------------------ summaries are caches

def test_a_deleted_summary_row_is_restored_by_a_rerun(ref, damaged, tmp_path, capsys):
    """Issue 19 (a): one row deleted from a summary.json; the rerun has nothing to train but repairs
    the summary, and the report shows every run."""
    preset, _, want, want_bytes = ref
    p = os.path.join(damaged, "scaling_sigreg", "summary.json")
    rows = json.load(open(p))
    json.dump(rows[:1] + rows[2:], open(p, "w"))
    rc, out, err = rerun(preset, damaged, capsys)
    assert rc == 0 and f"{RUNS} done before, 0 to train" in out
    assert "summary.json was stale (1 row(s) missing" in out
    assert summary_bytes(damaged) == want_bytes
    assert tables(damaged, str(tmp_path / "rep")) == want


def test_a_resumed_reproduce_rewrites_the_summary_of_a_sweep_done_before(ref, damaged, tmp_path, capsys):
    """Issue 19 (b), deterministic form: a kill left the summaries as they were after the first run
    (the others' result files were written later, by the workers); the rerun, all runs done before,
    rewrites both summaries and its status counts every run."""
    preset, _, want, want_bytes = ref
    for name in ("twod_spiral", "scaling_sigreg"):
        d = os.path.join(damaged, name)
        rows = json.load(open(os.path.join(d, "summary.json")))
        sweep._write_summary(d, rows[:1] if name == "twod_spiral" else [])
    rc, out, _ = rerun(preset, damaged, capsys)
    assert rc == 0 and "0 runs trained" in out and f"{RUNS} of {RUNS} runs have verified results" in out
    assert summary_bytes(damaged) == want_bytes
    assert tables(damaged, str(tmp_path / "rep")) == want


SUMMARY_DAMAGE = {
    "truncated": lambda b: b[: len(b) // 2],
    "garbage": lambda b: b"\x00\xff\xfe garbage",
    "foreign-dict": lambda b: b'{"rows": []}',
    "foreign-rows": lambda b: json.dumps([{"run": "x_s0", "seed": 0, "r2_h_to_z": 1.0}]).encode(),
    "row-removed": lambda b: json.dumps(json.loads(b)[1:], indent=2).encode(),
    "row-added": lambda b: json.dumps(json.loads(b) + [dict(json.loads(b)[0], run="dim=8_s0", dim="8")]).encode(),
    "value-changed": lambda b: json.dumps([dict(r, r2_h_to_z=0.5) for r in json.loads(b)], indent=2).encode(),
    "deleted": None,
}


@pytest.mark.parametrize("what,damage", [("summary.json", d) for d in sorted(SUMMARY_DAMAGE)]
                         + [("summary.csv", "truncated"), ("summary.csv", "deleted")])
def test_lejepa_report_repairs_a_damaged_summary(ref, damaged, tmp_path, what, damage, capsys):
    """Issue 19 (c): ``lejepa report`` on a corrupt, foreign, partial, edited or missing summary
    rebuilds the rows from the result files (and the summary files), never a silent 'not run'."""
    _, _, want, want_bytes = ref
    for name in ("scaling_sigreg", "twod_spiral"):
        p = os.path.join(damaged, name, what)
        fn = SUMMARY_DAMAGE[damage]
        if fn is None:
            os.remove(p)
        else:
            data = open(p, "rb").read()
            open(p, "wb").write(fn(data))
    assert cli.main(["report", damaged, "--out", str(tmp_path / "cli_report")]) == 0
    err = capsys.readouterr().err
    if what == "summary.json":
        assert err.count("was stale") == 2, err
    assert summary_bytes(damaged) == want_bytes
    assert tables(damaged, str(tmp_path / "rep")) == want


def test_report_keeps_going_when_the_summary_cannot_be_rewritten(ref, damaged, tmp_path, monkeypatch, capsys):
    """A read-only results directory (the rewrite fails): the report's rows come from the results
    all the same, and the note says the cache stays stale."""
    _, _, want, _ = ref
    p = os.path.join(damaged, "scaling_sigreg", "summary.json")
    os.remove(p)

    def refuse(path, *a, **k):
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(sweep, "atomic_write", refuse)
    assert tables(damaged, str(tmp_path / "rep")) == want
    assert "could not rewrite" in capsys.readouterr().err and not os.path.exists(p)


@pytest.mark.parametrize("damage", ["garbage", "foreign-dict"])
def test_report_names_a_summary_it_cannot_rebuild(tmp_path, damage, capsys):
    """A sweep folder with a corrupt summary and no result file to rebuild it from: a one-line error
    naming the file (exit 2), not a silently dropped section."""
    d = tmp_path / "res" / "scaling_sigreg"
    d.mkdir(parents=True)
    (d / "summary.json").write_bytes(SUMMARY_DAMAGE[damage](b"[]"))
    assert cli.main(["report", str(tmp_path / "res"), "--out", str(tmp_path / "rep")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(d / "summary.json") in err and "no result files" in err


# ------------------------------------------------------------------ result files

def _pt_of_another_run(p: str) -> None:
    shutil.copyfile(os.path.join(os.path.dirname(p), "dim=2_s1.pt"), p)


RESULT_DAMAGE = {   # file -> (damage, expected words in the error)
    "json-truncated": (".json", lambda p: open(p, "r+b").truncate(os.path.getsize(p) // 2), "could not be read"),
    "json-foreign": (".json", lambda p: open(p, "w").write("[1, 2]"), "not a run result"),
    "json-no-metrics": (".json", lambda p: json.dump({k: v for k, v in json.load(open(p)).items() if k != "metrics"},
                                                     open(p + ".x", "w")) or os.replace(p + ".x", p), "missing ['metrics']"),
    "pt-truncated": (".pt", lambda p: open(p, "r+b").truncate(os.path.getsize(p) // 2), "does not load"),
    "pt-garbage": (".pt", lambda p: open(p, "wb").write(b"\x00" * 64), "does not load"),
    "pt-missing": (".json", lambda p: os.remove(p[:-5] + ".pt"), "is missing"),
    "pt-of-another-run": (".pt", _pt_of_another_run, "differs from its JSON"),
}


@pytest.mark.parametrize("damage", sorted(RESULT_DAMAGE))
def test_a_damaged_result_file_is_named_then_retrained(ref, damaged, tmp_path, damage, capsys):
    """A corrupt result (.json or .pt): ``lejepa report`` and the rerun both stop with one line naming
    the file (exit 2, nothing trained); once the pair is removed, the rerun retrains that run and
    the report's tables equal the uninterrupted run's."""
    preset, _, want, _ = ref
    named, fn, words = RESULT_DAMAGE[damage]
    base = os.path.join(damaged, "scaling_sigreg", "dim=4_s0")
    fn(base + ".json" if named == ".json" or damage == "pt-missing" else base + ".pt")
    assert cli.main(["report", damaged, "--out", str(tmp_path / "cli_report")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and repr(base + named) in err and words in err, err
    rc, out, err = rerun(preset, damaged, capsys)
    assert rc == 2 and len(err.strip().splitlines()) == 1 and repr(base + named) in err and words in err, err
    for ext in (".json", ".pt"):
        if os.path.exists(base + ext):
            os.remove(base + ext)
    rc, out, err = rerun(preset, damaged, capsys)
    assert rc == 0 and "1 to train" in out and "1 runs trained" in out, out + err
    assert tables(damaged, str(tmp_path / "rep")) == want


@pytest.mark.parametrize("damage", ["json-removed", "pair-removed", "sweep-removed", "resume-garbage", "lock-left"])
def test_missing_results_are_retrained_to_the_same_tables(ref, damaged, tmp_path, damage, capsys):
    """What a kill leaves: a .pt without its .json (an unfinished write), a run without files, a
    whole sweep folder gone, a corrupt resume checkpoint, a stale lock file. The rerun trains
    exactly what is missing and the tables equal the uninterrupted run's."""
    preset, _, want, _ = ref
    d = os.path.join(damaged, "scaling_sigreg")
    base = os.path.join(d, "dim=2_s1")
    todo = 1
    if damage == "json-removed":
        os.remove(base + ".json")
    elif damage == "pair-removed":
        os.remove(base + ".json")
        os.remove(base + ".pt")
    elif damage == "sweep-removed":
        shutil.rmtree(d)
        todo = 4
    elif damage == "resume-garbage":
        os.remove(base + ".json")
        open(base + commands.RESUME_SUFFIX, "wb").write(b"\x00garbage")
    else:
        open(os.path.join(damaged, ".reproduce.lock"), "w").write("pid 1 on host gone since then\n")
        todo = 0
    rc, out, err = rerun(preset, damaged, capsys)
    assert rc == 0 and f"{todo} to train" in out, out + err
    assert not os.path.exists(base + commands.RESUME_SUFFIX)
    assert tables(damaged, str(tmp_path / "rep")) == want


def test_an_unwritable_out_is_refused_before_training(ref, damaged, monkeypatch, capsys):
    """--out that cannot be written (simulated: the write probe fails; the tests may run as root):
    one line, exit 2, no result touched."""
    preset = ref[0]
    os.remove(os.path.join(damaged, "scaling_sigreg", "dim=2_s1.json"))
    before = sorted(os.listdir(os.path.join(damaged, "scaling_sigreg")))
    real = commands.tempfile.mkstemp

    def mkstemp(*a, **k):
        if os.path.abspath(k.get("dir", "")) == os.path.abspath(damaged):
            raise PermissionError(13, "Permission denied")
        return real(*a, **k)

    monkeypatch.setattr(commands.tempfile, "mkstemp", mkstemp)
    rc, _, err = rerun(preset, damaged, capsys)
    assert rc == 2 and "is not writable" in err and len(err.strip().splitlines()) == 1
    assert sorted(os.listdir(os.path.join(damaged, "scaling_sigreg"))) == before


# ------------------------------------------------------------------ kills and process hygiene

def _stat(pid: int) -> tuple[int, str, int] | None:
    """(ppid, state, start time in clock ticks) of ``pid`` from /proc, None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    rest = text[text.rindex(")") + 2:].split()
    return int(rest[1]), rest[0], int(rest[19])


def descendants(root: int) -> dict[int, int]:
    """pid -> start time of every live process below ``root``."""
    kids: dict[int, list[int]] = {}
    starts: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            st = _stat(int(name))
            if st is not None and st[1] != "Z":
                kids.setdefault(st[0], []).append(int(name))
                starts[int(name)] = st[2]
    out: dict[int, int] = {}
    todo = [root]
    while todo:
        for c in kids.get(todo.pop(), []):
            out[c] = starts[c]
            todo.append(c)
    return out


def alive(procs: dict[int, int]) -> list[int]:
    """Those of ``procs`` still running (same pid and start time, not a zombie)."""
    live = []
    for pid, start in procs.items():
        st = _stat(pid)
        if st is not None and st[2] == start and st[1] != "Z":
            live.append(pid)
    return live


def workers(root: int) -> dict[int, int]:
    """The pool workers below ``root`` (spawned interpreters, not the resource tracker)."""
    out = {}
    for pid, start in descendants(root).items():
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read()
        except OSError:
            continue
        if b"spawn_main" in cmd:
            out[pid] = start
    return out


def training(pid: int) -> bool:
    """Whether ``pid`` has loaded torch (a pool worker does so when its first run starts)."""
    try:
        with open(f"/proc/{pid}/maps", encoding="utf-8", errors="replace") as f:
            return "libtorch" in f.read()
    except OSError:
        return False


class Lines:
    """The output lines of a child process, read by a thread."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.q: queue.Queue[str | None] = queue.Queue()
        self.all: list[str] = []
        threading.Thread(target=self._read, args=(proc,), daemon=True).start()

    def _read(self, proc: subprocess.Popen) -> None:
        for line in proc.stdout:   # type: ignore[union-attr]
            self.q.put(line)
        self.q.put(None)

    def wait_for(self, needle: str, count: int, timeout: float) -> bool:
        end = time.monotonic() + timeout
        while sum(needle in s for s in self.all) < count:
            try:
                s = self.q.get(timeout=max(0.01, end - time.monotonic()))
            except queue.Empty:
                return False
            if s is None:
                return False
            self.all.append(s)
        return True


def start(preset: str, out: str, jobs: int) -> tuple[subprocess.Popen, Lines]:
    proc = subprocess.Popen([sys.executable, "-m", "lejepa_experiments", "reproduce", "--preset", preset, "--out", out,
                             "--jobs", str(jobs), "--threads", "1", "--no-progress", "--no-report"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, preexec_fn=_default_signals)
    return proc, Lines(proc)


def _default_signals() -> None:
    """In the child before exec: SIGINT and SIGHUP back to their defaults (a test runner started in
    the background or under nohup passes them on ignored, and an ignored signal stays ignored)."""
    for s in (signal.SIGINT, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)


def wait_workers(proc: subprocess.Popen, n: int, timeout: float = 90) -> dict[int, int]:
    """Wait until ``n`` pool workers have started a run (torch loaded), plus half a second."""
    end = time.monotonic() + timeout
    while time.monotonic() < end and proc.poll() is None:
        w = workers(proc.pid)
        if len(w) >= n and all(training(p) for p in w):
            time.sleep(0.5)
            return w
        time.sleep(0.1)
    raise AssertionError(f"{n} pool workers did not start within {timeout} s")


def gone_within(procs: dict[int, int], seconds: float) -> list[int]:
    """Those of ``procs`` still alive after ``seconds``; they are then killed (by PID), so that a
    failing test leaves no orphan training behind."""
    end = time.monotonic() + seconds
    while alive(procs) and time.monotonic() < end:
        time.sleep(0.1)
    left = alive(procs)
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return left


@pytest.mark.skipif(not LINUX, reason="process checks read /proc")
@pytest.mark.parametrize("jobs,sig,seed", [(1, signal.SIGKILL, 0), (2, signal.SIGTERM, 1), (2, signal.SIGKILL, 2)])
def test_a_killed_reproduce_resumes_to_the_same_tables(ref, tmp_path, jobs, sig, seed):
    """``lejepa reproduce`` killed by a signal at a seeded random point (after k of the runs
    finished, k uniform, plus a uniform delay), then rerun: the report's tables equal the
    uninterrupted run's, and no process of the killed one is alive 10 s after the kill."""
    preset, _, want, _ = ref
    rng = random.Random(seed)
    k, delay = rng.randrange(RUNS), rng.uniform(0.0, 1.0)
    out = str(tmp_path / "out")
    proc, lines = start(preset, out, jobs)
    try:
        assert lines.wait_for("runs:", 1, 90), "".join(lines.all)
        if jobs > 1:
            wait_workers(proc, 2)
        assert lines.wait_for("R2(h->z)", k, 120), "".join(lines.all)
        time.sleep(delay)
        procs = descendants(proc.pid)
        proc.send_signal(sig)
        rc = proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert rc in (-sig, 128 + sig, 0), (rc, "".join(lines.all))   # 0: it finished before the signal
    assert gone_within(procs, 10) == [], "processes outlived the kill"
    res = reproduce.reproduce(preset, out, threads=1, report=False, progress=False, log=quiet)
    assert not res["failed"] and res["trained"] + res["done_before"] == RUNS
    assert tables(out, str(tmp_path / "rep")) == want
    assert summary_rows(out, "scaling_sigreg") == summary_rows(ref[1], "scaling_sigreg")


@pytest.mark.skipif(not LINUX, reason="process checks read /proc")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGHUP, signal.SIGKILL])
def test_a_signal_to_reproduce_ends_its_pool_workers(tmp_path, sig):
    """SIGINT and SIGHUP (SIGTERM: the test above) to ``lejepa reproduce --jobs 2`` while both
    workers train: it exits with 128 + signal and its workers are gone within 5 s; after SIGKILL
    (no cleanup possible) the workers notice their parent's death and exit within 5 s."""
    preset = str(tmp_path / "long.yaml")
    with open(preset, "w", encoding="utf-8") as f:
        f.write(_preset_text(100000))
    proc, lines = start(preset, str(tmp_path / "out"), 2)
    try:
        assert lines.wait_for("runs:", 1, 90), "".join(lines.all)
        ws = wait_workers(proc, 2)
        procs = descendants(proc.pid)
        assert set(ws) <= set(procs)
        proc.send_signal(sig)
        rc = proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert rc == (-sig if sig == signal.SIGKILL else 128 + sig), (rc, "".join(lines.all))
    assert gone_within(procs, 5) == [], "processes outlived lejepa reproduce"
    if sig != signal.SIGKILL:
        lines.wait_for("never", 1, 5)
        assert "interrupted" in "".join(lines.all) and "Traceback" not in "".join(lines.all)
        assert re.search(rf"interrupted \((signal )?{signal.Signals(sig).name}\)", "".join(lines.all)), "".join(lines.all)
