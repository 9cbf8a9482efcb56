"""`copilot batch` on the local engine, run as users run it: real reviews in real worker processes."""
from __future__ import annotations

import json
import os
import signal
import time

import jsonschema
import pytest
from test_batch_support import (
    CASES,
    SMALL,
    alive,
    badges,
    copilot,
    corpus_row,
    descendants,
    expected_badge,
    outcomes,
    start_batch,
    write_manifest,
)

from artifactcopilot.batch.work import Job, pack_inputs, run_job_with_inputs
from artifactcopilot.resources import data_dir

SUMMARY_SCHEMA = json.loads((data_dir("schemas") / "batch-summary.schema.json").read_text())


@pytest.mark.slow
def test_corpus_batch_matches_adjudication_and_resumes(tmp_path):
    names = sorted(CASES)
    manifest = write_manifest(tmp_path / "venue.csv", names)
    out = tmp_path / "batch"
    proc = copilot("batch", str(manifest), "--out", str(out), "--workers", "2")
    assert proc.returncode == 0, proc.stderr
    assert badges(out) == {n: expected_badge(n) for n in names}
    summary = json.loads((out / "summary.json").read_text())
    jsonschema.validate(summary, SUMMARY_SCHEMA)
    assert summary["n"] == len(names) == summary["completed"] == summary["labelled"]
    assert summary["exact_match"] == 1.0 and summary["macro_f1"] == 1.0 and summary["failures"] == []
    assert summary["gate"]["functional"]["recall"] == 1.0
    assert {a["id"]: a["report"] for a in summary["artifacts"]} == {n: f"{n}/report.html" for n in names}
    for name in names:
        for part in ("report.json", "report.md", "report.html", "outcome.json"):
            assert (out / name / part).is_file()
    assert "| Badge | Exact match | Four-level badge | 100.00% |" in (out / "summary.md").read_text()
    assert not (out / ".work").exists()
    # Everything is complete: a second run skips every review and leaves them untouched.
    before = {n: (out / n / "outcome.json").stat().st_mtime_ns for n in names}
    again = copilot("batch", str(manifest), "--out", str(out))
    assert again.returncode == 0 and f"(0 now, {len(names)} already done)" in again.stdout
    assert {n: (out / n / "outcome.json").stat().st_mtime_ns for n in names} == before
    # --redo reviews again.
    redo_manifest = write_manifest(tmp_path / "one.csv", ["functional-basic"])
    redo = copilot("batch", str(redo_manifest), "--out", str(out), "--redo")
    assert redo.returncode == 0 and "(1 now, 0 already done)" in redo.stdout
    assert (out / "functional-basic" / "outcome.json").stat().st_mtime_ns != before["functional-basic"]


def test_failing_reviews_are_recorded_and_retried_on_the_next_run(tmp_path):
    empty = tmp_path / "empty.md"
    empty.write_text("")
    broken = [{"id": "empty-paper", "paper": str(empty), "artifact": str(CASES["functional-basic"] / "artifact")}]
    # hang-forever really hangs here: its commands may run an hour, longer than the whole review may take. The
    # review limit leaves functional-basic (a few seconds, even on a loaded machine) a wide margin.
    hanging = {**corpus_row("hang-forever"), "timeout": 3600}
    manifest = write_manifest(tmp_path / "m.csv", ["functional-basic"], [hanging, *broken])
    out = tmp_path / "batch"
    proc = copilot("batch", str(manifest), "--out", str(out), "--workers", "2", "--review-timeout", "30")
    assert proc.returncode == 1, proc.stderr
    assert "2 review(s) failed (error, timeout)" in proc.stderr and "Traceback" not in proc.stderr
    got = outcomes(out)
    assert got["functional-basic"]["status"] == "ok"
    assert got["hang-forever"]["kind"] == "timeout" and got["empty-paper"]["kind"] == "error"
    assert "empty" in got["empty-paper"]["message"]
    assert (out / "empty-paper" / "error.txt").is_file()
    summary = json.loads((out / "summary.json").read_text())
    assert ({(f["id"], f["kind"]) for f in summary["failures"]}
            == {("hang-forever", "timeout"), ("empty-paper", "error")})
    assert [a["id"] for a in summary["artifacts"]][:2] == ["empty-paper", "hang-forever"]  # failures first
    # The next run retries only the failures; with the corpus's 5 s command limit the hanging review completes.
    manifest = write_manifest(tmp_path / "m.csv", ["functional-basic", "hang-forever"], broken)
    again = copilot("batch", str(manifest), "--out", str(out), "--workers", "2")
    assert "(2 now, 1 already done)" in again.stdout
    got = outcomes(out)
    assert got["hang-forever"]["status"] == "ok" and got["hang-forever"]["badge"] == "available"
    assert got["empty-paper"]["status"] == "failed"


def test_max_cost_stops_scheduling_and_says_so(tmp_path):
    names = SMALL + ["available-unmapped", "non-utf8-readme"]
    out = tmp_path / "batch"
    first = write_manifest(tmp_path / "first.csv", names[:2])
    assert copilot("batch", str(first), "--out", str(out)).returncode == 0
    for name in names[:2]:  # as if an LLM reviewer had spent this much on each
        path = out / name / "outcome.json"
        path.write_text(json.dumps({**json.loads(path.read_text()), "cost_usd": 0.6}))
    manifest = write_manifest(tmp_path / "all.csv", names)
    proc = copilot("batch", str(manifest), "--out", str(out), "--max-cost", "1.0", "--workers", "1")
    assert proc.returncode == 0, proc.stderr
    assert "stopped: cost limit $1 reached ($1.2000 spent); 4 review(s) not started" in proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["stopped"] == {"reason": "max-cost", "not_started": names[2:]}
    assert summary["cost"]["total_usd"] == pytest.approx(1.2)
    assert not any((out / n).exists() for n in names[2:])
    assert "Stopped at the cost limit" in (out / "summary.md").read_text()
    done = copilot("batch", str(manifest), "--out", str(out), "--max-cost", "5")
    assert done.returncode == 0 and "(4 now, 2 already done)" in done.stdout


