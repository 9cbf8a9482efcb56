"""One model call: retries, cost accounting and the transcript, in one place for agent and verifier."""
from __future__ import annotations

import json

import openai
from langchain_core.messages import AIMessage, BaseMessage

from .cost import CostMeter
from .retry import status_of, with_retries
from .settings import LLMSettings
from .transcript import Transcript, message_record


class UnparsableResponse(Exception):
    """The endpoint answered, but not with a chat message we could read (counted as a call)."""


class ModelCaller:
    def __init__(self, settings: LLMSettings, meter: CostMeter):
        self.settings, self.meter = settings, meter

    def invoke(self, runnable, messages: list[BaseMessage], transcript: Transcript, sent: int = 0) -> AIMessage:
        """Call the model with `messages`; messages[sent:] are new since the last call and are logged."""
        transcript.write("prompt", messages=[message_record(m) for m in messages[sent:]])

        def on_retry(n: int, exc: BaseException, delay: float) -> None:
            transcript.write("retry", attempt=n, status=status_of(exc), error=f"{type(exc).__name__}: {exc}"[:300],
                             delay_s=round(delay, 2))

        s = self.settings
        try:
            response = with_retries(lambda: runnable.invoke(messages), s.max_retries, s.backoff_s, s.backoff_max_s, on_retry)
        except (json.JSONDecodeError, KeyError, openai.APIResponseValidationError) as exc:
            self.meter.charge(None)  # the call happened and may have been billed; count it
            transcript.write("unparsable", error=f"{type(exc).__name__}: {exc}"[:500])
            raise UnparsableResponse(str(exc)[:300]) from exc
        usage = self.meter.charge(response)
        transcript.write("response", message=message_record(response), input_tokens=usage.input_tokens,
                         output_tokens=usage.output_tokens, review_usd=round(self.meter.usd, 6), review_calls=self.meter.calls)
        return response
