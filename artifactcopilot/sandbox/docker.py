"""Docker sandbox: one long-lived container per review, commands via `docker exec`.

The artifact copy (a scratch directory in the run dir) is bind-mounted at /artifact, so files a
step writes persist between steps and the review reads outputs from the host. Nothing else of the
host is mounted (no home, no Docker socket) and no host variable is passed; the host's CA bundle is
copied in, so install steps verify TLS wherever the host does. The container starts with no network;
a command that asks for it gets the bridge network for its duration only, and each enablement becomes
a report flag. After every command all processes except the container's init and keeper are killed,
so nothing a command leaves in the background survives it. The container's /tmp is a scratch folder of the host
(on disk, executable, measured against the review's disk budget: sandbox/tmpspace.py), not Docker's memory-backed
`noexec` tmpfs; the memory and pids limits are read back from the container's cgroup (sandbox/dockercgroup.py).
The sandbox offers the Python of each base
image present (one per Debian suite); `use_suite` moves the review to one of them.
"""
from __future__ import annotations

import atexit
import contextlib
import io
import os
import shutil
import tarfile
import threading
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from ..models import CommandRecord
from .base import ARTIFACT_DIR, CA_BUNDLE, ENV_ROOT, Enforcement, Limits, RunResult, Snapshot, clean_env
from .baseimage import SuiteImages
from .dockercgroup import LimitCounters
from .image import BASE_REPOSITORY, DEFAULT_IMAGE, connect, labels, orphans
from .relay import INSIDE, INSIDE_DIR, HostRelay, describe, loopback_proxy_ports, relay_folder
from .runner import Capture, PhaseBudget, copy_artifact, limit_notes, prepare_run, record_for, watch
from .tmpspace import TMP, TempSpace

if TYPE_CHECKING:
    from docker.models.containers import Container

MOUNT = ARTIFACT_DIR
ENGINE_TIMEOUT_S = 300.0
"""How long one Docker API call may take before it counts as failed (a busy engine is slow, not gone)."""
SHM_MB = 512
"""Size of the container's /dev/shm (Docker's default of 64 MB is too small for multiprocessing's shared arrays)."""
HOST_CA_COPY = "usr/local/share/ca-certificates/copilot-host-bundle.crt"
"""Where the host's CA bundle is also copied, so a bundle that apt regenerates inside keeps the host's authorities."""
# Kill every process but init (1), the keeper and this shell; repeat until none is left (forks race).
REAP = r"""
reap() {
  i=0
  while [ "$i" -lt 50 ]; do
    i=$((i + 1)); n=0
    for d in /proc/[0-9]*; do
      p=${d#/proc/}
      case " 1 $KEEP $$ " in *" $p "*) continue;; esac
      read -r _ _ st _ 2>/dev/null < "$d/stat" || continue
      [ "$st" = Z ] && continue
      kill -9 "$p" 2>/dev/null && n=$((n + 1))
    done
    [ "$n" -eq 0 ] && return 0
  done
}
KEEP=$2
"""
WRAPPER = REAP + r"""
if command -v bash >/dev/null 2>&1; then bash -c "$1"; else sh -c "$1"; fi
rc=$?
reap
exit $rc
"""
_LIVE: set[DockerSession] = set()
"""Sessions not closed yet, held strongly: one its caller dropped unclosed is still closed at exit."""


@atexit.register
def _close_live_sessions() -> None:  # a caller that never closed its sessions still leaves no container behind
    for session in list(_LIVE):
        with contextlib.suppress(Exception):  # best effort at exit; `copilot doctor --clean` sweeps the rest
            session.close()


