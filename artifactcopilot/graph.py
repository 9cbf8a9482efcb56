"""The phase graph: gate -> D1 -> ... -> D5 -> report, each phase followed by its packet check.

    gate ─► check_gate ─(failed gate)──────────────────────────────► report ─► END
                 │ retry ▲        │ passed
                 ▼       │        ▼
                 gate ───┘   D1 ─► check_D1 ─► D2 ─► ... ─► check_D5 ─► report

Built by `build_graph` with the agent, tools, store and checker injected; nothing at import time.
Only committed packets cross phase boundaries; the graph state holds ids and verdicts, not evidence.
"""
from __future__ import annotations

import operator
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, TypedDict

from langgraph.graph import END, START, StateGraph

from .agents.base import Agent, PhaseContext
from .agents.failed import failed_packet
from .evidence import EvidenceStore
from .faults import crash_point
from .models import EvidenceLevel, Flag, PhasePacket
from .rubric import Rubric
from .skills import Skill
from .tools import PhaseTools, ReviewContext
from .verifier.checker import PacketChecker

Progress = Callable[[str, str, str], None]


class ReviewInput(TypedDict):
    """What a caller passes in."""

    paper: str
    artifact: str


class ReviewState(ReviewInput, total=False):
    """Internal state. `committed` accumulates; the rest is replaced by each node."""

    committed: Annotated[list[str], operator.add]
    attempts: dict[str, int]
    pending: dict[str, Any] | None
    pending_error: bool
    already_committed: bool
    feedback: list[str]
    verdict: str
    gate_passed: bool
    report: dict[str, Any] | None


@dataclass
class Runtime:
    agent: Agent
    tools: ReviewContext
    store: EvidenceStore
    checker: PacketChecker
    skills: dict[str, Skill]
    rubric: Rubric
    report: Callable[[], dict[str, Any]]
    """Builds and writes the report; returns report.json's content."""
    max_attempts: int = 3
    progress: Progress = field(default=lambda phase, event, detail: None)


def route_after_check(state: ReviewState) -> Literal["retry", "next", "report"]:
    """Pure router: retry a rejected packet, stop early on a failed gate, else go on."""
    if state.get("verdict") == "retry":
        return "retry"
    if state.get("gate_passed") is False:
        return "report"
    return "next"


def _error_packet(phase: str, exc: BaseException, rt: Runtime, tools: PhaseTools, attempt: int) -> PhasePacket:
    """An internal error still yields a committed, flagged result: the phase is not established (its agent failed),
    never judged; the gate keeps what acquisition settles mechanically."""
    ev = rt.store.add(phase, "error", "phase-error.txt", "".join(traceback.format_exception(exc)),
                      f"internal error in {phase}: {exc}", EvidenceLevel.E0)
    flag = Flag(severity="high", code="phase-error", phase=phase,
                message=f"internal error: {type(exc).__name__}: {exc} (see {ev.path})")
    return failed_packet(phase, f"internal error: {type(exc).__name__}: {str(exc)[:200]} (see {ev.path})", tools,
                         rt.rubric.registry.gate_phase, attempt, [ev.id], [flag])


def make_phase_node(phase: str, rt: Runtime):
    skill = rt.skills[phase]

    def node(state: ReviewState) -> dict:
        attempts = dict(state.get("attempts") or {})
        committed = rt.store.packets().get(phase)
        if committed is not None:  # resumed after the commit landed but before its checkpoint did
            return {"pending": committed.model_dump(mode="json"), "pending_error": False, "already_committed": True,
                    "attempts": attempts}
        attempt = attempts.get(phase, 0) + 1
        rt.progress(phase, "start", f"attempt {attempt}")
        ctx = PhaseContext(phase=phase, packets=rt.store.packets(), rubric=rt.rubric,
                           feedback=list(state.get("feedback") or []), attempt=attempt)
        tools = PhaseTools(rt.tools, phase, skill.tool_scope)
        try:
            packet = rt.agent.run(skill, ctx, tools)
        except Exception as exc:  # noqa: BLE001 - any failure becomes a flagged phase result
            packet = _error_packet(phase, exc, rt, tools, attempt)
        # a phase whose agent failed claims nothing: there is nothing for the checker to accept or reject
        error = packet.agent_failure is not None and packet.reviewed_by is None
        # Working memory: every attempt is kept for audit but never cited by the report.
        rt.store.write_working(phase, f"attempt-{attempt}.json", packet.model_dump_json(indent=2))
        attempts[phase] = attempt
        return {"pending": packet.model_dump(mode="json"), "pending_error": error, "already_committed": False,
                "attempts": attempts}

    return node


