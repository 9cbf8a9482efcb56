"""Bubblewrap (`bwrap`): the isolation every command of the local sandbox runs in.

`command_argv` builds one bwrap invocation: new user, PID, network (unless the command asks for
network), IPC, UTS and cgroup namespaces; no capabilities; a root that is an empty read-only
tmpfs with the host's system folders bound read-only; the session's own /tmp (a scratch folder on
disk, executable: sandbox/tmpspace.py), a fresh /dev (writable /dev/shm) and /proc; the reviewer's
home, /root, /run, /var, /srv, /mnt and everything else of the host not visible; the artifact
copy read-write at `ARTIFACT` and the review's environment folder read-write at `ENV_ROOT`, the
same paths as in the Docker sandbox. `probe` runs that sandbox once and says in one line what is
missing when this machine cannot provide it.
"""
from __future__ import annotations

import functools
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .base import ARTIFACT_DIR, ENV_ROOT, Limits
from .tmpspace import TMP

ARTIFACT = ARTIFACT_DIR
"""Where the artifact copy is mounted inside the sandbox (as in the Docker sandbox)."""
SYSTEM_DIRS = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "opt", "nix")
"""Top-level host folders visible read-only inside the sandbox; no other host folder is."""
MASKED = ("/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/ssh", "/etc/sudoers.d")
"""Host secrets inside visible folders, replaced by empty ones."""
INSTALL_HINT = "apt-get install bubblewrap (or bash .ci/setup-bwrap.sh), or use --sandbox docker"
# Limits set inside the sandbox, where the process limit counts only the processes of this user namespace:
# $1 processes, $2 data segment (KB), $3 file size (KB), $4 CPU seconds per process; no core files.
LIMITS_WRAPPER = ('ulimit -S -H -u "$1" -d "$2" -f "$3" -t "$4" -c 0 '
                  '|| { echo "sandbox: cannot set limits" >&2; exit 125; }; shift 4; exec "$@"')
# Inside, before the command of a network-on step with its own network: start the proxy relay (sandbox/relay.py)
# ($1 its source, $2 the socket folder, then the ports up to "--"), then exec the command that follows.
RELAY_LAUNCH = ('src=$1; dir=$2; shift 2; ports=""; while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do ports="$ports $1"; '
                'shift; done; shift; py=$(command -v python3 || true); if [ -n "$py" ]; then "$py" -c "$src" "$dir" '
                '$ports || echo "sandbox: the proxy relay did not start" >&2; else '
                'echo "sandbox: no python3 to relay the proxy" >&2; fi; exec "$@"')
# Run on the host before bubblewrap starts: join the command's cgroups ($1 = how many folders follow), then exec.
CGROUP_LAUNCHER = ('n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1/cgroup.procs" || exit 125; '
                   'shift; n=$((n - 1)); done; exec "$@"')


@dataclass(frozen=True)
class Layout:
    """Host folders a sandboxed command sees, and host paths it must not see."""

    artifact: Path
    """The artifact copy (read-write at ARTIFACT)."""
    env: Path
    """The review's environment folder: venv/, home/, tmp/ (read-write at ENV_ROOT)."""
    hidden: tuple[Path, ...] = ()
    """Host paths hidden even when they lie inside a visible system folder (home, caches, scratch)."""
    tmp: Path | None = None
    """The host folder that is the command's /tmp (on disk, executable; sandbox/tmpspace.py); None: a tmpfs."""


def find_bwrap() -> str | None:
    return shutil.which("bwrap")


def find_bash() -> str | None:
    bash = shutil.which("bash")
    return str(Path(bash).resolve()) if bash else None


def _visible_system_dirs() -> list[str]:
    """Mount options for the host's system folders; the one holding ENV_ROOT is bound entry by entry."""
    env_parent, env_name = Path(ENV_ROOT).parent, Path(ENV_ROOT).name
    args: list[str] = []
    for name in SYSTEM_DIRS:
        host = Path("/") / name
        if host.is_symlink():
            args += ["--symlink", os.readlink(host), str(host)]
        elif host.is_dir() and host == env_parent:
            args += ["--dir", str(host)]
            for entry in sorted(os.listdir(host)):
                if entry != env_name:
                    args += _bind_ro(host / entry)
        elif host.is_dir():
            args += ["--ro-bind", str(host), str(host)]
    if not env_parent.is_dir():
        args += ["--dir", str(env_parent)]
    return args


