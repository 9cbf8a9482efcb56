"""The offline heuristic reviewer: a rule-based agent that follows each phase skill."""
from __future__ import annotations

from ...models import PhasePacket
from ...skills import Skill
from ...tools import PhaseTools
from ..base import PhaseContext
from .claims import run_claims
from .docs import run_docs
from .env import run_env
from .gate import run_gate
from .reuse import run_reuse
from .run import run_workflow_phase
from .unassessed import run_unassessed

PHASE_RUNNERS = {"gate": run_gate, "D1": run_docs, "D2": run_env, "D3": run_workflow_phase, "D4": run_claims,
                 "D5": run_reuse}


class HeuristicAgent:
    """Deterministic reviewer; needs no model. Same contract as the LLM agent."""

    name = "heuristic"

    def run(self, skill: Skill, context: PhaseContext, tools: PhaseTools) -> PhasePacket:
        runner = PHASE_RUNNERS.get(skill.phase)
        if runner is None:
            packet = run_unassessed(context, tools, skill.contract.checklist, skill.contract.evidence_kinds)
        else:
            packet = runner(context, tools)
        return packet.model_copy(update={"attempt": context.attempt})
