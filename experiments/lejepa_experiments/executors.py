"""Where sweep runs execute: in this process, a local process pool, or a SLURM cluster (submitit).

An executor is a callable ``executor(tasks) -> iterator of (task, result_or_exception)`` yielding
each :class:`Task` as it finishes (:data:`Executor`). Every task writes its own
result files atomically (``lejepa train``'s format) before it is reported, so an interrupted
executor loses no finished run, and a resumed sweep skips them.

* :class:`Inline`: one run after the other in this process.
* :class:`LocalPool`: ``jobs`` worker processes (``spawn``: no forked torch/OpenMP state), each run
  with ``threads = cores // jobs`` torch/numba threads, so the pool never oversubscribes the cores.
  No worker outlives its parent: leaving the pool by an exception (``KeyboardInterrupt`` from
  SIGINT, or :class:`Terminated` from SIGTERM/SIGHUP under :func:`signals_interrupt`) terminates the
  workers at once, and a worker whose parent dies without that (SIGKILL) exits by itself
  (:func:`_worker_init`: ``PR_SET_PDEATHSIG`` on Linux, and a thread watching ``os.getppid()``).
* :class:`Slurm`: one submitit job array (``sbatch --array``) over the tasks; partition, time, GPUs
  and CPUs per task from the preset's ``slurm`` section or the command line. The jobs must see the
  same file system (the output directory and this package) as the submitting process.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Task:
    """One training of a sweep, everything a worker process (local pool or SLURM job) needs:
    picklable, and independent of the parent process's state."""

    config: str
    run: str
    seed: int
    out_dir: str
    preset: str | None = None
    overrides: tuple[str, ...] = ()
    time_limit_s: float | None = None
    threads: int | None = None
    """torch/numba threads for this run (``runtime.threads``); None keeps the config's value."""


def execute(task: Task) -> dict[str, Any]:
    """Train ``task`` with :func:`.commands.run_training` (``out_dir/run.json`` and ``.pt`` written
    atomically) and return its result; a leftover of an unfinished or failed earlier attempt is
    replaced. Top-level so that process pools and submitit can pickle it."""
    from .commands import run_training

    ov = list(task.overrides) + ([f"runtime.threads={task.threads}"] if task.threads else [])
    kw: dict[str, Any] = {}
    if "overwrite" in inspect.signature(run_training).parameters:   # result-file guard, where present
        kw["overwrite"] = True
    res = run_training(task.config, task.run, task.seed, task.out_dir, preset=task.preset, overrides=ov,
                       progress=False, time_limit_s=task.time_limit_s, **kw)
    res = dict(res)
    res["slurm_job_id"] = os.environ.get("SLURM_JOB_ID")    # where it ran (returned, not written)
    return res


Executor = Callable[[list[Task]], Iterator[tuple[Task, Any]]]
"""Runs tasks and yields ``(task, result)`` as each finishes (in any order); a failed task yields
``(task, exception)``."""



