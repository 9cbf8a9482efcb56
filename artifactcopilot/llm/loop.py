"""The one tool-calling loop of the LLM path, shared by the review agent, the verifier and the
reproduction agent.

Each step checks the review-wide limits (cost, wall clock, an endpoint found unreachable), calls the
model through the review's `ModelCaller` (retries, pricing, transcript), and answers every tool call
of the reply — a malformed call, an unknown tool or invalid arguments get a correction the model can
act on, a tool that fails is an observation, never a crash. Each reply's tool results are sized to what is
left of the window (the `pager`'s share), and a result still larger is cut with a pointer to its evidence. On the
last step — the step limit, or too little of the phase's time left for more than one call — the final tool (e.g.
`submit_packet`) is forced. The loop stops when `done()` holds (by default: the final tool returned without
error), at the step limit, when the phase's time is used up, or at a limit of the review.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import openai
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolCall, ToolMessage
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ValidationError

from ..errors import CopilotError
from .answer import answer_tokens
from .calls import ModelCaller, UnparsableResponse
from .clock import OutOfTime
from .compaction import pointer
from .context import is_context_error
from .cost import usage_of
from .fitting import DoesNotFit, Fitter
from .paging import Pager
from .transcript import Transcript

Stop = Literal["done", "steps", "cost", "wall", "unavailable", "refused", "context", "time"]
GIVE_UP = (openai.APIConnectionError, openai.APITimeoutError, openai.RateLimitError, openai.InternalServerError)
"""Failures left after the caller's retries: the loop ends with 'unavailable'."""
UNREACHABLE = (openai.APIConnectionError, openai.APITimeoutError)
"""Failures that mark the endpoint down for the rest of the review."""
TOOL_RESULT_CHARS = 20_000


@dataclass
class LoopResult:
    stop: Stop
    """done: `done()` held; steps: the step limit; cost / wall: a review-wide limit; unavailable: no model;
    refused: the endpoint refused the request; context: the conversation does not fit the model's window;
    time: the phase's share of the review's time is used up."""
    steps: int
    """Model calls made in this run of the loop (a malformed or unreadable reply counts)."""
    error: str | None = None
    """Why the model was unavailable, refused or the conversation did not fit."""


