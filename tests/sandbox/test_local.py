"""Local sandbox (bubblewrap): what a command sees, what it may change, and the limits it runs under."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from artifactcopilot.sandbox import bwrap
from artifactcopilot.sandbox.base import ENV_ROOT, Limits
from artifactcopilot.sandbox.local import BACKEND, LocalSandbox
from artifactcopilot.sandbox.reaper import reap, stray_processes
from artifactcopilot.sandbox.registry import SandboxOptions, SandboxUnavailable, open_sandbox

pytestmark = pytest.mark.skipif(bwrap.probe() is not None, reason=f"no local sandbox here: {bwrap.probe()}")


@pytest.fixture
def make(tmp_path):
    sandboxes = []

    def _make(**limits):
        art = tmp_path / "art"
        art.mkdir(exist_ok=True)
        (art / "run.py").write_text("print('ok')\n")
        if not (art / "escape").is_symlink():
            (art / "escape").symlink_to("/etc")
        sandbox = LocalSandbox(tmp_path / "scratch", Limits(**{"timeout_s": 30, **limits}))
        sandboxes.append(sandbox)
        return art, sandbox, sandbox.start(art)

    yield _make
    for sandbox in sandboxes:
        sandbox.close()


def alive(marker: str) -> bool:
    return marker in os.popen("ps -eo args").read()


def test_runs_in_a_copy_at_the_same_path_as_docker(make):
    art, sandbox, session = make()
    res = session.run("python3 run.py > out.txt && pwd && echo $HOME $TMPDIR")
    assert res.record.ok, res.record.stderr
    assert res.record.stdout.split() == ["/artifact", f"{ENV_ROOT}/home", "/tmp"]  # TMPDIR is /tmp in both backends
    assert res.record.files_created == ["out.txt"] and (session.root / "out.txt").is_file()
    assert not (art / "out.txt").exists()  # the original artifact is untouched
    assert sandbox.dropped_links == ["escape"]
    assert session.run("pwd", cwd="sub").record.stdout.strip() == "/artifact"  # no such folder: the copy's root


def test_environment_folder_persists_across_commands_of_a_session_only(make, tmp_path):
    art, sandbox, session = make()
    setup = session.run(f"python3 -m venv --without-pip {ENV_ROOT}/venv && echo cached > $HOME/state "
                        "&& echo t > $TMPDIR/t")
    assert setup.record.ok, setup.record.stderr
    later = session.run(f"{ENV_ROOT}/venv/bin/python -c 'import sys; print(sys.prefix)'; cat $HOME/state")
    assert later.record.stdout.split() == [f"{ENV_ROOT}/venv", "cached"]
    assert setup.record.files_created == []  # the environment lives outside the artifact copy
    assert not str(session.env_dir).startswith(str(session.root))
    fresh = sandbox.fresh(art)
    assert fresh.run("ls $HOME; ls /opt/copilot/venv").record.stdout.strip() == ""


def test_host_secrets_never_reach_the_command(make, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-very-secret")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-secret")
    _, _, session = make()
    res = session.run("env; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'")
    assert "sk-very-secret" not in res.stdout_full.decode() and "ghp-secret" not in res.stdout_full.decode()
    res = session.run("echo $MYVAR; echo ${API_KEY:-unset}", env={"MYVAR": "given", "API_KEY": "leak"})
    assert res.record.stdout.split() == ["given", "unset"]


def test_only_its_own_processes_are_visible(make):
    _, _, session = make()
    res = session.run(f"ls /proc | grep -E '^[0-9]+$' | wc -l; cat /proc/1/comm; "
                      f"test -e /proc/{os.getpid()} || echo hidden")
    count, init, hidden = res.record.stdout.split()
    assert int(count) < 10 and init == "bwrap" and hidden == "hidden"


def test_host_is_read_only_and_the_reviewers_folders_are_not_visible(make, tmp_path):
    _, _, session = make()
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "packets").mkdir()
    home = Path.home()
    script = (f"touch /usr/x /etc/x / 2>/dev/null; for p in /usr/x /etc/x; do test -e $p && echo wrote $p; done; "
              f"touch /x 2>/dev/null && echo wrote-root; "
              f"ls -A {tmp_path}/run 2>/dev/null && echo sees-run; "
              f"ls -A {home} 2>/dev/null | head -1 | grep . && echo sees-home; "
              f"ls -A /root 2>/dev/null | grep -q . && echo sees-root; test -e /run/docker.sock && echo sees-docker; "
              f"test -e /etc/shadow && test -s /etc/shadow && echo sees-shadow; "
              f"ls -A /tmp | grep -q . && echo tmp-not-fresh; "
              f"touch /tmp/a /dev/shm/a /var/tmp/a && echo scratch-ok")
    res = session.run(script)
    assert res.record.stdout.split() == ["scratch-ok"], res.record.stdout


def test_multiprocessing_works(make):
    _, _, session = make()
    code = ("import multiprocessing as mp\nif __name__ == '__main__':\n"
            "    with mp.Pool(2) as p: print(sum(p.map(abs, [-1, -2])))\n"
            "    q = mp.Queue(); q.put(4); print(q.get())\n")
    (session.root / "mp.py").write_text(code)
    res = session.run("python3 mp.py")
    assert res.record.ok and res.record.stdout.split() == ["3", "4"], res.record.stderr


def test_network_is_off_unless_asked_for_and_recorded(make):
    """With network on, a step has a network (recorded); the reviewer's own loopback services stay out of reach
    where the sandbox keeps the step in a network of its own (a user-mode network, or only the relayed proxy), and
    are reachable only where it shares the host's network, which it then says."""
    from artifactcopilot.sandbox.usernet import HOST

    _, sandbox, session = make()
    server = socket.create_server(("127.0.0.1", 0))  # a real listener on the host's loopback
    port = server.getsockname()[1]
    probe = (f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2); "
             "print('reached')\"")
    try:
        off = session.run(probe)
        assert off.record.exit_code != 0 and not off.record.network
        on = session.run(probe, network=True)
        assert on.record.network
        if sandbox.net_mode == HOST:
            assert on.record.stdout.strip() == "reached" and "loopback services are reachable" in sandbox.network_note()
        else:
            assert on.record.exit_code != 0 and "loopback" in sandbox.network_note()
    finally:
        server.close()


