"""Test doubles for the LLM path: a scripted chat model, scripted reviewer policies, and a small
OpenAI-compatible HTTP server on 127.0.0.1 that answers with the same policies.

A policy looks at the conversation so far (as a careful or a gullible reviewer would) and returns
the next AIMessage; its tool calls are executed by the real agent against the real tools.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict, Field

from artifactcopilot.models import EvidenceLevel
from artifactcopilot.rubric import default_rubric
from artifactcopilot.rules import supported_score

PHASE_HEAD = re.compile(r"^# Phase (\S+) \(attempt (\d+)\)", re.MULTILINE)
USAGE = {"input_tokens": 1000, "output_tokens": 100, "total_tokens": 1100}


# ---- scripted chat model ------------------------------------------------------------------
class ScriptedChatModel(BaseChatModel):
    """A chat model whose replies come from `policy(messages)`; bind_tools keeps it (tools are known)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    policy: Any
    calls: list = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages: list[BaseMessage], stop=None, run_manager=None, **kwargs) -> ChatResult:
        reply = self.policy(messages)
        if reply.usage_metadata is None:
            reply.usage_metadata = dict(USAGE)
        self.calls.append(reply)
        return ChatResult(generations=[ChatGeneration(message=reply)])


def call(tool: str, **args) -> AIMessage:
    call.n += 1
    return AIMessage(content="", tool_calls=[{"name": tool, "args": args, "id": f"call-{call.n}", "type": "tool_call"}])


call.n = 0


# ---- reading the conversation ------------------------------------------------------------------
def phase_of(messages: list[BaseMessage]) -> tuple[str, int]:
    """Phase and attempt of the conversation; ('verify', n) for a verifier dialogue."""
    if isinstance(messages[0], SystemMessage) and "verifier" in messages[0].content[:80]:
        return "verify", 0
    heads = [PHASE_HEAD.search(m.content) for m in messages if isinstance(m, HumanMessage)]
    head = next(h for h in heads if h)
    feedback = sum(1 for m in messages if isinstance(m, HumanMessage) and "packet checker rejected" in m.content)
    return head.group(1), int(head.group(2)) + feedback


def results(messages: list[BaseMessage]) -> list[dict]:
    """Tool results of this conversation, parsed (non-JSON results as {'text': ...})."""
    out = []
    for m in messages:
        if isinstance(m, ToolMessage):
            try:
                out.append(json.loads(m.content))
            except json.JSONDecodeError:
                out.append({"text": m.content})
    return out


def steps_taken(messages: list[BaseMessage]) -> int:
    """Replies since the last phase or feedback prompt."""
    last = max(
        i
        for i, m in enumerate(messages)
        if isinstance(m, HumanMessage) and (PHASE_HEAD.search(m.content) or "rejected" in m.content)
    )
    return sum(1 for m in messages[last:] if isinstance(m, AIMessage))


def it(item: str, ok: bool, evidence: list[str], note: str = "") -> dict:
    return {"item": item, "status": "satisfied" if ok else "violated", "evidence": evidence, "note": note}


def best_score(phase: str, checklist: list[dict], level: str) -> str:
    from artifactcopilot.models import ChecklistItem

    items = [ChecklistItem(**c) for c in checklist]
    score, _ = supported_score(phase, items, EvidenceLevel(level), [], default_rubric())
    return score.value


def packet(phase: str, checklist: list[dict], level: str, score: str | None = None, **extra) -> AIMessage:
    evidence = list(dict.fromkeys(e for c in checklist for e in c["evidence"]))
    body = {
        "phase": phase,
        "checklist": checklist,
        "evidence": evidence,
        "evidence_level": level,
        "summary": f"{phase} reviewed",
        **extra,
    }
    if phase != "gate":
        body["score"] = score or best_score(phase, checklist, level)
    return call("submit_packet", **body)


def d2_packet(env: str, probe: str):
    """A D2 packet claiming every item on the environment plan and one probe."""
    items = [("D2.declared", env), ("D2.setup_ok", probe), ("D2.evaluable", probe), ("D2.pinned", env),
             ("D2.isolated", env)]
    return packet("D2", [it(item, True, [ev]) for item, ev in items], "E2")


