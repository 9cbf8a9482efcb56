"""Local sandbox: a scratch copy of the artifact, one process group per command, rlimits, no secrets.

Weaker than a container (same kernel, same user); the report says so. Network is cut with
`unshare -n` where the kernel allows it; as root, a private mount namespace also makes every host
file system read-only except the artifact copy, so a command cannot write to /tmp or $HOME.
The pieces both backends share (limits, output capture, the watch loop, limit diagnosis, phase
budgets) live here too.
"""
from __future__ import annotations

import os
import re
import resource
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import asdict, dataclass
from typing import NamedTuple
from pathlib import Path

from ..models import CommandRecord, Flag
from .base import Limits, RunResult, Snapshot, clean_env

HEAD_CHARS = 4000
TAIL_BYTES = 8192
HIDDEN = ".sandbox-home"


@dataclass
class SandboxLimits(Limits):
    """Limits of both backends: the common ones plus CPU, stall detection and per-phase budgets."""

    cpus: float = 2.0
    """CPUs a container may use (Docker)."""
    cpu_seconds: float | None = None
    """CPU time per process (rlimit CPU); None derives it from the command timeout and the CPU count."""
    stall_s: float | None = 900.0
    """A command with no new output for this long is flagged as stuck and killed; None disables it."""
    phase_budget_s: float | None = None
    """Wall-clock budget of all commands of one phase; None means only the per-command timeout applies."""
    tmp_mb: int = 512
    """Size of the container's private /tmp (Docker)."""

    @classmethod
    def of(cls, limits: Limits | None) -> "SandboxLimits":
        if isinstance(limits, SandboxLimits):
            return limits
        return cls(**asdict(limits)) if limits is not None else cls()

    def cpu_rlimit(self, timeout: float) -> int:
        return int(self.cpu_seconds or timeout * (os.cpu_count() or 1)) + 1


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


def _works(argv: list[str]) -> bool:
    if not shutil.which(argv[0]):
        return False
    try:
        return subprocess.run(argv, capture_output=True, timeout=5).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _unshare_works() -> bool:
    return _works(["unshare", "-n", "true"])


def _mount_ns_works() -> bool:
    return _works(["unshare", "--mount", "--", "sh", "-c", "mount --make-rprivate / && mount -o remount,bind,ro /"])


class Capture(threading.Thread):
    """Drain a byte stream, keep the first `cap` bytes and the last few KB, count the rest."""

    def __init__(self, chunks, cap: int):
        super().__init__(daemon=True)
        self.chunks, self.cap = chunks, cap
        self.data, self.tail = bytearray(), bytearray()
        self.dropped = 0
        self.last_output = time.monotonic()

    @classmethod
    def of_pipe(cls, stream, cap: int) -> "Capture":
        return cls(iter(lambda: stream.read1(65536), b""), cap)

    def feed(self, chunk: bytes) -> None:
        self.last_output = time.monotonic()
        room = self.cap - len(self.data)
        if room > 0:
            self.data += chunk[:room]
        self.dropped += max(0, len(chunk) - max(room, 0))
        self.tail = (self.tail + chunk)[-TAIL_BYTES:]

    def run(self) -> None:
        try:
            for chunk in self.chunks:
                self.feed(chunk)
        except (OSError, ValueError):
            pass  # the stream closed under us when the command was killed


def watch(wait, captures: list[Capture], timeout: float, stall_s: float | None) -> str | None:
    """Call `wait(step)` (True once the command ended; returns early when it does) until the command ends;
    return 'timeout' or 'stuck' when a limit ends the wait first."""
    start = time.monotonic()
    while True:
        now = time.monotonic()
        if now - start > timeout:
            return "timeout"
        if stall_s and now - max([start] + [c.last_output for c in captures]) > stall_s:
            return "stuck"
        if wait(min(0.05 if now - start < 1 else 0.2, max(timeout - (now - start), 0.001))):
            return None


def _ended(proc: subprocess.Popen, step: float) -> bool:
    try:
        proc.wait(step)
        return True
    except subprocess.TimeoutExpired:
        return False


MEMORY_ERRORS = re.compile(rb"MemoryError|Cannot allocate memory|std::bad_alloc|out of memory|OutOfMemoryError", re.I)
FORK_ERRORS = re.compile(rb"fork: (retry: )?Resource temporarily unavailable|BlockingIOError: \[Errno 11\]|can't fork|cannot fork", re.I)
FILE_SIZE_ERRORS = re.compile(rb"File too large|File size limit exceeded")