@dataclass
class ToolLoop:
    """Binds `tools` to `model` and runs the conversation in `messages` until done or a limit."""

    model: Any
    caller: ModelCaller
    tools: Sequence[BaseTool]
    final: str | None = None
    """The tool that ends the conversation; forced on the last step."""
    max_steps: int = 30
    scope: str = "phase"
    """What the tools belong to, as the model is told when it names another tool."""
    nudge: str = "Act only through tool calls."
    """Sent when a reply has no tool call."""
    shrink: Callable[[list[BaseMessage]], bool] | None = None
    """Re-renders the opening prompt smaller, in place, to fit the model's window (see fitting.py)."""
    pager: Pager | None = None
    """Sizes tool results to the window; the tools that page read the same object."""
    detail: int = 2
    """How much of the tool schemas is sent from the start: 2 all, 1 a sentence and bare argument types (the rest
    on request, e.g. through an `explain` tool), 0 no description (see fitting.py)."""
    final_called: bool = field(default=False, init=False)
    compactions: int = field(default=0, init=False)

    def run(
        self, messages: list[BaseMessage], transcript: Transcript, done: Callable[[], bool] | None = None, sent: int = 0
    ) -> LoopResult:
        """Continue the conversation; messages[sent:] have not been logged yet. `messages` grows in place."""
        by_name = {t.name: t for t in self.tools}
        done = done or (lambda: self.final_called)
        budget = self.caller.budget
        final = by_name.get(self.final) if self.final else None
        parameters = convert_to_openai_tool(final)["function"].get("parameters") if final is not None else None
        answer = answer_tokens(parameters, budget.counter.count)
        fitter = Fitter(budget, self.tools, answer, self.shrink, self.detail, local=bool(self.caller.settings.base_url))
        pager = self.pager or Pager(budget, self.caller.settings.tool_output_chars)
        fitter.prefit(messages, transcript)
        step = 0
        try:
            while step < self.max_steps:
                limit: Stop | None = "unavailable" if self.caller.down else self.caller.meter.exceeded()
                if limit:
                    return LoopResult(limit, step, self.caller.down)
                last = (step == self.max_steps - 1 or self.caller.one_call_left()) and self.final in by_name \
                    and self.max_steps > 1
                runnable = fitter.bind(self.model, self.final if last else None)
                try:
                    options = fitter.fit(messages, transcript)
                    reply = self.caller.invoke(runnable, messages, transcript, sent, counted=fitter.counted, **options)
                except UnparsableResponse as exc:
                    messages.append(HumanMessage(f"Your last reply could not be read ({exc}). Reply with a tool call."))
                    sent, step = len(messages) - 1, step + 1
                    continue
                except GIVE_UP as exc:  # before APIStatusError: rate limits and 5xx are left after the retries
                    return self._gave_up(exc, step + 1, transcript, "unavailable")
                except openai.APIStatusError as exc:
                    if not is_context_error(exc):
                        return self._gave_up(exc, step + 1, transcript, "refused")
                    if not fitter.after_error(exc, messages, transcript):
                        window = budget.window
                        raise DoesNotFit(f"still too long after every compaction for the "
                                         f"{f'{window}-token ' if window else ''}window ({exc})"[:400]) from None
                    continue  # compacted: the same step again
                step += 1
                self._observe(fitter, messages, reply)
                sent = len(messages)
                messages.append(for_history(reply))
                pager.share = fitter.share(messages, len(reply.tool_calls) + len(reply.invalid_tool_calls))
                self._answer(reply, messages, by_name, transcript, pager)
                if done():
                    return LoopResult("done", step)
            return LoopResult("steps", self.max_steps)
        except DoesNotFit as exc:
            transcript.write("error", error=f"context: {exc}")
            return LoopResult("context", step, str(exc))
        except OutOfTime as exc:
            transcript.write("error", error=f"out of time: {exc}")
            return LoopResult("time", step, str(exc))
        finally:
            self.caller.compactions += fitter.compactions
            self.compactions += fitter.compactions

    def _gave_up(self, exc: BaseException, steps: int, transcript: Transcript, stop: Stop) -> LoopResult:
        reason = f"{type(exc).__name__}: {exc}"[:300]
        if isinstance(exc, UNREACHABLE):
            self.caller.down = reason  # retries are spent on a dead endpoint: later loops do not wait again
        transcript.write("error", error=reason)
        return LoopResult(stop, steps, reason)

    def _observe(self, fitter: Fitter, messages: list[BaseMessage], reply: AIMessage) -> None:
        """The server's own prompt count calibrates ours (a tokenizer it has and we do not)."""
        reported = usage_of(reply).input_tokens
        if reported and self.caller.budget.window is not None:
            self.caller.budget.observe(fitter.count(messages), reported)

    def _answer(self, reply: AIMessage, messages: list[BaseMessage], by_name: dict[str, BaseTool],
                transcript: Transcript, pager: Pager) -> None:
        """Every tool call of the reply, good or malformed, gets exactly one answer."""
        for bad in reply.invalid_tool_calls:
            transcript.write("malformed", name=bad.get("name"), args=bad.get("args"), error=bad.get("error"))
            messages.append(
                ToolMessage(
                    f"malformed tool call '{bad.get('name')}': {bad.get('error') or 'arguments are not valid JSON'}. "
                    "Call the tool again with JSON arguments that match its schema.",
                    tool_call_id=bad.get("id") or "invalid",
                    status="error",
                )
            )
        for call in reply.tool_calls:
            result, ok = self._call(call, by_name)
            if ok and call["name"] == self.final:
                self.final_called = True
            transcript.write("tool", name=call["name"], args=call["args"], result=result[:TOOL_RESULT_CHARS])
            result = pager.cut(result, pointer(result))  # the whole output stays in its evidence file
            messages.append(ToolMessage(result, tool_call_id=call.get("id") or call["name"]))
        if not reply.tool_calls and not reply.invalid_tool_calls:
            messages.append(HumanMessage(self.nudge))

    def _call(self, call: ToolCall, by_name: dict[str, BaseTool]) -> tuple[str, bool]:
        """The tool's answer, and whether the tool ran without error."""
        tool = by_name.get(call["name"])
        if tool is None:
            return f"'{call['name']}' is not a tool of this {self.scope}; available: {', '.join(by_name)}", False
        try:
            return str(tool.invoke(call["args"])), True
        except ValidationError as exc:
            return f"invalid arguments for {call['name']}: {validation_errors(exc)}. Fix them and call again.", False
        except CopilotError as exc:
            return f"refused: {exc}", False
        except Exception as exc:  # noqa: BLE001 - a failing tool is an observation, not a crash
            return f"tool error: {type(exc).__name__}: {exc}"[:500], False


def for_history(reply: AIMessage) -> AIMessage:
    """The reply as it is sent back: some servers (llama.cpp) reject a tool-call turn whose content is null, a
    malformed call's turn included (llama-cpp-python answers it with HTTP 500)."""
    if (reply.tool_calls or reply.invalid_tool_calls) and not reply.content:
        return reply.model_copy(update={"content": "(tool call)"})
    return reply


def validation_errors(exc: ValidationError) -> str:
    return "; ".join(f"{'/'.join(map(str, e['loc'])) or 'packet'}: {e['msg']}" for e in exc.errors()[:8])
