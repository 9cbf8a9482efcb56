"""The agent `--agent llm` uses: settings from flags and the environment, the endpoint checked once."""

from __future__ import annotations

from ...llm import endpoint
from ...llm.calls import ModelCaller
from ...llm.context import ContextBudget
from ...llm.settings import settings_from_env
from ...models import Flag
from ..heuristic import HeuristicAgent
from .agent import LLMReviewAgent
from .fallback import FallbackAgent


def build_llm_agent(req) -> tuple[LLMReviewAgent | FallbackAgent, list[Flag]]:
    """The agent and the flags the report should carry about it; raises LLMUnavailable when the endpoint
    cannot be used."""
    settings = settings_from_env(req.model, req.max_steps, req.max_cost, req.max_attempts,
                                 getattr(req, "context_tokens", None))
    endpoint.check_endpoint(settings)
    budget = ContextBudget.from_settings(settings, probe=True)
    agent = LLMReviewAgent(endpoint.make_chat_model(settings), settings, ModelCaller(settings, budget=budget))
    flags = [
        Flag(
            severity="info",
            code="llm-transcripts",
            message=f"model {settings.model}: every prompt, response and tool call is in transcripts/ "
            "(an audit trace, not evidence)",
        )
    ]
    window = f"{budget.window} tokens from {budget.source}" if budget.window else \
        "unknown (set COPILOT_LLM_CONTEXT_TOKENS or --context-tokens; fitted once the server names it)"
    flags.append(Flag(severity="info", code="llm-context-window",
                      message=f"context window: {window}; tokens counted by "
                              f"{'the server tokenizer' if budget.counter.exact else 'a conservative estimate'}"))
    if not settings.price.known:
        flags.append(
            Flag(
                severity="info",
                code="llm-price-unknown",
                message=f"no price for model {settings.model}: usd counts 0 and --max-cost cannot stop the review; "
                "set COPILOT_LLM_PRICES",
            )
        )
    if getattr(req, "agent", "llm") == "auto":  # a phase the model fails is reviewed offline, flagged
        return FallbackAgent(agent, HeuristicAgent()), flags
    return agent, flags
