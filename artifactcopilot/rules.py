"""Deterministic rule engine: dimension levels, badges and cross-checks, each with a trace.

Facts come only from committed packets and the intervention ledger (`facts_from_packets`).
A fact the review did not establish is None, and every comparison with None is false. The engine fails
closed: a condition on an unknown fact, or on a fact whose value is not of its declared type, is not met
and leaves a flag naming the fact and the phase (`Facts.problems`) — never an exception, never a badge.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Any

from .models import EvidenceLevel, Flag, Intervention, InterventionLevel, PhasePacket, Score, TraceStep
from .rubric import Condition, LevelRule, Rubric

_OPS = {"==": operator.eq, "!=": operator.ne, ">=": operator.ge, "<=": operator.le,
        ">": operator.gt, "<": operator.lt}


@dataclass
class Fact:
    value: Any
    evidence: list[str] = field(default_factory=list)


class Facts(dict[str, Fact]):
    """Rule facts by name, with the problems met while building or reading them (flags for the report)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # a copy shares its source's problems, so a problem met while deriving badges reaches the report
        self.problems: list[Flag] = getattr(args[0], "problems", []) if args else []

    def problem(self, fact: str, message: str) -> None:
        phase = fact.partition(".")[0] if "." in fact else None
        flag = Flag(severity="high", code="rule-fact-rejected", phase=phase, message=f"{fact}: {message}")
        if flag not in self.problems:
            self.problems.append(flag)


_TYPES: dict[str, tuple[type, ...]] = {"bool": (bool,), "score": (Score,), "intervention": (InterventionLevel,),
                                       "evidence": (EvidenceLevel,), "number": (int, float), "text": (str,)}


def type_problem(value: Any, kind: str | None) -> str | None:
    """Why `value` cannot stand for a fact of type `kind` (None when it can, or when the value is unset)."""
    if value is None:
        return None
    if kind not in _TYPES:
        return "not a fact the rubric declares"
    if not isinstance(value, _TYPES[kind]) or (kind == "number" and isinstance(value, bool)):
        return f"a {type(value).__name__} value where the rubric declares a {kind}"
    return None


def check(cond: Condition, facts: Facts | dict[str, Fact], rule: str, rubric: Rubric) -> TraceStep:
    """One condition; not met (with a problem recorded) when its fact is unknown, mistyped or not comparable."""
    fact = facts.get(cond.fact) or Fact(None)
    value = fact.value.value if hasattr(fact.value, "value") else fact.value
    step = TraceStep(rule=rule, condition=cond.text, value=value, result=False, evidence=list(fact.evidence))
    problem = ("not a fact the rubric declares" if cond.fact not in rubric.facts
               else type_problem(fact.value, rubric.facts[cond.fact]))
    if problem is None and fact.value is not None:
        try:
            step.result = bool(_OPS[cond.op](fact.value, cond.value))
        except (TypeError, ValueError) as exc:
            problem = f"cannot be compared in '{cond.text}' ({exc})"
    if problem is not None and isinstance(facts, Facts):
        facts.problem(cond.fact, f"{problem}; condition '{cond.text}' of {rule} not met")
    return step


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
    for item in level.none_of:
        fact = facts.get(item) or Fact(None)
        steps.append(TraceStep(rule=rule, condition=f"{item} not found", value=fact.value,
                               result=fact.value is not True, evidence=list(fact.evidence)))
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
    facts = Facts(facts)
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
    facts = Facts(facts)
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
    """Turn committed packets and the ledger into rule facts. Missing phases give no facts.

    A packet gives only its own phase's checklist items and the facts facts.yaml declares for its phase, of
    the declared type; facts computed from evidence (scores, evidence levels, gate checks, the intervention
    ledger) are set here and nothing a packet says replaces them. Anything else a packet holds is ignored,
    with a problem recorded."""
    reg = rubric.registry
    facts = Facts()
    gate = packets.get(reg.gate_phase)
    for phase, packet in packets.items():
        own = set(rubric.phase_items(phase))
        for item in packet.checklist:
            if item.item not in own:
                facts.problem(item.item, f"checklist item of the {phase} packet that is not one of {phase}'s "
                                         "rubric items: ignored")
            elif item.status != "not_applicable" and phase in reg.dimensions:
                facts[item.item] = Fact(item.status == "satisfied", list(item.evidence))
    for name in rubric.declared:
        computed = _packet_fact(name, packets, rubric, facts)
        if computed is not None:
            facts[name] = computed
    if gate:
        for gc in reg.gate_checks:
            check_item = gate.item(gc)
            passed = gate.gate.get(gc)
            facts[f"gate.{gc}"] = Fact(passed if isinstance(passed, bool) else None,
                                       check_item.evidence if check_item else [])
    for dim in reg.dimensions:
        if (dim_packet := packets.get(dim)) is not None:
            facts[f"{dim}.score"] = Fact(dim_packet.score, list(dim_packet.evidence))
            facts[f"{dim}.evidence_level"] = Fact(dim_packet.evidence_level, list(dim_packet.evidence))
    levels = [p.evidence_level for d, p in packets.items() if d in reg.workflow_phases]
    if levels:
        top = max(levels, key=lambda lv: lv.rank)
        cited = dict.fromkeys(e for d in reg.workflow_phases if d in packets for e in packets[d].evidence)
        facts["evidence_level"] = Fact(top, list(cited))
    if gate:  # the ledger is only meaningful once the review started
        worst = max((i.level for i in interventions), key=lambda lv: lv.rank, default=InterventionLevel.I0)
        facts["max_intervention"] = Fact(worst, [i.id for i in interventions if i.level == worst])
    return facts