def test_timeout_kills_the_whole_tree_daemons_included(make):
    _, _, session = make()
    marker = f"sleep-{uuid.uuid4().hex[:8]}"
    res = session.run(f"(setsid bash -c 'exec -a {marker} sleep 300' &) ; sleep 300", timeout=1)
    assert res.record.timed_out and res.record.exit_code is None
    assert res.record.duration_s < 15 and any("timeout after 1s" in n for n in res.record.limits_hit)
    assert not alive(marker)


def test_a_daemon_does_not_outlive_its_command(make):
    _, _, session = make()
    marker = f"daemon-{uuid.uuid4().hex[:8]}"
    res = session.run(f"(setsid nohup bash -c 'exec -a {marker} sleep 300' >/dev/null 2>&1 &); echo started")
    assert res.record.ok and res.record.stdout.strip() == "started"
    assert not alive(marker)


def test_output_is_capped_and_a_silent_command_is_stuck(make):
    _, _, session = make(output_cap_bytes=1000, stall_s=1.0)
    res = session.run("python3 -c \"print('x' * 100000)\"")
    assert res.record.output_truncated and len(res.stdout_full) == 1000
    assert any("output cap" in hit for hit in res.record.limits_hit)
    stuck = session.run("echo begin; sleep 60")
    assert stuck.record.timed_out and any(n.startswith("stuck") for n in stuck.record.limits_hit)


def test_memory_process_and_file_limits(make):
    _, _, session = make(memory_mb=256, max_processes=40, max_file_mb=1)
    mem = session.run("python3 -c \"b = bytearray(1 << 30)\"")
    assert mem.record.exit_code != 0 and any("memory limit 256 MB" in n for n in mem.record.limits_hit)
    procs = session.run("for i in $(seq 80); do sleep 1 & done; wait")
    assert any("process limit 40" in n for n in procs.record.limits_hit), procs.record
    big = session.run("head -c 3000000 /dev/zero > big.bin")
    assert big.record.exit_code != 0 and any("file size limit 1 MB" in n for n in big.record.limits_hit)


def test_phase_budget_is_shared_by_the_commands_of_a_phase(make):
    _, _, session = make(phase_budget_s=1.0)
    session.set_phase("D3")
    first = session.run("sleep 30")
    assert first.record.timed_out and any("phase budget" in n for n in first.record.limits_hit)
    second = session.run("echo never")
    assert second.record.exit_code is None and "exhausted; not run" in second.record.limits_hit[0]
    session.set_phase("D4")
    assert session.run("echo runs").record.ok


class Stop(BaseException):
    pass


def test_an_exception_mid_command_leaves_nothing_running(make):
    """A signal handler raising in the review (Ctrl-C, SIGTERM) ends the command's whole sandbox on the way out."""
    _, _, session = make()
    marker = f"inner-{uuid.uuid4().hex[:8]}"

    def raise_stop(signum, frame):
        raise Stop()

    previous = signal.signal(signal.SIGUSR1, raise_stop)
    timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGUSR1))
    try:
        timer.start()
        with pytest.raises(Stop):
            session.run(f"bash -c 'exec -a {marker} sleep 300' & wait")
    finally:
        timer.cancel()
        signal.signal(signal.SIGUSR1, previous)
    assert not alive(marker) and not session._live


