"""Fitting one conversation into the model's context window, before a call and after a context error.

What goes, in order: the oldest tool outputs (each replaced by a line naming the evidence file that
holds it), then the opening prompt re-rendered smaller (the agent's `shrink`: the paper as an index,
earlier packets as one line each), then the tool schemas without their descriptions. Each step is
counted on the review's caller and logged in the transcript as a `compacted` event.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import BaseMessage, ToolMessage
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from .context import ContextBudget
from .transcript import Transcript

STUB = "[output removed to fit the model's context window"
EVIDENCE_REF = re.compile(r'"evidence":\s*(?:"([^"]+)"|\[([^\]]*)\])')
OPENING_SHARE = 0.6
"""The opening (system prompt, phase prompt, tool schemas) may take this share of the prompt budget: the rest is
room for tool outputs."""


class DoesNotFit(Exception):
    """Nothing more can be removed and the conversation still exceeds the window."""


def pointer(text: str) -> str:
    ids = [a or b.replace('"', "").strip() for a, b in EVIDENCE_REF.findall(text)]
    ids = [i for i in ids if i]
    return f"evidence {', '.join(ids[:4])}" if ids else "this phase's transcript"


def _slim(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _slim(v) for k, v in node.items() if k not in ("description", "title", "examples", "default")}
    if isinstance(node, list):
        return [_slim(v) for v in node]
    return node


def slim_schema(tool: dict) -> dict:
    fn = tool["function"]
    first = re.split(r"(?<=[.;])\s", fn.get("description") or "", maxsplit=1)[0][:160]
    return {"type": "function", "function": {"name": fn["name"], "description": first,
                                             "parameters": _slim(fn.get("parameters") or {})}}


@dataclass
class Fitter:
    budget: ContextBudget
    tools: Sequence[BaseTool]
    shrink: Callable[[list[BaseMessage]], bool] | None = None
    """Re-renders the opening prompt smaller in place; False when it is as small as it gets."""
    slim: bool = False
    local: bool = False
    """A self-hosted endpoint (a base URL is set): the completion limit goes as max_tokens too."""
    compactions: int = 0
    _bound: dict = field(default_factory=dict, repr=False)

    def schemas(self) -> list[dict]:
        full = [convert_to_openai_tool(t) for t in self.tools]
        return [slim_schema(t) for t in full] if self.slim else full

    def bind(self, model, tool_choice: str | None = None):
        """`model` with the tools bound (slim schemas once the window asks for it), made once per shape."""
        key = (self.slim, tool_choice)
        if key not in self._bound:
            kwargs = {"tool_choice": tool_choice} if tool_choice else {}
            self._bound[key] = model.bind_tools(self.schemas() if self.slim else list(self.tools), **kwargs)
        return self._bound[key]

    def count(self, messages: list[BaseMessage]) -> int:
        return self.budget.count(messages, self.schemas())

    def prefit(self, messages: list[BaseMessage], transcript: Transcript) -> None:
        """The opening leaves room for tool outputs: shrink it (and the schemas) while it takes too much."""
        limit = self.budget.limit
        if limit is None:
            return
        while self.count(messages) > OPENING_SHARE * limit and self._shrink_opening(messages, transcript, "opening"):
            pass

    def fit(self, messages: list[BaseMessage], transcript: Transcript) -> dict[str, Any]:
        """Compact until the conversation fits; the request options (max_tokens) for the call."""
        limit = self.budget.limit
        if limit is None:
            return {}
        tokens = self.count(messages)
        while tokens > limit:
            if not self.compact(messages, transcript, f"{tokens} tokens over the {limit}-token prompt budget"):
                raise DoesNotFit(f"{tokens} prompt tokens after every compaction; the window is {self.budget.window} "
                                 f"tokens ({self.budget.source}), {limit} of them for the prompt")
            tokens = self.count(messages)
        most = self.budget.output_tokens(tokens)
        # sent as max_completion_tokens by the client; local servers that read only max_tokens get it too
        return {"max_tokens": most, "extra_body": {"max_tokens": most}} if self.local else {"max_tokens": most}

    def after_error(self, exc: BaseException, messages: list[BaseMessage], transcript: Transcript) -> bool:
        """A context-length error: learn the window from it and compact; False when nothing is left to remove."""
        self.budget.learn(str(exc), self.count(messages))
        transcript.write("context-error", error=str(exc)[:400], window=self.budget.window, scale=self.budget.scale)
        return self.compact(messages, transcript, "the endpoint refused the prompt as too long")

    def compact(self, messages: list[BaseMessage], transcript: Transcript, why: str) -> bool:
        for i, m in enumerate(messages):
            if isinstance(m, ToolMessage) and isinstance(m.content, str) and not m.content.startswith(STUB):
                where = pointer(m.content)
                messages[i] = m.model_copy(update={"content": f"{STUB}; the full output is in {where}]"})
                return self._logged(transcript, "tool-output", why, where=where, message=i)
        return self._shrink_opening(messages, transcript, why)

    def _shrink_opening(self, messages: list[BaseMessage], transcript: Transcript, why: str) -> bool:
        if self.shrink is not None and self.shrink(messages):
            return self._logged(transcript, "opening-prompt", why)
        if not self.slim:
            self.slim = True
            return self._logged(transcript, "tool-schemas", why)
        return False

    def _logged(self, transcript: Transcript, what: str, why: str, **extra: Any) -> bool:
        self.compactions += 1
        transcript.write("compacted", what=what, why=why, window=self.budget.window, **extra)
        return True
