"""The local engine: N long-lived worker processes on this machine, each running one review at a time.

A hand-rolled pool rather than ProcessPoolExecutor because a hung review must be stoppable on its
own: the driver terminates that one worker (its review's sandbox kills the command's process group
on the way out) and starts a replacement, while the other reviews carry on.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import signal
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import cast

from .work import Job, failure, run_job

GRACE_S = 5.0


def _kill_child_groups() -> None:
    """Kill the process group of every child that leads its own group: the sandbox starts each
    artifact command that way, and one may be mid-start, before the sandbox could track it."""
    me = os.getpid()
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        ppid, pgid = int(fields[1]), int(fields[2])
        if ppid == me and pgid == int(entry):
            try:
                os.killpg(pgid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def _exit_on_term(signum, frame) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second SIGTERM must not cut the clean-up short
    _kill_child_groups()
    raise SystemExit(143)  # unwinds the review, so its sandbox removes its scratch copy


def _die_with_parent() -> None:
    """Linux: SIGTERM this worker when the fork server dies, which it does when the driver dies
    (even by SIGKILL), so a killed batch leaves no reviews running behind it."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _serve(conn: Connection) -> None:
    # Ctrl-C reaches the whole process group; only the driver decides what stops.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit_on_term)
    _die_with_parent()
    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        if job is None:
            return
        conn.send(run_job(job))


@dataclass
class _Worker:
    process: BaseProcess
    conn: Connection
    job: Job | None = None
    deadline: float = 0.0
    started: float = field(default_factory=time.monotonic)


class LocalPool:
    """Engine protocol: slots, submit(job), poll(timeout) -> [(job, result)], running(), close()."""

    name = "local"

    def __init__(self, workers: int, review_limit_s: float):
        self.slots = max(1, workers)
        self.review_limit_s = review_limit_s
        self._ctx = mp.get_context("forkserver")
        # Workers fork from a server that has already imported the review stack: fast start-up, no
        # threads inherited from the driver (its progress display runs one).
        self._ctx.set_forkserver_preload(["artifactcopilot.batch.work", "artifactcopilot.review"])
        self._workers: list[_Worker] = []

    def _spawn(self) -> _Worker:
        parent, child = self._ctx.Pipe()
        process = self._ctx.Process(target=_serve, args=(child,), daemon=True, name="copilot-batch-worker")
        process.start()
        child.close()
        worker = _Worker(process, parent)
        self._workers.append(worker)
        return worker

    def start(self) -> None:
        while len(self._workers) < self.slots:
            self._spawn()

    def running(self) -> int:
        return sum(w.job is not None for w in self._workers)

    def submit(self, job: Job) -> None:
        worker = next((w for w in self._workers if w.job is None), None) or self._spawn()
        worker.job, worker.started = job, time.monotonic()
        worker.deadline = worker.started + self.review_limit_s
        worker.conn.send(job)

    def _stop(self, worker: _Worker) -> None:
        self._workers.remove(worker)
        if worker.process.is_alive():
            worker.process.terminate()  # SIGTERM: the review unwinds and its sandbox kills the command group
            worker.process.join(GRACE_S)
        if worker.process.is_alive():
            worker.process.kill()
            worker.process.join()
        worker.conn.close()

    def poll(self, timeout: float) -> list[tuple[Job, dict]]:
        busy = {w.conn: (w, w.job) for w in self._workers if w.job is not None}
        done: list[tuple[Job, dict]] = []
        if not busy:
            time.sleep(timeout)
        for ready in wait(list(busy), timeout) if busy else []:
            worker, job = busy[cast(Connection, ready)]  # wait() returns the connections it was given
            worker.job = None
            try:
                done.append((job, worker.conn.recv()))
            except (EOFError, OSError):
                code = worker.process.exitcode
                self._stop(worker)
                lost = failure("worker-lost", f"worker process exited (code {code}) during the review",
                               time_s=round(time.monotonic() - worker.started, 3))
                done.append((job, {"outcome": lost, "archive": b""}))
        now = time.monotonic()
        for worker, job in [(w, w.job) for w in self._workers if w.job is not None and now > w.deadline]:
            self._stop(worker)
            stopped = failure("timeout", f"review exceeded {self.review_limit_s:g}s and was stopped",
                              time_s=round(now - worker.started, 3))
            done.append((job, {"outcome": stopped, "archive": b""}))
        while len(self._workers) < self.slots:
            self._spawn()
        return done

    def close(self) -> None:
        for worker in list(self._workers):
            if worker.job is None:
                try:
                    worker.conn.send(None)
                except OSError:
                    pass
        for worker in list(self._workers):
            if worker.job is None:
                worker.process.join(1.0)
            self._stop(worker)
