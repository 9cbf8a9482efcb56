"""`copilot review` as a user meets it: usage errors at once (exit 2, one line), reasons for an artifact that
could not be fetched, --force, the resume command after Ctrl-C, plain progress lines and --json."""
from __future__ import annotations

import json
import os
import shlex
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli import EXAMPLE, assert_one_line_error, copilot

HEAVY = ("langgraph", "langchain", "artifactcopilot.review", "artifactcopilot.graph")


def slow_artifact(root: Path, ticks: int = 3) -> tuple[Path, Path]:
    """A paper and an artifact whose documented command prints one tick a second."""
    art = root / "ticks"
    art.mkdir(parents=True)
    (art / "README.md").write_text("# Tick counter\n\nCounts identifier ticks.\n\n## Usage\n\nRun the experiment:\n\n"
                                   "```\nsh run.sh\n```\n\nIt prints one tick per second, then the table.\n")
    (art / "run.sh").write_text(f"for i in $(seq 1 {ticks}); do echo \"tick $i\"; sleep 1; done\n"
                                "echo '| Project | Ticks |'\necho '|---|---|'\necho '| demo | 3 |'\n")
    paper = root / "paper.md"
    paper.write_text("# Counting identifier ticks\n\nTable 1: Ticks per project\n\n| Project | Ticks |\n|---|---|\n"
                     "| demo | 3 |\n")
    return paper, art


def test_usage_errors_answer_before_the_review_machinery_loads(tmp_path):
    paper = str(EXAMPLE / "paper.md")
    cases = [(["--timeout", "-5"], "--timeout must be a positive number of seconds, not -5"),
             (["--max-steps", "0"], "--max-steps must be a positive number"),
             (["--max-cost", "-1"], "--max-cost must not be negative"),
             (["--max-minutes", "0"], "--max-minutes must be a positive number of minutes"),
             (["--agent", "gpt"], "unknown agent 'gpt'"),
             (["--sandbox", "vm"], "unknown sandbox 'vm'"),
             (["--resume", "--force"], "--resume and --force exclude each other")]
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI")}
    for extra, needle in cases:
        proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "artifactcopilot.cli", "review", paper,
                               str(EXAMPLE / "artifact"), "--out", str(tmp_path / "r"), *extra],
                              capture_output=True, text=True, env=env, timeout=120, stdin=subprocess.DEVNULL,
                              check=False)
        assert proc.returncode == 2, (extra, proc.stderr[-500:])
        errors = [ln for ln in proc.stderr.splitlines() if not ln.startswith("import time:")]
        assert len(errors) == 1 and needle in errors[0], (extra, errors)
        loaded = {ln.split("|")[-1].strip() for ln in proc.stderr.splitlines() if ln.startswith("import time:")}
        assert not [m for m in loaded if m.startswith(HEAVY)], (extra, sorted(m for m in loaded if m.startswith(HEAVY)))
    assert not (tmp_path / "r").exists()


def test_out_that_is_a_file_is_a_usage_error(tmp_path):
    target = tmp_path / "notes.txt"
    target.write_text("mine")
    proc = copilot("review", str(EXAMPLE / "paper.md"), str(EXAMPLE / "artifact"), "--out", str(target))
    assert_one_line_error(proc, 2, f"--out {target} is a file, not a folder")
    assert target.read_text() == "mine"


