"""Deterministic rule engine: dimension levels, badges and cross-checks, each with a trace.

Facts come only from committed packets and the intervention ledger (`facts_from_packets`).
A fact the review did not establish is None, and every comparison with None is false.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Any

from .errors import RubricError
from .models import EvidenceLevel, Flag, Intervention, InterventionLevel, PhasePacket, Score, TraceStep
from .rubric import Condition, LevelRule, Rubric

_OPS = {"==": operator.eq, "!=": operator.ne, ">=": operator.ge, "<=": operator.le,
        ">": operator.gt, "<": operator.lt}


@dataclass
class Fact:
    value: Any
    evidence: list[str] = field(default_factory=list)


Facts = dict[str, Fact]


def check(cond: Condition, facts: Facts, rule: str, rubric: Rubric) -> TraceStep:
    if cond.fact not in rubric.facts:
        raise RubricError(f"rule '{rule}' names unknown fact '{cond.fact}'")
    fact = facts.get(cond.fact) or Fact(None)
    result = False if fact.value is None else bool(_OPS[cond.op](fact.value, cond.value))
    value = fact.value.value if hasattr(fact.value, "value") else fact.value
    return TraceStep(rule=rule, condition=cond.text, value=value, result=result, evidence=list(fact.evidence))


def _item_step(item: str, facts: Facts, rule: str) -> TraceStep:
    fact = facts.get(item) or Fact(None)
    return TraceStep(rule=rule, condition=f"{item} satisfied", value=fact.value,
                     result=fact.value is True, evidence=list(fact.evidence))


def _level_holds(level: LevelRule, facts: Facts, rule: str, rubric: Rubric) -> tuple[bool, list[TraceStep]]:
    steps = [_item_step(item, facts, rule) for item in level.all_of]
    if level.at_least:
        n, items = level.at_least
        sub = [_item_step(item, facts, rule) for item in items]
        got = sum(s.result for s in sub)
        steps.append(TraceStep(rule=rule, condition=f"at least {n} of {', '.join(items)}", value=got,
                               result=got >= n, evidence=sorted({e for s in sub if s.result for e in s.evidence})))
    steps += [check(c, facts, rule, rubric) for c in level.facts]
    return all(s.result for s in steps), steps


def score_dimension(dim_id: str, facts: Facts, rubric: Rubric) -> tuple[Score, list[TraceStep]]:
    """Highest level whose rule holds; R when none does. The trace has every level tried."""
    trace: list[TraceStep] = []
    for level, rule in rubric.dimensions[dim_id].levels.items():
        ok, steps = _level_holds(rule, facts, f"{dim_id}.{level}", rubric)
        trace += steps
        if ok:
            return Score(level), trace
    return Score.R, trace


@dataclass
class BadgeDecision:
    badges: dict[str, bool]
    badge: str
    trace: list[TraceStep]


def derive_badges(facts: Facts, rubric: Rubric) -> BadgeDecision:
    facts = dict(facts)
    badges: dict[str, bool] = {}
    trace: list[TraceStep] = []
    for rule in rubric.badges:
        steps = [check(c, facts, rule.id, rubric) for c in rule.conditions]
        trace += steps
        badges[rule.id] = all(s.result for s in steps)
        facts[f"badge.{rule.id}"] = Fact(badges[rule.id], sorted({e for s in steps for e in s.evidence}))
    badge = next((b for b in reversed(rubric.registry.tiers) if badges.get(b)), "none")
    return BadgeDecision(badges=badges, badge=badge, trace=trace)


def run_crosschecks(facts: Facts, badges: dict[str, bool], rubric: Rubric) -> tuple[list[Flag], list[TraceStep]]:
    facts = dict(facts)
    for name, value in badges.items():
        facts[f"badge.{name}"] = Fact(value)
    flags, trace = [], []
    for cc in rubric.crosschecks:
        when = [check(c, facts, f"crosscheck:{cc.code}", rubric) for c in cc.when]
        trace += when
        if not all(s.result for s in when):
            continue
        then = [check(c, facts, f"crosscheck:{cc.code}", rubric) for c in cc.then]
        trace += then
        if not all(s.result for s in then):
            flags.append(Flag(severity=cc.severity, code=cc.code, message=cc.message))
    return flags, trace


def facts_from_packets(packets: dict[str, PhasePacket], interventions: list[Intervention], rubric: Rubric) -> Facts:
    """Turn committed packets and the ledger into rule facts. Missing phases give no facts."""
    reg = rubric.registry
    facts: Facts = {}
    gate = packets.get(reg.gate_phase)
    if gate:
        for gc in reg.gate_checks:
            item = gate.item(gc)
            facts[f"gate.{gc}"] = Fact(gate.gate.get(gc), item.evidence if item else [])
    for dim in reg.dimensions:
        packet = packets.get(dim)
        if not packet:
            continue
        facts[f"{dim}.score"] = Fact(packet.score, list(packet.evidence))
        facts[f"{dim}.evidence_level"] = Fact(packet.evidence_level, list(packet.evidence))
        for item in packet.checklist:
            if item.status != "not_applicable":
                facts[item.item] = Fact(item.status == "satisfied", list(item.evidence))
    for name in rubric.fact_evidence.keys() | {n for n in rubric.facts if "." in n}:
        computed = _packet_fact(name, packets, rubric)
        if computed is not None:
            facts[name] = computed
    levels = [p.evidence_level for d, p in packets.items() if d in reg.workflow_phases]
    if levels:
        top = max(levels, key=lambda lv: lv.rank)
        cited = dict.fromkeys(e for d in reg.workflow_phases if d in packets for e in packets[d].evidence)
        facts["evidence_level"] = Fact(top, list(cited))
    if gate:  # the ledger is only meaningful once the review started
        worst = max((i.level for i in interventions), key=lambda lv: lv.rank, default=InterventionLevel.I0)
        facts["max_intervention"] = Fact(worst, [i.id for i in interventions if i.level == worst])
    return facts


def _packet_fact(name: str, packets: dict[str, PhasePacket], rubric: Rubric) -> Fact | None:
    """A fact a phase computes (facts.yaml): its checklist item of that name, else its packet fact of that key."""
    phase, _, key = name.partition(".")
    packet = packets.get(phase)
    if packet is None or phase not in rubric.registry.dimensions or key in ("score", "evidence_level"):
        return None
    item = packet.item(name)
    if item is not None:
        return Fact(item.status == "satisfied", list(item.evidence))
    if name in rubric.fact_evidence:
        return Fact(bool(packet.facts.get(key)), list(packet.facts.get(rubric.fact_evidence[name], [])))
    if rubric.facts.get(name) == "bool" and name not in _checklist_items(rubric):
        return Fact(bool(packet.facts.get(key)), [])
    return None


def _checklist_items(rubric: Rubric) -> set[str]:
    return {i for d in rubric.dimensions.values() for i in d.items}


def level_max(levels: list[EvidenceLevel]) -> EvidenceLevel:
    return max(levels, key=lambda lv: lv.rank, default=EvidenceLevel.E0)


def supported_score(dim_id: str, checklist, evidence_level: EvidenceLevel, interventions: list[Intervention],
                    rubric: Rubric) -> tuple[Score, list[TraceStep]]:
    """The score a packet's own checklist supports under the rubric's level rules."""
    facts: Facts = {c.item: Fact(c.status == "satisfied", list(c.evidence))
                    for c in checklist if c.status != "not_applicable"}
    facts[f"{dim_id}.evidence_level"] = Fact(evidence_level)
    top = max((i.level for i in interventions), key=lambda lv: lv.rank, default=InterventionLevel.I0)
    facts["max_intervention"] = Fact(top, [i.id for i in interventions if i.level == top])
    return score_dimension(dim_id, facts, rubric)