def make_check_node(phase: str, rt: Runtime):
    skill = rt.skills[phase]

    def node(state: ReviewState) -> dict:
        packet = PhasePacket.model_validate(state["pending"])
        attempt = (state.get("attempts") or {}).get(phase, 1)
        if not state.get("pending_error") and not state.get("already_committed"):
            result = rt.checker.check(packet, skill)
            if not result.accepted:
                rt.store.write_working(phase, f"rejected-{attempt}.json",
                                       PhasePacket.model_dump_json(packet, indent=2) + "\n" + "\n".join(result.reasons))
                if attempt < rt.max_attempts:
                    rt.progress(phase, "rejected", "; ".join(result.reasons))
                    return {"verdict": "retry", "feedback": result.reasons, "pending": None}
                packet = _invalid_to_the_end(phase, packet, result.reasons, rt, state, attempt) \
                    or rt.checker.downgrade(packet, result.reasons)
        rt.store.commit_packet(packet)
        crash_point(f"commit:{phase}")  # after the packet lands, before the checkpoint records it
        rt.progress(phase, "committed", "agent failed" if packet.agent_failure and not packet.reviewed_by
                    else packet.score.value if packet.score else "")
        update: dict = {"verdict": "commit", "feedback": [], "pending": None, "committed": [phase]}
        if phase == rt.rubric.registry.gate_phase:
            update["gate_passed"] = bool(packet.gate) and all(packet.gate.values())
        return update

    return node


INVALID = ("schema:", "contract:")
"""Checker reasons that say a packet is malformed, not that its claims go beyond its evidence."""


def _invalid_to_the_end(phase: str, packet: PhasePacket, reasons: list[str], rt: Runtime, state: ReviewState,
                        attempt: int) -> PhasePacket | None:
    """The agent's last packet is still malformed (not merely over-claiming): the agent failed, which is no verdict.
    An agent with a stand-in (`--agent auto`) has the offline reviewer review the phase instead; None when the packet
    is well-formed and the checker's downgrade applies."""
    bad = [r for r in reasons if r.startswith(INVALID)]
    if not bad:
        return None
    skill = rt.skills[phase]
    tools = PhaseTools(rt.tools, phase, skill.tool_scope)
    reason = f"no valid packet in {attempt} attempts ({'; '.join(bad)[:240]})"
    stand_in = getattr(rt.agent, "stand_in", None)
    if stand_in is None:
        return failed_packet(phase, reason, tools, rt.rubric.registry.gate_phase, attempt,
                             [e for e in packet.evidence if rt.store.get(e) is not None])
    ctx = PhaseContext(phase=phase, packets=rt.store.packets(), rubric=rt.rubric, attempt=attempt)
    packet = stand_in(skill, ctx, tools, reason)
    result = rt.checker.check(packet, skill)
    return packet if result.accepted else rt.checker.downgrade(packet, result.reasons)


def make_report_node(rt: Runtime):
    def node(state: ReviewState) -> dict:
        rt.progress("report", "start", "")
        return {"report": rt.report()}

    return node


def build_graph(rt: Runtime, checkpointer=None):
    graph = StateGraph(ReviewState, input_schema=ReviewInput)
    reg = rt.rubric.registry
    for phase in reg.phase_ids:
        graph.add_node(phase, make_phase_node(phase, rt))
        graph.add_node(f"check_{phase}", make_check_node(phase, rt))
        graph.add_edge(phase, f"check_{phase}")
        graph.add_conditional_edges(f"check_{phase}", route_after_check,
                                    {"retry": phase, "next": reg.next_phase(phase), "report": "report"})
    graph.add_node("report", make_report_node(rt))
    graph.add_edge(START, reg.phase_ids[0])
    graph.add_edge("report", END)
    return graph.compile(checkpointer=checkpointer)
