"""The reproduction loop: documented command offline, and an agent loop over a scripted chat model."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

from artifactcopilot.acquire.paper import load_paper
from artifactcopilot.llm.settings import LLMSettings, load_prices
from artifactcopilot.repro.loop import ReproConfig, documented_scripts, find_table, reproduce
from artifactcopilot.sandbox.base import Limits
from artifactcopilot.sandbox.local import LocalSandbox
from artifactcopilot.tables import obfuscate

ROOT = Path(__file__).resolve().parent.parent
FUZZ = ROOT / "tests" / "fixtures" / "repro" / "fuzzbench"
LAG = ROOT / "tests" / "fixtures" / "corpus" / "reusable-full"
COPIED = ROOT / "tests" / "fixtures" / "corpus" / "available-copied-results"


class ScriptedChatModel(BaseChatModel):
    """Replays tool calls in order and keeps every prompt it was sent."""

    turns: list[AIMessage]
    seen: list[list[BaseMessage]] = Field(default_factory=list)
    format_prompts: list[str] = Field(default_factory=list)
    tokens_per_turn: int = 0

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        if len(messages) == 1 and str(messages[0].content).startswith(
            "You fill in a table"
        ):  # the format tool's own call
            self.format_prompts.append(str(messages[0].content))
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content="no table in this output"))])
        if len(messages) == 1 and str(messages[0].content).startswith(
            "Classify how"
        ):  # the method judge's optional opinion
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content="full"))])
        self.seen.append(list(messages))
        turn = self.turns[min(len(self.seen) - 1, len(self.turns) - 1)].model_copy()
        if self.tokens_per_turn:
            turn.usage_metadata = {
                "input_tokens": self.tokens_per_turn,
                "output_tokens": 0,
                "total_tokens": self.tokens_per_turn,
            }
        return ChatResult(generations=[ChatGeneration(message=turn)])


def call(name: str, n: int, **args) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"call-{n}"}])


def table_of(case: Path):
    return find_table(load_paper(case / "paper.md").tables, "2")


def sandbox(tmp_path: Path) -> LocalSandbox:
    return LocalSandbox(tmp_path / "scratch", Limits(timeout_s=60))


def test_documented_command_for_the_table_is_found():
    scripts = documented_scripts(FUZZ / "artifact", "Table 2")
    assert scripts[0][0] == "python3 campaign.py --out runs\npython3 summarize.py runs"
    assert any(s == "python3 summarize.py results/raw" for s, _ in scripts)
    assert documented_scripts(LAG / "artifact", "2")[0][0] == "python3 lag.py"


def test_heuristic_loop_writes_a_passing_script(tmp_path):
    logs: list[str] = []
    result = reproduce(LAG / "artifact", table_of(LAG), sandbox(tmp_path), log=logs.append)
    assert result.passed and result.verdict.method == "full" and result.script.endswith("python3 lag.py\n")
    assert result.formatted.rows[0][1:] == ["12", "83.3", "33.3", "211.5"]
    assert any("verdict: success" in line for line in logs)


def test_heuristic_loop_reports_copied_results(tmp_path):
    result = reproduce(COPIED / "artifact", table_of(COPIED), sandbox(tmp_path), log=lambda _m: None)
    assert not result.passed and result.verdict.category == "copied"


def test_agent_loop_iterates_on_feedback_until_accepted(tmp_path):
    expected = table_of(FUZZ)
    model = ScriptedChatModel(
        turns=[
            call("bash", 1, command="cat README.md"),
            call("format_table", 2, outputs="afl 1307.0 8.2 0.433"),
            call("submit", 3, script="echo '| afl | 1307.0 | 8.2 | 0.43 |'\n"),
            call("submit", 4, script="cat results/table2.md\n"),
            call("submit", 5, script="python3 campaign.py --out runs\npython3 summarize.py runs\n"),
            AIMessage(content="done"),
        ]
    )
    result = reproduce(
        FUZZ / "artifact",
        expected,
        sandbox(tmp_path),
        model=model,
        config=ReproConfig(timeout_s=60),
        log=lambda _m: None,
    )
    assert result.passed and result.mode == "agent" and result.steps == 5
    assert [v.category for _, v in result.attempts] == ["mismatch", "copied", "success"]
    assert result.verdict.method == "full" and "campaign.py" in result.script
    copied = result.attempts[1][1].method_verdict
    assert copied.method == "copy" and copied.llm_opinion == "full"  # an opinion is recorded, the evidence decides
    tool_results = [e["result"] for e in result.transcript if e["event"] == "tool"]
    assert "| afl | 1307.0 | 8.2 | 0.43 |" in tool_results[1]  # the format tool filled the row it was given
    assert (
        len(model.format_prompts) == 1 and "1398.4" not in model.format_prompts[0]
    )  # and asked the model for the rest
    assert tool_results[2].startswith("mismatch") and "copied" in tool_results[3]
    # Only the obfuscated table reaches the model; mismatch feedback reveals no unreproduced value.
    prompt = model.seen[0][0].content + model.seen[0][1].content
    assert "????.?" in prompt and not re.search(r"1307\.0|1398\.4|1264\.8", prompt)
    assert "1307.0" in tool_results[2] and "1398.4" not in tool_results[2] and "1264.8" not in tool_results[2]
    json.dumps(result.transcript)  # the transcript is serialisable as written to logs/transcript.jsonl
    assert result.stopped == "accepted"


def test_agent_loop_stops_at_the_step_and_cost_limits(tmp_path):
    expected = table_of(FUZZ)
    idle = ScriptedChatModel(turns=[call("bash", 1, command="ls")])
    result = reproduce(
        FUZZ / "artifact", expected, sandbox(tmp_path), model=idle, config=ReproConfig(max_steps=3), log=lambda _m: None
    )
    assert result.steps == 3 and not result.passed and result.script is None and result.stopped == "step limit"
    # priced by the review's price table (gpt-4o: $2.50 per million prompt tokens), not a private one
    settings = LLMSettings(model="gpt-4o", prices=load_prices())
    pricey = ScriptedChatModel(turns=[call("bash", 1, command="ls")], tokens_per_turn=200_000)
    result = reproduce(
        FUZZ / "artifact",
        expected,
        sandbox(tmp_path),
        model=pricey,
        config=ReproConfig(max_cost_usd=1.0, llm=settings),
        log=lambda _m: None,
    )
    assert (
        result.steps == 2 and result.cost_usd == pytest.approx(1.0) and result.stopped == "cost limit"
    )  # $0.50 per turn
    assert obfuscate(expected).rows[0][1] == "????.?"


class Flaky(ScriptedChatModel):
    """Answers 429 (rate limited, Retry-After 0) on its first `failures` calls."""

    failures: int = 0

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        if self.failures:
            self.failures -= 1
            request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
            response = httpx.Response(429, headers={"retry-after": "0"}, request=request)
            raise openai.RateLimitError("rate limited", response=response, body=None)
        return super()._generate(messages, stop, run_manager, **kwargs)


def test_agent_calls_are_retried_and_transcribed_like_a_reviews(tmp_path):
    expected = table_of(FUZZ)
    model = Flaky(
        turns=[
            call("bash", 1, command="ls"),
            call("submit", 2, script="python3 campaign.py --out runs\npython3 summarize.py runs\n"),
        ],
        failures=2,
    )
    settings = LLMSettings(model="gpt-4o-mini", prices=load_prices(), backoff_s=0.0)
    result = reproduce(
        FUZZ / "artifact",
        expected,
        sandbox(tmp_path),
        model=model,
        config=ReproConfig(timeout_s=60, llm=settings),
        log=lambda _m: None,
    )
    assert result.passed and result.steps == 2
    events = [e["event"] for e in result.transcript]
    assert events.count("retry") == 2 and events.count("response") >= 2 and "tool" in events
