"""How the local sandbox gives a network-on step its network, and says which way it did.

- user-mode network (slirp4netns, when installed): the step keeps its own network namespace; slirp4netns gives it
  an outbound network through the host with the host's loopback closed (`--disable-host-loopback`), and the
  configured proxy's port is forwarded in (sandbox/relay.py);
- proxy only (no slirp4netns, a proxy configured on the host's loopback): its own network namespace whose only way
  out is the forwarded proxy port;
- the host's network (neither): the namespace is shared with the reviewer's, loopback services included — said so.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import time

from .relay import describe

USER_MODE, PROXY_ONLY, HOST = "user-mode", "proxy-only", "host"
READY_S = 30.0
"""How long slirp4netns may take to configure the network (it answers in milliseconds; a loaded machine is slower)."""


def slirp4netns() -> str | None:
    return shutil.which("slirp4netns")


def local_mode(ports: list[int]) -> str:
    if slirp4netns():
        return USER_MODE
    return PROXY_ONLY if ports else HOST


def describe_mode(mode: str, ports: list[int]) -> str:
    """The containment of network-on steps, as the report states it."""
    if mode == USER_MODE:
        return (f"own network namespace with a user-mode network (slirp4netns), the host's loopback closed; "
                f"{describe(ports)}")
    if mode == PROXY_ONLY:
        return f"own network namespace whose only way out is {describe(ports).removeprefix('the ')}"
    return ("the host's network namespace (no user-mode network here: install slirp4netns, "
            "e.g. bash .ci/setup-slirp.sh): the reviewer's loopback services are reachable from a network-on step")


class Slirp:
    """slirp4netns attached to the network namespace of a running sandbox (its init's pid), until `stop`."""

    def __init__(self, pid: int):
        self.proc: subprocess.Popen | None = None
        self.problem = ""
        self.exit_w = -1
        binary = slirp4netns()
        if binary is None:
            self.problem = "slirp4netns is not installed"
            return
        ready_r, ready_w = os.pipe()
        self.exit_r, self.exit_w = os.pipe()
        argv = [binary, "--configure", "--mtu=65520", "--disable-host-loopback", f"--ready-fd={ready_w}",
                f"--exit-fd={self.exit_r}", "--netns-type=path"]
        if os.geteuid() != 0:
            argv.append(f"--userns-path=/proc/{pid}/ns/user")
        argv += [f"/proc/{pid}/ns/net", "tap0"]
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.PIPE, pass_fds=(ready_w, self.exit_r),
                                         start_new_session=True)
        except OSError as exc:
            self.problem = f"slirp4netns could not start: {exc}"
            os.close(ready_r)
            return
        finally:
            os.close(ready_w)
            os.close(self.exit_r)
        self._wait_ready(ready_r)

    def _wait_ready(self, fd: int) -> None:
        import select

        deadline = time.monotonic() + READY_S
        try:
            while time.monotonic() < deadline:
                ready, _, _ = select.select([fd], [], [], 0.2)
                if ready:
                    if os.read(fd, 1) == b"1":
                        return
                    break
                if self.proc is not None and self.proc.poll() is not None:
                    break
            err = self.proc.stderr.read(400).decode("utf-8", "replace") if self.proc and self.proc.stderr and \
                self.proc.poll() is not None else ""
            self.problem = f"slirp4netns did not configure the network ({err.strip() or 'no answer'})"
            self.stop()
        finally:
            os.close(fd)

    @property
    def ok(self) -> bool:
        return self.proc is not None and not self.problem

    def stop(self) -> None:
        if self.exit_w >= 0:
            with contextlib.suppress(OSError):
                os.close(self.exit_w)  # slirp4netns exits when this closes
            self.exit_w = -1
        if self.proc is not None:
            try:
                self.proc.wait(3)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            if self.proc.stderr:
                self.proc.stderr.close()
            self.proc = None
