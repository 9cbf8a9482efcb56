"""The message that opens a phase: skill, rubric slice, contract, earlier packets, paper and artifact."""

from __future__ import annotations

import json
import re

from langchain_core.messages import HumanMessage

from ...llm.prompts import render
from ...skills import Skill
from ...tables.render import hide_numbers
from ..base import PhaseContext
from .toolbox import data

FACTS_CHARS = 1500
PAPER_CHARS = 2500


def rubric_slice(skill: Skill, context: PhaseContext) -> str:
    rubric = context.rubric
    if skill.phase == "gate":
        return "\n".join(
            f"- {gc}: {spec.get('title', '')} {spec.get('criterion', spec.get('text', ''))}".strip()
            for gc, spec in rubric.gate.items()
            if isinstance(spec, dict)
        )
    dim = rubric.dimensions.get(skill.phase)
    if dim is None:
        return ""
    lines = [f"{dim.id} {dim.title}. Levels:"] + [f"- {lv}: {text}" for lv, text in dim.criteria.items()]
    lines += ["Checklist items:"] + [f"- {i}: {text}" for i, text in dim.items.items()]
    for lv, rule in dim.levels.items():
        need = list(rule.all_of) + (
            [f"at least {rule.at_least[0]} of {', '.join(rule.at_least[1])}"] if rule.at_least else []
        )
        need += [c.text for c in rule.facts] + [f"not {i}" for i in rule.none_of]
        lines.append(f"- {lv} needs: {'; '.join(need)}")
    return "\n".join(lines)


def earlier_packets(context: PhaseContext, level: int = 0) -> str:
    """Earlier packets: summary and facts (level 0), facts cut short (1), one line each (2 and up)."""
    if not context.packets:
        return "(none yet)"
    parts = []
    facts_chars = FACTS_CHARS if level == 0 else 300
    for phase, p in context.packets.items():
        head = f"{phase}: score {p.score.value if p.score else '-'}" + (f", gate {p.gate}" if p.gate else "")
        if p.agent_failure and not p.reviewed_by:
            head += " (not established: its agent failed)"
        if level >= 2:
            parts.append(f"{head}; evidence {', '.join(p.evidence[:6])}")
            continue
        facts = json.dumps(p.facts, ensure_ascii=False, default=str)
        facts = facts[:facts_chars] + (" ..." if len(facts) > facts_chars else "")
        parts.append(
            f"{head}; evidence {', '.join(p.evidence[:12])}\nsummary and facts:\n{data(p.summary + chr(10) + facts)}"
        )
    return "\n\n".join(parts)


NEEDS = {
    "D2": re.compile(r"setup|environment|implementation|artifact|install", re.I),
    "D3": re.compile(r"evaluation|experiment|benchmark|artifact|method", re.I),
    "D4": re.compile(r"result|evaluation|experiment|finding", re.I),
    "D5": re.compile(r"reuse|extension|discussion|artifact|limitation", re.I),
}


def paper_text(paper, phase: str, level: int) -> str:
    """The paper for the prompt: its opening (level 0), an index plus the sections the phase needs (1), the index
    alone (2 and up). Table values stay hidden, as in `copilot repro`: the comparison tool checks them."""
    tables = list(getattr(paper, "tables", []))
    if level == 0:
        return hide_numbers(getattr(paper, "text", ""), tables)[:PAPER_CHARS]
    sections = list(getattr(paper, "sections", []))
    index = [f"Title: {getattr(paper, 'title', '') or '(untitled)'}",
             "Sections: " + ("; ".join(sec.title for sec in sections[:30]) or "(none found)")]
    if level >= 2:
        return "\n".join(index)
    needed = [getattr(paper, "abstract", "")[:500]]
    pattern = NEEDS.get(phase)
    for sec in sections:
        if pattern is not None and pattern.search(sec.title) and sum(map(len, needed)) < 1200:
            needed.append(f"[{sec.title}] {sec.text[:400]}")
    return "\n".join(index) + "\n" + hide_numbers("\n".join(n for n in needed if n), tables)[:1400]


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


def phase_prompt(skill: Skill, context: PhaseContext, tools, max_steps: int, level: int = 0) -> str:
    paper = tools.paper
    tables = ", ".join(t.label or "(unlabelled)" for t in getattr(paper, "tables", [])) or "none found"
    feedback = ""
    if context.feedback:
        feedback = (
            "The packet checker rejected the previous attempt:\n" + "\n".join(f"- {r}" for r in context.feedback) + "\n"
        )
    contract = skill.contract
    rubric = rubric_slice(skill, context)
    if level >= 3:  # the checklist items stay; the level texts go
        rubric = "\n".join(line for line in rubric.splitlines() if " needs: " not in line)[:1200]
    return render(
        "agent_phase",
        phase=skill.phase,
        attempt=str(context.attempt),
        skill=skill.text,
        rubric=rubric,
        checklist_items=", ".join(contract.checklist) or "(none)",
        evidence_kinds=", ".join(contract.evidence_kinds) or "(any)",
        score_rule="score: one of R, WR, WA, A (required)"
        if contract.score
        else "gate: {"
        + ", ".join(f'"{gc}": bool' for gc in context.rubric.registry.gate_checks)
        + "}, matching the checklist; no score",
        earlier=earlier_packets(context, level),
        paper=data(paper_text(paper, skill.phase, level)) + f"\nTables in the paper: {tables}",
        artifact=_artifact(tools),
        feedback=feedback,
        max_steps=str(max_steps),
    )


def _artifact(tools) -> str:
    acq = tools.acquisition
    if acq is None:
        return "not acquired yet (the gate acquires it)"
    return f"acquired ({acq.kind}), {len(acq.files)} files" if acq.ok else f"acquisition failed: {acq.error}"
