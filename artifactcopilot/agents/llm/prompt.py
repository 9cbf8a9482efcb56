"""The message that opens a phase: skill, rubric slice, contract, earlier packets, paper and artifact."""

from __future__ import annotations

import json

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
        need += [c.text for c in rule.facts]
        lines.append(f"- {lv} needs: {'; '.join(need)}")
    return "\n".join(lines)


def earlier_packets(context: PhaseContext) -> str:
    if not context.packets:
        return "(none yet)"
    parts = []
    for phase, p in context.packets.items():
        facts = json.dumps(p.facts, ensure_ascii=False, default=str)
        facts = facts[:FACTS_CHARS] + (" ..." if len(facts) > FACTS_CHARS else "")
        head = f"{phase}: score {p.score.value if p.score else '-'}" + (f", gate {p.gate}" if p.gate else "")
        parts.append(
            f"{head}; evidence {', '.join(p.evidence[:12])}\nsummary and facts:\n{data(p.summary + chr(10) + facts)}"
        )
    return "\n\n".join(parts)


def phase_prompt(skill: Skill, context: PhaseContext, tools, max_steps: int) -> str:
    paper = tools.paper
    # the paper's table values stay hidden, as in `copilot repro`: the comparison tool checks them, not the model
    paper_text = hide_numbers(getattr(paper, "text", ""), list(getattr(paper, "tables", [])))[:PAPER_CHARS]
    tables = ", ".join(t.label or "(unlabelled)" for t in getattr(paper, "tables", [])) or "none found"
    feedback = ""
    if context.feedback:
        feedback = (
            "The packet checker rejected the previous attempt:\n" + "\n".join(f"- {r}" for r in context.feedback) + "\n"
        )
    contract = skill.contract
    return render(
        "agent_phase",
        phase=skill.phase,
        attempt=str(context.attempt),
        skill=skill.text,
        rubric=rubric_slice(skill, context),
        checklist_items=", ".join(contract.checklist) or "(none)",
        evidence_kinds=", ".join(contract.evidence_kinds) or "(any)",
        score_rule="score: one of R, WR, WA, A (required)"
        if contract.score
        else "gate: {"
        + ", ".join(f'"{gc}": bool' for gc in context.rubric.registry.gate_checks)
        + "}, matching the checklist; no score",
        earlier=earlier_packets(context),
        paper=data(paper_text) + f"\nTables in the paper: {tables}",
        artifact=_artifact(tools),
        feedback=feedback,
        max_steps=str(max_steps),
    )


def _artifact(tools) -> str:
    acq = tools.acquisition
    if acq is None:
        return "not acquired yet (the gate acquires it)"
    return f"acquired ({acq.kind}), {len(acq.files)} files" if acq.ok else f"acquisition failed: {acq.error}"
