"""The sandbox contract every backend implements, and what the backends share.

A `Sandbox` starts `Session`s over a scratch copy of the artifact; a session runs shell commands
with limits and returns a `RunResult` (the record plus the full captured output). Inside every
sandbox the artifact copy is the working directory and the review's own environment (virtual
environment, HOME, temp) lives under `ENV_ROOT`, so commands and provisioning steps read the same on
every backend. What a backend enforces is declared by `Enforcement`, checked before anything runs and
shown in the report. Backends are registered in `sandbox/registry.py`.
"""
from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeGuard

from ..models import CommandRecord

ARTIFACT_DIR = "/artifact"
"""Where every sandbox mounts the artifact copy (read-write) and runs its commands."""
ENV_ROOT = "/opt/copilot"
"""The review's environment inside every sandbox: venv/, home/, tmp/."""
VENV = f"{ENV_ROOT}/venv"
"""The per-review virtual environment (created by provisioning steps, first on PATH once it exists)."""
# Host variables never passed to artifact code, by name pattern (API keys, tokens, cloud creds).
SECRET_PATTERN = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION)", re.I)
SAFE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"
"""The host's CA bundle (TLS for package managers needs it where the network presents its own certificate)."""
SANDBOX_CA = f"{ENV_ROOT}/ca-certificates.crt"
"""Where container backends mount the host's CA bundle (not over Debian's own, which apt must be able to update)."""
REVIEW_SETTINGS = ("MPLBACKEND",)
"""Settings of the review's own (headless rendering) that a command can withdraw by passing the name with an empty
value: a notebook's kernel then chooses its backend itself (its `%matplotlib inline`, ipykernel's default)."""
PROXY_VARS = ("http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY")


@dataclass
class Limits:
    """Resource limits of the commands a sandbox runs."""

    timeout_s: float = 1800.0
    """Wall-clock limit per command; the whole process tree is killed past it."""
    memory_mb: int = 4096
    """Memory limit (container limit, or the data segment locally: a JVM's address-space reservation still starts)."""
    max_processes: int = 512
    """Process limit (pids cgroup or container pids limit, else rlimit NPROC)."""
    max_file_mb: int = 1024
    """Largest file a command may write."""
    output_cap_bytes: int = 2_000_000
    """Output kept per stream; the rest is counted and dropped."""
    cpus: float = 2.0
    """CPUs a container may use (Docker)."""
    cpu_seconds: float | None = None
    """CPU time per process (rlimit CPU); None derives it from the command timeout and the CPU count."""
    stall_s: float | None = 900.0
    """A command with no new output for this long is stuck: killed and recorded; None disables it."""
    phase_budget_s: float | None = None
    """Wall-clock budget of all commands of one phase; None means only the per-command timeout applies."""
    tmp_mb: int = 8192
    """The review's disk budget for the artifact's temporary directory (/tmp and TMPDIR, on disk and executable in
    every backend): a command that fills it past this is stopped and the limit named (sandbox/tmpspace.py)."""

    def cpu_rlimit(self, timeout: float) -> int:
        return int(self.cpu_seconds or timeout * (os.cpu_count() or 1)) + 1


@dataclass
class RunResult:
    """What a session returns before the evidence store persists it."""

    record: CommandRecord
    stdout_full: bytes = b""
    stderr_full: bytes = b""


@dataclass(frozen=True)
class Enforcement:
    """What a sandbox guarantees about the commands it runs."""

    backend: str
    pid_namespace: bool
    """Commands see only their own processes (no other process's /proc, environ included)."""
    network_isolated: bool
    """No network unless a step asks for it (each enablement recorded)."""
    read_only_host: bool
    """The host file system is read-only; only the artifact copy and the review's environment are writable."""
    scratch_outside_run: bool
    """The writable copy is outside the run directory and anything the review later trusts."""
    fresh_home: bool
    env_allowlist: bool
    """The environment is built from an allow-list: no host variable, no secret."""
    memory: str = ""
    """How memory is limited, e.g. 'container limit 4096 MB'."""
    processes: str = ""
    notes: tuple[str, ...] = ()

    REQUIRED = ("pid_namespace", "network_isolated", "read_only_host", "scratch_outside_run", "fresh_home",
                "env_allowlist")

    def missing(self) -> list[str]:
        """Required properties this sandbox cannot provide (a review refuses to run half-isolated)."""
        return [name.replace("_", " ") for name in self.REQUIRED if not getattr(self, name)]

    def describe(self) -> str:
        held = [name.replace("_", " ") for name in self.REQUIRED if getattr(self, name)]
        extra = [x for x in (self.memory, self.processes) if x]
        return f"{self.backend} sandbox: " + ", ".join(held + extra + list(self.notes))


