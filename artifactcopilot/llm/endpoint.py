"""The chat model behind an OpenAI-compatible endpoint, and a quick check that the endpoint answers."""

from __future__ import annotations

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


def check_endpoint(settings: LLMSettings) -> None:
    """Fail fast, in one line, when the endpoint is unreachable or refuses the key."""
    base = (settings.base_url or "https://api.openai.com/v1").rstrip("/")
    hint = "start the model server or fix OPENAI_BASE_URL / OPENAI_API_KEY; --agent heuristic reviews offline"
    try:
        response = httpx.get(
            f"{base}/models", headers={"Authorization": f"Bearer {settings.api_key}"}, timeout=settings.probe_timeout_s
        )
    except httpx.HTTPError as exc:
        detail = f"{type(exc).__name__}: {str(exc)[:120] or 'no answer'}"
        raise LLMUnavailable(f"cannot reach the LLM endpoint {base} ({detail})", hint) from None
    if response.status_code in (401, 403):
        raise LLMUnavailable(f"the LLM endpoint {base} refused the API key (HTTP {response.status_code})", hint)
