"""The LLM reviewer on a real-sized artifact in a 4,096-token window, and under a wall-clock budget.

A llama.cpp-like server on 127.0.0.1 reports its window on /props, counts tokens with its own tokenizer (served on
/tokenize) and refuses a prompt that does not fit, as llama.cpp does. The reviewer behind it reads whatever it
can — the 30 kB README page after page, the 60 kB paper, listings, a 60 kB command log, the paper's six tables —
and every phase must still fit: nothing refused, no phase failed for the window, every request's prompt and
completion within 4,096 tokens. A slow model must not stretch a review past its --max-minutes.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, ToolMessage
from llm_support import CarefulReviewer, FakeOpenAI, call, it, packet, phase_of, results, word_pieces
from realsize import write_artifact

from artifactcopilot.rubric import default_rubric

ROOT = Path(__file__).resolve().parents[2]
RUBRIC = default_rubric()
WINDOW = 4096


class Reader(CarefulReviewer):
    """Reads everything a phase can reach, following next_offset, then submits a modest packet that cites what the
    tools returned (the verifier dialogue is the careful reviewer's)."""

    PLANS = {
        "gate": [("acquire_artifact", {}), ("list_files", {}), ("list_files", "next"), ("locate_entry", {}),
                 ("read_file", {"path": "README.md"}), ("read_file", "next"), ("paper_terms", {}),
                 ("read_paper", {})],
        "D1": [("discover_docs", {}), ("parse_readme", {"path": "README.md"}), ("read_file", {"path": "README.md"}),
               ("read_file", "next"), ("read_file", "next"), ("grep", {"pattern": "python3"}),
               ("read_paper", {"section": "5 Evaluation"}), ("explain", {"topic": "score"})],
        "D2": [("read_evidence", {"evidence_id": "D1"}), ("detect_environment", {}),
               ("read_file", {"path": "requirements.txt"}), ("probe", {"command": "python3 --version",
                                                                      "purpose": "interpreter"}),
               ("explain", {"topic": "run_setup"})],
        "D3": [("record_evidence", {"kind": "selection", "name": "workflow", "content": "scripts/long_log.py",
                                    "summary": "chosen workflow"}),
               ("run_workflow", {"command": "python3 scripts/long_log.py", "purpose": "a long log"}),
               ("read_evidence", "run"), ("read_evidence", "next")],
        "D4": [("paper_tables", {}), ("paper_tables", "next"), ("read_paper", {"section": "Evaluation"}),
               ("read_paper", "next"), ("compare_table", {"table": "Table 1", "source": "README.md"})],
        "D5": [("record_evidence", {"kind": "reuse", "name": "reuse", "content": "Using Kestrel on your own data",
                                    "summary": "reuse entry"}),
               ("read_file", {"path": "README.md", "offset": 20000}),
               ("run_transfer", {"command": "python3 scripts/smoke.py", "purpose": "documented quick check"})],
    }
    CITES = {"gate": {"GC1": "acquire_artifact", "GC2": "locate_entry", "GC3": "paper_terms"},
             "D1": "discover_docs", "D2": "detect_environment", "D3": "record_evidence", "D4": "compare_table",
             "D5": "record_evidence"}

    def __init__(self):
        super().__init__()
        self.cursor: dict[str, int] = {}

    def __call__(self, messages) -> AIMessage:
        phase, _ = phase_of(messages)
        if phase == "verify":
            return self.phase_verify(messages, results(messages), 0)
        done = named_results(messages)
        plan = self.PLANS[phase]
        while self.cursor.get(phase, 0) < len(plan):
            tool, args = plan[self.cursor.get(phase, 0)]
            self.cursor[phase] = self.cursor.get(phase, 0) + 1
            last_tool, last = done[-1] if done else ("", {})
            if args == "next":  # the next page of what was read last, when there is one
                if "next_offset" not in last:
                    continue
                return call(last_tool, **{**self._last_args(messages), "offset": last["next_offset"]})
            if args == "run":
                args = {"evidence_id": next(r["evidence"] for name, r in reversed(done) if name == "run_workflow")}
            return call(tool, **args)
        return self._submit(phase, done)

    @staticmethod
    def _last_args(messages) -> dict:
        return dict(next(m for m in reversed(messages) if isinstance(m, AIMessage) and m.tool_calls).tool_calls[0]
                    ["args"])

    def _submit(self, phase: str, done: list[tuple[str, dict]]) -> AIMessage:
        def cited(tool: str) -> list[str]:
            return [r["evidence"] for name, r in done if name == tool and isinstance(r.get("evidence"), str)][-1:]

        items = RUBRIC.phase_items(phase)
        if phase == "gate":
            gates = self.CITES["gate"]
            return packet("gate", [it(i, True, cited(gates[i])) for i in items], "E1", gate=dict.fromkeys(items, True))
        return packet(phase, [it(i, False, cited(self.CITES[phase]), "not shown by what was read") for i in items],
                      "E1")


def named_results(messages) -> list[tuple[str, dict]]:
    """(tool name, parsed result) of every tool call answered in this conversation, in order; a result removed to fit
    the window is the evidence id its stub names, as a model would read it."""
    names = {c["id"]: c["name"] for m in messages if isinstance(m, AIMessage) for c in m.tool_calls}
    out = []
    for m in messages:
        if isinstance(m, ToolMessage):
            try:
                parsed = json.loads(m.content)
            except json.JSONDecodeError:
                named = re.search(r"full output is in evidence ([\w.-]+)", m.content)
                parsed = {"text": m.content, **({"evidence": named.group(1)} if named else {})}
            out.append((names.get(m.tool_call_id, ""), parsed if isinstance(parsed, dict) else {"value": parsed}))
    return out


def _review(tmp_path: Path, server: FakeOpenAI, *args: str, paper: Path, artifact: Path,
            timeout: float = 900) -> tuple[subprocess.CompletedProcess, float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "COPILOT_LLM_"))}
    env.update(OPENAI_BASE_URL=server.url, OPENAI_API_KEY="test-key", COPILOT_LLM_BACKOFF_S="0.01",
               PYTHONPATH=str(ROOT))
    began = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "artifactcopilot.cli", "review", str(paper), str(artifact), "--out",
                           str(tmp_path / "run"), "--agent", "llm", "--model", "gpt-4o-mini", "--sandbox", "local",
                           "--json", *args], capture_output=True, text=True, env=env, timeout=timeout, cwd=ROOT,
                          check=False)
    return proc, time.monotonic() - began


