"""One model call: retries, cost accounting and the transcript, in one place for every LLM user.

A `ModelCaller` is made once per review (or per reproduction) from its `LLMSettings`; the review
agent, its verifier and the reproduction agent's one-shot helpers all call the model through it,
so every call is retried the same way, counted against the same limits and written to a transcript.
Each call's timeout is what is left of the phase's share of the review's time (`deadline`, see clock.py), at most
the per-call limit; a call cut by the share, or one there is no time left to make, raises OutOfTime.
"""

from __future__ import annotations

import json
import time
from typing import Any

import openai
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from .clock import Deadline, OutOfTime
from .context import ContextBudget
from .cost import CostMeter
from .retry import status_of, with_retries
from .settings import LLMSettings
from .transcript import Transcript, message_record


class UnparsableResponse(Exception):
    """The endpoint answered, but not with a chat message we could read (counted as a call)."""


class ModelCaller:
    """Settings, cost meter and retry policy shared by every model call of one review."""

    def __init__(self, settings: LLMSettings, meter: CostMeter | None = None, budget: ContextBudget | None = None):
        self.settings = settings
        self.meter = meter or CostMeter(settings.price, settings.max_cost_usd, settings.wall_limit_s)
        self.budget = budget or ContextBudget.from_settings(settings)
        """The model's context window and token counts, shared by every loop of the review."""
        self.compactions = 0
        """Times a conversation was compacted to fit the window (after a context-length error or before a call)."""
        self.down: str | None = None
        """Set once the endpoint proved unreachable: later loops stop at once instead of waiting again."""
        self.deadline = Deadline()
        """The end of the running phase's share of the review's time (set by the agent at each phase)."""
        self.durations: list[float] = []
        """Seconds each answered call took."""

    def one_call_left(self) -> bool:
        """Whether what is left of the phase's time holds one more call at most (going by the slowest recent one)."""
        left = self.deadline.left()
        return left is not None and bool(self.durations) and left < 2 * max(self.durations[-3:])

    def invoke(self, runnable, messages: list[BaseMessage], transcript: Transcript, sent: int = 0,
               counted: int | None = None, **options: Any) -> AIMessage:
        """Call the model with `messages`; messages[sent:] are new since the last call and are logged, with the
        prompt's tokens as `counted` when the window is known. `options` go with the request (e.g. max_tokens)."""
        sizes = {"tokens": counted, "max_tokens": options.get("max_tokens")} if counted is not None else {}
        transcript.write("prompt", messages=[message_record(m) for m in messages[sent:]], **sizes)

        def on_retry(n: int, exc: BaseException, delay: float) -> None:
            transcript.write(
                "retry",
                attempt=n,
                status=status_of(exc),
                error=f"{type(exc).__name__}: {exc}"[:300],
                delay_s=round(delay, 2),
            )

        s = self.settings

        def call() -> AIMessage:
            timeout = self.deadline.timeout(s.request_timeout_s)  # OutOfTime when too little is left
            try:
                return runnable.invoke(messages, **options, timeout=timeout)
            except openai.APITimeoutError:
                if self.deadline.cuts(timeout, s.request_timeout_s):
                    raise OutOfTime(f"a model call was cut after {timeout:.0f} s, at the end of this phase's share "
                                    "of the review's time") from None
                raise

        def sleep(delay: float) -> None:
            left = self.deadline.left()
            if left is not None and left < delay:
                raise OutOfTime(f"{max(0.0, left):.0f} s left of this phase's share, less than the retry's wait")
            time.sleep(delay)

        began = time.monotonic()
        try:
            response = with_retries(call, s.max_retries, s.backoff_s, s.backoff_max_s, on_retry, sleep)
        except (json.JSONDecodeError, KeyError, openai.APIResponseValidationError) as exc:
            self.meter.charge(None)  # the call happened and may have been billed; count it
            transcript.write("unparsable", error=f"{type(exc).__name__}: {exc}"[:500])
            raise UnparsableResponse(str(exc)[:300]) from exc
        self.durations.append(time.monotonic() - began)
        usage = self.meter.charge(response)
        transcript.write(
            "response",
            message=message_record(response),
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            review_usd=round(self.meter.usd, 6),
            review_calls=self.meter.calls,
        )
        return response

    def counted(self, model, transcript: Transcript) -> CountedModel:
        """`model` for code that calls `model.invoke(prompt)` once (format tool, method opinion), through this
        caller."""
        return CountedModel(model, self, transcript)


class CountedModel:
    """A chat model whose `invoke` goes through a `ModelCaller` (retries, cost, transcript)."""

    def __init__(self, model, caller: ModelCaller, transcript: Transcript):
        self.model, self.caller, self.transcript = model, caller, transcript

    @property
    def model_name(self) -> str:
        return str(
            getattr(self.model, "model_name", None) or getattr(self.model, "model", None) or self.caller.settings.model
        )

    def invoke(self, prompt: Any) -> AIMessage:
        limit = self.caller.down or self.caller.meter.exceeded()
        if limit:
            raise RuntimeError(f"model not called: {limit}")
        messages = [HumanMessage(prompt)] if isinstance(prompt, str) else list(prompt)
        return self.caller.invoke(self.model, messages, self.transcript)
