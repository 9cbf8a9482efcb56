"""The one tool loop of the LLM path: every call answered, the final tool forced on the last step,
limits and an unreachable endpoint stop it; and it is the only loop over tool calls in the package."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import httpx
import openai
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import StructuredTool
from llm_support import ScriptedChatModel, call
from pydantic import Field

from artifactcopilot.errors import CopilotError
from artifactcopilot.llm.calls import ModelCaller
from artifactcopilot.llm.loop import ToolLoop
from artifactcopilot.llm.settings import LLMSettings, load_prices
from artifactcopilot.llm.transcript import Transcript

PACKAGE = Path(__file__).resolve().parents[2] / "artifactcopilot"


class Recording(ScriptedChatModel):
    """Also records the tool_choice each binding forced."""

    bound: list = Field(default_factory=list)

    def bind_tools(self, tools, **kwargs):
        self.bound.append(kwargs.get("tool_choice"))
        return self


def tools(log: list[str]) -> list[StructuredTool]:
    def add(a: int, b: int) -> str:
        """Add two integers."""
        return str(a + b)

    def refuse() -> str:
        """Always refused."""
        raise CopilotError("not in this phase's scope")

    def finish(answer: str) -> str:
        """Final answer."""
        log.append(answer)
        return "recorded"

    return [StructuredTool.from_function(f) for f in (add, refuse, finish)]


def caller(**settings) -> ModelCaller:
    return ModelCaller(LLMSettings(model="gpt-4o-mini", prices=load_prices(), backoff_s=0.0, **settings))


def loop_with(policy, max_steps=6, **settings):
    log: list[str] = []
    model = Recording(policy=policy, calls=[], bound=[])
    loop = ToolLoop(model, caller(**settings), tools(log), final="finish", max_steps=max_steps, scope="test")
    messages = [HumanMessage("go")]
    transcript = Transcript(None, "test")
    return loop.run(messages, transcript), messages, log, model, transcript


def test_every_call_is_answered_and_the_final_tool_ends_the_loop():
    replies = iter(
        [
            AIMessage(
                content="",
                invalid_tool_calls=[
                    {"name": "add", "args": "{a: 1", "id": "bad", "error": "not JSON", "type": "invalid_tool_call"}
                ],
            ),
            call("add", a="one", b=2),
            call("nope"),
            call("refuse"),
            AIMessage(content="thinking"),
            call("add", a=1, b=2),
            call("finish", answer="3"),
        ]
    )
    outcome, messages, log, _, transcript = loop_with(lambda m: next(replies), max_steps=10)
    assert outcome.stop == "done" and outcome.steps == 7 and log == ["3"]
    answers = [m.content for m in messages if isinstance(m, (ToolMessage, HumanMessage))][1:]
    assert answers[0].startswith("malformed tool call 'add': not JSON")
    assert answers[1].startswith("invalid arguments for add")
    assert answers[2].startswith("'nope' is not a tool of this test; available: add, refuse, finish")
    assert answers[3] == "refused: not in this phase's scope"
    assert answers[4] == "Act only through tool calls."
    assert answers[5:] == ["3", "recorded"]
    assert [e["event"] for e in transcript.records].count("tool") == 5  # the malformed call is logged as such


def test_the_last_step_forces_the_final_tool_and_the_step_limit_stops():
    outcome, _, log, model, _ = loop_with(lambda m: call("add", a=1, b=1), max_steps=3)
    assert outcome.stop == "steps" and outcome.steps == 3 and not log
    assert model.bound == [None, "finish"]  # bound once for free choice, once forced for the last step


def test_the_cost_limit_stops_before_the_next_call():
    def pricey(messages):
        reply = call("add", a=1, b=1)
        reply.usage_metadata = {"input_tokens": 4_000_000, "output_tokens": 0, "total_tokens": 4_000_000}
        return reply

    outcome, _, _, model, _ = loop_with(pricey, max_cost_usd=1.0)
    assert outcome.stop == "cost" and outcome.steps == 2 and len(model.calls) == 2  # $0.60 a call at gpt-4o-mini


def test_an_unreachable_endpoint_stops_this_loop_and_the_next_at_once():
    def down(messages):
        raise openai.APIConnectionError(request=httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions"))

    shared = caller(max_retries=1)
    loop = ToolLoop(Recording(policy=down, calls=[], bound=[]), shared, tools([]), final="finish")
    transcript = Transcript(None, "down")
    first = loop.run([HumanMessage("go")], transcript)
    assert first.stop == "unavailable" and "APIConnectionError" in first.error and shared.down
    assert [e["event"] for e in transcript.records].count("retry") == 1
    again = ToolLoop(Recording(policy=down, calls=[], bound=[]), shared, tools([]), final="finish").run(
        [HumanMessage("go")], transcript
    )
    assert again.stop == "unavailable" and again.steps == 0


def test_one_loop_and_llm_imports_nothing_from_agents():
    loops = []
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if re.search(r"for \w+ in [\w.]*tool_calls\b", text):
            loops.append(path.relative_to(PACKAGE).as_posix())
        if path.parent.name == "llm" and path.parent.parent == PACKAGE:
            imports = [n.module or "" for n in ast.walk(ast.parse(text)) if isinstance(n, ast.ImportFrom)]
            assert not [m for m in imports if "agents" in m], path
    assert loops == ["llm/loop.py"]


def test_a_malformed_call_is_sent_back_with_content():
    """llama-cpp-python refuses (HTTP 500) an assistant turn with neither content nor a valid tool call; a reply
    whose only call was malformed goes back with content, like any tool-call turn."""
    from artifactcopilot.llm.loop import for_history

    bad = AIMessage(content="", invalid_tool_calls=[{"type": "invalid_tool_call", "id": "c1", "name": "submit_packet",
                                                     "args": '{"summary": "unterminated', "error": "not JSON"}])
    assert for_history(bad).content == "(tool call)" and for_history(bad).invalid_tool_calls == bad.invalid_tool_calls
