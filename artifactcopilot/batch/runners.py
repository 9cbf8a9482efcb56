"""Schedule a batch's reviews on an engine (local pool or Ray) and commit each result atomically.

A review's folder appears in the batch directory only complete, by one rename, with outcome.json
inside; anything half-done lives under .work/ and is wiped by the next run. That is what makes a
killed or interrupted driver safe to re-run: completed reviews are skipped, the rest are redone.
"""
from __future__ import annotations

import fcntl
import json
import shutil
import signal
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from ..errors import UsageError
from ..fileio import atomic_write
from ..models import utcnow
from .manifest import ManifestRow
from .work import Job, unpack

OUTCOME = "outcome.json"


def job_key(artifact_id: str, run: int, repeat: int) -> str:
    return artifact_id if repeat == 1 else f"{artifact_id}/run-{run}"


def read_outcome(root: Path, key: str) -> dict | None:
    path = root / key / OUTCOME
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None


def plan_jobs(rows: list[ManifestRow], root: Path, repeat: int, agent: str, timeout_s: float, redo: bool,
              sandbox: str = "auto", offline: bool = False) -> tuple[list[Job], int]:
    """Jobs still to run (failed and missing reviews; everything with redo) and how many are skipped."""
    jobs, skipped = [], 0
    for run in range(1, repeat + 1):  # first runs of every artifact before any repetition
        for row in rows:
            key = job_key(row.id, run, repeat)
            previous = read_outcome(root, key)
            if previous and previous.get("status") == "ok" and not redo:
                skipped += 1
                continue
            jobs.append(Job(id=row.id, run=run, key=key, paper=row.paper, artifact=row.artifact, agent=agent,
                            sandbox=sandbox, timeout_s=row.timeout or timeout_s, offline=offline))
    return jobs, skipped


def spent_usd(root: Path, keys: Iterable[str]) -> float:
    """Cost already recorded in this batch directory (earlier runs count against --max-cost)."""
    return sum(float((read_outcome(root, k) or {}).get("cost_usd") or 0.0) for k in keys)


class BatchDir:
    """The batch output folder: one driver at a time (a lock), a scratch area, atomic commits."""

    def __init__(self, root: Path):
        self.root = Path(root).resolve()
        self.work = self.root / ".work"
        self._lock: IO[str] | None = None

    def open(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        self._lock = open(self.root / ".lock", "w")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released by the kernel even on SIGKILL
        except BlockingIOError:
            raise UsageError(f"{self.root} is in use by another `copilot batch`",
                             "wait for it or choose another --out") from None
        shutil.rmtree(self.work, ignore_errors=True)  # reviews a killed driver left half-done
        self.work.mkdir()

    def close(self) -> None:
        shutil.rmtree(self.work, ignore_errors=True)
        if self._lock:
            self._lock.close()

    def commit(self, job: Job, result: dict, engine: str) -> dict:
        """Put the review's run directory and its outcome.json in place with one rename."""
        staging = self.work / uuid.uuid4().hex
        if result.get("archive"):
            unpack(result["archive"], staging)
        staging.mkdir(parents=True, exist_ok=True)
        outcome = {"id": job.id, "run": job.run, **result["outcome"], "engine": engine, "finished_at": utcnow()}
        if outcome["status"] != "ok":
            atomic_write(staging / "error.txt", outcome.get("message", "") + "\n")
        atomic_write(staging / OUTCOME, json.dumps(outcome, indent=2, sort_keys=True) + "\n")
        target = self.root / job.key
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists():  # a failed earlier attempt, or --redo
            trash = self.work / f"old-{uuid.uuid4().hex}"
            target.rename(trash)
            staging.rename(target)
            shutil.rmtree(trash, ignore_errors=True)
        else:
            staging.rename(target)
        return outcome


@dataclass
class RunResult:
    """How a run of the scheduler ended."""

    done: list[dict] = field(default_factory=list)
    not_started: list[Job] = field(default_factory=list)
    stopped: str | None = None
    """None (all scheduled), 'max-cost' or 'interrupted'."""
    spent_usd: float = 0.0
    wall_s: float = 0.0


class _StopFlag:
    """First SIGINT/SIGTERM asks the loop to stop between two polls, never in the middle of a commit."""

    def __init__(self) -> None:
        self.raised = False
        self._previous: dict = {}

    def __enter__(self):
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def _handle(self, signum, frame) -> None:
        self.raised = True

    def __exit__(self, *exc) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)


def run_jobs(jobs: list[Job], engine, batch: BatchDir, *, max_cost: float | None = None, spent: float = 0.0,
             on_start: Callable[[Job], None] | None = None, on_done: Callable[[Job, dict], None] | None = None,
             poll_s: float = 0.1) -> RunResult:
    """Keep the engine's slots busy until every job ran, the budget is spent or a stop was asked for."""
    result = RunResult(spent_usd=spent)
    pending = deque(jobs)
    started = time.monotonic()
    with _StopFlag() as stop:
        engine.start()
        while pending or engine.running():
            if stop.raised:
                result.stopped = "interrupted"
                break
            while pending and engine.running() < engine.slots:
                if max_cost is not None and result.spent_usd >= max_cost:
                    result.stopped = "max-cost"
                    break
                job = pending.popleft()
                if max_cost is not None:  # no single review may spend past the global budget
                    job = Job(**{**job.__dict__, "max_cost": min(job.max_cost, max(max_cost - result.spent_usd, 0.0))})
                engine.submit(job)
                if on_start:
                    on_start(job)
            if result.stopped == "max-cost" and not engine.running():
                break
            for job, res in engine.poll(poll_s):
                outcome = batch.commit(job, res, engine.name)
                result.spent_usd += float(outcome.get("cost_usd") or 0.0)
                result.done.append(outcome)
                if on_done:
                    on_done(job, outcome)
        result.not_started = list(pending)
    result.wall_s = round(time.monotonic() - started, 3)
    return result