HOLDER = """
import sys
from pathlib import Path
from artifactcopilot.sandbox.base import Limits
from artifactcopilot.sandbox.local import LocalSandbox
session = LocalSandbox(Path(sys.argv[1]), Limits(timeout_s=300)).start(Path(sys.argv[2]))
print(session.run(sys.argv[3]).record.exit_code, flush=True)
"""


def _hold(tmp_path, marker: str) -> subprocess.Popen:
    """A review-like process running a command that leaves a daemon and then sleeps; returns once both run."""
    art = tmp_path / "art"
    art.mkdir()
    script = f"(setsid bash -c 'exec -a {marker}-daemon sleep 300' &); exec -a {marker}-main sleep 300"
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path / "scratch"), str(art), script],
                            stdout=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not (alive(f"{marker}-daemon") and alive(f"{marker}-main")):
        assert time.monotonic() < deadline and proc.poll() is None, "the command never started"
        time.sleep(0.1)
    return proc


def _gone(marker: str, within: float = 20.0) -> bool:
    deadline = time.monotonic() + within
    while alive(marker):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def test_a_review_killed_with_sigkill_leaves_no_sandbox_behind(tmp_path):
    marker = f"held-{uuid.uuid4().hex[:8]}"
    proc = _hold(tmp_path, marker)
    proc.kill()  # no clean-up runs: the sandbox dies with its parent
    proc.wait()
    assert _gone(marker)
    assert stray_processes(tmp_path / "scratch") == []


def test_the_reaper_ends_a_sandbox_whose_review_is_gone(tmp_path):
    marker = f"reaped-{uuid.uuid4().hex[:8]}"
    proc = _hold(tmp_path, marker)
    try:
        assert stray_processes(tmp_path / "scratch"), "the sandbox is found by its folder"
        assert reap(tmp_path / "scratch")
        assert _gone(marker)
        assert proc.communicate(timeout=60)[0].strip() in ("-9", "137")  # the command was killed
    finally:
        proc.kill()
        proc.wait()


def test_enforcement_is_what_the_sandbox_does(make):
    _, sandbox, _ = make()
    held = sandbox.enforcement()
    assert held.missing() == []
    described = held.describe()
    assert "pid namespace" in described and "network isolated" in described and "read only host" in described
    if os.geteuid() == 0 and sandbox.cgroups.get("memory"):
        assert "memory cgroup" in described


def test_doctor_says_what_works_and_clears_cgroups_of_reviews_that_are_gone():
    rows = {name: (status, detail) for name, status, detail in BACKEND.doctor(SandboxOptions())}
    status, detail = rows["local: bubblewrap sandbox"]
    assert status == "ok" and "PID, network and user namespaces" in detail
    from artifactcopilot.sandbox import cgroup

    parent = cgroup.parents().get("pids")
    if os.geteuid() != 0 or parent is None or not os.access(parent, os.W_OK):
        pytest.skip("leftover command cgroups need root and a writable pids hierarchy")
    dead = subprocess.Popen(["true"])
    dead.wait()  # a pid that no longer runs: the owner of a review killed with SIGKILL
    left = parent / f"{cgroup.PREFIX}{dead.pid}-{time.time_ns()}"
    left.mkdir()
    try:
        rows = {name: (status, detail) for name, status, detail in BACKEND.doctor(SandboxOptions())}
        assert rows["local: leftover cgroups"][0] == "warn" and "doctor --clean" in rows["local: leftover cgroups"][1]
        rows = {name: (status, detail) for name, status, detail in BACKEND.doctor(SandboxOptions(), clean=True)}
        assert rows["local: leftover cgroups"][1].startswith("removed") and not left.exists()
    finally:
        if left.exists():
            left.rmdir()


def test_without_bubblewrap_the_backend_refuses_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing on PATH: no bwrap
    problem = BACKEND.check(SandboxOptions())
    assert problem and "\n" not in problem and problem.startswith("bubblewrap is not installed")
    assert "--sandbox docker" in problem
    with pytest.raises(SandboxUnavailable, match="bubblewrap is not installed"):
        LocalSandbox(tmp_path / "scratch")
    with pytest.raises(SandboxUnavailable):
        open_sandbox("local", SandboxOptions(scratch=tmp_path / "s"))
    assert not (tmp_path / "s").exists() or not any((tmp_path / "s").iterdir())
