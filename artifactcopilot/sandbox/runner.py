"""What every backend does around a command: copy the artifact, capture output, watch the clock,
budget a phase, diagnose the limits a command ran into, and turn all of it into a record."""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from ..models import CommandRecord
from .base import Limits, RunResult
from .tmpspace import TempSpace, space_notes

HEAD_CHARS = 4000
TAIL_BYTES = 8192
HIDDEN = ".sandbox-home"


def copy_artifact(src: Path, dest: Path) -> list[str]:
    """Copy src to dest without following symlinks that leave src. Returns the links dropped."""
    dropped: list[str] = []
    src = src.resolve()

    def ignore(folder: str, names: list[str]) -> set[str]:
        skip = set()
        for name in names:
            path = Path(folder) / name
            if path.is_symlink():
                target = (Path(folder) / os.readlink(path)).resolve()
                if not (target == src or src in target.parents):
                    skip.add(name)
                    dropped.append(path.relative_to(src).as_posix())
            elif not (path.is_file() or path.is_dir()):
                skip.add(name)  # sockets, fifos, devices
        return skip

    shutil.copytree(src, dest, symlinks=True, ignore=ignore)
    return dropped


class Capture(threading.Thread):
    """Drain a byte stream, keep the first `cap` bytes and the last few KB, count the rest."""

    def __init__(self, chunks, cap: int, on_output: Callable[[bytes], None] | None = None):
        super().__init__(daemon=True)
        self.chunks, self.cap, self.on_output = chunks, cap, on_output
        self.data, self.tail = bytearray(), bytearray()
        self.dropped = 0
        self.last_output = time.monotonic()

    @classmethod
    def of_pipe(cls, stream, cap: int, on_output: Callable[[bytes], None] | None = None) -> Capture:
        return cls(iter(lambda: stream.read1(65536), b""), cap, on_output)

    def feed(self, chunk: bytes) -> None:
        self.last_output = time.monotonic()
        room = self.cap - len(self.data)
        if room > 0:
            self.data += chunk[:room]
        self.dropped += max(0, len(chunk) - max(room, 0))
        self.tail = (self.tail + chunk)[-TAIL_BYTES:]
        if self.on_output is not None:
            try:
                self.on_output(chunk)
            except Exception:  # noqa: BLE001 - a display problem must never disturb the command
                self.on_output = None

    def run(self) -> None:
        try:
            for chunk in self.chunks:
                self.feed(chunk)
        except (OSError, ValueError):
            pass  # the stream closed under us when the command was killed


def watch(wait, captures: list[Capture], timeout: float, stall_s: float | None,
          over_budget: Callable[[], bool] | None = None) -> str | None:
    """Call `wait(step)` (True once the command ended; returns early when it does) until the command ends;
    return 'timeout', 'stuck' or 'disk' (`over_budget()` said the temporary directory is over the review's disk
    budget) when a limit ends the wait first."""
    start = time.monotonic()
    while True:
        now = time.monotonic()
        if now - start > timeout:
            return "timeout"
        if stall_s and now - max([start] + [c.last_output for c in captures]) > stall_s:
            return "stuck"
        if over_budget is not None and over_budget():
            return "disk"
        if wait(min(0.05 if now - start < 1 else 0.2, max(timeout - (now - start), 0.001))):
            return None


def _ended(proc: subprocess.Popen, step: float) -> bool:
    try:
        proc.wait(step)
        return True
    except subprocess.TimeoutExpired:
        return False


MEMORY_ERRORS = re.compile(rb"MemoryError|Cannot allocate memory|std::bad_alloc|out of memory|OutOfMemoryError", re.I)
FORK_ERRORS = re.compile(rb"fork: (retry: )?Resource temporarily unavailable|BlockingIOError: \[Errno 11\]"
                         rb"|can't fork|cannot fork", re.I)
FILE_SIZE_ERRORS = re.compile(rb"File too large|File size limit exceeded")