def _events(run: Path) -> dict[str, list[dict]]:
    return {t.stem: [json.loads(line) for line in t.read_text().splitlines()]
            for t in sorted((run / "transcripts").glob("*.jsonl"))}


def test_every_phase_of_a_real_sized_review_fits_a_4096_token_window(tmp_path):
    paper, artifact = write_artifact(tmp_path / "case")
    assert len((artifact / "README.md").read_text()) >= 30_000 and len(paper.read_text()) >= 59_000
    with FakeOpenAI(Reader(), window=WINDOW, report_window=True, tokenizer="llama.cpp", count=word_pieces) as server:
        proc, _ = _review(tmp_path, server, "--max-minutes", "30", paper=paper, artifact=artifact)
        requests, prompts, refused = list(server.requests), list(server.prompts), list(server.refused)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    # nothing refused as too long, no phase failed for the window, every call within the window by the server's
    # own count (prompt as sent, tool schemas included, plus the completion it was allowed)
    assert refused == []
    assert not [f for f in report["agent_failures"] if "context window" in f["reason"]], report["agent_failures"]
    assert len(prompts) == len(requests) > 30
    assert all(p + r["max_tokens"] <= WINDOW for p, r in zip(prompts, requests))
    flag = next(f for f in report["flags"] if f["code"] == "llm-context-window")
    assert f"{WINDOW} tokens from the endpoint's /props" in flag["message"] and "server tokenizer" in flag["message"]
    events = _events(tmp_path / "run")
    for phase in ("gate", "D1", "D2", "D3", "D4", "D5"):
        calls = [e for e in events[f"{phase}-1"] if e["event"] == "tool"]
        assert calls and calls[-1]["name"] == "submit_packet", phase  # every phase read, then submitted
        first = next(e for e in events[f"{phase}-1"] if e["event"] == "prompt")
        # the fixed part (system, opening, tool schemas) and the answer leave room for pages of results (this
        # tokenizer counts tool schemas a quarter higher than Gemma's does)
        assert first["tokens"] + first["max_tokens"] <= 0.9 * WINDOW, (phase, first["tokens"])
    # what grows with the artifact came in pages: the README page after page, the paper, a 60 kB command log
    reads = [json.loads(e["result"]) for e in events["D1-1"] if e["event"] == "tool" and e["name"] == "read_file"]
    assert len(reads) == 3 and [r["offset"] for r in reads][1:] == [reads[0]["next_offset"], reads[1]["next_offset"]]
    assert all(0 < len(r["text"]) < 12_000 for r in reads) and reads[0]["chars"] > 30_000
    log = [json.loads(e["result"]) for e in events["D3-1"] if e["event"] == "tool" and e["name"] == "read_evidence"]
    assert log and log[0]["chars"] > 60_000 and "next_offset" in log[0]
    run = next(json.loads(e["result"]) for e in events["D3-1"] if e["event"] == "tool" and e["name"] == "run_workflow")
    assert "read_evidence" in run["stdout"] and len(run["stdout"]) < 12_000  # cut, with where all of it is
    # the paper's table values stay hidden in every page of it the model read
    pages = [e["result"] for t in events.values() for e in t if e["event"] == "tool" and e["name"] == "read_paper"]
    assert pages and not any(v in p for p in pages for v in _table_values(paper))


def _table_values(paper: Path) -> list[str]:
    from artifactcopilot.acquire.paper import load_paper

    return [t.rows[r][c] for t in load_paper(paper).tables for r, c in t.numeric_cells()][:40]


@pytest.mark.timeout(300)
def test_a_slow_model_cannot_stretch_a_review_past_max_minutes(tmp_path):
    """Every answer takes 6 s: the review's 45 s are shared out per phase, a call gets what is left of its phase's
    share, a call the share cuts ends the phase "out of time" with what it has, and the review still reports."""
    example = ROOT / "examples" / "wordfreq"
    with FakeOpenAI(CarefulReviewer(), delay=6) as server:
        proc, took = _review(tmp_path, server, "--max-minutes", "0.75", paper=example / "paper.md",
                             artifact=example / "artifact", timeout=240)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    assert report["status"] == "complete" and (tmp_path / "run" / "report.md").is_file()
    assert took < 45 + 20, took  # the budget, plus start-up and the report
    out_of_time = [f for f in report["agent_failures"] if "out of time" in f["reason"]]
    assert out_of_time and all("share of the review's --max-minutes" in f["reason"] for f in out_of_time)
    assert any(f["code"] == "llm-time-limit" for f in report["flags"])  # a limit hit: lower confidence
