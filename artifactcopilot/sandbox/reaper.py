"""Find and kill processes left running inside a review's sandbox folder.

Artifact code can escape its process group (setsid, daemons) and a killed review leaves its
children behind. Anything whose working directory or executable lies under the sandbox folder
belongs to the review and is killed.
"""
from __future__ import annotations

import os
import signal
from pathlib import Path


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder + os.sep)


def stray_processes(folder: Path) -> list[int]:
    folder_s = str(Path(folder).resolve())
    me = os.getpid()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if _under(cwd.removesuffix(" (deleted)"), folder_s):
            found.append(int(entry.name))
    return found


def reap(folder: Path) -> list[int]:
    """SIGKILL every process working under `folder`. Returns the pids killed."""
    killed = []
    for pid in stray_processes(folder):
        try:
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        except (ProcessLookupError, PermissionError):
            pass
    return killed