class Session(Protocol):
    root: Path
    """Host path of the artifact copy the commands run in (their outputs are read from here)."""
    capabilities: frozenset[str]
    """Optional abilities: 'build_image' (the artifact's own Dockerfile), 'apt' (system packages as root),
    'suites' (`use_suite(suite) -> RunResult`: run from now on in the image of another interpreter the sandbox's
    `interpreters()` offers; backends without it need not define the method)."""

    def run(self, cmd: str, timeout: float | None = None, cwd: str = ".", env: dict[str, str] | None = None,
            network: bool = False, on_output: Callable[[bytes], None] | None = None) -> RunResult:
        """Run `cmd` in the artifact copy; `on_output` sees each chunk of output as it arrives (a live view)."""
        ...

    def set_phase(self, phase: str) -> None: ...

    def build_image(self, dockerfile: str, timeout: float | None = None) -> RunResult: ...

    def close(self) -> None: ...


class SuiteSession(Session, Protocol):
    """A session with the 'suites' capability."""

    def use_suite(self, suite: str) -> RunResult: ...


def offers_suites(session: Session) -> TypeGuard[SuiteSession]:
    """The session has the 'suites' capability, hence `use_suite`."""
    return "suites" in session.capabilities


class Sandbox(Protocol):
    """Optional: a backend that can offer several interpreters defines `interpreters() -> dict[str, str]`
    (Python major.minor -> the name its sessions' `use_suite` takes, e.g. {"3.11": "bookworm"}); its sessions
    then have the 'suites' capability. Callers look it up with getattr and treat its absence as 'the default
    python3 only'."""

    name: str
    capabilities: frozenset[str]
    """What its sessions can do beyond running commands: 'build_image', 'apt', 'suites'."""

    def interpreters(self) -> dict[str, str]:
        """Python versions it can offer an artifact: version -> command (local) or Debian suite (containers)."""
        ...

    def start(self, workdir: Path) -> Session:
        """The review's long-lived session over a scratch copy of `workdir`."""
        ...

    def fresh(self, workdir: Path) -> Session:
        """A clean session on a new copy, for a judge or a provenance rerun."""
        ...

    def enforcement(self) -> Enforcement: ...

    def close(self) -> None: ...


@dataclass
class Snapshot:
    """File sizes and times under a root, to tell which files a command created or changed."""

    files: dict[str, tuple[int, float]] = field(default_factory=dict)

    @classmethod
    def take(cls, root: Path, limit: int = 20000) -> Snapshot:
        files: dict[str, tuple[int, float]] = {}
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d not in (".git", "__pycache__", ".sandbox-home", ".copilot")]
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

    def diff(self, after: Snapshot) -> tuple[list[str], list[str], list[str]]:
        """(created, modified, deleted) between this snapshot and a later one."""
        created = sorted(set(after.files) - set(self.files))
        modified = sorted(p for p in after.files if p in self.files and after.files[p] != self.files[p])
        deleted = sorted(set(self.files) - set(after.files))
        return created, modified, deleted


def clean_env(extra: dict[str, str] | None = None, home: str = f"{ENV_ROOT}/home", network: bool = False,
              venv: bool = False, ca_path: str = CA_BUNDLE) -> dict[str, str]:
    """The environment of an artifact command, from an allow-list: nothing of the reviewer's shell, no secret.

    With network (an install or download step) the host's proxy settings and CA bundle come along,
    so package managers work wherever they work on the host; with venv the review's virtual
    environment is first on PATH."""
    path = f"{VENV}/bin:{SAFE_PATH}" if venv else SAFE_PATH
    env = {"PATH": path, "HOME": home, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
           "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1", "TERM": "dumb", "MPLBACKEND": "Agg",
           "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1"}
    if venv:
        env["VIRTUAL_ENV"] = VENV
    if network:  # a proxy on the host's loopback is reached inside at 127.0.0.1 (sandbox/relay.py forwards its port)
        env.update({k: re.sub(r"//(localhost|\[::1\]):", "//127.0.0.1:", v) for k in PROXY_VARS
                    if (v := os.environ.get(k))})
        if Path(CA_BUNDLE).is_file():
            env.update({"PIP_CERT": ca_path, "SSL_CERT_FILE": ca_path, "REQUESTS_CA_BUNDLE": ca_path})
        for name in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_TRUSTED_HOST"):
            if (os.environ.get(name, "").startswith(("http://", "https://"))
                    or name == "PIP_TRUSTED_HOST" and os.environ.get(name)):
                env[name] = os.environ[name]
    for key, value in (extra or {}).items():
        if key in REVIEW_SETTINGS and value == "":  # the review's own setting withdrawn for this command
            env.pop(key, None)
        elif not SECRET_PATTERN.search(key):
            env[key] = value
    return env