def limit_notes(limits: SandboxLimits, reason: str | None, timeout: float, stderr_tail: bytes, dropped: int,
                exit_code: int | None) -> list[str]:
    """Human-readable limits a command ran into, from how it ended and what it printed."""
    notes = []
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
    return notes


class PhaseBudget:
    """Wall-clock budget shared by the commands of one phase (`set_phase` switches phases)."""

    def __init__(self, budget_s: float | None):
        self.budget_s, self.phase, self.used = budget_s, "", {}

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


def prepare_run(root: Path, cwd: str, cmd: str, timeout: float, budget: "PhaseBudget") -> RunPlan:
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
               created: list[str], modified: list[str], notes: list[str], killed: bool) -> RunResult:
    record = CommandRecord(
        cmd=cmd, cwd=cwd, exit_code=None if killed else exit_code, duration_s=round(duration, 3), timed_out=killed,
        output_truncated=bool(out.dropped or err.dropped),
        stdout=bytes(out.data[:HEAD_CHARS]).decode("utf-8", "replace"),
        stderr=bytes(err.data[-HEAD_CHARS:]).decode("utf-8", "replace"),
        files_created=[p for p in created if not p.startswith(HIDDEN + "/")],
        files_modified=[p for p in modified if not p.startswith(HIDDEN + "/")], limits_hit=notes)
    return RunResult(record, bytes(out.data), bytes(err.data))


def flag_limits(flags: list[Flag] | None, record: CommandRecord, backend: str) -> None:
    """Each limit a command hit becomes a report flag, so a reader sees it without opening logs."""
    if flags is None:
        return
    for note in record.limits_hit:
        flags.append(Flag(severity="low", code="sandbox-limit", message=f"{backend}: `{record.cmd.splitlines()[-1][:80]}`: {note}"))


class PidsCgroup:
    """A pids cgroup per command (root only): a real process limit, since root ignores RLIMIT_NPROC,
    and a complete list of what the command started, daemons that left its process group included."""

    def __init__(self, max_pids: int):
        unified = Path("/sys/fs/cgroup/cgroup.controllers")
        base = Path("/sys/fs/cgroup") if unified.exists() else Path("/sys/fs/cgroup/pids")
        self.path = base / f"copilot-{os.getpid()}-{time.time_ns()}"
        self.path.mkdir()
        (self.path / "pids.max").write_text(str(max_pids))

    @classmethod
    def create(cls, max_pids: int) -> "PidsCgroup | None":
        if os.geteuid() != 0:
            return None
        try:
            return cls(max_pids)
        except OSError:
            return None

    def join(self) -> None:
        """Called in the child before exec."""
        with open(self.path / "cgroup.procs", "w") as fh:
            fh.write(str(os.getpid()))

    def refused_forks(self) -> int:
        try:
            for line in (self.path / "pids.events").read_text().splitlines():
                if line.startswith("max "):
                    return int(line.split()[1])
        except (OSError, ValueError):
            pass
        return 0

    def kill_all(self) -> None:
        for _ in range(50):  # forks race the kill: repeat until the group is empty
            try:
                pids = [int(p) for p in (self.path / "cgroup.procs").read_text().split()]
            except OSError:
                return
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            time.sleep(0.01)

    def remove(self) -> None:
        self.kill_all()
        for _ in range(100):
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.02)  # killed processes are still exiting


# Run inside a private mount namespace: every mount read-only, then the artifact copy writable again.
READ_ONLY_HOST = r"""
mount --make-rprivate / || exit 97
mount --bind "$1" "$1" || exit 97
while read -r _ _ _ _ point _; do
  case "$point" in /proc|/proc/*|/sys|/sys/*|/dev|/dev/pts|/dev/mqueue|*\\*) continue;; esac
  mount -o remount,bind,ro "$point" 2>/dev/null
done < /proc/self/mountinfo
mount -o remount,bind,rw "$1" || exit 97
cd -- "$3" || exit 97  # re-enter the working directory through the writable mount
exec bash -c "$2"
"""


