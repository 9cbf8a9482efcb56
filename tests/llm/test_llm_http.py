"""The real HTTP path: `copilot review --agent llm` as a subprocess, ChatOpenAI talking to an
OpenAI-compatible server on 127.0.0.1 that answers with scripted tool calls and usage fields."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from llm_support import CarefulReviewer, FakeOpenAI

from artifactcopilot.llm.settings import load_prices, price_for

ROOT = Path(__file__).resolve().parents[2]
PAPER = ROOT / "examples" / "wordfreq" / "paper.md"
ARTIFACT = ROOT / "examples" / "wordfreq" / "artifact"
PER_CALL_USD = (1000 * 0.15 + 100 * 0.60) / 1e6  # gpt-4o-mini, 1000 prompt + 100 completion tokens


def copilot(
    out: Path, *args: str, base_url: str, agent: str = "llm", timeout: float = 240
) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "COPILOT_LLM_"))}
    env.update(OPENAI_BASE_URL=base_url, OPENAI_API_KEY="test-key", COPILOT_LLM_BACKOFF_S="0.01")
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "artifactcopilot.cli",
            "review",
            str(PAPER),
            str(ARTIFACT),
            "--out",
            str(out),
            "--agent",
            agent,
            "--model",
            "gpt-4o-mini",
            "--json",
            *args,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        cwd=ROOT,
        check=False,
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_review_over_http_retries_rate_limits_and_server_errors_and_reports_cost(tmp_path):
    with FakeOpenAI(CarefulReviewer(), errors=[429, 503]) as server:
        proc = copilot(tmp_path / "run", base_url=server.url)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["agent"] == "llm" and report["badge"] == "reusable" and report["badges"]["reproduced"]
    answered = len(server.requests) - 2  # the 429 and the 503 were retried, not answered
    assert report["cost"]["llm_calls"] == answered > 12
    assert report["cost"]["tokens"] == 1100 * answered
    assert report["cost"]["usd"] == pytest.approx(answered * PER_CALL_USD, rel=1e-3)
    # the requests were real OpenAI chat requests: the phase's tools, with submit_packet taking the packet schema
    first = server.requests[0]
    names = [t["function"]["name"] for t in first["tools"]]
    assert names == [
        "acquire_artifact",
        "list_files",
        "locate_entry",
        "read_file",
        "paper_terms",
        "record_evidence",
        "submit_packet",
        # what every phase may read, a page at a time
        "read_paper",
        "read_evidence",
        "explain",
    ]
    schema = first["tools"][6]["function"]["parameters"]
    assert {"checklist", "evidence", "evidence_level", "gate", "summary"} <= set(schema["properties"])
    assert first["temperature"] == 0 and first["seed"] == 7
    retries = [
        json.loads(line)
        for line in (tmp_path / "run" / "transcripts" / "gate-1.jsonl").read_text().splitlines()
        if '"retry"' in line
    ]
    assert [r["status"] for r in retries] == [429, 503]


def test_a_review_stopped_by_the_cost_limit_still_writes_a_complete_flagged_report(tmp_path):
    with FakeOpenAI(CarefulReviewer()) as server:
        proc = copilot(tmp_path / "run", "--max-cost", "0.002", base_url=server.url)
        sent = len(server.requests)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["status"] == "complete"
    assert set(report["dimensions"]) == {"D1", "D2", "D3", "D4", "D5"}
    limited = [f["phase"] for f in report["flags"] if f["code"] == "llm-cost-limit"]
    assert limited and "D5" in limited
    # the limit is a failure of the review, not a verdict: those phases are not established (no score, no R)
    assert all(report["dimensions"][d]["score"] is None and "cost limit" in report["dimensions"][d]["agent_failure"]
               for d in limited if d != "gate")
    assert {f["phase"] for f in report["agent_failures"]} >= set(limited)
    assert report["badge"] in ("none", "available")  # nothing beyond what was established before the limit
    assert report["cost"]["usd"] >= 0.002 and report["cost"]["llm_calls"] == sent
    assert sent * PER_CALL_USD < 0.002 + 2 * PER_CALL_USD  # it stopped calling at the limit
    for name in ("report.md", "report.html"):
        assert (tmp_path / "run" / name).stat().st_size > 0


def test_unreachable_endpoint_is_one_line_with_llm_and_a_flagged_fallback_with_auto(tmp_path):
    dead = f"http://127.0.0.1:{free_port()}/v1"
    proc = copilot(tmp_path / "llm", base_url=dead, timeout=60)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert (
        len(lines) == 1
        and lines[0].startswith("error: cannot reach the LLM endpoint")
        and "--agent heuristic" in lines[0]
    )
    assert "Traceback" not in proc.stderr

    proc = copilot(tmp_path / "auto", base_url=dead, agent="auto", timeout=120)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["agent"] == "heuristic" and report["badge"] == "reusable"
    assert any(f["code"] == "llm-unavailable" and "cannot reach" in f["message"] for f in report["flags"])


def test_prices_come_from_the_data_file_and_dated_snapshots_use_their_family():
    prices = load_prices()
    assert price_for("gpt-4o-mini-2024-07-18", prices).input == prices["gpt-4o-mini"].input
    assert price_for("gpt-4o-2024-08-06", prices).output == prices["gpt-4o"].output
    assert price_for("some-local-model", prices).known is False