def _bind_ro(path: Path) -> list[str]:
    if path.is_symlink():
        return ["--symlink", os.readlink(path), str(path)]
    return ["--ro-bind", str(path), str(path)] if path.exists() else []


def _inside_visible(path: Path) -> bool:
    """A path below one of the visible system folders (never a system folder itself: a HOME of /usr stays /usr)."""
    parts = path.parts
    return len(parts) > 2 and parts[1] in SYSTEM_DIRS


def _masks(hidden: tuple[Path, ...]) -> list[str]:
    """Hide secrets and the reviewer's own folders that lie inside visible system folders."""
    args: list[str] = []
    masked: tuple[str | Path, ...] = (*MASKED, *hidden)
    for raw in masked:
        path = Path(os.path.abspath(raw))
        if not _inside_visible(path) or path.is_symlink() or not path.exists() or path == Path(ENV_ROOT):
            continue
        args += ["--tmpfs", str(path)] if path.is_dir() else ["--ro-bind", "/dev/null", str(path)]
    resolv = Path("/etc/resolv.conf")
    if resolv.is_symlink() and not _inside_visible(resolv.resolve()) and resolv.resolve().is_file():
        args += ["--ro-bind", str(resolv.resolve()), str(resolv.resolve())]  # DNS for steps given the network
    return args


@dataclass(frozen=True)
class NetPlan:
    """How a network-on step gets its network (sandbox/usernet.py): its own namespace or the host's."""

    own_namespace: bool = False
    """Keep a network namespace of its own (a user-mode network is attached, or only the relayed proxy)."""
    relay: tuple[str, tuple[int, ...]] | None = None
    """(host folder of the relay's sockets, proxy ports) to relay in, or None."""
    block_fd: int | None = None
    """bubblewrap waits on this fd before running the command (until the user-mode network is up)."""


def command_argv(bwrap: str, bash: str, layout: Layout, *, workdir: str, network: bool, limits: Limits, timeout: float,
                 info_fd: int, cmd: str, cmd_args: tuple[str, ...] = (), cgroups: tuple[str, ...] = (),
                 net: NetPlan | None = None) -> list[str]:
    """The full argv that runs `cmd` with bash in the sandbox, in `workdir` (relative to the artifact copy);
    `cmd_args` become its $1, $2, ...; `cgroups` are folders bubblewrap is started in; `net`: how a network-on
    step gets its network (default: the host's)."""
    from .relay import INSIDE, INSIDE_DIR

    net = net or NetPlan()
    launcher = [bash, "-c", CGROUP_LAUNCHER, "launch", str(len(cgroups)), *cgroups] if cgroups else []
    args = [*launcher, bwrap, "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try"]
    if not network or net.own_namespace:
        args.append("--unshare-net")
    if network and net.block_fd is not None:
        args += ["--block-fd", str(net.block_fd)]
    args += ["--die-with-parent", "--new-session", "--cap-drop", "ALL", "--hostname", "artifact",
             "--info-fd", str(info_fd), "--tmpfs", "/"]
    args += _visible_system_dirs()
    tmp = ["--bind", str(layout.tmp), TMP] if layout.tmp is not None else ["--tmpfs", TMP]
    args += ["--ro-bind", "/sys", "/sys", "--dev", "/dev", "--tmpfs", "/dev/shm", "--proc", "/proc",
             *tmp, "--dir", "/var", "--tmpfs", "/var/tmp"]
    args += _masks(layout.hidden)
    args += ["--bind", str(layout.env), ENV_ROOT, "--dir", ARTIFACT, "--bind", str(layout.artifact), ARTIFACT]
    relay = [] if not (network and net.relay) else [
        bash, "-c", RELAY_LAUNCH, "relay", INSIDE, INSIDE_DIR, *(str(p) for p in net.relay[1]), "--"]
    if relay and net.relay:
        args += ["--dir", "/run", "--ro-bind", net.relay[0], INSIDE_DIR]
    args += ["--remount-ro", "/", "--chdir", ARTIFACT if workdir in ("", ".") else f"{ARTIFACT}/{workdir}"]
    caps = [str(limits.max_processes), str(limits.memory_mb << 10), str(limits.max_file_mb << 10),
            str(limits.cpu_rlimit(timeout))]
    tail = ("sandbox", *cmd_args) if cmd_args else ()
    return args + ["--", bash, "-c", LIMITS_WRAPPER, "sandbox", *caps, *relay, bash, "-c", cmd, *tail]


