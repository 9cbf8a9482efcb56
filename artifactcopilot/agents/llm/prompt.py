"""The message that opens a phase: its skill, its checklist, the packet contract, and one line for each source the
phase's context tools read in pages — earlier packets, the paper, the artifact.

Nothing in it grows with the artifact or the paper beyond a bounded index: the paper is its title, abstract,
section titles and table labels (read_paper reads the text), an earlier phase is its score and evidence ids
(read_evidence with its phase reads its facts and summary), the rubric is the checklist (explain 'score' says
what each score needs). For the smallest windows it is rendered smaller still (`shrink`).
"""
from __future__ import annotations

from langchain_core.messages import HumanMessage

from ...llm.prompts import render
from ...skills import Skill
from ...tables.render import hide_numbers
from ..base import PhaseContext
from .inert import data

ABSTRACT_CHARS = (600, 250, 0, 0)
"""Characters of the abstract at each shrink level."""
SECTIONS = (30, 20, 12, 8)
"""Section titles listed at each shrink level."""
SUMMARY_CHARS = (200, 0, 0, 0)
"""Characters of an earlier phase's summary at each shrink level."""
EVIDENCE_IDS = (8, 6, 4, 3)


def skill_text(skill: Skill) -> str:
    """The skill as the phase reads it: objective, completion criteria, instructions (its tools are bound)."""
    criteria = "\n".join(f"- {c}" for c in skill.completion_criteria)
    return f"Objective: {skill.objective}\nDone when:\n{criteria}\n\n{skill.body.strip()}"


def checklist(skill: Skill, context: PhaseContext, level: int = 0) -> str:
    """The phase's checklist items, with their text while the window allows (explain has it on demand)."""
    rubric = context.rubric
    items = rubric.phase_items(skill.phase)
    if level >= 2:
        return ", ".join(items) + " (explain gives an item's text, and with 'score' what each score needs)"
    if skill.phase == rubric.registry.gate_phase:
        lines = [f"- {gc}: {spec.get('title', '')}" for gc, spec in rubric.gate.items() if isinstance(spec, dict)]
    else:
        dim = rubric.dimensions.get(skill.phase)
        lines = [f"- {i}: {dim.items.get(i, '')}" if dim else f"- {i}" for i in items]
    return "\n".join(lines) + "\n(explain 'score': what each score needs)"


def earlier_packets(context: PhaseContext, level: int = 0) -> str:
    """One line per earlier phase: score or gate, evidence ids, the start of its summary."""
    if not context.packets:
        return "(none yet)"
    parts = []
    most = EVIDENCE_IDS[min(level, 3)]
    for phase, p in context.packets.items():
        head = f"- {phase}: score {p.score.value if p.score else '-'}" + (f", gate {p.gate}" if p.gate else "")
        if p.agent_failure and not p.reviewed_by:
            head += " (not established: its agent failed)"
        more = f" (+{len(p.evidence) - most} more)" if len(p.evidence) > most else ""
        head += f"; evidence {', '.join(p.evidence[:most]) or 'none'}{more}"
        summary = p.summary[: SUMMARY_CHARS[min(level, 3)]]
        parts.append(head + (f"; summary: {data(summary)}" if summary else ""))
    return "\n".join(parts)


def paper_index(paper, level: int = 0) -> str:
    """Title, abstract (table values hidden), section titles and table labels."""
    level = min(level, 3)
    tables = list(getattr(paper, "tables", []))
    sections = list(getattr(paper, "sections", []))
    lines = [f"Title: {getattr(paper, 'title', '') or '(untitled)'}"]
    abstract = hide_numbers(getattr(paper, "abstract", "") or "", tables)[: ABSTRACT_CHARS[level]]
    if abstract:
        lines.append(f"Abstract: {abstract}")
    shown = sections[: SECTIONS[level]]
    more = f" (+{len(sections) - len(shown)} more)" if len(sections) > len(shown) else ""
    lines.append("Sections: " + ("; ".join(s.title for s in shown) or "(none found)") + more)
    labels = ", ".join(t.label or "(unlabelled)" for t in tables[:20]) or "none found"
    lines.append(f"Tables: {labels}")
    return data("\n".join(lines))


class OpeningPrompt:
    """The message that opens a phase, re-rendered smaller (`shrink`) when the model's window asks for it."""

    LEVELS = 3

    def __init__(self, skill: Skill, context: PhaseContext, tools, max_steps: int):
        self.skill, self.context, self.tools, self.max_steps = skill, context, tools, max_steps
        self.level = 0

    def text(self) -> str:
        return phase_prompt(self.skill, self.context, self.tools, self.max_steps, self.level)

    def shrink(self, messages: list) -> bool:
        """messages[1] (the opening) one level smaller; False when it is already as small as it gets."""
        if self.level >= self.LEVELS:
            return False
        self.level += 1
        messages[1] = HumanMessage(self.text())
        return True


def packet_contract(skill: Skill, context: PhaseContext, level: int = 0) -> str:
    """What the packet holds (its schema has the shape; this says what goes in it)."""
    contract, rubric = skill.contract, context.rubric
    kinds = ", ".join(contract.evidence_kinds) or "any"
    score = "score: R, WR, WA or A (required)" if contract.score else \
        "gate: {" + ", ".join(f'"{gc}": bool' for gc in rubric.registry.gate_checks) + "} as the checklist says"
    facts = ", ".join(f"{k} ({v})" for k, v in rubric.packet_facts(skill.phase).items()) or "none"
    if level >= 3:
        return f"- each item judged with the evidence ids it rests on; evidence of kind {kinds}; {score}; " \
               f"evidence_level E0..E3; facts: {facts}; summary"
    return "\n".join([
        '- checklist: one entry per item, {"item", "status": satisfied|violated|not_applicable, "evidence": [ids], '
        '"note"}',
        f"- evidence: every id the packet relies on, including evidence of kind {kinds}",
        f"- {score}; evidence_level: E0 nothing executed, E1 read only, E2 valid output of your own run, E3 a paper "
        "table regenerated by it",
        f"- facts: {facts}; summary: one paragraph"])


def phase_prompt(skill: Skill, context: PhaseContext, tools, max_steps: int, level: int = 0) -> str:
    feedback = ""
    if context.feedback:
        feedback = (
            "The packet checker rejected the previous attempt:\n" + "\n".join(f"- {r}" for r in context.feedback) + "\n"
        )
    return render(
        "agent_phase",
        phase=skill.phase,
        attempt=str(context.attempt),
        skill=skill_text(skill),
        rubric=checklist(skill, context, level),
        packet=packet_contract(skill, context, level),
        earlier=earlier_packets(context, level),
        paper=paper_index(tools.paper, level),
        artifact=_artifact(tools),
        feedback=feedback,
        max_steps=str(max_steps),
    )


def _artifact(tools) -> str:
    acq = tools.acquisition
    if acq is None:
        return "not acquired yet (the gate acquires it)"
    return f"acquired ({acq.kind}), {len(acq.files)} files" if acq.ok else f"acquisition failed: {acq.error}"
