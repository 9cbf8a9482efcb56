"""Local sandbox: a scratch copy of the artifact, one process group per command, rlimits, no secrets.

Weaker than a container (same kernel, same user); the report says so. Network is cut with
`unshare -n` where the kernel allows it.
"""
from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

from ..models import CommandRecord
from .base import Limits, RunResult, Snapshot, clean_env

HEAD_CHARS = 4000


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


def _unshare_works() -> bool:
    if not shutil.which("unshare"):
        return False
    try:
        return subprocess.run(["unshare", "-n", "true"], capture_output=True, timeout=5).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


class _Capture(threading.Thread):
    """Drain a pipe, keep the first `cap` bytes, count the rest."""

    def __init__(self, stream, cap: int):
        super().__init__(daemon=True)
        self.stream, self.cap = stream, cap
        self.data = bytearray()
        self.dropped = 0
        self.last_output = time.monotonic()

    def run(self) -> None:
        for chunk in iter(lambda: self.stream.read1(65536) if hasattr(self.stream, "read1") else self.stream.read(65536), b""):
            self.last_output = time.monotonic()
            room = self.cap - len(self.data)
            if room > 0:
                self.data += chunk[:room]
            self.dropped += max(0, len(chunk) - max(room, 0))


class LocalSession:
    def __init__(self, root: Path, limits: Limits, netns: bool):
        self.root = root
        self.limits = limits
        self.netns = netns
        self.home = root / ".sandbox-home"
        self.home.mkdir(exist_ok=True)

    def _preexec(self):
        limits = self.limits

        def apply():
            os.setsid()
            mem = limits.memory_mb * 1024 * 1024
            for res, value in ((resource.RLIMIT_AS, mem), (resource.RLIMIT_FSIZE, limits.max_file_mb * 1024 * 1024),
                               (resource.RLIMIT_NPROC, limits.max_processes), (resource.RLIMIT_CORE, 0)):
                try:
                    resource.setrlimit(res, (value, value))
                except (ValueError, OSError):
                    pass
        return apply

    def run(self, cmd: str, timeout: float | None = None, cwd: str = ".", env: dict[str, str] | None = None,
            network: bool = False) -> RunResult:
        timeout = timeout or self.limits.timeout_s
        workdir = (self.root / cwd).resolve()
        if not (workdir == self.root or self.root in workdir.parents) or not workdir.is_dir():
            workdir = self.root
        argv = ["bash", "-c", cmd]
        if self.netns and not network:
            argv = ["unshare", "-n", "--"] + argv
        before = Snapshot.take(self.root)
        start = time.monotonic()
        proc = subprocess.Popen(argv, cwd=workdir, env=clean_env(env, str(self.home)), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=self._preexec())
        out, err = _Capture(proc.stdout, self.limits.output_cap_bytes), _Capture(proc.stderr, self.limits.output_cap_bytes)
        out.start(), err.start()
        timed_out = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            self._kill_group(proc.pid)  # also reaps background children the command left
            proc.wait()
        out.join(5), err.join(5)
        duration = time.monotonic() - start
        created, modified = before.diff(Snapshot.take(self.root))
        limits_hit = []
        if timed_out:
            limits_hit.append(f"timeout after {timeout:g}s")
        if out.dropped or err.dropped:
            limits_hit.append(f"output cap {self.limits.output_cap_bytes} bytes ({out.dropped + err.dropped} bytes dropped)")
        record = CommandRecord(
            cmd=cmd, cwd=workdir.relative_to(self.root).as_posix() or ".",
            exit_code=None if timed_out else proc.returncode, duration_s=round(duration, 3), timed_out=timed_out,
            output_truncated=bool(out.dropped or err.dropped),
            stdout=bytes(out.data[:HEAD_CHARS]).decode("utf-8", "replace"),
            stderr=bytes(err.data[-HEAD_CHARS:]).decode("utf-8", "replace"),
            files_created=[p for p in created if not p.startswith(".sandbox-home/")],
            files_modified=[p for p in modified if not p.startswith(".sandbox-home/")],
            limits_hit=limits_hit)
        return RunResult(record, bytes(out.data), bytes(err.data))

    @staticmethod
    def _kill_group(pgid: int) -> None:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


class LocalSandbox:
    """Runs commands on this machine in a scratch copy of the artifact."""

    name = "local"
    isolation_note = "local sandbox: same kernel and user as the reviewer, rlimits and a scratch copy only"

    def __init__(self, scratch_root: Path, limits: Limits | None = None):
        self.scratch_root = Path(scratch_root)
        self.limits = limits or Limits()
        self.netns = _unshare_works()
        self.dropped_links: list[str] = []

    def start(self, workdir: Path) -> LocalSession:
        self.scratch_root.mkdir(parents=True, exist_ok=True)
        dest = self.scratch_root / f"artifact-{int(time.time() * 1000)}"
        self.dropped_links = copy_artifact(Path(workdir), dest)
        return LocalSession(dest.resolve(), self.limits, self.netns)
