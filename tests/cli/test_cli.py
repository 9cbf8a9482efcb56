"""The CLI as users run it: exit codes, one-line errors, no tracebacks, reports written."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jsonschema

from artifactcopilot.schemas import schema_for

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "wordfreq"


def copilot(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI")}
    return subprocess.run([sys.executable, "-m", "artifactcopilot.cli", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=300, stdin=subprocess.DEVNULL, check=False)


def assert_one_line_error(proc: subprocess.CompletedProcess, code: int, needle: str) -> None:
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and needle in lines[0], proc.stderr


def test_version_and_help():
    assert copilot("--version").stdout.startswith("copilot ")
    out = copilot("review", "-h").stdout
    for flag in ("--out", "--agent", "--sandbox", "--timeout", "--max-steps", "--max-cost", "--max-minutes", "--resume",
                 "--force", "--quiet", "--json", "Examples:", "Exit codes:"):
        assert flag in out
    for command in ("review", "batch", "repro"):
        text = copilot(command, "-h").stdout
        assert text.startswith("Usage:") and "{" not in text.split("\n")[0], text
        assert not re.search(r"<(str|path|float|int)>", text), text  # no type placeholders
    commands = copilot("-h").stdout.split("Commands:")[1]
    assert "..." not in commands  # every summary whole


def test_bundled_example_review_validates(tmp_path):
    proc = copilot("review", str(EXAMPLE / "paper.md"), str(EXAMPLE / "artifact"), "--out", str(tmp_path / "r"),
                   "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    jsonschema.validate(report, schema_for("report"))
    assert report["badge"] == "reusable" and report["badges"]["reproduced"]
    for name in ("report.json", "report.md", "report.html"):
        assert (tmp_path / "r" / name).stat().st_size > 0
    for ev in report["evidence"]:
        assert (tmp_path / "r" / ev["path"]).is_file()


def test_missing_paper_is_a_usage_error(tmp_path):
    proc = copilot("review", str(tmp_path / "nope.md"), str(EXAMPLE / "artifact"), "--out", str(tmp_path / "r"))
    assert_one_line_error(proc, 2, "nope.md")
    assert not (tmp_path / "r").exists()


def test_empty_and_binary_papers_are_usage_errors(tmp_path):
    empty = tmp_path / "empty.md"
    empty.write_text("")
    binary = tmp_path / "paper.bin"
    binary.write_bytes(bytes(range(256)) * 20)
    for paper, out, needle in ((empty, "a", "empty"), (binary, "b", "paper.bin")):
        assert_one_line_error(copilot("review", str(paper), str(EXAMPLE / "artifact"), "--out", str(tmp_path / out)), 2,
                              needle)


def test_missing_local_artifact_is_a_usage_error(tmp_path):
    proc = copilot("review", str(EXAMPLE / "paper.md"), str(tmp_path / "no-such-artifact"), "--out",
                   str(tmp_path / "r"))
    assert_one_line_error(proc, 2, f"artifact path {tmp_path / 'no-such-artifact'} does not exist")
    assert not (tmp_path / "r").exists()


def test_unreachable_file_url_completes_with_gate_failure(tmp_path):
    url = (tmp_path / "no-such-artifact").as_uri()
    proc = copilot("review", str(EXAMPLE / "paper.md"), url, "--out", str(tmp_path / "r"), "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["badge"] == "none" and report["gate"]["GC1"]["passed"] is False
    assert all(d["score"] is None for d in report["dimensions"].values())
    gc1_evidence = report["gate"]["GC1"]["evidence"][0]
    path = next(e["path"] for e in report["evidence"] if e["id"] == gc1_evidence)
    log = json.loads((tmp_path / "r" / path).read_text())
    assert "does not exist" in log["error"]
    assert any("could not be acquired" in line for line in report["not_established"])


def test_existing_run_dir_needs_resume_or_force(tmp_path):
    out = tmp_path / "r"
    url = (tmp_path / "x").as_uri()
    assert copilot("review", str(EXAMPLE / "paper.md"), url, "--out", str(out)).returncode == 0
    proc = copilot("review", str(EXAMPLE / "paper.md"), url, "--out", str(out))
    assert_one_line_error(proc, 2, "already holds a review")
    assert "--force" in proc.stderr and "--resume" in proc.stderr


def test_llm_agent_without_endpoint_is_one_line(tmp_path):
    proc = copilot("review", str(EXAMPLE / "paper.md"), str(EXAMPLE / "artifact"), "--agent", "llm", "--out",
                   str(tmp_path / "r"))
    assert proc.returncode in (1, 2) and "Traceback" not in proc.stderr
    assert len([ln for ln in proc.stderr.splitlines() if ln.strip()]) == 1


def test_hostile_filesystem_entries_do_not_break_the_review(tmp_path):
    art = tmp_path / "art"
    (art / "src").mkdir(parents=True)
    (art / "README.md").write_text("# Word frequency\n\nRun `python3 src/x.py`.\n", encoding="utf-8")
    (art / "src" / "x.py").write_text("print('identifier naming')\n")
    (art / "dangling").symlink_to(tmp_path / "missing-target")
    (art / "root-link").symlink_to("/")
    os.mkfifo(art / "fifo")
    proc = copilot("review", str(EXAMPLE / "paper.md"), str(art), "--out", str(tmp_path / "r"), "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["gate"]["GC1"]["passed"]
    assert any(f["code"] == "link-not-followed" for f in report["flags"])


def test_five_megabyte_readme(tmp_path):
    art = tmp_path / "art"
    art.mkdir()
    paragraph = "The identifier naming conventions analysis reads data. " * 20 + "\n\n"
    body = "# Identifier naming study\n\n" + paragraph * 5000
    (art / "README.md").write_text(body[: 5 * 1024 * 1024], encoding="utf-8")
    (art / "analyze.py").write_text("print('ok')\n")
    proc = copilot("review", str(EXAMPLE / "paper.md"), str(art), "--out", str(tmp_path / "r"), "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["status"] == "complete" and report["dimensions"]["D1"]["score"] is not None


def test_artifact_defaults_to_the_link_in_the_paper(tmp_path, monkeypatch):
    import socket

    with socket.socket() as sock:  # a port nothing listens on: the host is unreachable, quickly
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("ARTIFACTCOPILOT_ZENODO_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("ARTIFACTCOPILOT_HTTP_BACKOFF", "0.05")
    monkeypatch.setenv("ARTIFACTCOPILOT_CACHE_DIR", str(tmp_path / "cache"))
    paper = tmp_path / "paper.md"
    paper.write_text((EXAMPLE / "paper.md").read_text() + "\n\nThe artifact is archived at https://zenodo.org/records/4242.\n")
    proc = copilot("review", str(paper), "--out", str(tmp_path / "r"))
    assert proc.returncode == 0, proc.stderr
    assert "https://zenodo.org/records/4242" in proc.stderr and "badge: none" in proc.stdout
    assert "gate failed: the artifact could not be acquired (host unreachable)" in proc.stdout
    report = json.loads((tmp_path / "r" / "report.json").read_text())
    assert report["artifact"] == "https://zenodo.org/records/4242" and not report["gate"]["GC1"]["passed"]


def test_no_artifact_and_no_link_is_a_usage_error(tmp_path):
    proc = copilot("review", str(EXAMPLE / "paper.md"), "--out", str(tmp_path / "r"))
    assert_one_line_error(proc, 2, "names no artifact link")
