"""Phases whose agent failed, in the report: a distinct state, neither a pass nor a rejection.

A failed phase without a fallback is "not established — the agent failed: <reason>". A badge is
listed as not established (rather than not earned) when none of its conditions is known to be false
and at least one is unknown only because a failed phase did not establish it: the badge the report
gives is then a lower bound, not a verdict.
"""
from __future__ import annotations

from ..models import AgentFailure, PhasePacket, Report, TraceStep
from ..rubric import Rubric


def agent_failures(packets: dict[str, PhasePacket], rubric: Rubric) -> list[AgentFailure]:
    return [AgentFailure(phase=p, reason=packets[p].agent_failure or "", fallback=packets[p].reviewed_by)
            for p in rubric.registry.phase_ids if p in packets and packets[p].agent_failure]


def _phase_of(fact: str, rubric: Rubric) -> set[str]:
    """The phases a rule fact comes from."""
    reg = rubric.registry
    head = fact.split(".", 1)[0]
    if head == "gate":
        return {reg.gate_phase}
    if head in reg.phase_ids:
        return {head}
    if fact == "evidence_level":
        return set(reg.workflow_phases)
    return set()


def badges_not_established(trace: list[TraceStep], badges: dict[str, bool], failures: list[AgentFailure],
                           rubric: Rubric) -> list[str]:
    """Badges not awarded only because a phase whose agent failed (no fallback) established nothing."""
    failed = {f.phase for f in failures if not f.fallback}
    if not failed:
        return []
    blocked: list[str] = []
    for badge in rubric.registry.badges:
        if badges.get(badge):
            continue
        unknown, refuted = False, False
        for step in (s for s in trace if s.rule == badge and not s.result):
            fact = step.condition.split()[0]
            if fact.startswith("badge."):
                dep = fact.removeprefix("badge.")
                unknown |= dep in blocked
                refuted |= dep not in blocked
            elif (phases := _phase_of(fact, rubric)) & failed and (
                    step.value is None or phases != {rubric.registry.gate_phase}):
                # a failed dimension established nothing (its facts are defaults), and the review's evidence level
                # is the highest its workflow phases reached: a failed one might have reached more. Gate checks
                # acquisition recorded still count.
                unknown = True
            else:
                refuted = True
        if unknown and not refuted:
            blocked.append(badge)
    return blocked


def failure_lines(failures: list[AgentFailure], gate: PhasePacket | None, rubric: Rubric) -> list[str]:
    """The report's 'not established' entries for failed phases."""
    out = []
    for f in failures:
        if f.fallback:
            out.append(f"{f.phase}: the agent failed ({f.reason}); the {f.fallback} reviewer reviewed it instead "
                       "(flagged).")
            continue
        what = f.phase
        if f.phase == rubric.registry.gate_phase and gate is not None:
            missing = [gc for gc in rubric.registry.gate_checks if gc not in gate.gate]
            what = f"{f.phase} ({', '.join(missing) or 'every check'} not established"
            what += f"; {', '.join(gate.gate)} recorded from acquisition)" if gate.gate else ")"
        out.append(f"{what}: not established — the agent failed: {f.reason}.")
    return out


def blocked_advice(report: Report, rubric: Rubric) -> list[str]:
    """When the next badge is not established because an agent failed, that — not advice to authors — is next."""
    target = next((b for b in rubric.registry.badges if not report.badges.get(b)), None)
    if target is None or target not in report.badges_not_established:
        return []
    phases = ", ".join(f"{f.phase} ({f.reason})" for f in report.agent_failures if not f.fallback)
    return [f"For {target}: not established — the agent failed at {phases}. Review again with a model whose "
            "context window and endpoint hold (see the README's LLM section), or with --agent auto, which "
            "reviews failed phases offline."]