class DockerSession:
    capabilities = frozenset({"build_image", "apt", "suites"})

    def __init__(self, sandbox: DockerSandbox, root: Path, role: str = "session"):
        self.sandbox, self.client, self.root = sandbox, sandbox.client, root
        self.limits, self.role = sandbox.limits, role
        self.budget = PhaseBudget(self.limits.phase_budget_s)
        self.images: list[str] = []
        self.container: Container | None = None
        self.image = sandbox.image
        self.tmp = TempSpace(sandbox.scratch_root / f"tmp-{root.name}", self.limits.tmp_mb)
        self.relay: HostRelay | None = None
        self.relay_dir = relay_folder() if sandbox.proxy_ports else None
        _LIVE.add(self)
        try:
            self._create(self.image)
        except BaseException:  # Ctrl-C or an engine error mid-create: leave no container behind
            self.close()
            raise

    # ---- container lifecycle -----------------------------------------------------------------
    def _create(self, image: str) -> None:
        from docker.types import Ulimit

        lim = self.limits
        bridge = self._bridge()
        self.name = f"copilot-{self.role}-{uuid.uuid4().hex[:10]}"  # known before the engine answers: removable by name
        volumes = {str(self.root): {"bind": MOUNT, "mode": "rw"}, str(self.tmp.folder): {"bind": TMP, "mode": "rw"}}
        if self.relay_dir is not None:  # the proxy relay's sockets (sandbox/relay.py), for network-on steps
            self.relay_dir.mkdir(parents=True, exist_ok=True)
            volumes[str(self.relay_dir)] = {"bind": INSIDE_DIR, "mode": "ro"}
        self.container = self.client.containers.create(
            image, entrypoint=["sleep", "infinity"], command=[], detach=True, init=True,
            name=self.name, hostname="artifact", working_dir=MOUNT,
            labels=labels(self.role, self.sandbox.review), network_mode="bridge" if bridge else "none",
            volumes=volumes, shm_size=f"{SHM_MB}m",
            mem_limit=f"{lim.memory_mb}m", memswap_limit=f"{lim.memory_mb}m",
            nano_cpus=int(min(lim.cpus, os.cpu_count() or 1) * 1e9), pids_limit=lim.max_processes,
            security_opt=["no-new-privileges"], cap_drop=["NET_RAW", "MKNOD", "AUDIT_WRITE"],
            ulimits=[Ulimit(name="fsize", soft=lim.max_file_mb << 20, hard=lim.max_file_mb << 20),
                     Ulimit(name="core", soft=0, hard=0)])
        self.network_attachable = bool(bridge)
        if bridge:  # created on the bridge so it can be attached later, but detached before anything runs
            bridge.disconnect(self.container)
        self._copy_ca_bundle()
        self.container.start()
        self.container.reload()
        # one exec (each costs three engine calls): the review's folders, then the keeper (init's only child)
        self.keeper = self._exec_simple(["sh", "-c", 'mkdir -p "$1" "$2" && cat /proc/1/task/1/children', "sh",
                                         f"{ENV_ROOT}/home", f"{ENV_ROOT}/tmp"]).split()[:1] or ["0"]
        self.counters = LimitCounters(self.container.attrs["State"]["Pid"], lim)

    def _copy_ca_bundle(self) -> None:
        """Copy the host's CA bundle in (not a mount: apt's update-ca-certificates must be able to replace it),
        so pip, curl and git verify TLS wherever the host does, and a regenerated bundle still holds it."""
        try:
            data = Path(CA_BUNDLE).read_bytes()
        except OSError:
            return
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w") as tar:
            for name in (CA_BUNDLE.lstrip("/"), HOST_CA_COPY):
                info = tarfile.TarInfo(name)
                info.size, info.mode, info.mtime = len(data), 0o644, int(time.time())
                tar.addfile(info, io.BytesIO(data))
        with contextlib.suppress(Exception):  # an image that refuses it keeps its own bundle; TLS errors will say so
            self._live().put_archive("/", buffer.getvalue())

    def _live(self) -> Container:
        """The session's container; a session left without one (recreating it failed) cannot run commands."""
        if self.container is None:
            raise RuntimeError("the sandbox session has no container")
        return self.container

    def _bridge(self):
        from docker.errors import NotFound

        try:
            return self.client.networks.get("bridge")
        except NotFound:
            return None

    def _remove_container(self) -> None:
        from docker.errors import APIError, NotFound

        if self.container is not None and os.getuid() != 0:  # files written as root must stay removable
            self._exec_quietly(["chown", "-R", f"{os.getuid()}:{os.getgid()}", MOUNT, TMP])
        for ref in ([self.container.id] if self.container is not None else []) + [getattr(self, "name", "")]:
            try:
                if ref:
                    self.client.api.remove_container(ref, force=True)
                    break
            except (APIError, NotFound):
                continue
            except Exception:  # noqa: BLE001 - a slow engine: the labelled container is swept by `copilot doctor --clean`
                break
        self.container = None

    def close(self) -> None:
        from docker.errors import APIError, NotFound

        self._remove_container()
        if self.sandbox.image in self.images:  # later sessions go back to the base image
            self.sandbox.image = self.sandbox.base_image
        for tag in self.images:
            try:
                self.client.images.remove(tag, force=True)
            except (APIError, NotFound):
                pass
        self.images.clear()
        _LIVE.discard(self)
        self.sandbox.forget(self)
        if self.relay is not None:
            self.relay.close()
        if self.relay_dir is not None:
            shutil.rmtree(self.relay_dir, ignore_errors=True)
        shutil.rmtree(self.root, ignore_errors=True)
        self.tmp.remove()

    def set_phase(self, phase: str) -> None:
        self.budget.set_phase(phase)

    # ---- commands ------------------------------------------------------------------------------
    def _exec_simple(self, argv: list[str]) -> str:
        exec_id = self.client.api.exec_create(self._live().id, argv, user="root")["Id"]
        out = self.client.api.exec_start(exec_id).decode("utf-8", "replace")
        if self.client.api.exec_inspect(exec_id).get("ExitCode") not in (0, None):
            raise RuntimeError(f"{argv[0]} failed in the container: {out.strip()[:200]}")
        return out

    def _exec_quietly(self, argv: list[str]) -> None:
        with contextlib.suppress(Exception):  # best effort: what it cleans up is removed on close at the latest
            self._exec_simple(argv)

    def _kill_all(self) -> None:
        with contextlib.suppress(Exception):  # e.g. a fork bomb holds every pid: no exec can start
            self._exec_simple(["sh", "-c", REAP + "reap", "sandbox", "", self.keeper[0]])
            return
        with contextlib.suppress(Exception):  # the container is gone; close() cleans up
            # a restart kills every process; the container's files and the bind mount stay
            self._live().kill()
            self._live().start()
            self.keeper = self._exec_simple(["cat", "/proc/1/task/1/children"]).split()[:1] or ["0"]

    def _set_network(self, on: bool) -> None:
        bridge = self._bridge()
        if on:
            bridge.connect(self.container)
        else:
            bridge.disconnect(self.container, force=True)

    def _start_relay(self) -> str:
        """The host's loopback proxy forwarded to 127.0.0.1 inside for this step ('' or what went wrong); the relay
        inside ends with the step's other processes."""
        ports = self.sandbox.proxy_ports
        if not ports or self.relay_dir is None:
            return ""
        if self.relay is None:
            self.relay = HostRelay(self.relay_dir, ports)
        try:
            self._exec_simple(["sh", "-c", 'command -v python3 >/dev/null || { echo "no python3"; exit 1; }; '
                                           'exec python3 -c "$0" "$@"', INSIDE, INSIDE_DIR, *map(str, ports)])
        except Exception as exc:  # noqa: BLE001 - the step runs without the proxy, and says so
            return f"the proxy relay did not start ({str(exc)[:120]})"
        return ""

    def run(self, cmd: str, timeout: float | None = None, cwd: str = ".", env: dict[str, str] | None = None,
            network: bool = False, on_output=None) -> RunResult:
        _, rel, timeout, clamped, exhausted = prepare_run(self.root, cwd, cmd, timeout or self.limits.timeout_s,
                                                          self.budget)
        if exhausted is not None:
            return exhausted
        before = Snapshot.take(self.root)
        networked = network and self.network_attachable
        relay_problem = ""
        if networked:
            self._set_network(True)
            relay_problem = self._start_relay()
        start = time.monotonic()
        try:
            env_vars = clean_env(env, f"{ENV_ROOT}/home", network=networked)
            env_vars["TMPDIR"] = TMP
            workdir = MOUNT if rel == "." else f"{MOUNT}/{rel}"
            exec_id = self.client.api.exec_create(self._live().id,
                                                  ["sh", "-c", WRAPPER, "sandbox", cmd, self.keeper[0]],
                                                  environment=env_vars, workdir=workdir, user="root")["Id"]
            stream = self.client.api.exec_start(exec_id, stream=True, demux=True)
            out = Capture(iter(()), self.limits.output_cap_bytes, on_output)
            err = Capture(iter(()), self.limits.output_cap_bytes, on_output)
            reader = threading.Thread(target=_demux, args=(stream, out, err), daemon=True)
            reader.start()
            reason, events = None, []
            try:
                self.tmp.reset()
                reason = watch(lambda step: _joined(reader, step), [out, err], timeout, self.limits.stall_s,
                               self.tmp.over_budget)
            finally:
                events = self.counters.new_events()  # before a kill: a restart would reset the counters
                if reason or reader.is_alive():
                    self._kill_all()
                    self.counters.reset()
                reader.join(10)
            exit_code = self.client.api.exec_inspect(exec_id).get("ExitCode")
        finally:
            if networked:
                self._set_network(False)
        duration = time.monotonic() - start
        self.budget.spend(duration)
        changes = before.diff(Snapshot.take(self.root))
        notes = limit_notes(self.limits, reason, timeout, bytes(out.tail) + bytes(err.tail), out.dropped + err.dropped,
                            exit_code, self.tmp)
        notes += events
        if reason == "disk":  # what the stopped command left would stop the next one at once
            self._exec_quietly(["sh", "-c", f"rm -rf {TMP}/* {TMP}/.[!.]* 2>/dev/null; true"])
        if reason == "timeout" and clamped:
            notes.append(f"phase budget of {self.budget.budget_s:g}s for {self.budget.phase or 'this phase'} exhausted")
        if network and not networked:
            notes.append("network requested but the engine has no bridge network; ran without")
        if relay_problem:
            notes.append(relay_problem)
        return record_for(cmd, rel, exit_code, duration, out, err, changes, _dedupe(notes), killed=reason is not None,
                          network=networked)

    # ---- artifact-declared environment ---------------------------------------------------------
    def build_image(self, dockerfile: str, timeout: float | None = None) -> RunResult:
        """Build the artifact's Dockerfile (context: its folder); on success later commands run in it."""
        from docker.errors import APIError, BuildError

        timeout = timeout or self.limits.timeout_s
        tag = f"copilot-artifact/{uuid.uuid4().hex[:12]}:latest"
        context = (self.root / dockerfile).parent
        cmd = f"docker build -f {Path(dockerfile).name} -t {tag} {context.relative_to(self.root).as_posix() or '.'}"
        lines: list[str] = []
        box: dict = {}

        def build() -> None:
            try:
                for chunk in self.client.api.build(path=str(context), dockerfile=Path(dockerfile).name, tag=tag,
                                                   rm=True, forcerm=True, decode=True,
                                                   labels=labels("artifact", self.sandbox.review),
                                                   container_limits={"memory": self.limits.memory_mb << 20}):
                    lines.append(chunk.get("stream") or chunk.get("status") or "")
                    if "error" in chunk:
                        box["error"] = chunk["error"]
                        lines.append(f"ERROR: {chunk['error']}\n")
            except (APIError, BuildError, OSError) as exc:
                box["error"] = str(exc)
                lines.append(f"ERROR: {exc}\n")

        start = time.monotonic()
        worker = threading.Thread(target=build, daemon=True)
        worker.start()
        worker.join(timeout)
        timed_out = worker.is_alive()
        ok = not timed_out and "error" not in box
        self.images.append(tag)  # removed on close even when the build half-failed
        log = "".join(lines).encode("utf-8", "replace")[: self.limits.output_cap_bytes]
        record = CommandRecord(cmd=cmd, cwd=".", exit_code=None if timed_out else (0 if ok else 1),
                               duration_s=round(time.monotonic() - start, 3), timed_out=timed_out,
                               stdout=log[:4000].decode("utf-8", "replace"), stderr=str(box.get("error", ""))[-4000:],
                               limits_hit=[f"timeout after {timeout:g}s"] if timed_out else [])
        if ok:  # the artifact's own environment: recreate the container from it, same files
            self._remove_container()
            self.image = tag
            self.sandbox.image = tag
            self._create(tag)
        return RunResult(record, log, record.stderr.encode())

    def use_suite(self, suite: str) -> RunResult:
        """Recreate this session's container from the base image of a Debian suite (capability 'suites'), keeping
        the artifact copy; later sessions, judges included, start from it too. The review's environment under
        ENV_ROOT starts empty, so switch before creating the virtual environment. A suite the sandbox cannot
        offer, or whose image is missing, is a failed record, never an exception."""
        start = time.monotonic()
        image, problem = self.sandbox.suite_image(suite)
        cmd = f"use the Python of Debian {suite}" + (f" (image {image})" if image else "")

        def result(code: int, out: str = "", err: str = "") -> RunResult:
            record = CommandRecord(cmd=cmd, cwd=".", exit_code=code, duration_s=round(time.monotonic() - start, 3),
                                   stdout=out, stderr=err)
            return RunResult(record, out.encode(), err.encode())

        if image is None:
            return result(1, err=problem)
        if image == self.image:
            return result(0, out=f"already running in {image}\n")
        previous = self.image
        try:
            self._remove_container()
            self._create(image)
        except Exception as exc:  # noqa: BLE001 - an engine error: back to the image the review had
            reason = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
            try:
                self._remove_container()
                self._create(previous)
            except Exception:  # noqa: BLE001 - the session is unusable; its commands will fail and say so
                self.container = None
            return result(1, err=f"could not start a container from {image}: {reason}")
        self.image = self.sandbox.image = self.sandbox.base_image = image
        try:
            version = self._exec_simple(["sh", "-c", "python3 --version 2>&1 || echo no python3"]).strip()
        except Exception:  # noqa: BLE001 - the switch itself succeeded
            version = ""
        return result(0, out=f"container recreated from {image}: {version}\n")