def available_cores() -> int:
    """CPU cores this process may run on (the affinity mask where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def threads_per_job(jobs: int, cores: int | None = None) -> int:
    """``max(1, cores // jobs)``: torch threads per concurrent run without oversubscription."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"--jobs must be an integer >= 1, got {jobs!r}")
    return max(1, (available_cores() if cores is None else cores) // jobs)


def _with_threads(tasks: list[Task], threads: int | None) -> list[Task]:
    if threads is None:
        return tasks
    return [Task(t.config, t.run, t.seed, t.out_dir, t.preset, t.overrides, t.time_limit_s, threads) for t in tasks]


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP received under :func:`signals_interrupt` (a ``KeyboardInterrupt``, so that
    ``except Exception`` does not swallow it and cleanup code runs as for Ctrl-C); ``signum``."""

    def __init__(self, signum: int):
        super().__init__(f"signal {signal.Signals(signum).name}")
        self.signum = signum


@contextlib.contextmanager
def signals_interrupt(signals: tuple[int, ...] = (signal.SIGTERM, signal.SIGHUP)) -> Iterator[None]:
    """Within the block, the first of ``signals`` raises :class:`Terminated` in the main thread (as
    SIGINT raises ``KeyboardInterrupt``), so that ``finally`` blocks run: a local pool ends its
    workers, locks are released; later ones are ignored while that cleanup runs. A signal ignored
    on entry (``nohup``) stays ignored. Old handlers are
    restored on exit. Outside the main thread it does nothing (Python delivers signals there only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    fired: list[int] = []

    def handler(signum: int, frame: Any) -> None:
        if not fired:
            fired.append(signum)
            raise Terminated(signum)

    # a signal ignored on entry stays ignored (``nohup`` ignores SIGHUP; a shell's background job, SIGINT)
    old = {s: signal.signal(s, handler) for s in signals if signal.getsignal(s) is not signal.SIG_IGN}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


PR_SET_PDEATHSIG = 1
"""``prctl`` option (``<linux/prctl.h>``): the signal a process gets when its parent thread dies."""


def _watch_parent(parent: int, poll_s: float) -> None:
    while True:
        time.sleep(poll_s)
        if os.getppid() != parent:
            os._exit(1)


def _worker_init(parent: int, poll_s: float = 1.0) -> None:
    """Initializer of a :class:`LocalPool` worker: the worker exits when ``parent`` (the pool's
    process) dies. On Linux ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` has the kernel kill it then; on
    every system a daemon thread checks ``os.getppid()`` every ``poll_s`` seconds and exits when it
    changed (the parent died and the worker was re-parented), and a parent that died before this
    ran is seen at once."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent, poll_s), daemon=True, name="lejepa-parent-watch").start()


def _end_pool(pool: Any, grace_s: float = 5.0) -> None:
    """Cancel what has not started, terminate (SIGTERM, then SIGKILL after ``grace_s``) and reap the
    workers of a ``ProcessPoolExecutor`` now, without waiting for running tasks."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    for p in procs:
        with contextlib.suppress(Exception):
            p.terminate()
    pool.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + grace_s
    for p in procs:
        with contextlib.suppress(Exception):
            p.join(max(0.0, deadline - time.monotonic()))
            if p.is_alive():
                p.kill()
                p.join(1.0)


class Inline:
    """Run the tasks one after the other in this process (``--jobs 1``)."""

    def __init__(self, threads: int | None = None):
        self.threads = threads

    def __call__(self, tasks: list[Task]) -> Iterator[tuple[Task, Any]]:
        for t in _with_threads(tasks, self.threads):
            try:
                yield t, execute(t)
            except Exception as exc:  # noqa: BLE001 - reported per run; KeyboardInterrupt propagates
                yield t, exc


class LocalPool:
    """A pool of ``jobs`` processes; each run gets ``threads`` (default ``cores // jobs``) threads."""

    def __init__(self, jobs: int, threads: int | None = None):
        self.jobs = jobs
        self.threads = threads_per_job(jobs) if threads is None else threads

    def __call__(self, tasks: list[Task]) -> Iterator[tuple[Task, Any]]:
        import concurrent.futures as cf
        import multiprocessing as mp

        tasks = _with_threads(tasks, self.threads)
        if not tasks:
            return
        env = {k: str(self.threads) for k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")}
        old = {k: os.environ.get(k) for k in env}
        os.environ.update(env)           # inherited by the spawned workers before torch loads there
        try:
            pool = cf.ProcessPoolExecutor(max_workers=min(self.jobs, len(tasks)), mp_context=mp.get_context("spawn"),
                                          initializer=_worker_init, initargs=(os.getpid(),))
            try:
                futures = {pool.submit(execute, t): t for t in tasks}
                for fut in cf.as_completed(futures):
                    exc = fut.exception()
                    yield futures[fut], (exc if exc is not None else fut.result())
            except BaseException:   # Ctrl-C, a signal (Terminated), the consumer's error or close()
                _end_pool(pool)
                raise
            pool.shutdown(wait=True)
        finally:
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


SLURM_KEYS = ("partition", "time_min", "gpus_per_node", "cpus_per_task", "mem_gb", "array_parallelism",
              "account", "qos")
"""Keys of a preset's ``slurm`` section (all optional)."""


def check_slurm_options(opts: dict[str, Any]) -> dict[str, Any]:
    """Validate a ``slurm`` section; unknown keys and bad values raise ``ValueError`` naming them."""
    if not isinstance(opts, dict):
        raise ValueError(f"slurm options must be a mapping, got {opts!r}")
    out: dict[str, Any] = {}
    for k, v in opts.items():
        if k not in SLURM_KEYS:
            raise ValueError(f"unknown slurm option {k!r} (known: {', '.join(SLURM_KEYS)})")
        if v is None:
            continue
        if k in ("partition", "account", "qos"):
            if not isinstance(v, str) or not v:
                raise ValueError(f"slurm option {k!r} must be a non-empty string, got {v!r}")
        elif k == "gpus_per_node":
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError(f"slurm option {k!r} must be an integer >= 0, got {v!r}")
        elif isinstance(v, bool) or not isinstance(v, (int, float)) or v < 1:
            raise ValueError(f"slurm option {k!r} must be a number >= 1, got {v!r}")
        out[k] = v
    return out


class Slurm:
    """One submitit job array over the tasks, polled until every job ended.

    ``folder`` holds submitit's scripts and logs (``OUT/.slurm`` in ``lejepa reproduce``). Each
    task runs with ``cpus_per_task`` threads (default 1). ``poll_s``: seconds between state checks."""

    def __init__(self, folder: str, options: dict[str, Any] | None = None, poll_s: float = 2.0):
        self.folder = folder
        self.options = check_slurm_options(dict(options or {}))
        self.poll_s = poll_s
        self.queue_check_s = max(10.0, 5 * poll_s)

    def parameters(self) -> dict[str, Any]:
        """The ``update_parameters`` keywords of submitit's SLURM executor."""
        o = self.options
        p: dict[str, Any] = {"timeout_min": int(o.get("time_min", 60)), "cpus_per_task": int(o.get("cpus_per_task", 1)),
                             "nodes": 1, "tasks_per_node": 1, "slurm_array_parallelism": int(o.get("array_parallelism", 256))}
        if o.get("gpus_per_node"):
            p["gpus_per_node"] = int(o["gpus_per_node"])
        if o.get("partition"):
            p["slurm_partition"] = o["partition"]
        if o.get("mem_gb"):
            p["mem_gb"] = o["mem_gb"]
        extra = {k: o[k] for k in ("account", "qos") if o.get(k)}
        if extra:
            p["slurm_additional_parameters"] = extra
        return p

    def __call__(self, tasks: list[Task]) -> Iterator[tuple[Task, Any]]:
        try:
            import submitit
        except ImportError:
            raise ValueError("--executor slurm needs submitit: pip install -e '.[cluster]'") from None
        if not tasks:
            return
        params = self.parameters()
        tasks = _with_threads(tasks, params["cpus_per_task"])
        ex = submitit.AutoExecutor(folder=self.folder, cluster="slurm")
        ex.update_parameters(name="lejepa", **params)
        jobs = ex.map_array(execute, tasks)
        pending = dict(zip((j.job_id for j in jobs), zip(jobs, tasks)))
        gone: dict[str, int] = {}
        last_queue_check = time.monotonic()
        try:
            while pending:
                for jid in list(pending):
                    job, task = pending[jid]
                    if job.done():
                        del pending[jid]
                        try:
                            yield task, job.result()
                        except Exception as exc:  # noqa: BLE001 - the job's error, with its log
                            yield task, exc
                if pending and time.monotonic() - last_queue_check > self.queue_check_s:
                    # without SLURM accounting (sacct) submitit cannot see a job that died without
                    # writing its result: a job absent from squeue twice in a row has ended
                    last_queue_check = time.monotonic()
                    live = _squeue_ids()
                    if live is not None:
                        for jid in list(pending):
                            if jid in live or pending[jid][0].done():
                                gone.pop(jid, None)
                                continue
                            gone[jid] = gone.get(jid, 0) + 1
                            if gone[jid] >= 2:
                                job, task = pending.pop(jid)
                                yield task, RuntimeError(f"SLURM job {jid} ended without a result; see "
                                                         f"{job.paths.stderr}")
                if pending:
                    time.sleep(self.poll_s)
        except BaseException:
            for job, _ in pending.values():
                job.cancel(check=False)
            raise


def _squeue_ids() -> set[str] | None:
    """Job ids in the SLURM queue (array tasks one per line, ``123_4``); None if squeue fails."""
    import subprocess

    try:
        p = subprocess.run(["squeue", "-h", "-r", "-o", "%i"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if p.returncode != 0:
        return None
    return {line.strip() for line in p.stdout.splitlines() if line.strip()}