class LocalSession:
    def __init__(self, root: Path, limits: Limits, netns: bool, mountns: bool = False, flags: list[Flag] | None = None):
        self.root = root
        self.limits = SandboxLimits.of(limits)
        self.netns, self.mountns, self.flags = netns, mountns, flags
        self.home = root / HIDDEN
        (self.home / "tmp").mkdir(parents=True, exist_ok=True)
        self.budget = PhaseBudget(self.limits.phase_budget_s)

    def set_phase(self, phase: str) -> None:
        self.budget.set_phase(phase)

    def _preexec(self, timeout: float, cgroup: "PidsCgroup | None"):
        limits = self.limits

        def apply():
            os.setsid()
            if cgroup is not None:
                cgroup.join()
            mem = limits.memory_mb * 1024 * 1024
            cpu = limits.cpu_rlimit(timeout)
            for res, value in ((resource.RLIMIT_AS, mem), (resource.RLIMIT_FSIZE, limits.max_file_mb * 1024 * 1024),
                               (resource.RLIMIT_NPROC, limits.max_processes), (resource.RLIMIT_CORE, 0),
                               (resource.RLIMIT_CPU, cpu)):
                try:
                    resource.setrlimit(res, (value, value))
                except (ValueError, OSError):
                    pass
        return apply

    def _argv(self, cmd: str, network: bool, workdir: Path) -> list[str]:
        ns = []
        if self.mountns:
            ns.append("--mount")
        if self.netns and not network:
            ns.append("--net")
        if not ns:
            return ["bash", "-c", cmd]
        if self.mountns:
            return ["unshare", *ns, "--", "sh", "-c", READ_ONLY_HOST, "sandbox", str(self.root), cmd, str(workdir)]
        return ["unshare", *ns, "--", "bash", "-c", cmd]

    def _env(self, env: dict[str, str] | None) -> dict[str, str]:
        merged = clean_env(env, str(self.home))
        merged.setdefault("TMPDIR", str(self.home / "tmp"))
        if self.mountns:  # the host's Python is read-only here: installs go to the copy's home
            merged.setdefault("PIP_USER", "1")
            merged.setdefault("PIP_BREAK_SYSTEM_PACKAGES", "1")
        return merged

    def run(self, cmd: str, timeout: float | None = None, cwd: str = ".", env: dict[str, str] | None = None,
            network: bool = False) -> RunResult:
        workdir, rel, timeout, clamped, exhausted = prepare_run(self.root, cwd, cmd, timeout or self.limits.timeout_s, self.budget)
        if exhausted is not None:
            return exhausted
        before = Snapshot.take(self.root)
        cgroup = PidsCgroup.create(self.limits.max_processes)
        start = time.monotonic()
        proc = subprocess.Popen(self._argv(cmd, network, workdir), cwd=workdir, env=self._env(env), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=self._preexec(timeout, cgroup))
        out, err = Capture.of_pipe(proc.stdout, self.limits.output_cap_bytes), Capture.of_pipe(proc.stderr, self.limits.output_cap_bytes)
        out.start(), err.start()
        try:
            reason = watch(lambda step: _ended(proc, step), [out, err], timeout, self.limits.stall_s)
        finally:
            self._kill_group(proc.pid)  # also reaps background children the command left
            refused = cgroup.refused_forks() if cgroup else 0
            if cgroup:
                cgroup.remove()  # and those that left the group (setsid, daemons)
            proc.wait()
        out.join(5), err.join(5)
        duration = time.monotonic() - start
        self.budget.spend(duration)
        created, modified = before.diff(Snapshot.take(self.root))
        notes = limit_notes(self.limits, reason, timeout, bytes(err.tail), out.dropped + err.dropped, proc.returncode)
        if refused and not any(n.startswith("process limit") for n in notes):
            notes.append(f"process limit {self.limits.max_processes} (fork refused {refused} times)")
        if reason == "timeout" and clamped:
            notes.append(f"phase budget of {self.budget.budget_s:g}s for {self.budget.phase or 'this phase'} exhausted")
        result = record_for(cmd, rel, proc.returncode, duration, out, err, created, modified, notes, killed=reason is not None)
        flag_limits(self.flags, result.record, "local")
        return result

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

    def __init__(self, scratch_root: Path, limits: Limits | None = None, flags: list[Flag] | None = None):
        self.scratch_root = Path(scratch_root)
        self.limits = SandboxLimits.of(limits)
        self.flags = flags
        """Report flags this sandbox appends to (limits hit); pass the review's flag list."""
        self.netns = _unshare_works()
        self.mountns = os.geteuid() == 0 and _mount_ns_works()
        self.dropped_links: list[str] = []

    def start(self, workdir: Path) -> LocalSession:
        self.scratch_root.mkdir(parents=True, exist_ok=True)
        dest = self.scratch_root / f"artifact-{time.time_ns()}"
        self.dropped_links = copy_artifact(Path(workdir), dest)
        return LocalSession(dest.resolve(), self.limits, self.netns, self.mountns, self.flags)

    fresh = start
