"""The artifact's temporary directory, and the review's limits read from how a command ended.

Every backend gives the artifact's commands a `/tmp` (and `TMPDIR`) on disk, outside the run directory and
executable, so that a build which compiles a module into its temporary build environment and loads it works as it
does on the authors' machine, and a large wheel download does not eat the command's memory (Docker's own `--tmpfs`
is memory-backed and mounted `noexec`). Its size is the review's disk budget for temporary files
(`Limits.tmp_mb`): the folder is measured while a command runs and a command that fills it past the budget is
stopped, with the limit named.

A failure the review's own limits caused — disk, exec, memory, processes, time — is the review's, never the
artifact's: `REVIEW_LIMITS` tells those notes apart so the report can say so.
"""
from __future__ import annotations

import os
import re
import shutil
import stat
import time
from pathlib import Path

TMP = "/tmp"
"""Where the artifact's temporary directory is mounted inside every sandbox (TMPDIR points there too)."""
MEASURE_EVERY_S = 3.0
"""How often a running command's temporary directory is measured."""
MAX_ENTRIES = 200_000
"""Entries one measurement walks at most (a tree that large is over any sensible budget anyway)."""
NO_SPACE = re.compile(rb"No space left on device|\[Errno 28\]|Disk quota exceeded")
NO_EXEC = re.compile(rb"failed to map segment from shared object|"
                     rb"cannot open shared object file: Operation not permitted|"
                     rb"error while loading shared libraries: [^\n]*: failed to map")
REVIEW_LIMITS = re.compile(r"^(?:timeout after|stuck: no new output|phase budget of|disk budget|disk space|"
                           r"exec refused|memory limit|process limit|file size limit|CPU time limit)")
"""Limit notes (sandbox/runner.py, here) that name a limit of the review: a command they stopped did not fail on
its own."""


def review_limits(notes: list[str]) -> list[str]:
    """The notes that name a limit of the review (not the output cap, not network remarks)."""
    return [n for n in notes if REVIEW_LIMITS.match(n)]


class TempSpace:
    """A host folder that is the artifact's /tmp in one sandbox session, measured against the disk budget."""

    def __init__(self, folder: Path, budget_mb: int):
        self.folder, self.budget_mb = Path(folder), int(budget_mb)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.folder.chmod(0o1777)  # as /tmp is: every user may create, none may remove another's files
        self._next = 0.0
        self.peak_mb = 0.0

    def used_mb(self) -> float:
        """Bytes in the folder now (apparent sizes, links not followed), in MB."""
        total, seen = 0, 0
        for dirpath, dirnames, filenames in os.walk(self.folder):
            for name in filenames + dirnames:
                seen += 1
                try:
                    st = os.lstat(os.path.join(dirpath, name))
                except OSError:
                    continue
                if stat.S_ISREG(st.st_mode):
                    total += st.st_blocks * 512
            if seen > MAX_ENTRIES:
                break
        used = total / (1 << 20)
        self.peak_mb = max(self.peak_mb, used)
        return used

    def over_budget(self) -> bool:
        """Measured at most every few seconds: True once the folder holds more than the budget."""
        now = time.monotonic()
        if now < self._next:
            return False
        self._next = now + MEASURE_EVERY_S
        return self.used_mb() > self.budget_mb

    def reset(self) -> None:
        self._next = 0.0

    def free_mb(self) -> int:
        """Free space of the file system the folder lives on (MB), 0 when it cannot be read."""
        try:
            return int(shutil.disk_usage(self.folder).free / (1 << 20))
        except OSError:
            return 0

    def executable(self) -> bool:
        """The folder's file system allows executing and mapping files (not mounted noexec)."""
        try:
            return not os.statvfs(self.folder).f_flag & getattr(os, "ST_NOEXEC", 8)
        except OSError:
            return False

    def describe(self) -> str:
        """For the sandbox's enforcement line."""
        where = "executable" if self.executable() else "NOT executable (its host file system is mounted noexec)"
        return f"/tmp on disk ({where}) with a disk budget of {self.budget_mb} MB"

    def exceeded_note(self) -> str:
        return (f"disk budget {self.budget_mb} MB for temporary files exceeded ({self.peak_mb:.0f} MB in {TMP}; "
                "the command was stopped)")

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def space_notes(output_tail: bytes, budget_mb: int, free_mb: int | None = None) -> list[str]:
    """Limits of the review a command's own output reports: no space left, a shared object it could not map."""
    notes = []
    if NO_SPACE.search(output_tail):
        free = f"; {free_mb} MB were free on the review machine's scratch disk" if free_mb is not None else ""
        notes.append(f"disk space ran out (no space left on device; the review's disk budget for temporary files is "
                     f"{budget_mb} MB{free})")
    if NO_EXEC.search(output_tail):
        notes.append("exec refused: a shared object could not be mapped (a file system of the sandbox is mounted "
                     "noexec)")
    return notes
