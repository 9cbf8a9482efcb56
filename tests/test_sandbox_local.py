"""Local sandbox: scratch copy, secrets stripped, timeouts kill the group, output capped."""
from __future__ import annotations

import os
import time

from artifactcopilot.sandbox.base import Limits
from artifactcopilot.sandbox.local import LocalSandbox


def make(tmp_path, **limits):
    art = tmp_path / "art"
    art.mkdir()
    (art / "run.py").write_text("print('ok')\n")
    (art / "escape").symlink_to("/etc")
    sandbox = LocalSandbox(tmp_path / "scratch", Limits(**{"timeout_s": 5, **limits}))
    return art, sandbox, sandbox.start(art)


def test_runs_in_a_copy_and_reports_created_files(tmp_path):
    art, sandbox, session = make(tmp_path)
    res = session.run("python3 run.py > out.txt && echo done")
    assert res.record.ok and res.record.stdout.strip() == "done"
    assert res.record.files_created == ["out.txt"]
    assert not (art / "out.txt").exists()  # the original artifact is untouched
    assert sandbox.dropped_links == ["escape"]
    session.close()


def test_host_secrets_never_reach_the_command(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-very-secret")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-secret")
    _, _, session = make(tmp_path)
    res = session.run("env")
    assert "sk-very-secret" not in res.stdout_full.decode() and "ghp-secret" not in res.stdout_full.decode()
    res = session.run("echo $MYVAR; echo ${API_KEY:-unset}", env={"MYVAR": "given", "API_KEY": "leak"})
    assert res.record.stdout.split() == ["given", "unset"]
    session.close()


def test_timeout_kills_the_whole_group(tmp_path):
    _, _, session = make(tmp_path)
    marker = f"sleep-{os.getpid()}-{time.time_ns()}"
    res = session.run(f"(exec -a {marker} sleep 300 &) ; sleep 300", timeout=1)
    assert res.record.timed_out and res.record.exit_code is None
    assert res.record.duration_s < 10
    time.sleep(0.2)
    assert marker not in os.popen("ps -eo args").read()
    session.close()


def test_output_is_capped(tmp_path):
    _, _, session = make(tmp_path, output_cap_bytes=1000)
    res = session.run("python3 -c \"print('x' * 100000)\"")
    assert res.record.output_truncated and len(res.stdout_full) == 1000
    assert any("output cap" in hit for hit in res.record.limits_hit)
    session.close()


def test_network_is_off_by_default(tmp_path):
    import socket

    import pytest

    _, sandbox, session = make(tmp_path)
    if not sandbox.netns:
        pytest.skip("this kernel does not allow a private network namespace (unshare -n)")
    server = socket.create_server(("127.0.0.1", 0))  # a real listener the artifact must not reach
    port = server.getsockname()[1]
    probe = f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2); print('reached')\""
    try:
        assert session.run(probe).record.exit_code != 0
        assert session.run(probe, network=True).record.stdout.strip() == "reached"
    finally:
        server.close()
        session.close()