def _joined(thread: threading.Thread, step: float) -> bool:
    thread.join(step)
    return not thread.is_alive()


def _demux(stream, out: Capture, err: Capture) -> None:
    with contextlib.suppress(Exception):  # the exec stream ends abruptly when the command is killed
        for stdout, stderr in stream:
            if stdout:
                out.feed(stdout)
            if stderr:
                err.feed(stderr)


def _dedupe(notes: list[str]) -> list[str]:
    seen, out = set(), []
    for note in notes:
        key = note.split(" (")[0]
        if key not in seen:
            seen.add(key)
            out.append(note)
    return out


class DockerSandbox:
    """Runs commands in containers of a local Docker Engine (base image or the artifact's own)."""

    name = "docker"
    capabilities = frozenset({"build_image", "apt", "suites"})
    isolation_note = ("docker sandbox: container with memory, CPU and pids limits, "
                      "no network unless a setup step needs it")

    def __init__(self, scratch_root: Path, limits: Limits | None = None, image: str | None = None,
                 client=None, review: str = ""):
        self.scratch_root = Path(scratch_root)
        self.limits = limits or Limits()
        self.client = client or connect(timeout=ENGINE_TIMEOUT_S)
        self.base_image = self.image = image or DEFAULT_IMAGE
        self.suites = SuiteImages(self.client, None if self.image.startswith(f"{BASE_REPOSITORY}:") else self.image)
        self.review = review or uuid.uuid4().hex[:12]
        self.proxy_ports = loopback_proxy_ports()
        self.dropped_links: list[str] = []
        self._sessions: set[DockerSession] = set()
        """Open sessions, held strongly so that close() reaches a session its caller no longer references."""
        self.reclaimed = self._reclaim()

    def _reclaim(self) -> int:
        """Remove containers a killed earlier review of the same run directory left (resume)."""
        from docker.errors import APIError, NotFound

        removed = 0
        for orphan in orphans(self.client):
            if orphan.kind != "container" or not self.review:
                continue
            try:
                container = self.client.containers.get(orphan.id)
                if (container.labels or {}).get("io.artifactcopilot.review") == self.review:
                    container.remove(force=True)
                    removed += 1
            except (APIError, NotFound):
                pass
        return removed

    def _copy(self, workdir: Path) -> Path:
        self.scratch_root.mkdir(parents=True, exist_ok=True)
        dest = self.scratch_root / f"artifact-{time.time_ns()}"
        self.dropped_links = copy_artifact(Path(workdir), dest)
        return dest.resolve()

    def start(self, workdir: Path) -> DockerSession:
        """The review's long-lived container over a scratch copy of the artifact."""
        session = DockerSession(self, self._copy(workdir))
        self._sessions.add(session)
        return session

    def fresh(self, workdir: Path) -> DockerSession:
        """A new container on a clean copy, for a judge or provenance rerun."""
        session = DockerSession(self, self._copy(workdir), role="judge")
        self._sessions.add(session)
        return session

    def interpreters(self) -> dict[str, str]:
        """Python version (major.minor) -> the suite `DockerSession.use_suite` switches to, for each base image
        present; with a custom --image, only that image's python3 (its suite: its codename, else its name)."""
        return self.suites.interpreters()

    def suite_image(self, suite: str) -> tuple[str | None, str]:
        """The image of `suite`, or None and why it cannot be used."""
        return self.suites.image_for(suite)

    def enforcement(self) -> Enforcement:
        return Enforcement(backend=self.name, pid_namespace=True, network_isolated=True, read_only_host=True,
                           scratch_outside_run=True, fresh_home=True, env_allowlist=True,
                           memory=f"container limit {self.limits.memory_mb} MB",
                           processes=f"pids limit {self.limits.max_processes}",
                           notes=(f"image {self.image}", f"/tmp on the host's scratch disk (executable) with a disk "
                                  f"budget of {self.limits.tmp_mb} MB"))

    def network_note(self) -> str:
        """How a network-on step is contained (the report says which applied)."""
        return ("Docker's bridge network for that step only, the host's loopback services out of reach; "
                f"{describe(self.proxy_ports)}")

    def forget(self, session: DockerSession) -> None:
        """A session closed: it is no longer this sandbox's to close."""
        self._sessions.discard(session)

    def close(self) -> None:
        for session in list(self._sessions):
            session.close()


class _DockerBackend:
    """Registry entry (sandbox/registry.py) of the Docker sandbox."""

    name = "docker"

    def check(self, options) -> str | None:
        from .image import EngineUnavailable, image_present

        image = options.image or DEFAULT_IMAGE
        try:
            client = connect()
        except EngineUnavailable as exc:
            return f"{exc} — {exc.hint}"
        if not image_present(client, image):
            return f"Docker image '{image}' not found — run `copilot doctor --build-base` or pass --image"
        return None

    def open(self, options) -> DockerSandbox:
        return DockerSandbox(options.scratch_dir(), options.limits, image=options.image, review=options.review)

    def doctor(self, options, clean: bool = False, build_base: bool = False) -> list[tuple[str, str, str]]:
        from .image import doctor_rows

        return doctor_rows(options.image or DEFAULT_IMAGE, clean=clean, build_base=build_base)


BACKEND = _DockerBackend()
