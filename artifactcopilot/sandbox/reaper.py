"""Find and kill processes left running inside a review's sandbox folder.

A killed review can leave its children behind. Anything whose working directory or executable lies
under the sandbox folder belongs to the review and is killed, and so is every bubblewrap sandbox
whose arguments name a path under it: killing a sandbox's bubblewrap processes ends its PID
namespace and every process inside, whatever working directory they see.
"""
from __future__ import annotations

import os
import signal
from pathlib import Path


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder + os.sep)


def _sandbox_of(entry: Path, folder: str) -> bool:
    """A bubblewrap process that mounts something under `folder`."""
    try:
        if (entry / "comm").read_text().strip() != "bwrap":
            return False
        args = (entry / "cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return any(_under(arg.decode("utf-8", "replace"), folder) for arg in args)


def stray_processes(folder: Path) -> list[int]:
    folder_s = str(Path(folder).resolve())
    me = os.getpid()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        places = []
        for link in ("cwd", "exe"):
            try:
                places.append(os.readlink(entry / link))
            except OSError:
                continue
        if any(_under(p.removesuffix(" (deleted)"), folder_s) for p in places) or _sandbox_of(entry, folder_s):
            found.append(int(entry.name))
    return found


def reap(folder: Path) -> list[int]:
    """SIGKILL every process working under `folder` and every sandbox over it. Returns the pids killed."""
    killed = []
    for pid in stray_processes(folder):
        try:
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        except (ProcessLookupError, PermissionError):
            pass
    return killed
