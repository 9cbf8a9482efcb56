"""Local sandbox: a scratch copy of the artifact, one process group per command, rlimits, no secrets.

Weaker than a container (same kernel, same user); its `enforcement()` says so. Network is cut with
`unshare -n` where the kernel allows it; as root, a private mount namespace also makes every host
file system read-only except the artifact copy.
"""
from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import time
from pathlib import Path

from .base import Enforcement, Limits, RunResult, Snapshot, clean_env
from .interpreters import host_pythons
from .runner import HIDDEN, Capture, PhaseBudget, _ended, copy_artifact, limit_notes, prepare_run, record_for, watch


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
    capabilities: frozenset[str] = frozenset()

    def __init__(self, root: Path, limits: Limits, netns: bool, mountns: bool = False):
        self.root = root
        self.limits = limits
        self.netns, self.mountns = netns, mountns
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
            for res, value in ((resource.RLIMIT_DATA, mem), (resource.RLIMIT_FSIZE, limits.max_file_mb * 1024 * 1024),
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

    def _env(self, env: dict[str, str] | None, network: bool) -> dict[str, str]:
        merged = clean_env(env, str(self.home), network=network)
        merged.setdefault("TMPDIR", str(self.home / "tmp"))
        if self.mountns:  # the host's Python is read-only here: installs go to the copy's home
            merged.setdefault("PIP_USER", "1")
            merged.setdefault("PIP_BREAK_SYSTEM_PACKAGES", "1")
        return merged

    def run(self, cmd: str, timeout: float | None = None, cwd: str = ".", env: dict[str, str] | None = None,
            network: bool = False, on_output=None) -> RunResult:
        workdir, rel, timeout, clamped, exhausted = prepare_run(self.root, cwd, cmd, timeout or self.limits.timeout_s, self.budget)
        if exhausted is not None:
            return exhausted
        before = Snapshot.take(self.root)
        cgroup = PidsCgroup.create(self.limits.max_processes)
        start = time.monotonic()
        proc = subprocess.Popen(self._argv(cmd, network, workdir), cwd=workdir, env=self._env(env, network), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=self._preexec(timeout, cgroup))
        out = Capture.of_pipe(proc.stdout, self.limits.output_cap_bytes, on_output)
        err = Capture.of_pipe(proc.stderr, self.limits.output_cap_bytes, on_output)
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
        changes = before.diff(Snapshot.take(self.root))
        notes = limit_notes(self.limits, reason, timeout, bytes(err.tail), out.dropped + err.dropped, proc.returncode)
        if refused and not any(n.startswith("process limit") for n in notes):
            notes.append(f"process limit {self.limits.max_processes} (fork refused {refused} times)")
        if reason == "timeout" and clamped:
            notes.append(f"phase budget of {self.budget.budget_s:g}s for {self.budget.phase or 'this phase'} exhausted")
        return record_for(cmd, rel, proc.returncode, duration, out, err, changes, notes, killed=reason is not None,
                          network=network or not self.netns)

    def build_image(self, dockerfile: str, timeout: float | None = None) -> RunResult:
        raise NotImplementedError("the local sandbox has no container engine (capability 'build_image' absent)")

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
    capabilities: frozenset[str] = frozenset()
    isolation_note = "local sandbox: same kernel and user as the reviewer, rlimits and a scratch copy only"

    def __init__(self, scratch_root: Path, limits: Limits | None = None):
        self.scratch_root = Path(scratch_root)
        self.limits = limits or Limits()
        self.netns = _unshare_works()
        self.mountns = os.geteuid() == 0 and _mount_ns_works()
        self.dropped_links: list[str] = []

    def start(self, workdir: Path) -> LocalSession:
        self.scratch_root.mkdir(parents=True, exist_ok=True)
        dest = self.scratch_root / f"artifact-{time.time_ns()}"
        self.dropped_links = copy_artifact(Path(workdir), dest)
        return LocalSession(dest.resolve(), self.limits, self.netns, self.mountns)

    fresh = start

    def interpreters(self) -> dict[str, str]:
        return host_pythons()

    def enforcement(self) -> Enforcement:
        return Enforcement(backend=self.name, pid_namespace=False, network_isolated=self.netns, read_only_host=self.mountns,
                           scratch_outside_run=True, fresh_home=True, env_allowlist=True,
                           memory=f"rlimit {self.limits.memory_mb} MB", processes=f"{self.limits.max_processes} processes",
                           notes=("same kernel and user as the reviewer",))

    def close(self) -> None:
        shutil.rmtree(self.scratch_root, ignore_errors=True)


class _LocalBackend:
    """Registry entry (sandbox/registry.py) of the local sandbox."""

    name = "local"

    def check(self, options) -> str | None:
        return None

    def open(self, options) -> LocalSandbox:
        return LocalSandbox(options.scratch_dir(), options.limits)

    def doctor(self, options, clean: bool = False, build_base: bool = False) -> list[tuple[str, str, str]]:
        net = _unshare_works()
        ro = os.geteuid() == 0 and _mount_ns_works()
        return [("local: network namespace", "ok" if net else "warn",
                 "unshare -n works: artifact commands run without network" if net else "unshare -n refused: local commands keep the network"),
                ("local: read-only host", "ok" if ro else "warn",
                 "private mount namespace: only the artifact copy is writable" if ro
                 else "needs root and unshare --mount: commands can write outside the artifact copy")]


BACKEND = _LocalBackend()
