"""What a phase's packet may state: its own rubric items, and the facts facts.yaml declares for it, typed.

Facts the review computes from evidence (scores, evidence levels, gate checks, the intervention ledger,
badges) and other phases' items are outside every packet's reach. The checker rejects a packet that names
them, with reasons an agent can act on; a packet still holding them on its last attempt is committed
without them (`strip_foreign`). The LLM agent is offered a packet schema that enumerates the phase's items
and declared facts (`phase_packet_model`), so a well-behaved model never writes anything else.
"""
from __future__ import annotations

from enum import Enum
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from ..models import ChecklistItem, EvidenceLevel, Flag, InterventionLevel, PhasePacket, Score
from ..rubric import Rubric

_PY_TYPES: dict[str, Any] = {"bool": bool, "score": Score, "intervention": InterventionLevel,
                             "evidence": EvidenceLevel, "number": float, "text": str, "evidence-ids": list[str]}
PREFIX = "namespace: "
"""Starts every reason of this module: what it names is removed (`strip_foreign`), never disputed as a claim."""
_STATUS: Any = Literal["satisfied", "violated", "not_applicable"]
_COMPUTED_KEYS = ("score", "evidence_level", "max_intervention", "gate")


def _value_problem(value: Any, kind: str) -> str | None:
    if kind == "bool":
        ok = isinstance(value, bool)
    elif kind == "number":
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    elif kind == "evidence-ids":
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
    elif kind in ("score", "intervention", "evidence"):
        enum: type[Enum] = _PY_TYPES[kind]
        ok = isinstance(value, enum) or value in {m.value for m in enum}
    else:
        ok = isinstance(value, str)
    return None if ok else f"must be a {kind}, not {type(value).__name__} {value!r:.40}"


def _fact_problem(packet: PhasePacket, key: str, rubric: Rubric) -> str | None:
    """Why the packet may not state fact `key` (None: it may, with the value it has)."""
    phase, own = packet.phase, rubric.packet_facts(packet.phase)
    if key in own:
        value = packet.facts[key]
        problem = None if value is None else _value_problem(value, own[key])
        return f"fact '{key}' {problem}" if problem else None
    allowed = ", ".join(sorted(own)) or "none"
    if "." in key or key in _COMPUTED_KEYS or key in rubric.facts:
        return (f"fact '{key}' is not one a {phase} packet may state (the review computes it from evidence, or it "
                f"belongs to another phase or to the checklist); {phase} may state: {allowed}")
    return None


def item_problems(packet: PhasePacket, rubric: Rubric) -> list[str]:
    own = rubric.phase_items(packet.phase)
    reasons, seen = [], set()
    for item in packet.checklist:
        if item.item not in own:
            reasons.append(f"{PREFIX}checklist item '{item.item}' is not a {packet.phase} rubric item; judge only "
                           f"{', '.join(own)}")
        elif item.item in seen:
            reasons.append(f"{PREFIX}checklist item '{item.item}' is judged more than once; judge it once")
        seen.add(item.item)
    return reasons


def namespace_problems(packet: PhasePacket, rubric: Rubric) -> list[str]:
    """The checker's reasons: items of other phases or of no phase, duplicates, facts the phase may not state."""
    reasons = item_problems(packet, rubric)
    reasons += [PREFIX + p for key in packet.facts if (p := _fact_problem(packet, key, rubric))]
    return reasons


def strip_foreign(packet: PhasePacket, rubric: Rubric) -> PhasePacket:
    """The packet without what it may not state (foreign or repeated items, forbidden or mistyped facts),
    with one flag naming what was removed."""
    own, seen, checklist, items, dropped = set(rubric.phase_items(packet.phase)), set(), [], [], []
    for item in packet.checklist:
        if item.item in own and item.item not in seen:
            checklist.append(item)
        else:
            items.append(item.item)
        seen.add(item.item)
    facts = {}
    for key, value in packet.facts.items():
        if _fact_problem(packet, key, rubric):
            dropped.append(key)
        else:
            facts[key] = value
    if not items and not dropped:
        return packet
    parts = [f"facts it may not state or of the wrong type: {', '.join(dropped)}"] if dropped else []
    parts += [f"{len(items)} checklist items that are not its own or repeated: {', '.join(items)}"] if items else []
    flag = Flag(severity="high", code="packet-namespace", phase=packet.phase,
                message=f"removed from the {packet.phase} packet — " + "; ".join(parts)[:1500])
    return packet.model_copy(update={"checklist": checklist, "facts": facts, "flags": packet.flags + [flag]})


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")


@lru_cache(maxsize=64)
def _model_for(phase: str, items: tuple[str, ...], facts: tuple[tuple[str, str], ...]) -> type[BaseModel]:
    item_type: Any = Literal[items] if items else str
    item_model = create_model(f"{phase}ChecklistItem", __base__=_Closed,
                              item=(item_type, Field(description=f"One of {phase}'s rubric items.")),
                              status=(_STATUS, ...),
                              evidence=(list[str], Field(default_factory=list, description="Evidence ids.")),
                              note=(str, Field("", description=ChecklistItem.model_fields["note"].description)))
    fact_fields: dict[str, Any] = {key: (_PY_TYPES[kind] | None, None) for key, kind in facts}
    facts_model = create_model(f"{phase}Facts", __base__=_Closed, **fact_fields)
    fields: dict[str, Any] = {}
    for name, info in PhasePacket.model_fields.items():
        if name == "checklist":
            fields[name] = (list[item_model], Field(default_factory=list))
        elif name == "facts":
            fields[name] = (facts_model, Field(default_factory=facts_model,
                                               description=f"Only the facts {phase} may state."))
        else:
            fields[name] = (info.annotation, info)
    return create_model(f"{phase}Packet", __base__=_Closed, **fields)


def phase_packet_model(phase: str, rubric: Rubric) -> type[BaseModel]:
    """The packet schema offered to a model for `phase`: its items enumerated, its declared facts typed."""
    facts = tuple(sorted(rubric.packet_facts(phase).items()))
    return _model_for(phase, tuple(rubric.phase_items(phase)), facts)