def test_missing_paper_names_it(tmp_path):
    proc = copilot("review", str(tmp_path / "paper.pdf"), str(EXAMPLE / "artifact"), "--out", str(tmp_path / "r"))
    assert_one_line_error(proc, 2, "paper.pdf")


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("kind", ["corrupt-zip", "unreachable-host"])
def test_unfetchable_artifacts_say_why_on_the_console(tmp_path, monkeypatch, kind):
    monkeypatch.setenv("ARTIFACTCOPILOT_HTTP_BACKOFF", "0.05")
    monkeypatch.setenv("ARTIFACTCOPILOT_CACHE_DIR", str(tmp_path / "cache"))
    broken = tmp_path / "artifact.zip"
    broken.write_bytes(b"PK\x03\x04 this is not a zip archive")
    artifact, cause, advice = {"corrupt-zip": (str(broken), "(archive error)", "unzip -t"),
                               "unreachable-host": (f"http://127.0.0.1:{_closed_port()}/artifact.zip",
                                                    "(host unreachable)", "network access")}[kind]
    out = tmp_path / "r"
    proc = copilot("review", str(EXAMPLE / "paper.md"), artifact, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("badge: none  confidence: ")
    assert lines[1].startswith("gate failed: the artifact could not be acquired " + cause), lines
    assert lines[2].startswith("what to do:") and advice in lines[2]
    first = (out / "report.md").read_text().split("\n- **Paper:**")[0]
    assert "The artifact could not be acquired " + cause in first
    report = json.loads((out / "report.json").read_text())
    assert report["confidence"] < 0.9 and advice in " ".join(report["next_badge"])
    assert not any("Publish the artifact" in tip for tip in report["next_badge"])


def test_force_replaces_a_run_directory_and_nothing_else(tmp_path):
    url, out = (tmp_path / "gone").as_uri(), tmp_path / "r"
    assert copilot("review", str(EXAMPLE / "paper.md"), url, "--out", str(out)).returncode == 0
    first = json.loads((out / "run.json").read_text())["run_id"]
    (out / "stale.txt").write_text("from the first run")
    proc = copilot("review", str(EXAMPLE / "paper.md"), url, "--out", str(out), "--force")
    assert proc.returncode == 0, proc.stderr
    assert json.loads((out / "run.json").read_text())["run_id"] != first and not (out / "stale.txt").exists()
    mine = tmp_path / "thesis"
    mine.mkdir()
    (mine / "chapter1.tex").write_text("precious")
    proc = copilot("review", str(EXAMPLE / "paper.md"), url, "--out", str(mine), "--force")
    assert_one_line_error(proc, 2, "is not a review's run directory")
    assert (mine / "chapter1.tex").read_text() == "precious"


def _example(tmp_path, *extra):
    return copilot("review", str(EXAMPLE / "paper.md"), str(EXAMPLE / "artifact"), "--out", str(tmp_path / "r"),
                   "--sandbox", "local", *extra)


def test_plain_progress_lines_off_a_terminal(tmp_path):
    proc = _example(tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert lines[0] == "… Availability gate" and lines[1].startswith("✓ Availability gate: passed (")
    assert any(ln.startswith("✓ D3 execution: A (") for ln in lines) and lines[-1] == "… writing the report"
    assert all(ln[0] in "…✓!✗↻" for ln in lines), lines  # one line per phase event: nothing else in a log
    assert "\x1b[" not in proc.stderr  # no terminal control codes in a pipe
    assert proc.stdout.startswith("badge: reusable") and "evidence: E3" in proc.stdout


def test_json_prints_only_json(tmp_path):
    as_json = _example(tmp_path, "--json")
    assert as_json.returncode == 0 and as_json.stderr == ""
    assert json.loads(as_json.stdout)["badge"] == "reusable"


def test_interrupted_review_prints_a_resume_command_with_every_option(tmp_path):
    paper, art = slow_artifact(tmp_path, ticks=2)
    out = tmp_path / "r"
    args = [str(paper), str(art), "--out", str(out), "--sandbox", "local", "--timeout", "99", "--max-minutes", "5",
            "--max-steps", "7", "--cache-dir", str(tmp_path / "cache")]
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI")}
    proc = subprocess.Popen([sys.executable, "-m", "artifactcopilot.cli", "review", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, stdin=subprocess.DEVNULL)
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if line.startswith("… D3 execution"):  # gate, D1 and D2 are committed: a review worth resuming
            proc.send_signal(signal.SIGINT)
            break
    _, rest = proc.communicate(timeout=300)
    assert proc.returncode == 130, "".join(seen) + rest
    assert "Traceback" not in rest
    line = next(ln for ln in rest.splitlines() if "resume with:" in ln)
    command = shlex.split(line.split("resume with: ", 1)[1])
    for option in (["--resume"], ["--sandbox", "local"], ["--agent", "heuristic"], ["--timeout", "99"],
                   ["--max-minutes", "5"], ["--max-steps", "7"], ["--cache-dir", str(tmp_path / "cache")],
                   ["--out", str(out)]):
        assert any(command[i:i + len(option)] == option for i in range(len(command))), (option, command)
    assert command[:2] == ["copilot", "review"]
    resumed = copilot(*command[1:])
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads((out / "report.json").read_text())["status"] == "complete"
