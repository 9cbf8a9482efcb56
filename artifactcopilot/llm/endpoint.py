"""The chat model behind an OpenAI-compatible endpoint, and a quick check that the endpoint answers."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import httpx

from ..errors import CopilotError
from .settings import LLMSettings


class LLMUnavailable(CopilotError):
    """The model endpoint cannot be used (unreachable, key rejected)."""


def make_chat_model(settings: LLMSettings):
    """A LangChain chat model for `settings`; its own retries are off because `ModelCaller` retries."""
    from langchain_openai import ChatOpenAI

    kwargs: dict = {"seed": settings.seed} if settings.seed is not None else {}
    if settings.base_url:  # local servers (llama-cpp-python) read max_tokens, not the max_completion_tokens sent
        kwargs["extra_body"] = {"max_tokens": settings.max_output_tokens}
    return ChatOpenAI(
        model=settings.model,
        base_url=settings.base_url,
        api_key=settings.api_key,
        temperature=settings.temperature,
        max_tokens=settings.max_output_tokens,
        timeout=settings.request_timeout_s,
        max_retries=0,
        **kwargs,
    )


@dataclass(frozen=True)
class EndpointCheck:
    """What the reachability check saw: how long the endpoint took to answer, and whether it was busy (it accepted the
    connection but answered only after the probe's time limit)."""

    seconds: float
    busy: bool = False


_DOWN_HINT = "start the model server or fix OPENAI_BASE_URL / OPENAI_API_KEY; --agent heuristic reviews offline"
_BUSY_HINT = ("let the model server finish its current work, or wait longer with COPILOT_LLM_PROBE_WAIT_S; "
              "--agent heuristic reviews offline")
_SLOW = (httpx.ReadTimeout, httpx.WriteTimeout, httpx.PoolTimeout)
"""Timeouts after the connection was made: the server is there and busy. A refused connection, no route to the host,
a name that does not resolve or a connection that never completes (ConnectError, ConnectTimeout) means down."""


def check_endpoint(settings: LLMSettings, on_wait: Callable[[str], None] | None = None) -> EndpointCheck:
    """Fail fast, in one line, when the endpoint is down (refused, no route, name not resolved) or refuses the key.
    An endpoint that accepted the connection but is slow to answer is busy, not down: the check says so (`on_wait`)
    and waits for it up to `probe_wait_s` before it gives up, in one line too."""
    base = (settings.base_url or "https://api.openai.com/v1").rstrip("/")
    started, busy = time.monotonic(), False
    try:
        response = _models(base, settings, httpx.Timeout(settings.probe_timeout_s))
    except _SLOW:
        busy = True
        wait = max(settings.probe_wait_s, settings.probe_timeout_s)
        if on_wait:
            on_wait(f"the LLM endpoint {base} accepted the connection but has not answered in "
                    f"{settings.probe_timeout_s:g} s: busy, not down; waiting for it up to {wait:g} s")
        try:  # one patient request: more of them would only queue up behind the work that keeps the server busy
            response = _models(base, settings, httpx.Timeout(wait, connect=settings.probe_timeout_s))
        except _SLOW:
            raise LLMUnavailable(f"the LLM endpoint {base} accepted the connection but did not answer within "
                                 f"{time.monotonic() - started:.0f} s: busy, not down", _BUSY_HINT) from None
        except httpx.HTTPError as exc:
            raise LLMUnavailable(f"cannot reach the LLM endpoint {base} ({_detail(exc)})", _DOWN_HINT) from None
    except httpx.HTTPError as exc:
        raise LLMUnavailable(f"cannot reach the LLM endpoint {base} ({_detail(exc)})", _DOWN_HINT) from None
    if response.status_code in (401, 403):
        raise LLMUnavailable(f"the LLM endpoint {base} refused the API key (HTTP {response.status_code})", _DOWN_HINT)
    return EndpointCheck(seconds=round(time.monotonic() - started, 1), busy=busy)


def _models(base: str, settings: LLMSettings, timeout: httpx.Timeout) -> httpx.Response:
    return httpx.get(f"{base}/models", headers={"Authorization": f"Bearer {settings.api_key}"}, timeout=timeout)


def _detail(exc: httpx.HTTPError) -> str:
    return f"{type(exc).__name__}: {str(exc)[:120] or 'no answer'}"
