"""Crash-safe, resumable reviews: kill a real `copilot review` at several points, resume it, and
compare with an uninterrupted run. Nothing committed may change, nothing may be duplicated or
truncated, and no process may be left behind."""
from __future__ import annotations

import collections
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from artifactcopilot.evidence import EvidenceStore
from artifactcopilot.sandbox.reaper import stray_processes

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "wordfreq"
SLOW_SETUP = ("import pathlib, time\npathlib.Path('.setup-started').write_text('x')\n"
              "time.sleep(3)\nprint('environment ok')\n")


@pytest.fixture(scope="module")
def artifact(tmp_path_factory) -> Path:
    """The bundled example with a documented setup step that takes a few seconds (a kill window)."""
    dest = tmp_path_factory.mktemp("slow") / "artifact"
    shutil.copytree(EXAMPLE / "artifact", dest)
    (dest / "check_env.py").write_text(SLOW_SETUP)
    readme = dest / "README.md"
    readme.write_text(readme.read_text().replace("python3 --version\n", "python3 --version\npython3 check_env.py\n", 1))
    return dest


def start(artifact: Path, out: Path, *extra: str, crash_at: str | None = None,
          ignore_sigint: bool = False) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI")}
    if crash_at:
        env["ARTIFACTCOPILOT_CRASH_AT"] = crash_at
    # ignore_sigint: started as a non-interactive shell starts a background job (`copilot review ... &`)
    prefix = ["sh", "-c", 'trap "" INT; exec "$@"', "sh"] if ignore_sigint else []
    return subprocess.Popen([*prefix, sys.executable, "-m", "artifactcopilot.cli", "review", str(EXAMPLE / "paper.md"),
                             str(artifact), "--out", str(out), *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, stdin=subprocess.DEVNULL)


def finish(proc: subprocess.Popen) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=300)
    return proc.returncode, out, err


def wait_for(predicate, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError("condition not reached in time")


def scratch(out: Path) -> Path:
    """Where the review keeps its sandbox copies (outside the run directory); noted in working/scratch.txt."""
    note = out / "working" / "scratch.txt"
    return Path(note.read_text().strip()) if note.is_file() else out / "no-scratch-yet"


def setup_running(out: Path) -> bool:
    return any(scratch(out).glob("*/.setup-started"))


def evidence_state(out: Path) -> dict[str, tuple[str, str]]:
    store = EvidenceStore(out)
    return {e.id: (e.sha256, e.path) for e in store.all()}


def shape(out: Path) -> collections.Counter:
    return collections.Counter((e.phase, e.kind) for e in EvidenceStore(out).all())


def assert_store_sound(out: Path) -> None:
    store = EvidenceStore(out)
    records = store.all()
    assert len({r.id for r in records}) == len(records)
    for record in records:
        assert store.verify(record.id) is None, record.id  # present, full length, unchanged
    on_disk = {p.name for p in (out / "evidence").iterdir()} - {"index.jsonl"}
    assert on_disk == {Path(r.path).name for r in records}, "evidence files outside the index"
    assert store.verify_run() == []


@pytest.fixture(scope="module")
def baseline(artifact, tmp_path_factory):
    out = tmp_path_factory.mktemp("base") / "run"
    code, _, err = finish(start(artifact, out))
    assert code == 0, err
    return json.loads((out / "report.json").read_text()), shape(out)


def resume_and_compare(artifact: Path, out: Path, baseline, committed_before: dict) -> dict:
    code, _, err = finish(start(artifact, out, "--resume"))
    assert code == 0, err
    report = json.loads((out / "report.json").read_text())
    expected, expected_shape = baseline
    assert report["status"] == "complete"
    assert report["badge"] == expected["badge"] and report["badges"] == expected["badges"]
    assert ({d: v["score"] for d, v in report["dimensions"].items()}
            == {d: v["score"] for d, v in expected["dimensions"].items()})
    after = evidence_state(out)
    for ev_id, state in committed_before.items():
        assert after.get(ev_id) == state, f"committed evidence {ev_id} changed on resume"
    assert shape(out) == expected_shape, "evidence duplicated or missing compared with an uninterrupted run"
    assert_store_sound(out)
    assert stray_processes(out) == [] and stray_processes(scratch(out)) == []
    assert (out / "report.md").exists() and (out / "report.html").exists()
    return report


def committed_evidence(out: Path) -> dict:
    committed = set(EvidenceStore(out).committed_phases())
    return {k: v for k, v in evidence_state(out).items() if k.split("-")[0] in committed}


def test_sigkill_during_setup_then_resume(artifact, tmp_path, baseline):
    out = tmp_path / "run"
    proc = start(artifact, out)
    wait_for(lambda: setup_running(out))
    proc.kill()
    proc.wait()
    assert "D2" not in EvidenceStore(out).committed_phases()
    before = committed_evidence(out)
    assert before, "the gate and D1 were committed before the kill"
    resume_and_compare(artifact, out, baseline, before)
    assert list((out / "working" / "D2" / "discarded").iterdir()), "the unfinished attempt is kept for audit"


@pytest.mark.parametrize("point", ["commit:gate", "commit:D3", "report:write"])
def test_sigkill_at_crash_points_then_resume(artifact, tmp_path, baseline, point):
    out = tmp_path / "run"
    code, _, _ = finish(start(artifact, out, crash_at=point))
    assert code == -signal.SIGKILL
    before = committed_evidence(out)
    resume_and_compare(artifact, out, baseline, before)


def assert_stopped(proc: subprocess.Popen, out: Path, code: int, committed: str | None = "D1") -> None:
    """Exit 130/143 with one line saying how to resume, an incomplete report, no process and no scratch left."""
    rc, _, err = finish(proc)
    assert rc == code, err
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith(("…", "✓"))]
    assert len(lines) == 1 and "resume with: copilot review" in lines[0] and "--resume" in lines[0], err
    report = json.loads((out / "report.json").read_text())
    assert report["status"] == "incomplete"
    assert any(f["code"] == "interrupted" and (committed or "") in f["message"] for f in report["flags"])
    assert "incomplete" in (out / "report.md").read_text().lower()
    assert stray_processes(scratch(out)) == [] and not scratch(out).exists()


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_signal_stops_cleanly_with_incomplete_report(artifact, tmp_path, baseline, sig, code):
    out = tmp_path / "run"
    proc = start(artifact, out)
    wait_for(lambda: setup_running(out))
    proc.send_signal(sig)
    assert_stopped(proc, out, code)
    resume_and_compare(artifact, out, baseline, committed_evidence(out))


