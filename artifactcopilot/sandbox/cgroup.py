"""A control group per local-sandbox command (root only): a memory limit for the whole process tree,
a process limit, and counters that say when either refused something.

cgroup v2 (one folder with memory.max and pids.max) or v1 (a folder in the memory and in the pids
hierarchy), created under the review process's own group so that limits above it still apply.
Folders are named `copilot-<pid>-<ns>`; `stale()` finds those whose creating process is gone.
"""
from __future__ import annotations

import os
import signal
import time
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
PREFIX = "copilot-"


def _own_path(controller: str) -> str:
    """This process's group in a v1 hierarchy ('' for v2), from /proc/self/cgroup."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return ""
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            return path.lstrip("/")
    return ""


def _write(path: Path, value: str) -> bool:
    try:
        path.write_text(value)
        return True
    except OSError:
        return False


def read_counter(path: Path | None, key: str) -> int:
    """The value of `key` in a cgroup events file (`oom_kill 2`), 0 when the file or the key is missing."""
    if path is None:
        return 0
    try:
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key and value.strip().isdigit():
                return int(value)
    except OSError:
        pass
    return 0


def unified() -> bool:
    return (ROOT / "cgroup.controllers").exists()


def parents() -> dict[str, Path]:
    """Where this process may create command groups: {'pids': folder, 'memory': folder} (same folder on v2)."""
    if unified():
        return {"pids": ROOT, "memory": ROOT}
    return {c: ROOT / c / _own_path(c) for c in ("pids", "memory") if (ROOT / c).is_dir()}


class CommandCgroup:
    """The group of one command: created before it starts, joined by the launcher of its sandbox, removed after."""

    def __init__(self, folders: dict[str, Path], memory_bytes: int, max_pids: int):
        self.folders = folders
        self.memory_limited = False
        for folder in dict.fromkeys(folders.values()):
            folder.mkdir()
        if "pids" in folders:
            _write(folders["pids"] / "pids.max", str(max_pids))
        if "memory" in folders:
            mem = folders["memory"]
            if unified():
                self.memory_limited = _write(mem / "memory.max", str(memory_bytes))
                _write(mem / "memory.swap.max", "0")
            else:
                self.memory_limited = _write(mem / "memory.limit_in_bytes", str(memory_bytes))
                _write(mem / "memory.memsw.limit_in_bytes", str(memory_bytes))

    @classmethod
    def create(cls, memory_mb: int, max_pids: int) -> CommandCgroup | None:
        """A new group, or None when this process cannot make one (not root, cgroups read-only, no controllers)."""
        if os.geteuid() != 0:
            return None
        name = f"{PREFIX}{os.getpid()}-{time.time_ns()}"
        wanted = {c: folder / name for c, folder in parents().items()}
        if unified():
            enabled = (ROOT / "cgroup.subtree_control").read_text().split() if wanted else []
            control = ROOT / "cgroup.subtree_control"
            wanted = {c: f for c, f in wanted.items() if c in enabled or _write(control, f"+{c}")}
        if not wanted:
            return None
        try:
            return cls(wanted, memory_mb << 20, max_pids)
        except OSError:
            for folder in wanted.values():
                _rmdir(folder)
            return None

    @property
    def limits_processes(self) -> bool:
        return "pids" in self.folders

    def refused_forks(self) -> int:
        return read_counter(self.folders["pids"] / "pids.events", "max") if "pids" in self.folders else 0

    def oom_kills(self) -> int:
        if "memory" not in self.folders:
            return 0
        mem = self.folders["memory"]
        return read_counter(mem / ("memory.events" if unified() else "memory.oom_control"), "oom_kill")

    def pids(self) -> list[int]:
        found: set[int] = set()
        for folder in self.folders.values():
            try:
                found.update(int(p) for p in (folder / "cgroup.procs").read_text().split())
            except (OSError, ValueError):
                pass
        return sorted(found)

    def remove(self) -> None:
        """Kill whatever is still in the group, then delete it."""
        for _ in range(200):  # forks race the kill: repeat until the group is empty
            pids = self.pids()
            if not pids:
                break
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            time.sleep(0.01)
        for folder in dict.fromkeys(self.folders.values()):
            _rmdir(folder)


def _rmdir(folder: Path) -> None:
    for _ in range(100):
        try:
            folder.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.02)  # killed processes are still exiting


def stale() -> list[Path]:
    """Command groups whose creating process is gone (a review killed with SIGKILL)."""
    found = []
    for folder in dict.fromkeys(parents().values()):
        try:
            entries = list(folder.iterdir())
        except OSError:
            continue
        for entry in entries:
            owner = entry.name[len(PREFIX):].split("-")[0] if entry.name.startswith(PREFIX) else ""
            if owner.isdigit() and entry.is_dir() and not Path(f"/proc/{owner}").exists():
                found.append(entry)
    return found


def remove_stale() -> int:
    """Kill what is left in stale groups and delete them; returns how many are gone."""
    removed = 0
    for folder in stale():
        try:
            pids = (folder / "cgroup.procs").read_text().split()
        except OSError:
            pids = []  # removed meanwhile by another review
        for pid_text in pids:
            try:
                os.kill(int(pid_text), signal.SIGKILL)
            except (ProcessLookupError, PermissionError, ValueError):
                pass
        _rmdir(folder)
        removed += not folder.exists()
    return removed
