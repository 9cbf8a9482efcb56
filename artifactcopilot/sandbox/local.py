"""Local sandbox: every artifact command runs in its own bubblewrap sandbox on this machine.

Each command gets new user, PID, network (unless it asks for network), IPC and UTS namespaces, no
capabilities, a read-only view of the host's system folders and nothing else of the host (see
sandbox/bwrap.py). The artifact copy and the review's environment folder live in the scratch
folder, outside the run directory, and are mounted read-write at `/artifact` and `ENV_ROOT`, the
same paths as in the Docker sandbox, so virtual environments and absolute paths written by setup
steps keep working. When the command ends, or a limit ends it, the PID namespace's init is killed
and with it every process the command left. Limits: CPU time, file size and data-segment rlimits,
a process rlimit counted inside the command's user namespace and, as root, a memory and pids
cgroup per command. Where bubblewrap cannot provide this isolation the backend refuses to run.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import threading
import time
import weakref
from pathlib import Path

from . import bwrap
from .base import ENV_ROOT, Enforcement, Limits, RunResult, Snapshot, clean_env
from .cgroup import CommandCgroup, remove_stale, stale
from .interpreters import host_pythons
from .relay import HostRelay, loopback_proxy_ports, relay_folder
from .runner import Capture, PhaseBudget, _ended, copy_artifact, limit_notes, prepare_run, record_for, watch
from .tmpspace import TMP, TempSpace
from .usernet import HOST, READY_S, USER_MODE, Slirp, describe_mode, local_mode


class _Info(threading.Thread):
    """Reads bubblewrap's --info-fd: the host pid of the sandbox's init (killing it ends every process inside)."""

    def __init__(self, fd: int):
        super().__init__(daemon=True)
        self.fd, self.data = fd, b""

    def run(self) -> None:
        try:
            while chunk := os.read(self.fd, 4096):
                self.data += chunk
        except OSError:
            pass
        finally:
            os.close(self.fd)

    def child_pid(self, wait: float) -> int | None:
        self.join(wait)
        try:
            info, _ = json.JSONDecoder().raw_decode(self.data.decode("utf-8", "replace"))
            return int(info["child-pid"])
        except (ValueError, KeyError, TypeError):
            return None


class LocalSession:
    capabilities: frozenset[str] = frozenset()

    def __init__(self, sandbox: LocalSandbox, root: Path, env_dir: Path):
        self.sandbox, self.root, self.env_dir = sandbox, root, env_dir
        self.limits = sandbox.limits
        for sub in ("venv", "home"):
            (env_dir / sub).mkdir(parents=True, exist_ok=True)
        self.tmp = TempSpace(env_dir / "tmp", self.limits.tmp_mb)
        self.layout = bwrap.Layout(root, env_dir, sandbox.hidden, self.tmp.folder)
        self.budget = PhaseBudget(self.limits.phase_budget_s)
        self._live: set[subprocess.Popen] = set()
        self.relay: HostRelay | None = None

    def _net_plan(self, network: bool) -> tuple[bwrap.NetPlan, int | None]:
        """How this network-on step gets its network (sandbox/usernet.py), and the fd that releases it once the
        user-mode network is up."""
        mode, ports = self.sandbox.net_mode, self.sandbox.proxy_ports
        if not network or mode == HOST:
            return bwrap.NetPlan(), None
        if ports and self.relay is None:
            self.relay = HostRelay(relay_folder(), ports)
        relay = (str(self.relay.folder), tuple(ports)) if self.relay else None
        if mode != USER_MODE:
            return bwrap.NetPlan(own_namespace=True, relay=relay), None
        block_r, block_w = os.pipe()
        return bwrap.NetPlan(own_namespace=True, relay=relay, block_fd=block_r), block_w

    def set_phase(self, phase: str) -> None:
        self.budget.set_phase(phase)

    def _env(self, env: dict[str, str] | None, network: bool) -> dict[str, str]:
        merged = clean_env(env, f"{ENV_ROOT}/home", network=network)
        merged["TMPDIR"] = TMP
        return merged

    def _start(self, cmd: str, workdir: Path, rel: str, env: dict[str, str] | None, network: bool, timeout: float,
               cgroup: CommandCgroup | None) -> tuple[subprocess.Popen, _Info, Slirp | None]:
        read_fd, write_fd = os.pipe()
        net, release = self._net_plan(network)
        folders = tuple(str(f) for f in dict.fromkeys(cgroup.folders.values())) if cgroup else ()
        argv = bwrap.command_argv(self.sandbox.bwrap, self.sandbox.bash, self.layout, workdir=rel, network=network,
                                  limits=self.limits, timeout=timeout, info_fd=write_fd, cmd=cmd, cgroups=folders,
                                  net=net)
        passed = (write_fd,) + ((net.block_fd,) if net.block_fd is not None else ())
        try:
            # Own session: a Ctrl-C at the terminal reaches the review alone, which then ends the sandbox.
            # Working directory on the host copy: a sandbox a crashed review left is found by the reaper.
            proc = subprocess.Popen(argv, cwd=workdir, env=self._env(env, network),
                                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    pass_fds=passed, start_new_session=True)
        except BaseException:
            os.close(read_fd)
            if release is not None:
                os.close(release)
            raise
        finally:
            for fd in passed:
                os.close(fd)
        self._live.add(proc)
        info = _Info(read_fd)
        info.start()
        slirp = None
        if release is not None:  # the user-mode network first, then the command runs
            pid = info.child_pid(READY_S)
            slirp = Slirp(pid) if pid is not None else None
            with contextlib.suppress(OSError):
                os.write(release, b"1")
            os.close(release)
        return proc, info, slirp

    def run(self, cmd: str, timeout: float | None = None, cwd: str = ".", env: dict[str, str] | None = None,
            network: bool = False, on_output=None) -> RunResult:
        plan = prepare_run(self.root, cwd, cmd, timeout or self.limits.timeout_s, self.budget)
        workdir, rel, timeout, clamped, exhausted = plan
        if exhausted is not None:
            return exhausted
        before = Snapshot.take(self.root)
        cgroup = CommandCgroup.create(self.limits.memory_mb, self.limits.max_processes)
        start = time.monotonic()
        refused = ooms = 0
        try:
            proc, info, slirp = self._start(cmd, workdir, rel, env, network, timeout, cgroup)
            out = Capture.of_pipe(proc.stdout, self.limits.output_cap_bytes, on_output)
            err = Capture.of_pipe(proc.stderr, self.limits.output_cap_bytes, on_output)
            out.start()
            err.start()
            reason = None
            try:
                self.tmp.reset()
                reason = watch(lambda step: _ended(proc, step), [out, err], timeout, self.limits.stall_s,
                               self.tmp.over_budget)
            finally:
                self._stop(proc, info)
                if slirp is not None:
                    slirp.stop()
        finally:
            if cgroup is not None:
                refused, ooms = cgroup.refused_forks(), cgroup.oom_kills()
                cgroup.remove()  # anything that is somehow still in the group
        out.join(5)
        err.join(5)
        duration = time.monotonic() - start
        self.budget.spend(duration)
        changes = before.diff(Snapshot.take(self.root))
        notes = limit_notes(self.limits, reason, timeout, bytes(out.tail) + bytes(err.tail), out.dropped + err.dropped,
                            proc.returncode, self.tmp)
        if reason == "disk":  # what the stopped command left would stop the next one at once
            self.tmp.remove()
            self.tmp = TempSpace(self.tmp.folder, self.limits.tmp_mb)
        notes += self._cgroup_notes(notes, refused, ooms)
        if reason == "timeout" and clamped:
            notes.append(f"phase budget of {self.budget.budget_s:g}s for {self.budget.phase or 'this phase'} exhausted")
        if info.child_pid(0) is None and bytes(err.data).startswith(b"bwrap:"):
            notes.append(f"sandbox failed to start: {bytes(err.data).decode('utf-8', 'replace').splitlines()[0][:200]}")
        if slirp is not None and not slirp.ok:
            notes.append(f"no user-mode network: {slirp.problem}")
        return record_for(cmd, rel, proc.returncode, duration, out, err, changes, notes, killed=reason is not None,
                          network=network)

    def _cgroup_notes(self, notes: list[str], refused: int, ooms: int) -> list[str]:
        extra = []
        if refused and not any(n.startswith("process limit") for n in notes):
            extra.append(f"process limit {self.limits.max_processes} (fork refused {refused} times)")
        if ooms and not any(n.startswith("memory limit") for n in notes):
            extra.append(f"memory limit {self.limits.memory_mb} MB (process killed by the OOM killer)")
        return extra

    def _stop(self, proc: subprocess.Popen, info: _Info) -> None:
        """End the command's sandbox: its init first (the kernel then kills everything in the PID namespace and
        bubblewrap returns once they are gone), then bubblewrap itself if it is still there."""
        if proc.poll() is None:
            pid = info.child_pid(0.5)
            if pid is not None:
                _kill(pid)
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                _kill(proc.pid, group=True)  # --die-with-parent: the sandbox's init dies with bubblewrap
        proc.wait()
        self._live.discard(proc)

    def build_image(self, dockerfile: str, timeout: float | None = None) -> RunResult:
        raise NotImplementedError("the local sandbox has no container engine (capability 'build_image' absent)")

    def close(self) -> None:
        for proc in list(self._live):
            if proc.poll() is None:
                _kill(proc.pid, group=True)
            proc.wait()
        self._live.clear()
        if self.relay is not None:
            self.relay.close()
        shutil.rmtree(self.root, ignore_errors=True)
        shutil.rmtree(self.env_dir, ignore_errors=True)


def _kill(pid: int, group: bool = False) -> None:
    try:
        (os.killpg if group else os.kill)(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class LocalSandbox:
    """Runs each command in a bubblewrap sandbox over a scratch copy of the artifact on this machine."""

    name = "local"
    capabilities: frozenset[str] = frozenset()
    isolation_note = "local sandbox: bubblewrap namespaces, read-only host, no network unless a setup step needs it"

    def __init__(self, scratch_root: Path, limits: Limits | None = None):
        from .registry import SandboxUnavailable

        problem = bwrap.probe()
        if problem is not None:  # never half-isolated
            raise SandboxUnavailable(problem)
        self.bwrap, self.bash = bwrap.find_bwrap() or "bwrap", bwrap.find_bash() or "bash"
        self.scratch_root = Path(scratch_root)
        self.limits = limits or Limits()
        self.dropped_links: list[str] = []
        self.hidden = _hidden_paths(self.scratch_root)
        if os.geteuid() == 0:
            remove_stale()  # groups of reviews killed with SIGKILL (their sandboxes died with them)
        self.cgroups = _cgroups_work(self.limits)
        self._sessions: weakref.WeakSet[LocalSession] = weakref.WeakSet()
        self.proxy_ports = loopback_proxy_ports()
        self.net_mode = local_mode(self.proxy_ports)

    def network_note(self) -> str:
        """How a network-on step is contained (the report says which applied)."""
        return describe_mode(self.net_mode, self.proxy_ports)

    def _new(self, workdir: Path) -> LocalSession:
        self.scratch_root.mkdir(parents=True, exist_ok=True)
        stamp = time.time_ns()
        dest = self.scratch_root / f"artifact-{stamp}"
        self.dropped_links = copy_artifact(Path(workdir), dest)
        session = LocalSession(self, dest.resolve(), (self.scratch_root / f"env-{stamp}").resolve())
        self._sessions.add(session)
        return session

    def start(self, workdir: Path) -> LocalSession:
        """The review's long-lived session: one artifact copy and one environment folder for all its commands."""
        return self._new(workdir)

    def fresh(self, workdir: Path) -> LocalSession:
        """A clean copy and an empty environment folder, for a judge or a provenance rerun."""
        return self._new(workdir)

    def interpreters(self) -> dict[str, str]:
        return host_pythons()

    def enforcement(self) -> Enforcement:
        lim, root = self.limits, os.geteuid() == 0
        memory = f"data rlimit {lim.memory_mb} MB per process"
        processes = f"process rlimit {lim.max_processes} in the command's user namespace"
        if self.cgroups.get("memory"):
            memory = f"memory cgroup {lim.memory_mb} MB per command, " + memory
        if self.cgroups.get("pids"):
            processes = f"pids cgroup {lim.max_processes}, " + processes
        who = "root without capabilities" if root else f"uid {os.geteuid()} without capabilities"
        return Enforcement(backend=self.name, pid_namespace=True, network_isolated=True, read_only_host=True,
                           scratch_outside_run=True, fresh_home=True, env_allowlist=True, memory=memory,
                           processes=processes,
                           notes=(f"{bwrap.version() or 'bubblewrap'}, commands run as {who}",
                                  "same kernel as the reviewer", f"/tmp on the scratch disk (executable) with a disk "
                                  f"budget of {lim.tmp_mb} MB"))

    def close(self) -> None:
        for session in list(self._sessions):
            session.close()
        shutil.rmtree(self.scratch_root, ignore_errors=True)