def _packet_fact(name: str, packets: dict[str, PhasePacket], rubric: Rubric, facts: Facts) -> Fact | None:
    """A fact a phase computes (facts.yaml): its checklist item of that name, else its packet fact of that key,
    when the value has the declared type (else unset, with a problem recorded)."""
    phase, _, key = name.partition(".")
    packet = packets.get(phase)
    if packet is None or phase not in rubric.registry.dimensions:
        return None
    if name in rubric.phase_items(phase):  # a checklist item: only the phase's judgement of it counts
        item = packet.item(name)
        return Fact(item.status == "satisfied", list(item.evidence)) if item is not None else None
    kind = rubric.facts[name]
    value = packet.facts.get(key)
    evidence_key = rubric.fact_evidence.get(name)
    cited = packet.facts.get(evidence_key, []) if evidence_key else []
    cited = [e for e in cited if isinstance(e, str)] if isinstance(cited, list) else []
    if value is None and kind == "bool":  # an unstated finding of the phase is a finding not made
        return Fact(False, cited)
    problem = type_problem(value, kind)
    if problem is not None:
        facts.problem(name, f"the {phase} packet gives {problem}: not established")
        return Fact(None)
    return Fact(value, cited)


def level_max(levels: list[EvidenceLevel]) -> EvidenceLevel:
    return max(levels, key=lambda lv: lv.rank, default=EvidenceLevel.E0)


def supported_score(dim_id: str, checklist, evidence_level: EvidenceLevel, interventions: list[Intervention],
                    rubric: Rubric) -> tuple[Score, list[TraceStep]]:
    """The score a packet's own checklist supports under the rubric's level rules."""
    own = set(rubric.phase_items(dim_id))
    facts = Facts({c.item: Fact(c.status == "satisfied", list(c.evidence))
                   for c in checklist if c.status != "not_applicable" and c.item in own})
    facts[f"{dim_id}.evidence_level"] = Fact(evidence_level)
    top = max((i.level for i in interventions), key=lambda lv: lv.rank, default=InterventionLevel.I0)
    facts["max_intervention"] = Fact(top, [i.id for i in interventions if i.level == top])
    return score_dimension(dim_id, facts, rubric)