def limit_notes(limits: Limits, reason: str | None, timeout: float, stderr_tail: bytes, dropped: int,
                exit_code: int | None, space: TempSpace | None = None) -> list[str]:
    """Human-readable limits a command ran into, from how it ended and what it printed (`stderr_tail`: the tail of
    its output); `space`: its temporary directory, whose budget a 'disk' stop names."""
    notes = []
    if reason == "disk" and space is not None:
        notes.append(space.exceeded_note())
    if reason == "timeout":
        notes.append(f"timeout after {timeout:g}s")
    elif reason == "stuck":
        notes.append(f"stuck: no new output for {limits.stall_s:g}s, killed")
    if dropped:
        notes.append(f"output cap {limits.output_cap_bytes} bytes ({dropped} bytes dropped)")
    if MEMORY_ERRORS.search(stderr_tail):
        notes.append(f"memory limit {limits.memory_mb} MB (allocation refused)")
    if FORK_ERRORS.search(stderr_tail):
        notes.append(f"process limit {limits.max_processes} (fork refused)")
    if FILE_SIZE_ERRORS.search(stderr_tail) or exit_code in (-signal.SIGXFSZ, 128 + signal.SIGXFSZ):
        notes.append(f"file size limit {limits.max_file_mb} MB")
    if exit_code in (-signal.SIGXCPU, 128 + signal.SIGXCPU):
        notes.append("CPU time limit")
    notes += space_notes(stderr_tail, limits.tmp_mb, space.free_mb() if space is not None else None)
    return notes


class PhaseBudget:
    """Wall-clock budget shared by the commands of one phase (`set_phase` switches phases)."""

    def __init__(self, budget_s: float | None):
        self.budget_s, self.phase = budget_s, ""
        self.used: dict[str, float] = {}

    def set_phase(self, phase: str) -> None:
        self.phase = phase

    def clamp(self, timeout: float) -> tuple[float, bool]:
        """The timeout this command gets, and whether it was shortened by the phase budget."""
        if not self.budget_s:
            return timeout, False
        left = self.budget_s - self.used.get(self.phase, 0.0)
        return (max(left, 0.0), True) if left < timeout else (timeout, False)

    def spend(self, seconds: float) -> None:
        self.used[self.phase] = self.used.get(self.phase, 0.0) + seconds


class RunPlan(NamedTuple):
    workdir: Path
    rel: str
    timeout: float
    clamped: bool
    """The timeout was cut to what is left of the phase budget."""
    exhausted: RunResult | None
    """Set when the phase budget is spent: return it instead of running."""


def prepare_run(root: Path, cwd: str, cmd: str, timeout: float, budget: PhaseBudget) -> RunPlan:
    """Shared by both backends: keep the working directory inside the artifact copy and clamp the
    timeout to what is left of the phase budget."""
    workdir = (root / cwd).resolve()
    if not (workdir == root or root in workdir.parents) or not workdir.is_dir():
        workdir = root
    rel = workdir.relative_to(root).as_posix() or "."
    timeout, clamped = budget.clamp(timeout)
    exhausted = budget_exhausted(cmd, rel, budget.phase, budget.budget_s or 0) if clamped and timeout <= 0 else None
    return RunPlan(workdir, rel, timeout, clamped, exhausted)


def budget_exhausted(cmd: str, cwd: str, phase: str, budget: float) -> RunResult:
    note = f"phase budget of {budget:g}s for {phase or 'this phase'} exhausted; not run"
    return RunResult(CommandRecord(cmd=cmd, cwd=cwd, exit_code=None, duration_s=0.0, timed_out=True, limits_hit=[note]))


def record_for(cmd: str, cwd: str, exit_code: int | None, duration: float, out: Capture, err: Capture,
               changes: tuple[list[str], list[str], list[str]], notes: list[str], killed: bool,
               network: bool = False) -> RunResult:
    """The record of a finished command; `changes` is (created, modified, deleted) in the artifact copy."""
    created, modified, deleted = ([p for p in paths if not p.startswith(HIDDEN + "/")] for paths in changes)
    record = CommandRecord(
        cmd=cmd, cwd=cwd, exit_code=None if killed else exit_code, duration_s=round(duration, 3), timed_out=killed,
        output_truncated=bool(out.dropped or err.dropped),
        stdout=bytes(out.data[:HEAD_CHARS]).decode("utf-8", "replace"),
        stderr=bytes(err.data[-HEAD_CHARS:]).decode("utf-8", "replace"),
        files_created=created, files_modified=modified, files_deleted=deleted, limits_hit=notes, network=network)
    return RunResult(record, bytes(out.data), bytes(err.data))


