"""The Agent seam: `run(skill, context, tools) -> PhasePacket`. Heuristic and LLM agents share it."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from ..models import ChecklistItem, PhasePacket
from ..rubric import Rubric
from ..skills import Skill
from ..tools import PhaseTools


@dataclass
class PhaseContext:
    phase: str
    packets: dict[str, PhasePacket]
    """Committed packets of earlier phases: the only memory that crosses a phase boundary."""
    rubric: Rubric
    feedback: list[str] = field(default_factory=list)
    """The packet checker's reasons for rejecting the previous attempt."""
    attempt: int = 1


class Agent(Protocol):
    name: str

    def run(self, skill: Skill, context: PhaseContext, tools: PhaseTools) -> PhasePacket: ...


def item(item_id: str, ok: bool | None, evidence: list[str] | None = None, note: str = "") -> ChecklistItem:
    """A checklist item; ok=None means not applicable."""
    status = "not_applicable" if ok is None else ("satisfied" if ok else "violated")
    return ChecklistItem(item=item_id, status=status, evidence=[e for e in (evidence or []) if e], note=note[:300])


def cited(checklist: list[ChecklistItem], *extra: str) -> list[str]:
    """Every evidence id the checklist cites, plus extras, in first-seen order."""
    seen: dict[str, None] = {}
    for c in checklist:
        for e in c.evidence:
            seen.setdefault(e, None)
    for e in extra:
        if e:
            seen.setdefault(e, None)
    return list(seen)
