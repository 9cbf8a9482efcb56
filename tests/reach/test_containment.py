"""A network-on step has the artifact's network, not the reviewer's: through the host's proxy (listening on the host's
127.0.0.1, forwarded in as that one port), while the hostile artifact's loopback probe — a connection to a real
listener on the host's 127.0.0.1 — still reaches nothing, in both sandboxes. With network off, neither the proxy nor
the listener is reachable. Each sandbox says how it contained the step."""
from __future__ import annotations

import socket
import threading

import pytest

from artifactcopilot.sandbox.base import Limits

from . import shapes
from .conftest import need_backend

SANDBOXES = [pytest.param("local", id="local"), pytest.param("docker", id="docker", marks=pytest.mark.docker)]
PROBE = ("python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2).close(); "
         "print('connected to the listener')\"")
"""The loopback probe of the hostile artifact (tests/fixtures/hostile/artifact/sieve.py)."""
FETCH = f"curl -sS -f {shapes.DATA_URL}"


class Listener:
    """A real TCP listener on the host's 127.0.0.1 that counts the connections it accepts."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.2)
        self.port, self.accepted, self.stop = self.server.getsockname()[1], 0, False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop:
            try:
                conn, _ = self.server.accept()
                self.accepted += 1
                conn.close()
            except OSError:
                continue

    def close(self) -> None:
        self.stop = True
        self.thread.join(2)
        self.server.close()


def _sandbox(name: str, tmp_path):
    need_backend(name)
    limits = Limits(timeout_s=60, memory_mb=1024, max_processes=256, stall_s=None)
    if name == "docker":
        from artifactcopilot.sandbox.docker import DockerSandbox

        return DockerSandbox(tmp_path / "scratch", limits)
    from artifactcopilot.sandbox.local import LocalSandbox

    return LocalSandbox(tmp_path / "scratch", limits)


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_network_on_step_reaches_the_proxy_and_no_other_loopback_service(sandbox, web, tmp_path):
    art = tmp_path / "art"
    art.mkdir()
    (art / "README.md").write_text("x\n")
    listener, box = Listener(), _sandbox(sandbox, tmp_path)
    try:
        session = box.start(art)
        probe_on = session.run(PROBE.format(port=listener.port), network=True)
        fetch_on = session.run(FETCH, network=True)
        probe_off = session.run(PROBE.format(port=listener.port), network=False)
        fetch_off = session.run(FETCH, network=False)
        session.close()
        note = getattr(box, "network_note", lambda: "")()
    finally:
        box.close()
        listener.close()
    assert listener.accepted == 0, "a sandboxed step reached a service on the reviewer's loopback"
    assert probe_on.record.exit_code != 0 and b"connected" not in probe_on.stdout_full
    assert probe_off.record.exit_code != 0
    assert fetch_on.record.ok and fetch_on.record.network, fetch_on.stderr_full[-400:]
    assert fetch_on.stdout_full.decode() == shapes.MEASUREMENTS
    assert not fetch_off.record.ok and not fetch_off.record.network
    assert web.fetched(shapes.DATA_HOST) == [shapes.DATA_URL]  # the network-on fetch only
    assert f"127.0.0.1:{web.port} forwarded" in note and "loopback" in note


def test_the_local_sandbox_says_when_it_shares_the_hosts_network(monkeypatch, tmp_path):
    from artifactcopilot.sandbox import usernet

    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(usernet, "slirp4netns", lambda: None)  # a machine without a user-mode network
    assert usernet.local_mode([]) == usernet.HOST
    assert "loopback services are reachable" in usernet.describe_mode(usernet.HOST, [])
    assert usernet.local_mode([3128]) == usernet.PROXY_ONLY
    assert "127.0.0.1:3128" in usernet.describe_mode(usernet.PROXY_ONLY, [3128])
