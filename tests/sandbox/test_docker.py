"""Docker sandbox on a real engine: persistence between steps, limits, network, cleanup, Dockerfiles,
backend selection, and the adjudicated corpus with the same badges as the local backend."""
from __future__ import annotations

import contextlib
import json
import re
import socket
import subprocess
import sys

import pytest
from conftest import corpus_cases, load_case

from artifactcopilot.sandbox.base import Limits
from artifactcopilot.sandbox.image import DEFAULT_IMAGE, LABEL, EngineUnavailable, connect, image_present

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def client():
    try:
        engine = connect(timeout=5)
    except EngineUnavailable as exc:
        pytest.skip(f"no Docker engine can run here: {exc}")
    if not image_present(engine, DEFAULT_IMAGE):
        pytest.skip(f"base image {DEFAULT_IMAGE} missing (bash .ci/setup-docker.sh builds it)")
    return engine


def labelled(client, **filters):
    return client.containers.list(all=True, sparse=True, filters={"label": f"{LABEL}=1", **filters})


@pytest.fixture
def make(client, tmp_path):
    from artifactcopilot.sandbox.docker import DockerSandbox

    art = tmp_path / "art"
    art.mkdir()
    (art / "run.py").write_text("print('ok')\n")
    (art / "escape").symlink_to("/etc")
    opened = []

    def _make(**limits):
        sandbox = DockerSandbox(tmp_path / "scratch",
                                Limits(**{"timeout_s": 10, "memory_mb": 256, "max_processes": 64, **limits}),
                                client=client)
        session = sandbox.start(art)
        opened.append(session)
        return sandbox, session

    yield art, _make
    for session in opened:
        session.close()


def test_files_persist_between_steps_in_a_copy(make):
    art, _make = make
    sandbox, session = _make()
    first = session.run("python3 run.py > out.txt && mkdir -p res && echo 1 > res/a.txt && echo done")
    assert first.record.ok and first.record.stdout.strip() == "done"
    assert sorted(first.record.files_created) == ["out.txt", "res/a.txt"]
    second = session.run("cat ../out.txt a.txt; echo $HOME", cwd="res")
    assert second.record.stdout.split() == ["ok", "1", "/opt/copilot/home"] and second.record.cwd == "res"
    assert (session.root / "out.txt").read_text() == "ok\n"  # the host reads what the container wrote
    assert not (art / "out.txt").exists() and sandbox.dropped_links == ["escape"]


