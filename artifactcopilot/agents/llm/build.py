"""The agent `--agent llm` uses: settings from flags and the environment, the endpoint checked once."""

from __future__ import annotations

from collections.abc import Callable

from ...llm import endpoint
from ...llm.calls import ModelCaller
from ...llm.context import ContextBudget
from ...llm.settings import settings_from_env
from ...models import Flag
from ..heuristic import HeuristicAgent
from .agent import LLMReviewAgent
from .fallback import FallbackAgent


def build_llm_agent(req, on_wait: Callable[[str], None] | None = None) -> tuple[LLMReviewAgent | FallbackAgent,
                                                                                  list[Flag]]:
    """The agent and the flags the report should carry about it; raises LLMUnavailable when the endpoint
    cannot be used. `on_wait` hears when the endpoint is busy and the check waits for it."""
    settings = settings_from_env(req.model, req.max_steps, req.max_cost, req.max_attempts,
                                 getattr(req, "context_tokens", None))
    check = endpoint.check_endpoint(settings, on_wait=on_wait)
    # a busy server answers its window and tokenizer probes as slowly as it answered the check: give them as long
    patient = max(settings.probe_timeout_s, min(settings.probe_wait_s, 2 * check.seconds))
    probing = settings.model_copy(update={"probe_timeout_s": patient}) if check.busy else settings
    budget = ContextBudget.from_settings(probing, probe=True)
    agent = LLMReviewAgent(endpoint.make_chat_model(settings), settings, ModelCaller(settings, budget=budget))
    flags = [
        Flag(
            severity="info",
            code="llm-transcripts",
            message=f"model {settings.model}: every prompt, response and tool call is in transcripts/ "
            "(an audit trace, not evidence)",
        )
    ]
    if check.busy:
        flags.append(Flag(severity="info", code="llm-endpoint-busy",
                          message=f"the LLM endpoint was busy, not down: it accepted the connection and answered the "
                                  f"reachability check after {check.seconds:.0f} s (the review waits up to "
                                  f"{settings.probe_wait_s:g} s, COPILOT_LLM_PROBE_WAIT_S); its window and tokenizer "
                                  f"probes were given {patient:.0f} s"))
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