# ---- a careful reviewer of examples/wordfreq ----------------------------------------------------
class CarefulReviewer:
    """Follows each skill on the wordfreq example and claims what its evidence shows."""

    def __init__(self):
        self.memory: dict[str, Any] = {}
        self.overrides: dict[str, Callable] = {}

    def __call__(self, messages: list[BaseMessage]) -> AIMessage:
        phase, attempt = phase_of(messages)
        if phase in self.overrides:
            reply = self.overrides[phase](self, messages, attempt)
            if reply is not None:
                return reply
        return getattr(self, "phase_" + phase)(
            messages, results(messages), steps_taken(messages) if phase != "verify" else 0
        )

    def phase_verify(self, messages, res, _):
        cited = re.findall(r"^- (\S+): ", messages[1].content, re.MULTILINE)
        if not any(isinstance(m, ToolMessage) for m in messages):
            return call("read_evidence", evidence_id=cited[0])
        return call("verdict", consistent=True, disputed=[])

    def phase_gate(self, messages, res, step):
        todo = ["acquire_artifact", "locate_entry", "paper_terms"]
        if step < len(todo):
            return call(todo[step])
        acq, entry, rel = res[:3]
        gc = {
            "GC1": acq["ok"],
            "GC2": entry["readable"],
            "GC3": rel["shared_count"] >= 3 and rel["material_count"] >= 1,
        }
        return packet("gate", [it(k, ok, [r["evidence"]]) for (k, ok), r in zip(gc.items(), res)], "E1", gate=gc)

    def phase_D1(self, messages, res, step):
        if step == 0:
            return call("parse_readme", path="README.md")
        r = res[0]
        items = [
            "entry",
            "goal",
            "setup",
            "workflow",
            "io",
            "mapping",
            "structure",
            "dependencies",
            "resources",
            "limits",
        ]
        return packet("D1", [it(f"D1.{n}", r["signals"][n], [r["evidence"]]) for n in items], "E1")

    def phase_D2(self, messages, res, step):
        if step == 0:
            return call("detect_environment")
        if step == 1:
            return call("probe", command="python3 --version", purpose="is the documented interpreter there")
        env, probe = res[-2]["evidence"], res[-1]["evidence"]
        ok = res[-1]["exit_code"] == 0
        checklist = [
            it("D2.declared", True, [env]),
            it("D2.setup_ok", ok, [probe]),
            it("D2.evaluable", ok, [probe]),
            it("D2.pinned", True, [env], "standard library only"),
            it("D2.isolated", True, [env], "self-contained"),
        ]
        return packet("D2", checklist, "E2" if ok else "E1")

    def phase_D3(self, messages, res, step):
        if step == 0:
            return call(
                "record_evidence",
                kind="selection",
                name="workflow-selection",
                content="`python3 wordfreq.py` from 'Reproducing the paper'",
                summary="chosen workflow",
            )
        if step in (1, 2):
            return call("run_workflow", command="python3 wordfreq.py", purpose="representative workflow")
        sel, run1, run2 = res[0]["evidence"], res[1]["evidence"], res[2]["evidence"]
        self.memory["run"] = run1
        ok = res[1]["exit_code"] == 0
        checklist = [
            it("RW1", True, [sel]),
            it("RW2", True, [run1]),
            it("RW3", ok, [run1]),
            it("RW4", True, [sel]),
            it("RW5", True, [sel]),
            it("D3.stable", ok and res[2]["exit_code"] == 0, [run1, run2]),
        ]
        return packet("D3", checklist, "E2", facts={"run": {"cmd": "python3 wordfreq.py", "evidence": run1}})

    def phase_D4(self, messages, res, step):
        if step == 0:
            return call("paper_tables")
        res = res[-step:]  # this attempt's results (a retry starts again from paper_tables)
        tables = json.loads(res[0]["tables"].split("\n", 1)[1].rsplit("\n", 1)[0])
        labels = [t["label"] for t in tables]
        if step <= len(labels):
            return call("compare_table", table=labels[step - 1], source=self.memory["run"])
        comps = res[1:]
        cids = [c["evidence"] for c in comps]
        reproduced = all(c["success"] for c in comps)
        checklist = [
            it("D4.executed", True, [self.memory["run"]]),
            it("D4.weak_mapping", True, cids),
            it("D4.mapping", True, cids),
            it("D4.documented_output", False, cids, "not checked"),
            it("D4.figures", False, cids, "no documented figure"),
            it("D4.paper_numbers", False, cids, "not checked"),
            it("D4.main_result", reproduced, cids),
            it("D4.traceable", True, [self.memory["run"], *cids]),
        ]
        return packet(
            "D4",
            checklist,
            "E3" if reproduced else "E2",
            facts={"table_reproduced": reproduced, "reproduction_evidence": cids},
        )

    def phase_D5(self, messages, res, step):
        cmd = "python3 wordfreq.py --input examples/other.csv --top 3 --output other-results.md"
        if step in (0, 1):
            return call("run_transfer", command=cmd, purpose="documented reuse on new data")
        if step == 2:
            return call(
                "record_evidence",
                kind="reuse",
                name="reuse-path",
                content="section 'Using your own data'",
                summary="reuse entry",
            )
        t1, t2, reuse = res[0]["evidence"], res[1]["evidence"], res[2]["evidence"]
        ok = res[0]["exit_code"] == 0
        checklist = [
            it("D5.functional_base", True, [reuse]),
            it("D5.entry", True, [reuse]),
            it("D5.transfer_info", True, [reuse]),
            it("D5.transfer_validated", ok, [t1]),
            it("D5.low_intervention", True, [t1]),
            it("D5.repeatable", ok and res[1]["exit_code"] == 0, [t1, t2]),
        ]
        return packet("D5", checklist, "E2", facts={"transfer_validated": ok})


