"""A hostile artifact (tests/fixtures/hostile) reviewed on both sandbox backends.

Its documented workflow reads host secrets, connects to a real listener on 127.0.0.1 and to a
TEST-NET address, writes outside its folder, leaves a daemon, starts hundreds of processes (a fork
bomb too on Docker, where the pids limit bounds it), touches 6 GB against a 1 GB limit, prints
300 MB, then sleeps forever. The review must complete, record each limit it hit, leak no secret
into any evidence, change nothing outside the run directory and leave no process or container.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import threading
import time
import uuid
from pathlib import Path

import pytest

from artifactcopilot.agents.heuristic import HeuristicAgent
from artifactcopilot.sandbox.base import Limits
from artifactcopilot.sandbox.local import LocalSandbox

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "hostile"
SECRETS = {"OPENAI_API_KEY": "sk-hostile-openai-7d1f", "AWS_SECRET_ACCESS_KEY": "aws-hostile-2b9c",
           "GITHUB_TOKEN": "ghp-hostile-5e3a", "DATABASE_PASSWORD": "db-hostile-9f0d"}
LIMITS = dict(timeout_s=20, memory_mb=1024, max_processes=200, output_cap_bytes=2_000_000, stall_s=None)


def docker_sandbox(scratch: Path):
    from artifactcopilot.sandbox.docker import DockerSandbox
    from artifactcopilot.sandbox.image import DEFAULT_IMAGE, EngineUnavailable, connect, image_present

    try:
        client = connect(timeout=5)
    except EngineUnavailable as exc:
        pytest.skip(f"no Docker engine can run here: {exc}")
    if not image_present(client, DEFAULT_IMAGE):
        pytest.skip(f"base image {DEFAULT_IMAGE} missing (bash .ci/setup-docker.sh builds it)")
    return DockerSandbox(scratch, Limits(**LIMITS), client=client)


class Listener:
    """A real TCP listener on 127.0.0.1 that counts the connections it accepts."""

    def __init__(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.2)
        self.port, self.accepted, self.stop = self.server.getsockname()[1], 0, False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while not self.stop:
            try:
                conn, _ = self.server.accept()
                self.accepted += 1
                conn.close()
            except OSError:
                continue

    def close(self):
        self.stop = True
        self.thread.join(2)
        self.server.close()


def tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        digest.update(path.relative_to(root).as_posix().encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["local", pytest.param("docker", marks=pytest.mark.docker)])
def test_hostile_artifact_is_contained(backend, tmp_path, monkeypatch, review):
    marker = f"copilot-hostile-{uuid.uuid4().hex[:10]}"
    listener = Listener()
    artifact = tmp_path / "artifact"
    shutil.copytree(FIXTURE / "artifact", artifact)
    (artifact / "hostile.json").write_text(json.dumps({
        "port": listener.port, "marker": marker, "host_home": str(Path.home()), "secret_names": sorted(SECRETS),
        "processes": 300, "fork_bomb": backend == "docker", "memory_gb": 6, "flood_mb": 300}))
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    before = tree_digest(artifact)
    run_dir = tmp_path / "run"
    sandbox = (docker_sandbox(tmp_path / "scratch") if backend == "docker"
               else LocalSandbox(tmp_path / "scratch", Limits(**LIMITS)))
    started = time.monotonic()
    try:
        # the offline agent: the fake OPENAI_API_KEY must not make the review call out to an LLM endpoint
        report, run_dir = review(FIXTURE / "paper.md", artifact, timeout=LIMITS["timeout_s"], sandbox=sandbox,
                                 agent=HeuristicAgent())
    finally:
        listener.close()
    assert report.status == "complete" and time.monotonic() - started < 150

    # the workflow ran and was stopped by the limits, each of them in the report
    log = next(run_dir / e.path for e in report.evidence if e.phase == "D3" and e.kind == "command")
    text = log.read_text(errors="replace")
    assert "0 secrets visible: {}" in text and "loopback: refused" in text and "external: refused" in text
    hits = [f.message for f in report.flags if f.code == "sandbox-limit"]
    for limit in ("timeout after 20s", "output cap 2000000 bytes", "memory limit 1024 MB", "process limit 200"):
        assert any(limit in hit for hit in hits), (limit, hits)
    rw3 = next(c for c in report.dimensions["D3"].checklist if c.item == "RW3")
    assert rw3.status == "violated" and "timed out" in rw3.note

    # no secret in any file the review wrote, and no connection reached the listener
    for path in run_dir.rglob("*"):
        if path.is_file():
            content = path.read_bytes()
            assert not [v for v in SECRETS.values() if v.encode() in content], path
    assert listener.accepted == 0

    # nothing outside the run directory changed, nothing keeps running
    assert tree_digest(artifact) == before
    assert not Path(f"/tmp/{marker}").exists() and not (Path.home() / marker).exists()
    assert marker not in os.popen("ps -eo args").read()
    assert not (run_dir / "sandbox").exists()
    if backend == "docker":
        from artifactcopilot.sandbox.image import LABEL

        left = sandbox.client.containers.list(all=True, sparse=True, filters={"label": f"{LABEL}=1"})
        assert not [c for c in left if str(tmp_path) in json.dumps(c.attrs.get("Mounts", []))]
