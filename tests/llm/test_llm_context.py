"""Fitting the model's context window: the window from the endpoint or the setting, token counts, prompts built to
fit, and a context-length error that compacts the history (oldest tool outputs first) and retries."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import openai
from langchain_core.messages import HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import StructuredTool
from llm_support import CarefulReviewer, FakeOpenAI, ScriptedChatModel, call
from test_llm_http import copilot

from artifactcopilot.llm.calls import ModelCaller
from artifactcopilot.llm.context import ContextBudget, TokenCounter, endpoint_window, is_context_error
from artifactcopilot.llm.loop import ToolLoop
from artifactcopilot.llm.settings import LLMSettings
from artifactcopilot.llm.transcript import Transcript

LLAMA_CPP_PYTHON_400 = (
    "This model's maximum context length is 1200 tokens. However, you requested 2100 tokens "
    "(1800 in the messages, 300 in the completion). Please reduce the length of the messages or completion."
)


def refusal(message: str) -> openai.BadRequestError:
    request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    return openai.BadRequestError(message, response=httpx.Response(400, request=request), body=None)


class TinyWindow(ScriptedChatModel):
    """A scripted model behind a 1,200-token window: a longer prompt is refused as llama-cpp-python refuses it."""

    window_chars: int = 4800
    refused: int = 0
    sent: list = []

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        size = sum(len(str(m.content)) for m in messages)
        self.sent.append((size, kwargs.get("max_tokens")))
        if size > self.window_chars:
            self.refused += 1
            raise refusal(LLAMA_CPP_PYTHON_400.replace("1800", str(size // 4)))
        return super()._generate(messages, stop, run_manager, **kwargs)


def test_a_context_length_error_compacts_the_oldest_tool_outputs_and_retries():
    def big(part: int) -> str:
        """A long tool output."""
        return json.dumps({"text": f"part {part} " + "lorem ipsum " * 120, "evidence": f"D3-00{part}-command"})

    def finish(answer: str) -> str:
        """End."""
        return "done"

    tools = [StructuredTool.from_function(big), StructuredTool.from_function(finish)]

    def policy(messages):
        outputs = [m for m in messages if isinstance(m, ToolMessage)]
        return call("big", part=len(outputs) + 1) if len(outputs) < 4 else call("finish", answer="ok")

    model = TinyWindow(policy=policy, calls=[], sent=[])
    caller = ModelCaller(LLMSettings(max_retries=0))  # the window is not known before the first refusal
    assert caller.budget.window is None
    transcript = Transcript(None, "tiny")
    messages = [SystemMessage("review"), HumanMessage("go")]
    outcome = ToolLoop(model, caller, tools, final="finish", max_steps=8).run(messages, transcript)
    assert outcome.stop == "done" and model.refused >= 1
    # the window was learned from the refusal; later calls are fitted to it before they are sent
    assert caller.budget.window == 1200 and caller.budget.source == "the endpoint's context-length error"
    first = next(i for i, (size, _) in enumerate(model.sent) if size > model.window_chars)
    assert model.sent[first + 1:] and all(size <= model.window_chars for size, _ in model.sent[first + 1:])
    assert all(n is not None and n <= 1200 for _, n in model.sent[first + 1:])
    # oldest tool outputs went first, each replaced by a pointer to the evidence that holds it
    stubs = [m.content for m in messages if isinstance(m, ToolMessage) and m.content.startswith("[output removed")]
    assert stubs and "evidence D3-001-command" in stubs[0]
    assert not any(s.endswith("D3-004-command]") for s in stubs)  # the newest output is still there
    events = [e["event"] for e in transcript.records]
    assert "context-error" in events and events.count("compacted") == caller.compactions >= len(stubs)


def test_a_window_that_nothing_fits_is_an_agent_failure_not_a_crash():
    model = TinyWindow(policy=lambda m: call("finish", answer="x"), calls=[], sent=[], window_chars=10)
    caller = ModelCaller(LLMSettings(max_retries=0))
    tools = [StructuredTool.from_function(lambda answer: "ok", name="finish", description="End.")]
    outcome = ToolLoop(model, caller, tools, final="finish").run([HumanMessage("x" * 400)], Transcript(None, "t"))
    assert outcome.stop == "context" and "1200-token window" in outcome.error


def test_context_errors_and_windows_are_read_from_what_servers_say():
    assert is_context_error(refusal(LLAMA_CPP_PYTHON_400))
    assert is_context_error(refusal("This model's maximum context length is 4096 tokens (max_model_len)"))
    assert not is_context_error(refusal("unknown parameter 'seed'"))
    budget = ContextBudget.from_settings(LLMSettings(context_tokens=8192, max_output_tokens=2048))
    # the answer's reserve is what the conversation's answer needs, at most COPILOT_LLM_MAX_TOKENS
    assert budget.window == 8192 and budget.reserve(700) == 700 and budget.reserve(5000) == 2048
    assert budget.limit(700) == 8192 - 700 - budget.margin
    budget.learn(LLAMA_CPP_PYTHON_400, counted=1500)  # a smaller window the server names wins
    assert budget.window == 1200 and budget.scale > 1.0  # the server counted more than we did: we count more
    estimate = TokenCounter()
    assert estimate.route == "estimate" and estimate.count("x" * 300) == 100  # three bytes a token, conservative


def test_the_window_and_tokenizer_a_local_server_reports(tmp_path):
    with FakeOpenAI(CarefulReviewer(), window=3000, report_window=True, tokenizer=True) as server:
        settings = LLMSettings(base_url=server.url, model="m")
        assert endpoint_window(settings) == (3000, "the endpoint's /props (n_ctx)")
        budget = ContextBudget.from_settings(settings, probe=True)
        assert budget.window == 3000 and budget.counter.exact and budget.counter.count("x" * 400) == 100
        # the setting and the endpoint disagree: the smaller window wins
        assert ContextBudget.from_settings(settings.model_copy(update={"context_tokens": 2048}), probe=True).window \
            == 2048


def test_a_review_against_a_small_reported_window_is_fitted_before_it_is_sent(tmp_path):
    """A llama.cpp-like server that reports a 5,000-token window: the opening prompts are built smaller, tool
    outputs are cut with a pointer to their evidence, no call is ever refused and the verdicts stay the same."""
    with FakeOpenAI(CarefulReviewer(), window=5000, report_window=True, tokenizer=True) as server:
        proc = copilot(tmp_path / "run", base_url=server.url)
        sent = list(server.requests)
        refused = list(server.refused)
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    assert refused == [] and not report["agent_failures"]
    assert report["badge"] == "reusable"  # what the careful reviewer reaches with the whole context
    assert all(r["max_tokens"] <= 5000 for r in sent)
    flag = next(f for f in report["flags"] if f["code"] == "llm-context-window")
    assert "5000 tokens from the endpoint's /props" in flag["message"] and "server tokenizer" in flag["message"]
    events = [json.loads(line) for t in sorted(Path(tmp_path / "run" / "transcripts").glob("*.jsonl"))
              for line in t.read_text().splitlines()]
    assert any(e["event"] == "compacted" and e["what"] == "opening-prompt" for e in events)
    counted = [f for f in report["flags"] if f["code"] == "llm-compacted"]  # counted, per phase, in the report
    assert counted and sum(int(f["message"].split("compacted ")[1].split(" time")[0]) for f in counted) == sum(
        1 for e in events if e["event"] == "compacted")


def test_a_context_setting_too_small_to_review_with_is_a_usage_error(tmp_path):
    from typer.testing import CliRunner

    from artifactcopilot.cli import app

    root = Path(__file__).resolve().parents[2] / "examples" / "wordfreq"
    result = CliRunner().invoke(app, ["review", str(root / "paper.md"), str(root / "artifact"), "--out",
                                      str(tmp_path / "x"), "--agent", "llm", "--context-tokens", "100"])
    assert result.exit_code == 2 and "--context-tokens must be at least 512" in result.output
