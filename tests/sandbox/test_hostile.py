"""A hostile artifact (tests/fixtures/hostile) reviewed on Docker, on the local sandbox as root and on the local
sandbox as an unprivileged user.

Its documented workflow reads the reviewer's secrets from its environment and from every process's
/proc/<pid>/environ, walks up from its working directory listing and planting files, plants a
packet and evidence in the review's run directory by its absolute path, connects to a real
listener on the host's 127.0.0.1 and to a TEST-NET address, writes into /tmp and the home folder,
leaves a daemon, starts hundreds of processes and a fork bomb, touches 6 GB against a 1 GB limit,
prints 300 MB, then sleeps forever. The review must complete, record each limit it hit, keep every
secret out of the run directory, plant nothing, change nothing outside the run directory and leave
no process or container. Without the isolation the local sandbox needs, the review refuses first.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
import uuid
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent
FIXTURE = TESTS / "fixtures" / "hostile"
DRIVER = FIXTURE / "review_driver.py"
SECRETS = {"OPENAI_API_KEY": "sk-hostile-openai-7d1f", "AWS_SECRET_ACCESS_KEY": "aws-hostile-2b9c",
           "GITHUB_TOKEN": "ghp-hostile-5e3a", "DATABASE_PASSWORD": "db-hostile-9f0d"}
LIMITS = {"timeout_s": 20, "memory_mb": 1024, "max_processes": 200, "output_cap_bytes": 2_000_000, "stall_s": None}
USER = "copilot-hostile"
"""The unprivileged account the review runs as in the unprivileged case (created when missing, kept)."""


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


def python_path() -> str:
    """The review's code and the libraries this test runs with, for the review's own process (possibly another
    interpreter of the same version, run by another user)."""
    paths = [str(REPO), *sys.path, sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]
    return os.pathsep.join(dict.fromkeys(p for p in paths if p and Path(p).is_dir()))


def _as_user(argv: list[str], env: dict[str, str]) -> list[str]:
    return ["runuser", "-u", USER, "--", "env", "-i", *[f"{k}={v}" for k, v in env.items()], *argv]


def unprivileged_python() -> str:
    """Create the unprivileged user if needed; an interpreter of this Python version it can run the review with."""
    if os.geteuid() != 0:
        pytest.skip("already unprivileged: the 'local' case runs the review as an unprivileged user")
    if not shutil.which("runuser") or not shutil.which("useradd"):
        pytest.skip("runuser/useradd not available to run the review as another user")
    def exists() -> bool:
        return subprocess.run(["id", "-u", USER], check=False, capture_output=True).returncode == 0

    if not exists():
        made = subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", USER],
                              check=False, capture_output=True, text=True)
        if not exists():
            pytest.skip(f"cannot create an unprivileged user: {made.stderr.strip()}")
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": python_path(), "HOME": "/"}
    for candidate in dict.fromkeys([sys.executable, f"/usr/bin/python{version}", f"/usr/local/bin/python{version}"]):
        probe = [candidate, "-c", "import artifactcopilot.review, sys; print(sys.version[:4])"]
        check = subprocess.run(_as_user(probe, env), check=False, capture_output=True, text=True)
        if check.returncode == 0 and check.stdout.strip() == version:
            return candidate
    pytest.skip(f"no Python {version} that user {USER} can run with this environment's libraries")


def docker_ready() -> None:
    from artifactcopilot.sandbox.image import DEFAULT_IMAGE, EngineUnavailable, connect, image_present

    try:
        client = connect(timeout=5)
    except EngineUnavailable as exc:
        pytest.skip(f"no Docker engine can run here: {exc}")
    if not image_present(client, DEFAULT_IMAGE):
        pytest.skip(f"base image {DEFAULT_IMAGE} missing (bash .ci/setup-docker.sh builds it)")


def local_ready() -> None:
    from artifactcopilot.sandbox.bwrap import probe

    if (problem := probe()) is not None:
        pytest.skip(f"no local sandbox here: {problem}")


@pytest.fixture
def base(request, tmp_path):
    """A folder for the artifact copy, the run directory, the scratch folder and HOME of the reviewing user."""
    if "unprivileged" not in request.node.name:
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="copilot-hostile-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.slow
@pytest.mark.parametrize("case", [pytest.param("docker", marks=pytest.mark.docker), "local", "local-unprivileged"])
def test_hostile_artifact_is_contained(case, base):
    backend = case.split("-")[0]
    docker_ready() if backend == "docker" else local_ready()
    python = unprivileged_python() if case == "local-unprivileged" else sys.executable
    marker = f"copilot-hostile-{uuid.uuid4().hex[:10]}"
    artifact, run_dir, scratch, home = base / "artifact", base / "run", base / "scratch", base / "home"
    shutil.copytree(FIXTURE / "artifact", artifact)
    home.mkdir()
    listener = Listener()
    (artifact / "hostile.json").write_text(json.dumps({
        "port": listener.port, "marker": marker, "host_home": str(Path.home()), "secret_names": sorted(SECRETS),
        "run_dir": str(run_dir), "processes": 300, "fork_bomb": True, "memory_gb": 6, "flood_mb": 300}))
    before = tree_digest(artifact)
    cfg = {"backend": backend, "limits": LIMITS, "scratch": str(scratch), "paper": str(FIXTURE / "paper.md"),
           "artifact": str(artifact), "out": str(run_dir)}
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": str(home),
           "XDG_CACHE_HOME": str(home / ".cache"), "PYTHONPATH": python_path(), **SECRETS,
           **{k: v for k, v in os.environ.items() if k.startswith("DOCKER_")}}
    argv = [python, str(DRIVER), json.dumps(cfg)]
    if case == "local-unprivileged":
        subprocess.run(["chown", "-R", f"{USER}:", str(base)], check=True)
        argv = _as_user(argv, env)
    started = time.monotonic()
    try:
        done = subprocess.run(argv, check=False, capture_output=True, text=True, env=env, timeout=600,
                              stdin=subprocess.DEVNULL)
    finally:
        listener.close()
    assert done.returncode == 0 and done.stdout.strip() == "complete", done.stderr[-3000:]
    assert time.monotonic() - started < 300
    report = json.loads((run_dir / "report.json").read_text())

    # the workflow ran and was stopped by the limits, each of them in the report
    log = next(run_dir / e["path"] for e in report["evidence"] if e["phase"] == "D3" and e["kind"] == "command")
    text = log.read_text(errors="replace")
    expected = ["secrets: 0 secrets visible: {}", "environ: 0 secrets in", "loopback: refused", "external: refused",
                "plant: run directory not listable", "planted 0 of 4 files"]
    if backend == "local":  # a container's own root is writable, and thrown away with it
        expected.append("planted in 0 folders outside the artifact")
    for seen in expected:
        assert seen in text, (seen, text[:3000])
    hits = [f["message"] for f in report["flags"] if f["code"] == "sandbox-limit"]
    for limit in ("timeout after 20s", "output cap 2000000 bytes", "memory limit 1024 MB", "process limit 200"):
        assert any(limit in hit for hit in hits), (limit, hits)
    rw3 = next(c for c in report["dimensions"]["D3"]["checklist"] if c["item"] == "RW3")
    assert rw3["status"] == "violated" and "timed out" in rw3["note"]

    # no secret and nothing planted in any file of the run directory; the listener was never reached
    for path in run_dir.rglob("*"):
        if path.is_file():
            content = path.read_bytes()
            assert not [v for v in SECRETS.values() if v.encode() in content], path
            assert b"PLANTED" not in content and marker not in path.name, path
    assert listener.accepted == 0

    # nothing outside the run directory changed, nothing keeps running
    assert tree_digest(artifact) == before
    for folder in (Path("/tmp"), Path.home(), Path("/"), base, base.parent, home):
        assert not (folder / marker).exists() and not (folder / f"{marker}.json").exists(), folder
    assert marker not in os.popen("ps -eo args").read()
    assert not scratch.exists() or not any(scratch.iterdir())
    if backend == "docker":
        from artifactcopilot.sandbox.image import LABEL, connect

        left = connect().containers.list(all=True, sparse=True, filters={"label": f"{LABEL}=1"})
        assert not [c for c in left if str(base) in json.dumps(c.attrs.get("Mounts", []))]


def test_without_bubblewrap_the_review_refuses_before_running_anything(tmp_path):
    """bwrap hidden from PATH: `--sandbox local` refuses in one line (exit 1), `--sandbox auto` without Docker too."""
    (tmp_path / "bin").mkdir()
    artifact = tmp_path / "artifact"
    shutil.copytree(FIXTURE / "artifact", artifact)
    (artifact / "hostile.json").write_text("{}")
    env = {"PATH": str(tmp_path / "bin"), "HOME": str(tmp_path), "DOCKER_HOST": f"unix://{tmp_path}/no-docker.sock",
           "PYTHONPATH": python_path(), **SECRETS}
    for sandbox, expected in (("local", "error: bubblewrap is not installed"),
                              ("auto", "error: no sandbox can run here")):
        out = tmp_path / f"run-{sandbox}"
        argv = [sys.executable, "-m", "artifactcopilot.cli", "review", str(FIXTURE / "paper.md"), str(artifact),
                "--out", str(out), "--sandbox", sandbox, "--agent", "heuristic"]
        done = subprocess.run(argv, check=False, capture_output=True, text=True, env=env, timeout=120,
                              stdin=subprocess.DEVNULL)
        lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
        assert done.returncode == 1 and len(lines) == 1 and lines[0].startswith(expected), done.stderr
        assert "apt-get install bubblewrap" in lines[0] and "Traceback" not in done.stderr
        assert not (out / "evidence").exists() or not any(p.name.startswith("D") for p in (out / "evidence").iterdir())
        assert not (out / "report.json").exists()