def _hanging(driver: int) -> list[int]:
    """The hang-forever command this batch is running, if it is running now."""
    return [pid for pid, cmd in descendants(driver).items()
            if "detect_regressions.py" in cmd and "-c" not in cmd.split()]


def _wait_for(predicate, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.05)


@pytest.mark.slow
def test_killed_driver_resumes_only_unfinished_reviews(tmp_path):
    names = ["gate-no-readme", "functional-basic", "hang-forever", "reusable-full", "available-crash", "wordfreq"]
    manifest = write_manifest(tmp_path / "m.csv", names)
    out = tmp_path / "batch"
    proc = start_batch(str(manifest), "--out", str(out), "--workers", "1")
    try:
        _wait_for(lambda: len(outcomes(out)) >= 2)  # hang-forever (5 s) is next
        _wait_for(lambda: _hanging(proc.pid), 30)
        running = _hanging(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
    done_before = outcomes(out)
    assert 2 <= len(done_before) < len(names)
    stamps = {k: (out / k / "outcome.json").stat().st_mtime_ns for k in done_before}
    _wait_for(lambda: not alive(running), 15)  # its worker went with the driver, and took the command along
    resumed = copilot("batch", str(manifest), "--out", str(out), "--workers", "1")
    assert resumed.returncode == 0, resumed.stderr
    assert f"({len(names) - len(done_before)} now, {len(done_before)} already done)" in resumed.stdout
    assert {k: (out / k / "outcome.json").stat().st_mtime_ns for k in done_before} == stamps
    assert badges(out) == {n: expected_badge(n) for n in names}
    assert not (out / ".work").exists()


def test_ctrl_c_leaves_a_consistent_directory(tmp_path):
    names = ["gate-no-readme", "hang-forever", "functional-basic", "reusable-full"]
    manifest = write_manifest(tmp_path / "m.csv", names)
    out = tmp_path / "batch"
    # local sandbox: the hanging command is then a descendant of the driver that the test can watch
    proc = start_batch(str(manifest), "--out", str(out), "--workers", "1", "--sandbox", "local")
    try:
        _wait_for(lambda: len(outcomes(out)) >= 1)
        _wait_for(lambda: _hanging(proc.pid), 30)
        running = _hanging(proc.pid)
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C does: the whole foreground group
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stderr
    assert "interrupted: 3 review(s) still to run" in stderr and "Traceback" not in stderr
    assert set(outcomes(out)) == {"gate-no-readme"}
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["gate-no-readme"]  # no half-written review
    summary = json.loads((out / "summary.json").read_text())
    assert summary["stopped"]["reason"] == "interrupted" and len(summary["stopped"]["not_started"]) == 3
    assert alive(running) == []
    resumed = copilot("batch", str(manifest), "--out", str(out), "--workers", "2")
    assert resumed.returncode == 0 and "(3 now, 1 already done)" in resumed.stdout


def test_repeat_writes_runs_and_the_stability_table(tmp_path):
    manifest = write_manifest(tmp_path / "m.csv", ["gate-no-readme", "functional-basic"])
    out = tmp_path / "batch"
    proc = copilot("batch", str(manifest), "--out", str(out), "--repeat", "2", "--workers", "2")
    assert proc.returncode == 0, proc.stderr
    assert (out / "functional-basic" / "run-2" / "report.html").is_file()
    summary = json.loads((out / "summary.json").read_text())
    jsonschema.validate(summary, SUMMARY_SCHEMA)
    assert summary["stability"]["consistent"] == 2 and summary["stability"]["divergent"] == 0
    assert summary["stability"]["failure_rate"] == 0.0 and summary["stability"]["runs"] == 4
    row = next(a for a in summary["artifacts"] if a["id"] == "functional-basic")
    assert row["runs"] == ["functional", "functional"] and row["report"] == "functional-basic/run-1/report.html"
    assert "## Stability across 2 runs" in (out / "summary.md").read_text()


def test_inputs_travel_with_the_job_when_the_worker_cannot_see_them(tmp_path):
    """What a Ray worker on another machine does: unpack the shipped paper and artifact, review, pack."""
    src = CASES["symlink-escape"]
    paper, artifact = tmp_path / "paper.md", tmp_path / "artifact"
    paper.write_text((src / "paper.md").read_text())
    os.system(f"cp -a {src / 'artifact'} {artifact}")
    inputs = pack_inputs(str(paper), str(artifact))
    job = Job(id="x", run=1, key="x", paper=str(paper), artifact=str(artifact), agent="heuristic", sandbox="local",
              timeout_s=60)
    os.rename(tmp_path, tmp_path.with_name(tmp_path.name + "-moved"))  # the driver's paths are gone
    try:
        result = run_job_with_inputs(job, inputs)
    finally:
        os.rename(tmp_path.with_name(tmp_path.name + "-moved"), tmp_path)
    assert result["outcome"]["status"] == "ok" and result["outcome"]["badge"] == expected_badge("symlink-escape")
    assert result["archive"]
