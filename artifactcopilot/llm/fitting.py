"""Fitting one conversation into the model's context window, before a call and after a context error.

Every call keeps the answer's tokens free (`answer`: what the conversation's final tool call needs, see
answer.py) and sends that as `max_tokens`. What goes when the conversation is too long, in order
(compaction.py): the oldest tool outputs (each replaced by a line naming the evidence file that holds it), the
text and long arguments of the model's older replies, older notes of the review, then older exchanges folded
into a line each of the opening message, then the opening prompt re-rendered smaller (the agent's `shrink`),
then the tool schemas with less description. Each step is counted on the review's caller and logged in the
transcript as a `compacted` event. `share` sizes the next tool results to what is left once older outputs
could go.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from .compaction import cut_note, cut_reply, fold_exchange, pointer, stub_output, with_folded
from .context import ContextBudget
from .transcript import Transcript

OPENING_SHARE = 0.6
"""The opening (system prompt, phase prompt, tool schemas) may take this share of the prompt budget: the rest is
room for tool outputs."""
RESULTS_SHARE = 0.5
"""The tool results of one reply take at most this share of the room the opening leaves."""
SHORT_DESCRIPTION = 90
"""Characters a tool's description keeps in a short schema (an `explain` tool can give all of it)."""
TURN_TOKENS = 80
"""Kept free beside a reply's tool results for the model's next tool call."""


class DoesNotFit(Exception):
    """Nothing more can be removed and the conversation still exceeds the window."""


def _slim(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _slim(v) for k, v in node.items() if k not in ("description", "title", "examples", "default")}
    if isinstance(node, list):
        return [_slim(v) for v in node]
    return node


def slim_schema(tool: dict, detail: int = 1) -> dict:
    """A tool's schema with its description cut to its first sentence (detail 1) or left out (0), and its
    arguments reduced to their names, types and enumerations."""
    fn = tool["function"]
    first = re.split(r"(?<=[.;:])\s", fn.get("description") or "", maxsplit=1)[0][:SHORT_DESCRIPTION]
    short = {"name": fn["name"], **({"description": first} if detail > 0 else {})}
    return {"type": "function", "function": {**short, "parameters": _slim(fn.get("parameters") or {})}}