# ---- an OpenAI-compatible server on 127.0.0.1 ------------------------------------------------
def to_langchain(msg: dict) -> BaseMessage:
    role, content = msg["role"], msg.get("content") or ""
    if role == "system":
        return SystemMessage(content)
    if role == "user":
        return HumanMessage(content)
    if role == "tool":
        return ToolMessage(content, tool_call_id=msg.get("tool_call_id", ""))
    calls = []
    for tc in msg.get("tool_calls") or []:
        try:
            args = json.loads(tc["function"]["arguments"])
        except json.JSONDecodeError:
            args = {}
        calls.append({"name": tc["function"]["name"], "args": args, "id": tc["id"], "type": "tool_call"})
    return AIMessage(content=content, tool_calls=calls)


def to_openai(reply: AIMessage, model: str, raw_arguments: str | None = None) -> dict:
    message: dict = {"role": "assistant", "content": reply.content or None}
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": tc["id"],
                "type": "function",
                "function": {"name": tc["name"], "arguments": raw_arguments or json.dumps(tc["args"])},
            }
            for tc in reply.tool_calls
        ]
    usage = reply.usage_metadata or USAGE
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if reply.tool_calls else "stop"}],
        "usage": {
            "prompt_tokens": usage["input_tokens"],
            "completion_tokens": usage["output_tokens"],
            "total_tokens": usage["input_tokens"] + usage["output_tokens"],
        },
    }


