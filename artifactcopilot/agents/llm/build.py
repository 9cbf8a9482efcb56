"""The agent `--agent llm` uses: settings from flags and the environment, the endpoint checked once."""

from __future__ import annotations

from ...llm import endpoint
from ...llm.settings import settings_from_env
from ...models import Flag
from .agent import LLMReviewAgent


def build_llm_agent(req) -> tuple[LLMReviewAgent, list[Flag]]:
    """The agent and the flags the report should carry about it; raises LLMUnavailable when the endpoint
    cannot be used."""
    settings = settings_from_env(req.model, req.max_steps, req.max_cost, req.max_attempts)
    endpoint.check_endpoint(settings)
    agent = LLMReviewAgent(endpoint.make_chat_model(settings), settings)
    flags = [
        Flag(
            severity="info",
            code="llm-transcripts",
            message=f"model {settings.model}: every prompt, response and tool call is in transcripts/ "
            "(an audit trace, not evidence)",
        )
    ]
    if not settings.price.known:
        flags.append(
            Flag(
                severity="info",
                code="llm-price-unknown",
                message=f"no price for model {settings.model}: usd counts 0 and --max-cost cannot stop the review; "
                "set COPILOT_LLM_PRICES",
            )
        )
    return agent, flags