def test_no_host_variable_reaches_the_container(make, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-very-secret")
    monkeypatch.setenv("HOST_ONLY_SETTING", "host-value")
    _, _make = make
    _, session = _make()
    env = session.run("env").stdout_full.decode()
    assert "sk-very-secret" not in env and "host-value" not in env
    res = session.run("echo $MYVAR ${API_KEY:-unset}", env={"MYVAR": "given", "API_KEY": "leak"})
    assert res.record.stdout.split() == ["given", "unset"]
    mounts = session.run("cat /proc/mounts").stdout_full.decode()
    assert "docker.sock" not in mounts and " /root " not in mounts


def test_network_is_off_unless_asked_and_each_enablement_is_recorded(make):
    _, _make = make
    _, session = _make()
    off = session.run("ls /sys/class/net").record
    assert off.stdout.split() == ["lo"] and not off.network
    on = session.run("ls /sys/class/net", network=True).record
    assert "eth0" in on.stdout.split() and on.network
    assert session.run("ls /sys/class/net").record.stdout.split() == ["lo"]  # off again afterwards
    external = session.run("python3 -c \"import socket; socket.create_connection(('192.0.2.1', 80), timeout=1)\"")
    assert external.record.exit_code != 0 and "unreachable" in external.record.stderr.lower()


def test_timeout_and_stuck_commands_are_killed_with_their_children(make):
    _, _make = make
    _, session = _make(stall_s=2)
    hung = session.run("(sleep 300 &); echo started; sleep 300", timeout=30)
    assert hung.record.timed_out and hung.record.exit_code is None and hung.record.duration_s < 10
    assert any("stuck" in hit for hit in hung.record.limits_hit)
    slow = session.run("while true; do echo tick; sleep 0.5; done", timeout=3)
    assert slow.record.timed_out and slow.record.limits_hit[0].startswith("timeout after 3")
    left = session.run("cat /proc/[0-9]*/cmdline | tr '\\0' ' '").record.stdout
    assert "sleep infinity" in left and "sleep 300" not in left and "tick" not in left  # the keeper only


def test_memory_process_and_output_limits_are_recorded(make):
    _, _make = make
    _, session = _make(output_cap_bytes=1000)
    mem = session.run("python3 -c \"b = bytearray(1 << 30)\nfor i in range(0, len(b), 4096): b[i] = 1\"")
    assert mem.record.exit_code == 137 and any(h.startswith("memory limit 256 MB") for h in mem.record.limits_hit)
    forks = session.run("python3 -c \"import subprocess\nps = [subprocess.Popen(['sleep', '5']) for _ in range(100)]\"")
    assert any(h.startswith("process limit 64") for h in forks.record.limits_hit)
    loud = session.run("python3 -c \"print('x' * 100000)\"")
    assert loud.record.output_truncated and len(loud.stdout_full) == 1000
    assert session.run("echo still usable").record.ok


def test_fork_bomb_is_contained_and_the_session_recovers(make):
    _, _make = make
    _, session = _make(max_processes=100)
    bomb = session.run(":(){ :|:& };:; sleep 30", timeout=4)
    assert bomb.record.timed_out
    assert session.run("echo alive").record.stdout.strip() == "alive"


def test_containers_are_labelled_and_removed_on_close(make, client):
    _, _make = make
    sandbox, session = _make()
    fresh = sandbox.fresh(session.root.parent.parent / "art")
    session.run("echo changed > run.py")
    assert fresh.run("cat run.py").record.stdout.strip() == "print('ok')"  # a clean copy, its own container
    ids = {session.container.id, fresh.container.id}
    assert ids <= {c.id for c in labelled(client)}
    fresh.close()
    session.close()
    assert not ids & {c.id for c in labelled(client)}


def test_a_session_its_caller_dropped_is_still_closed_with_the_sandbox(client, tmp_path):
    import gc

    from artifactcopilot.sandbox.docker import DockerSandbox

    (tmp_path / "art").mkdir()
    sandbox = DockerSandbox(tmp_path / "scratch", Limits(timeout_s=10), client=client)
    name = sandbox.start(tmp_path / "art").name  # no reference to the session is kept
    gc.collect()
    sandbox.close()
    assert not client.containers.list(all=True, filters={"name": name})


def test_a_dockerfile_build_is_evidence_and_a_failed_build_is_not_a_crash(make, client):
    art, _make = make
    (art / "Dockerfile").write_text(f"FROM {DEFAULT_IMAGE}\nRUN echo built-from-artifact > /etc/artifact-marker\n")
    (art / "broken").mkdir()
    (art / "broken" / "Dockerfile").write_text(f"FROM {DEFAULT_IMAGE}\nRUN exit 3\n")
    _, session = _make()
    session.run("echo kept > step.txt")
    failed = session.build_image("broken/Dockerfile")
    assert failed.record.exit_code == 1 and "returned a non-zero code: 3" in failed.record.stderr
    built = session.build_image("Dockerfile")
    assert built.record.ok and "RUN echo built-from-artifact" in built.stdout_full.decode()
    res = session.run("cat /etc/artifact-marker step.txt")
    assert res.record.stdout.split() == ["built-from-artifact", "kept"]  # runs in the artifact's image, files kept
    tags = list(session.images)
    session.close()
    assert not [t for t in tags if any(t in i.tags for i in client.images.list())]


def test_backend_selection_and_unreachable_engine(tmp_path, client, monkeypatch):
    from artifactcopilot.review import ReviewRequest, resolve_sandbox

    req = ReviewRequest(paper=tmp_path / "p.md", artifact="a", out=tmp_path / "run", sandbox="auto")
    sandbox, flags = resolve_sandbox(req, tmp_path / "s")
    assert sandbox.name == "docker" and [f.code for f in flags] == ["sandbox-isolation"]
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    sandbox, flags = resolve_sandbox(req, tmp_path / "s")
    assert sandbox.name == "local"
    assert [f.code for f in flags] == ["sandbox-isolation", "sandbox-fallback"] and "not reachable" in flags[1].message
    paper = tmp_path / "paper.md"
    paper.write_text("# A paper\n\nText.\n")
    proc = subprocess.run([sys.executable, "-m", "artifactcopilot.cli", "review", str(paper), str(tmp_path),
                           "--sandbox", "docker", "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, check=False, timeout=120)
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("error: Docker engine not reachable") and "--sandbox local" in proc.stderr


def test_doctor_reports_engine_image_and_orphans(client, tmp_path):
    from artifactcopilot.sandbox.image import labels

    env = {"COLUMNS": "200", "PATH": "/usr/bin:/bin"}
    ok = subprocess.run([sys.executable, "-m", "artifactcopilot.cli", "doctor"],
                        capture_output=True, text=True, check=False, env=env, timeout=60)
    assert re.search(r"docker engine\s*│\s*ok", ok.stdout), ok.stdout
    assert re.search(r"base image bookworm\s*│\s*ok", ok.stdout), ok.stdout
    dead = {**labels("session"), "io.artifactcopilot.owner": f"{socket.gethostname()}:999999"}  # its review is gone
    orphan = client.containers.create(DEFAULT_IMAGE, ["true"], labels=dead, network_mode="none")
    try:
        found = subprocess.run([sys.executable, "-m", "artifactcopilot.cli", "doctor"],
                               capture_output=True, text=True, check=False, env=env, timeout=60)
        assert found.returncode == 1 and orphan.name in found.stdout and "doctor --clean" in found.stdout
        cleaned = subprocess.run([sys.executable, "-m", "artifactcopilot.cli", "doctor", "--clean"],
                                 capture_output=True, text=True, check=False, env=env, timeout=60)
        assert cleaned.returncode == 0 and "removed" in cleaned.stdout
        assert orphan.id not in {c.id for c in labelled(client)}
    finally:
        with contextlib.suppress(Exception):  # already removed by --clean
            orphan.remove(force=True)


CASES = corpus_cases()


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_corpus_gets_the_same_badges_on_docker(case, review, client, tmp_path):
    from artifactcopilot.sandbox.docker import DockerSandbox

    expected, paper, artifact = load_case(case)
    timeout = expected.get("review_timeout", 60)
    sandbox = DockerSandbox(tmp_path / "scratch", Limits(timeout_s=timeout), client=client)
    report, _ = review(paper, artifact, timeout=timeout, sandbox=sandbox)
    assert report.sandbox == "docker"
    assert report.badge == expected["badge"], expected["reason"]
    assert report.badges["reproduced"] == bool(expected.get("reproduced"))
    assert {k: v.passed for k, v in report.gate.items()} == expected["gate"]
    assert {d: (r.score.value if r.score else None) for d, r in report.dimensions.items()} == expected["dimensions"]
    assert max((i.level.value for i in report.interventions), default="I0") == expected.get("max_intervention", "I0")
    assert not [c for c in labelled(client) if str(tmp_path) in json.dumps(c.attrs.get("Mounts", []))]


@pytest.mark.parametrize("broken", [False, True], ids=["builds", "fails-to-build"])
def test_review_builds_the_artifacts_dockerfile_in_d2(broken, review, client, tmp_path):
    import shutil

    from conftest import CORPUS

    from artifactcopilot.sandbox.docker import DockerSandbox

    expected, paper, artifact = load_case(CORPUS / "functional-basic")
    art = tmp_path / "art"
    shutil.copytree(artifact, art, symlinks=True)
    (art / "Dockerfile").write_text(f"FROM {DEFAULT_IMAGE}\n"
                                    f"RUN {'exit 7' if broken else 'echo ready > /etc/env-ready'}\n")
    sandbox = DockerSandbox(tmp_path / "scratch", Limits(timeout_s=60), client=client)
    report, run_dir = review(paper, art, sandbox=sandbox)
    build = next(e for e in report.evidence if e.phase == "D2" and e.path.endswith("docker-build.log"))
    setup_ok = next(c for c in report.dimensions["D2"].checklist if c.item == "D2.setup_ok")
    if broken:  # a failed build is D2 evidence, and the review goes on
        assert "build failed" in build.summary and "returned a non-zero code: 7" in (run_dir / build.path).read_text()
        assert setup_ok.status == "violated" and build.id in setup_ok.evidence and "did not build" in setup_ok.note
        assert report.status == "complete"
    else:
        assert "-> built" in build.summary and setup_ok.status == "satisfied"
        assert report.badge == expected["badge"] and report.badges["reproduced"]
    assert not [i for i in client.images.list() if any(t.startswith("copilot-artifact/") for t in i.tags)
                and i.labels.get("io.artifactcopilot.review") == sandbox.review]