def four_bytes(text: str) -> int:
    return -(-len(text.encode()) // 4)


WORD_PIECE = re.compile(r" ?[A-Za-z]{1,7}| ?[0-9]| ?[^\sA-Za-z0-9]{1,3}|\s+")


def word_pieces(text: str) -> int:
    """A tokenizer's count without a model: words in pieces of up to seven letters, each digit a token, runs of up
    to three punctuation marks a token (on English, code and JSON a few percent more than Gemma's tokenizer counts,
    on tool schemas a quarter more)."""
    return len(WORD_PIECE.findall(text))


def server_tokens(body: dict, count=four_bytes) -> int:
    """The fake server's own token count of a chat request: messages and tool schemas as sent (four bytes a token),
    or, with a tokenizer, as a chat template renders them — each message's role and text, its tool calls as JSON
    — and the tool schemas as JSON."""
    if count is four_bytes:
        return count(json.dumps(body.get("messages", []))) + count(json.dumps(body.get("tools", [])))
    rendered = [f"<start_of_turn>{m['role']}\n{m.get('content') or ''}"
                + "".join(json.dumps(c["function"]) for c in m.get("tool_calls") or []) + "<end_of_turn>\n"
                for m in body.get("messages", [])]
    return count("".join(rendered)) + count(json.dumps(body.get("tools", [])))


class FakeOpenAI:
    """Serves /v1/models and /v1/chat/completions; `errors` is a queue of HTTP statuses to answer first.

    With `window` it refuses a prompt longer than that many tokens as llama-cpp-python does (HTTP 400, "This model's
    maximum context length is N tokens ..."); `report_window` also publishes it on /props as llama.cpp does, and
    `tokenizer` serves /extras/tokenize/count as llama-cpp-python does ("llama.cpp": /tokenize as llama.cpp's
    server does). `count` is the server's tokenizer (four bytes a token unless given); `delay` seconds pass before
    each chat answer, as on a slow model, and `models_delay` seconds before each answer to /v1/models, as on a busy
    server."""

    def __init__(self, policy: Callable[[list[BaseMessage]], AIMessage], errors: list[int] | None = None,
                 window: int | None = None, report_window: bool = False, tokenizer: bool | str = False,
                 fail: dict[str, int] | None = None, count: Callable[[str], int] = four_bytes, delay: float = 0.0,
                 models_delay: float = 0.0):
        self.policy, self.errors, self.requests = policy, list(errors or []), []
        self.count, self.delay, self.models_delay = count, delay, models_delay
        self.prompts: list[int] = []
        """Prompt tokens (the server's count) of each chat request answered."""
        self.stopping = threading.Event()
        self.fail = dict(fail or {})
        """Phase -> HTTP status answered to every request of that phase (400 as a context-length refusal)."""
        self.window, self.report_window, self.tokenizer = window, report_window, tokenizer
        self.refused: list[int] = []
        """Prompt sizes (server tokens) refused as too long."""
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, status: int, body: dict, headers: dict | None = None):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                if self.path.rstrip("/").endswith("/props"):
                    if outer.report_window and outer.window:
                        return self._send(200, {"default_generation_settings": {"n_ctx": outer.window}})
                    return self._send(404, {"error": "not found"})
                outer.stopping.wait(outer.models_delay)
                self._send(200, {"object": "list", "data": [{"id": "gpt-4o-mini", "object": "model"}]})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    if outer.tokenizer is True and self.path.rstrip("/").endswith("/extras/tokenize/count"):
                        return self._send(200, {"count": outer.count(body["input"])})
                    if outer.tokenizer == "llama.cpp" and self.path.rstrip("/").endswith("/tokenize"):
                        return self._send(200, {"tokens": list(range(outer.count(body["content"])))})
                    return self._send(404, {"error": "not found"})
                outer.requests.append(body)
                used = server_tokens(body, outer.count)
                if outer.window and used + min(body.get("max_tokens") or 0, 64) > outer.window:
                    outer.refused.append(used)
                    message = (f"This model's maximum context length is {outer.window} tokens. However, you "
                               f"requested {used + (body.get('max_tokens') or 0)} tokens ({used} in the messages, "
                               f"{body.get('max_tokens')} in the completion). Please reduce the length of the "
                               "messages or completion.")
                    return self._send(400, {"error": {"message": message, "type": "invalid_request_error"}})
                if outer.errors:
                    status = outer.errors.pop(0)
                    return self._send(
                        status, {"error": {"message": f"scripted {status}", "type": "test"}}, {"Retry-After": "0"}
                    )
                messages = [to_langchain(m) for m in body["messages"]]
                status = outer.fail.get(phase_of(messages)[0])
                if status == 400:
                    return self._send(400, {"error": {"type": "invalid_request_error", "message": (
                        "Input is too long for this model: the prompt does not fit its context.")}})
                if status:
                    return self._send(status, {"error": {"message": f"scripted {status}", "type": "test"}},
                                      {"Retry-After": "0"})
                if outer.delay and outer.stopping.wait(outer.delay):
                    return None
                reply = outer.policy(messages)
                outer.prompts.append(used)
                if outer.count is not four_bytes:  # a server with a real tokenizer reports what it counted
                    reply.usage_metadata = {**(reply.usage_metadata or USAGE), "input_tokens": used}
                self._send(200, to_openai(reply, body.get("model", "gpt-4o-mini")))

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stopping.set()
        self.server.shutdown()
        self.server.server_close()