def _hidden_paths(scratch_root: Path) -> tuple[Path, ...]:
    """The reviewer's own folders, hidden even where they lie inside a visible system folder."""
    paths = [Path.home(), Path("/root"), scratch_root.resolve()]
    named = ("HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME")
    paths += [Path(value) for name in named if (value := os.environ.get(name))]
    return tuple(dict.fromkeys(p for p in paths if p.is_absolute()))


def _cgroups_work(limits: Limits) -> dict[str, bool]:
    """Which cgroup limits this process can set on a command ({} when not root or cgroups are read-only)."""
    probe = CommandCgroup.create(limits.memory_mb, limits.max_processes)
    if probe is None:
        return {}
    try:
        return {"pids": probe.limits_processes, "memory": probe.memory_limited}
    finally:
        probe.remove()


class _LocalBackend:
    """Registry entry (sandbox/registry.py) of the local sandbox."""

    name = "local"

    def check(self, options) -> str | None:
        return bwrap.probe()

    def open(self, options) -> LocalSandbox:
        return LocalSandbox(options.scratch_dir(), options.limits)

    def doctor(self, options, clean: bool = False, build_base: bool = False) -> list[tuple[str, str, str]]:
        problem = bwrap.probe()
        if problem is not None:
            return [("local: bubblewrap sandbox", "FAIL", problem)]
        works = (f"{bwrap.version()}: PID, network and user namespaces, no capabilities, read-only host system "
                 f"folders only; artifact at /artifact, environment at {ENV_ROOT}")
        rows = [("local: bubblewrap sandbox", "ok", works)]
        cgroups = _cgroups_work(options.limits)
        limits = ("memory and pids cgroup per command, rlimits" if cgroups.get("memory") and cgroups.get("pids")
                  else "rlimits only (data segment, processes in the user namespace, CPU, file size)")
        rows.append(("local: limits", "ok" if cgroups or os.geteuid() != 0 else "warn", limits))
        if os.geteuid() != 0:
            return rows
        left = stale()
        if left and clean:
            return rows + [("local: leftover cgroups", "ok", f"removed {remove_stale()} of {len(left)}")]
        found = f"{len(left)} left by reviews that are gone — remove with `copilot doctor --clean`"
        rows.append(("local: leftover cgroups", "warn" if left else "ok", found if left else "none"))
        return rows


BACKEND = _LocalBackend()