SELF_TEST = r"""
set -e
[ "$(cat /proc/1/comm)" = bwrap ] || { echo "no PID namespace"; exit 1; }
if (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null; then echo "network namespace not isolated"; exit 1; fi
touch /usr/.copilot-probe 2>/dev/null && { echo "host not read-only"; exit 1; }
touch /artifact/probe /opt/copilot/home/probe || { echo "artifact copy or environment folder not writable"; exit 1; }
grep -q '^CapEff:[[:space:]]*0*$' /proc/self/status || { echo "capabilities not dropped"; exit 1; }
echo sandbox-ok
"""


def probe() -> str | None:
    """None when bubblewrap gives this user the whole isolation here; else one line: what is missing, what to do.
    Run once per user and bubblewrap found on PATH."""
    return _probe(os.geteuid(), find_bwrap(), find_bash())


@functools.lru_cache(maxsize=8)
def _probe(euid: int, bwrap: str | None, bash: str | None) -> str | None:
    if bwrap is None:
        return f"bubblewrap is not installed: {INSTALL_HINT}"
    if bash is None:
        return "bash is not installed (the local sandbox runs commands with it): install bash, or use --sandbox docker"
    import socket
    import tempfile

    with tempfile.TemporaryDirectory(prefix="copilot-probe-") as tmp, socket.create_server(("127.0.0.1", 0)) as server:
        layout = Layout(Path(tmp) / "artifact", Path(tmp) / "env")
        (layout.env / "home").mkdir(parents=True)
        layout.artifact.mkdir()
        read, write = os.pipe()
        argv = command_argv(bwrap, bash, layout, workdir=".", network=False, limits=Limits(max_processes=64),
                            timeout=30, info_fd=write, cmd=SELF_TEST, cmd_args=(str(server.getsockname()[1]),))
        try:
            done = subprocess.run(argv, check=False, capture_output=True, text=True, timeout=30, pass_fds=(write,),
                                  stdin=subprocess.DEVNULL, env={"PATH": "/usr/bin:/bin"})
        except (OSError, subprocess.SubprocessError) as exc:
            return f"bubblewrap could not start ({exc}): {INSTALL_HINT}"
        finally:
            os.close(write)
            os.close(read)
    if done.returncode == 0 and done.stdout.strip().endswith("sandbox-ok"):
        return None
    reason = (done.stderr.strip() or done.stdout.strip() or f"exit {done.returncode}").splitlines()[-1][:200]
    if "namespace" in reason.lower() or "permission" in reason.lower() or "not permitted" in reason.lower():
        return (f"bubblewrap cannot create the sandbox's namespaces here ({reason}): allow unprivileged user "
                "namespaces (sysctl kernel.unprivileged_userns_clone=1 and "
                "kernel.apparmor_restrict_unprivileged_userns=0), or use --sandbox docker")
    return f"bubblewrap fails its self-test here ({reason}): use --sandbox docker"


def version() -> str:
    return _version(find_bwrap())


@functools.lru_cache(maxsize=4)
def _version(bwrap: str | None) -> str:
    if bwrap is None:
        return ""
    try:
        done = subprocess.run([bwrap, "--version"], check=False, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip()
