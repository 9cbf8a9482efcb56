"""The verifier's rule stage: which runs ground a claim (`runs`, reading command text with `shell`) and
what a packet may claim from the evidence it cites (`grounding`). The packet checker applies it on the
last attempt for every agent; the LLM path's verifier dialogue (agents/llm/verifier.py) applies it
before it asks a model anything."""

from .grounding import (
    CLAIM_FACTS,
    UNAVAILABLE,
    WITHDRAWN,
    Grounds,
    claims_above,
    disputed_in,
    ground,
    grounding_problems,
    settle,
    tool_facts,
    withdraw,
)
from .runs import RunView, artifact_files, run_view, runs_artifact_code

__all__ = [
    "CLAIM_FACTS",
    "UNAVAILABLE",
    "WITHDRAWN",
    "Grounds",
    "RunView",
    "artifact_files",
    "claims_above",
    "disputed_in",
    "ground",
    "grounding_problems",
    "run_view",
    "runs_artifact_code",
    "settle",
    "tool_facts",
    "withdraw",
]