@dataclass
class Fitter:
    budget: ContextBudget
    tools: Sequence[BaseTool]
    answer: int = 512
    """Completion tokens the conversation's answer needs (the final tool's arguments, see answer.py)."""
    shrink: Callable[[list[BaseMessage]], bool] | None = None
    """Re-renders the opening prompt smaller in place; False when it is as small as it gets."""
    detail: int = 2
    """How much of the tool schemas is sent: 2 all, 1 a sentence of description and bare arguments, 0 no
    description."""
    local: bool = False
    """A self-hosted endpoint (a base URL is set): the completion limit goes as max_tokens too."""
    compactions: int = 0
    counted: int | None = None
    """Prompt tokens of the last fitted conversation, as counted here (None: the window is unknown)."""
    folded: list[str] = field(default_factory=list)
    """One line per older exchange folded into the opening message."""
    _opening: str | None = field(default=None, repr=False)
    _bound: dict = field(default_factory=dict, repr=False)

    def schemas(self) -> list[dict]:
        full = [convert_to_openai_tool(t) for t in self.tools]
        return full if self.detail >= 2 else [slim_schema(t, self.detail) for t in full]

    def bind(self, model, tool_choice: str | None = None):
        """`model` with the tools bound (shorter schemas once the window asks for it), made once per shape."""
        key = (self.detail, tool_choice)
        if key not in self._bound:
            kwargs = {"tool_choice": tool_choice} if tool_choice else {}
            self._bound[key] = model.bind_tools(self.schemas() if self.detail < 2 else list(self.tools), **kwargs)
        return self._bound[key]

    def count(self, messages: list[BaseMessage]) -> int:
        return self.budget.count(messages, self.schemas())

    @property
    def limit(self) -> int | None:
        return self.budget.limit(self.answer)

    def opening(self, messages: list[BaseMessage]) -> int:
        """Tokens of the part no compaction removes: system and phase messages, tool schemas."""
        return self.count(messages[:2])

    def prefit(self, messages: list[BaseMessage], transcript: Transcript) -> None:
        """The opening leaves room for tool outputs: shrink it (and the schemas) while it takes too much."""
        limit = self.limit
        if limit is None:
            return
        while self.count(messages) > OPENING_SHARE * limit and self._shrink_opening(messages, transcript, "opening"):
            pass

    def share(self, messages: list[BaseMessage], results: int) -> int | None:
        """Tokens each of the next `results` tool results may take: what is left of the window once the older tool
        outputs could go, at most half of the room the opening leaves (None: the window is unknown)."""
        limit = self.limit
        if limit is None:
            return None
        kept = [m for m in messages if not isinstance(m, ToolMessage)]
        left = limit - self.count(kept) - TURN_TOKENS * results
        room = int((limit - self.opening(messages)) * RESULTS_SHARE)
        return max(0, min(left, room)) // max(1, results)

    def fit(self, messages: list[BaseMessage], transcript: Transcript) -> dict[str, Any]:
        """Compact until the conversation fits; the request options (max_tokens) for the call."""
        limit = self.limit
        if limit is None:  # the window is unknown: the request keeps the model's own completion limit
            return {}
        most = self.budget.reserve(self.answer)
        tokens = self.count(messages)
        while tokens > limit:
            if not self.compact(messages, transcript, f"{tokens} tokens over the {limit}-token prompt budget"):
                raise DoesNotFit(f"{tokens} prompt tokens after every compaction; the window is {self.budget.window} "
                                 f"tokens ({self.budget.source}), {limit} of them for the prompt and {most} for the "
                                 "answer")
            tokens = self.count(messages)
        self.counted = tokens
        # sent as max_completion_tokens by the client; local servers that read only max_tokens get it too
        return {"max_tokens": most, "extra_body": {"max_tokens": most}} if self.local else {"max_tokens": most}

    def after_error(self, exc: BaseException, messages: list[BaseMessage], transcript: Transcript) -> bool:
        """A context-length error: learn the window from it and compact; False when nothing is left to remove."""
        self.budget.learn(str(exc), self.count(messages))
        transcript.write("context-error", error=str(exc)[:400], window=self.budget.window, scale=self.budget.scale)
        return self.compact(messages, transcript, "the endpoint refused the prompt as too long")

    def compact(self, messages: list[BaseMessage], transcript: Transcript, why: str) -> bool:
        if (i := stub_output(messages)) is not None:
            return self._logged(transcript, "tool-output", why, where=pointer(str(messages[i].content)), message=i)
        if (i := cut_reply(messages)) is not None:
            return self._logged(transcript, "reply", why, message=i)
        if (i := cut_note(messages)) is not None:
            return self._logged(transcript, "note", why, message=i)
        if len(messages) > 1 and isinstance(messages[1].content, str):
            self._opening = self._opening or messages[1].content
            if (i := fold_exchange(messages, self.folded)) is not None:
                messages[1] = HumanMessage(with_folded(self._opening, self.folded))
                return self._logged(transcript, "exchange", why, message=i)
        return self._shrink_opening(messages, transcript, why)

    def _shrink_opening(self, messages: list[BaseMessage], transcript: Transcript, why: str) -> bool:
        if self.shrink is not None and self.shrink(messages):
            if self.folded and isinstance(messages[1].content, str):  # the folded lines stay under the new opening
                self._opening = messages[1].content
                messages[1] = HumanMessage(with_folded(self._opening, self.folded))
            return self._logged(transcript, "opening-prompt", why)
        if self.detail > 0:
            self.detail -= 1
            return self._logged(transcript, "tool-schemas", why, detail=self.detail)
        return False

    def _logged(self, transcript: Transcript, what: str, why: str, **extra: Any) -> bool:
        self.compactions += 1
        transcript.write("compacted", what=what, why=why, window=self.budget.window, **extra)
        return True
