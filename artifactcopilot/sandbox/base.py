"""The sandbox seam: `start(workdir) -> Session`, `session.run(...) -> CommandRecord`, `session.close()`."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ..models import CommandRecord

# Host variables never passed to artifact code, by name pattern (API keys, tokens, cloud creds).
SECRET_PATTERN = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION)", re.I)
SAFE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


@dataclass
class Limits:
    """Resource limits for one sandboxed command."""

    timeout_s: float = 1800.0
    """Wall-clock limit per command; the whole process group is killed past it."""
    memory_mb: int = 4096
    """Address-space limit (local) or memory limit (container)."""
    max_processes: int = 512
    """Process limit (rlimit NPROC locally, pids limit in a container)."""
    max_file_mb: int = 1024
    """Largest file a command may write."""
    output_cap_bytes: int = 2_000_000
    """Output kept per stream; the rest is counted and dropped."""
    network: bool = False
    """Whether the command may reach the network."""


@dataclass
class RunResult:
    """What a session returns before the evidence store persists it."""

    record: CommandRecord
    stdout_full: bytes = b""
    stderr_full: bytes = b""


class Session(Protocol):
    root: Path
    """Artifact copy the commands run in (host path)."""

    def run(self, cmd: str, timeout: float | None = None, cwd: str = ".", env: dict[str, str] | None = None,
            network: bool = False) -> RunResult: ...

    def close(self) -> None: ...


class Sandbox(Protocol):
    name: str
    isolation_note: str

    def start(self, workdir: Path) -> Session: ...


@dataclass
class Snapshot:
    """File hashes under a root, to tell which files a command created or changed."""

    files: dict[str, tuple[int, float]] = field(default_factory=dict)

    @classmethod
    def take(cls, root: Path, limit: int = 20000) -> "Snapshot":
        files: dict[str, tuple[int, float]] = {}
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d not in (".git", "__pycache__", ".sandbox-home")]
            for name in filenames:
                path = Path(dirpath) / name
                try:
                    st = path.lstat()
                except OSError:
                    continue
                files[path.relative_to(root).as_posix()] = (st.st_size, st.st_mtime_ns)
                if len(files) >= limit:
                    return cls(files)
        return cls(files)

    def diff(self, after: "Snapshot") -> tuple[list[str], list[str]]:
        created = sorted(set(after.files) - set(self.files))
        modified = sorted(p for p in after.files if p in self.files and after.files[p] != self.files[p])
        return created, modified


def clean_env(extra: dict[str, str] | None = None, home: str = "/tmp") -> dict[str, str]:
    """A minimal environment for artifact code: no host secrets, nothing from the reviewer's shell."""
    env = {"PATH": SAFE_PATH, "HOME": home, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
           "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1", "TERM": "dumb"}
    for key, value in (extra or {}).items():
        if not SECRET_PATTERN.search(key):
            env[key] = value
    return env
