"""The host's proxy, reachable from a sandbox with its own network even when it listens on the host's loopback.

A lab machine often reaches the outside only through a proxy on 127.0.0.1 (`http_proxy=http://127.0.0.1:3128`).
A sandbox with its own network namespace (a Docker container, a local sandbox with a user-mode network) has its own
127.0.0.1, where nothing listens. For each such proxy port the review opens a unix socket in a folder it mounts into
the sandbox (`HostRelay`: every connection on the socket is piped to 127.0.0.1:PORT on the host, and nowhere else);
inside, a small relay listens on 127.0.0.1:PORT and pipes each connection to that socket (`INSIDE`, run with the
sandbox's python3 for a network-on step only). Only the proxy's port is forwarded: the reviewer's other loopback
services stay out of reach.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import socket
import tempfile
import threading
from pathlib import Path
from urllib.parse import urlsplit

from .base import PROXY_VARS

INSIDE_DIR = "/run/copilot-relay"
"""Where the relay's socket folder is mounted inside a sandbox (read-only)."""
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")
INSIDE = r"""
import os, socket, sys, threading
folder, ports = sys.argv[1], [int(p) for p in sys.argv[2:]]
servers = []
for port in ports:
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    s.listen(64)
    servers.append((s, os.path.join(folder, "p%d.sock" % port)))
if os.fork():
    os._exit(0)
os.setsid()
null = os.open(os.devnull, os.O_RDWR)
for fd in (0, 1, 2):
    os.dup2(null, fd)
def pipe(a, b):
    try:
        while True:
            data = a.recv(65536)
            if not data:
                break
            b.sendall(data)
    except OSError:
        pass
    for s in (a, b):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        s.close()
def serve(server, path):
    while True:
        conn, _ = server.accept()
        up = socket.socket(socket.AF_UNIX)
        try:
            up.connect(path)
        except OSError:
            conn.close()
            continue
        threading.Thread(target=pipe, args=(conn, up), daemon=True).start()
        threading.Thread(target=pipe, args=(up, conn), daemon=True).start()
threads = [threading.Thread(target=serve, args=pair, daemon=True) for pair in servers]
for t in threads:
    t.start()
for t in threads:
    t.join()
"""
"""The relay inside the sandbox: argv folder, ports; returns once every port listens, then serves in the
background until the sandbox ends the command's processes."""


def loopback_proxy_ports(environ: dict[str, str] | None = None) -> list[int]:
    """Ports of the proxies the host's settings name on its own loopback (what a sandbox must be given)."""
    environ = dict(os.environ) if environ is None else environ
    ports = []
    for name in PROXY_VARS:
        value = environ.get(name, "")
        if not value or name.lower() == "no_proxy":
            continue
        try:
            parts = urlsplit(value if "://" in value else f"http://{value}")
            host, port = (parts.hostname or "").lower(), parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            continue
        if host in LOOPBACK_HOSTS or host.startswith("127."):
            ports.append(port)
    return sorted(set(ports))


def inside_proxy_env(env: dict[str, str]) -> dict[str, str]:
    """Proxy variables as the sandbox must see them: a loopback proxy named as 127.0.0.1 (where the relay listens;
    `localhost` could resolve to ::1 inside)."""
    out = dict(env)
    for name in PROXY_VARS:
        value = out.get(name)
        if value and name.lower() != "no_proxy":
            for alias in ("localhost", "[::1]"):
                value = value.replace(f"//{alias}:", "//127.0.0.1:")
            out[name] = value
    return out


def relay_folder() -> Path:
    """A new folder for a relay's sockets, under the system's temp folder (a unix socket's path must stay short)."""
    return Path(tempfile.mkdtemp(prefix="copilot-relay-"))


class HostRelay:
    """One unix socket per forwarded port in `folder`; each connection to it is piped to 127.0.0.1:port."""

    def __init__(self, folder: Path, ports: list[int]):
        self.folder, self.ports = Path(folder), list(ports)
        self.folder.mkdir(parents=True, exist_ok=True)
        self._servers: list[socket.socket] = []
        self._stop = threading.Event()
        for port in self.ports:
            path = self.folder / f"p{port}.sock"
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            server = socket.socket(socket.AF_UNIX)
            server.bind(str(path))
            os.chmod(path, 0o666)  # the sandbox's root, or its mapped user, connects to it
            server.listen(64)
            server.settimeout(0.5)
            self._servers.append(server)
            threading.Thread(target=self._accept, args=(server, port), daemon=True, name=f"relay-{port}").start()

    def _accept(self, server: socket.socket, port: int) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            conn.settimeout(None)
            try:
                up = socket.create_connection(("127.0.0.1", port), timeout=10)
                up.settimeout(None)
            except OSError:
                conn.close()
                continue
            threading.Thread(target=_pipe, args=(conn, up), daemon=True).start()
            threading.Thread(target=_pipe, args=(up, conn), daemon=True).start()

    def close(self) -> None:
        self._stop.set()
        for server in self._servers:
            with contextlib.suppress(OSError):
                server.close()
        for port in self.ports:
            with contextlib.suppress(OSError):
                (self.folder / f"p{port}.sock").unlink()
        shutil.rmtree(self.folder, ignore_errors=True)


def _pipe(a: socket.socket, b: socket.socket) -> None:
    try:
        while data := a.recv(65536):
            b.sendall(data)
    except OSError:
        pass
    for s in (a, b):
        with contextlib.suppress(OSError):
            s.shutdown(socket.SHUT_RDWR)
        s.close()


def describe(ports: list[int]) -> str:
    return ("the configured proxy " + ", ".join(f"127.0.0.1:{p}" for p in ports) + " forwarded in (that port only)"
            if ports else "no proxy configured")
