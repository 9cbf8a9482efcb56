"""A phase the offline reviewer has no procedure for (a phase added to the rubric as data only).

It still commits a packet, so the review goes on and the report shows the phase: every item of the
skill's contract is "violated — not established" and the evidence says why. Nothing is claimed.
"""
from __future__ import annotations

from ...models import EvidenceLevel, PhasePacket
from ...rules import supported_score
from ...tools import PhaseTools
from ..base import PhaseContext, cited, item


def run_unassessed(ctx: PhaseContext, tools: PhaseTools, contract: tuple[str, ...],
                   kinds: tuple[str, ...]) -> PhasePacket:
    phase = ctx.phase
    reason = f"the offline reviewer has no procedure for phase {phase}; an LLM agent or a human must assess it"
    records = [tools.record_evidence(kind, "not-established", {"established": False, "reason": reason},
                                     f"{phase}: not established ({reason})", EvidenceLevel.E0)
               for kind in (kinds or ("note",))]
    ids = [r.id for r in records]
    checklist = [item(i, False, ids, f"not established: {reason}") for i in contract]
    score = None
    if phase in ctx.rubric.dimensions:
        score, _ = supported_score(phase, checklist, EvidenceLevel.E0, tools.store.interventions(), ctx.rubric)
    return PhasePacket(phase=phase, score=score, checklist=checklist, evidence=cited(checklist, *ids),
                       evidence_level=EvidenceLevel.E0, summary=f"Not established: {reason}.")