def local_sandbox_or_skip() -> None:
    from artifactcopilot.sandbox.bwrap import probe

    if (problem := probe()) is not None:
        pytest.skip(f"no local sandbox here: {problem}")


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_signal_inside_a_local_sandboxed_setup_command(artifact, tmp_path, sig, code):
    """The setup command runs in its own session and PID namespace: the signal reaches the review, which ends
    the command's sandbox and stops."""
    local_sandbox_or_skip()
    out = tmp_path / "run"
    proc = start(artifact, out, "--sandbox", "local")
    wait_for(lambda: setup_running(out))
    proc.send_signal(sig)
    assert_stopped(proc, out, code)


def test_sigint_stops_a_review_started_in_the_background(artifact, tmp_path):
    """A script's background job starts with SIGINT ignored (POSIX); kill -INT must still stop the review."""
    out = tmp_path / "run"
    proc = start(artifact, out, ignore_sigint=True)
    wait_for(lambda: setup_running(out))
    proc.send_signal(signal.SIGINT)
    assert_stopped(proc, out, 130)


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_signal_at_the_start_is_held_until_the_review_can_stop_cleanly(artifact, tmp_path, sig, code):
    """A signal while the review sets up (sandbox checks, before any phase) is not lost: it stops the review as soon
    as an incomplete report can be written."""
    out = tmp_path / "run"
    proc = start(artifact, out)
    wait_for(lambda: out.is_dir(), timeout=120)
    proc.send_signal(sig)
    assert_stopped(proc, out, code, committed=None)


def test_signal_between_phases(artifact, tmp_path):
    out = tmp_path / "run"
    proc = start(artifact, out)
    wait_for(lambda: (out / "packets" / "gate.json").exists())
    proc.send_signal(signal.SIGTERM)
    assert_stopped(proc, out, 143, committed="gate")


@pytest.fixture(scope="module")
def crashed(artifact, tmp_path_factory) -> Path:
    """A review killed right after D3 committed: gate, D1, D2, D3 committed."""
    out = tmp_path_factory.mktemp("crashed") / "run"
    assert finish(start(artifact, out, crash_at="commit:D3"))[0] == -signal.SIGKILL
    return out


def _append(path: Path, text: str) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(text)


def _first_evidence(out: Path, phase: str) -> Path:
    return out / next(e.path for e in EvidenceStore(out).all() if e.phase == phase)


TAMPER = {
    "changed packet": (lambda out: (out / "packets" / "D1.json").write_text(
        (out / "packets" / "D1.json").read_text().replace('"summary": "', '"summary": "Excellent. ', 1)),
        "packets/D1.json was changed after it was committed"),
    "changed evidence": (lambda out: _append(_first_evidence(out, "D1"), " "),
                         "was changed after it was recorded (hash mismatch)"),
    "added packet": (lambda out: (out / "packets" / "D4.json").write_text(json.dumps(
        {"phase": "D4", "score": "A", "summary": "all claims reproduced"})),
        "packets/D4.json is not a committed packet"),
    "added evidence": (lambda out: (out / "evidence" / "D4-099-command-run.log").write_text("accuracy 0.99\n"),
                       "evidence/D4-099-command-run.log is not a recorded evidence file"),
    "junk packet": (lambda out: (out / "packets" / "D5.json").write_bytes(b"\x89PNG\r\n junk"),
                    "packets/D5.json is not a committed packet"),
    "torn index line": (lambda out: _append(out / "evidence" / "index.jsonl", '{"id": "D4-0'),
                        "evidence/index.jsonl line"),
}


@pytest.mark.parametrize("case", sorted(TAMPER))
def test_resume_refuses_a_tampered_run_directory(artifact, crashed, tmp_path, case):
    out = tmp_path / "run"
    shutil.copytree(crashed, out, symlinks=True)
    tamper, problem = TAMPER[case]
    tamper(out)
    code, _, err = finish(start(artifact, out, "--resume"))
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2 and len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("error: cannot use run directory: ") and problem in lines[0], lines[0]
    assert lines[0].endswith("start a new review in another --out")
    assert not (out / "report.json").exists() and "D4" not in EvidenceStore(out).committed_phases()


def test_resume_refuses_other_inputs(artifact, tmp_path):
    out = tmp_path / "run"
    assert finish(start(artifact, out, crash_at="commit:gate"))[0] == -signal.SIGKILL
    proc = subprocess.run([sys.executable, "-m", "artifactcopilot.cli", "review", str(EXAMPLE / "paper.md"),
                           str(EXAMPLE / "artifact"), "--out", str(out), "--resume"], capture_output=True, text=True)
    assert proc.returncode == 2 and "not of these inputs" in proc.stderr
