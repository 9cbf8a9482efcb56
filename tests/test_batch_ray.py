"""`copilot batch --engine ray` on a real two-node Ray cluster on 127.0.0.1 (a head and a worker node)."""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from test_batch_support import (
    CASES,
    alive,
    badges,
    copilot,
    copilot_env,
    descendants,
    expected_badge,
    outcomes,
    start_batch,
    write_manifest,
)

pytestmark = [pytest.mark.ray, pytest.mark.slow]
RAY = shutil.which("ray")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(args: list[str], log: Path) -> subprocess.Popen:
    # --block keeps `ray start` in the foreground as the parent of its daemons; the node lives in its
    # own session, so stopping it touches nothing but what this test started.
    return subprocess.Popen([RAY, "start", "--block", "--disable-usage-stats", "--node-ip-address", "127.0.0.1", *args],
                            stdout=open(log, "wb"), stderr=subprocess.STDOUT, env=copilot_env(), start_new_session=True)


def _stop(proc: subprocess.Popen) -> None:
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(wait)
            time.sleep(0.5)
        except subprocess.TimeoutExpired:
            continue


def _cpus(address: str) -> float:
    out = subprocess.run([RAY, "status", "--address", address], capture_output=True, text=True,
                         env=copilot_env(), timeout=60).stdout
    for line in out.splitlines():
        if line.strip().endswith(" CPU") and "/" in line:
            return float(line.split("/")[1].split()[0])
    return 0.0


@pytest.fixture(scope="module")
def ray_cluster():
    if RAY is None:
        pytest.skip("the `ray` command is not installed")
    temp = Path(tempfile.mkdtemp(prefix="rt", dir="/tmp"))  # short: Ray's socket paths must fit in 107 bytes
    port = _free_port()
    address = f"127.0.0.1:{port}"
    head = _start(["--head", "--port", str(port), "--num-cpus", "1", "--include-dashboard", "false",
                   "--dashboard-agent-listen-port", str(_free_port()),
                   "--temp-dir", str(temp)], temp.with_suffix(".head.log"))
    nodes = [head]
    try:
        deadline = time.monotonic() + 240  # slow to register on a loaded 2-core machine
        while _cpus(address) < 1:
            assert head.poll() is None and time.monotonic() < deadline, (
                temp.with_suffix(".head.log").read_text()[-2000:])
            time.sleep(1)
        worker = _start(["--address", address, "--num-cpus", "1", "--dashboard-agent-listen-port", str(_free_port())],
                        temp.with_suffix(".worker.log"))
        nodes.append(worker)
        while _cpus(address) < 2:
            assert worker.poll() is None and time.monotonic() < deadline, (
                temp.with_suffix(".worker.log").read_text()[-2000:])
            time.sleep(1)
        yield address, [n.pid for n in nodes]
    finally:
        for node in reversed(nodes):
            _stop(node)
        shutil.rmtree(temp, ignore_errors=True)


def test_ray_batch_gives_the_same_badges_as_the_adjudication(ray_cluster, tmp_path):
    address, _ = ray_cluster
    names = sorted(CASES)  # hang-forever keeps its 5 s command limit from the manifest
    manifest = write_manifest(tmp_path / "venue.csv", names)
    out = tmp_path / "batch"
    proc = copilot("batch", str(manifest), "--out", str(out), "--engine", "ray", "--address", address, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert badges(out) == {n: expected_badge(n) for n in names}
    got = outcomes(out)
    assert {o["engine"] for o in got.values()} == {"ray"}
    assert len({o["pid"] for o in got.values()}) >= 2  # both nodes took reviews
    summary = json.loads((out / "summary.json").read_text())
    assert summary["exact_match"] == 1.0 and summary["completed"] == len(names)
    for name in names:  # each run directory came back whole through the object store
        report = json.loads((out / name / "report.json").read_text())
        for ev in report["evidence"]:
            assert (out / name / ev["path"]).is_file()


def _session_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[3])


def _review_worker_running(nodes: list[int], marker: str) -> tuple[int, list[int]] | None:
    """(pid of a Ray worker of this cluster whose review runs `marker`, pids of that command).
    Ray daemonises its processes, but they stay in the session of the `ray start` that made them."""
    for entry in Path("/proc").iterdir():
        try:
            if not entry.name.isdigit() or _session_of(int(entry.name)) not in nodes:
                continue
            if not (entry / "cmdline").read_bytes().startswith(b"ray::_review_task"):
                continue
        except (OSError, IndexError, ValueError):
            continue
        commands = [p for p, c in descendants(int(entry.name)).items() if marker in c]
        if commands:
            return int(entry.name), commands
    return None


def test_ray_retries_a_review_whose_worker_is_lost(ray_cluster, tmp_path):
    address, nodes = ray_cluster
    manifest = write_manifest(tmp_path / "m.csv", ["hang-forever", "functional-basic"])
    out = tmp_path / "batch"
    proc = start_batch(str(manifest), "--out", str(out), "--engine", "ray", "--address", address)
    leaked: list[int] = []
    try:
        deadline = time.monotonic() + 120
        found = None
        while found is None:
            assert proc.poll() is None and time.monotonic() < deadline, "the hanging review never started"
            found = _review_worker_running(nodes, "detect_regressions.py")
            time.sleep(0.1)
        worker_pid, leaked = found
        os.kill(worker_pid, signal.SIGKILL)  # the worker process dies mid-review
        _, stderr = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        for pid in alive(leaked):  # the killed worker's sandboxed command has no one left to stop it
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    assert proc.returncode == 0, stderr
    got = outcomes(out)
    assert got["hang-forever"]["status"] == "ok" and got["hang-forever"]["badge"] == "available"
    assert got["hang-forever"]["pid"] != worker_pid  # Ray ran it again in another worker
    assert got["functional-basic"]["badge"] == "functional"


def test_unreachable_cluster_is_one_line(tmp_path):
    manifest = write_manifest(tmp_path / "m.csv", ["gate-no-readme"])
    proc = copilot("batch", str(manifest), "--out", str(tmp_path / "o"), "--engine", "ray",
                   "--address", f"127.0.0.1:{_free_port()}")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert [ln for ln in proc.stderr.splitlines() if ln.strip()] == [
        next(ln for ln in proc.stderr.splitlines() if "no Ray cluster answers" in ln)]
