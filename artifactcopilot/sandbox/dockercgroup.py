"""The Docker container's limit counters: how often the kernel killed a process for memory or refused a fork.

Docker enforces the memory and pids limits in the container's cgroup; the engine does not say when a limit
struck. The counters are read on the host (cgroup v1 or v2) before and after each command, so a command the
OOM killer ended, or whose forks were refused, is recorded with the limit named — the review's limit, not the
artifact's failure.
"""
from __future__ import annotations

from pathlib import Path

from .base import Limits
from .cgroup import read_counter


def cgroup_files(pid: int) -> dict[str, Path]:
    """Host paths of the container's OOM and pids-limit counters (cgroup v1 or v2); empty if not visible."""
    files: dict[str, Path] = {}
    try:
        lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    except OSError:
        return files
    for line in lines:
        _, controllers, path = line.split(":", 2)
        names = controllers.split(",")
        if "memory" in names:
            files["memory"] = Path("/sys/fs/cgroup/memory") / path.lstrip("/") / "memory.oom_control"
        if "pids" in names:
            files["pids"] = Path("/sys/fs/cgroup/pids") / path.lstrip("/") / "pids.events"
        if controllers == "" and "memory" not in files:
            base = Path("/sys/fs/cgroup") / path.lstrip("/")
            files.setdefault("memory", base / "memory.events")
            files.setdefault("pids", base / "pids.events")
    return {k: v for k, v in files.items() if v.exists()}


class LimitCounters:
    """The OOM-kill and refused-fork counters of one container, and the limit notes their increase means."""

    def __init__(self, pid: int, limits: Limits):
        self.files, self.limits = cgroup_files(pid), limits
        self.oom, self.pids = self.read()

    def read(self) -> tuple[int, int]:
        return read_counter(self.files.get("memory"), "oom_kill"), read_counter(self.files.get("pids"), "max")

    def reset(self) -> None:
        """Start counting afresh (after the container's processes were killed or it was restarted)."""
        self.oom, self.pids = self.read()

    def new_events(self) -> list[str]:
        """Limit notes for what struck since the last call."""
        oom, pids = self.read()
        notes = []
        if oom > self.oom:
            notes.append(f"memory limit {self.limits.memory_mb} MB (process killed by the OOM killer)")
        if pids > self.pids:
            notes.append(f"process limit {self.limits.max_processes} (fork refused {pids - self.pids} times)")
        self.oom, self.pids = oom, pids
        return notes
