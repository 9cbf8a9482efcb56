"""Build the Report from committed packets (rule engine only) and write report.json/.md/.html."""
from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from .. import __version__
from ..evidence import EvidenceStore, atomic_write
from ..faults import crash_point
from ..models import (DIMENSIONS, Cost, DimensionResult, Flag, GateResult, PhasePacket, Report, Score)
from ..redact import default_redactor
from ..rubric import Rubric
from ..rules import confidence, derive_badges, facts_from_packets, level_max, run_crosschecks
from ..schemas import schema_for
from .html import render_html
from .markdown import render_markdown

SEVERITY_ORDER = {"high": 0, "medium": 1, "low": 2, "info": 3}


def build_report(store: EvidenceStore, rubric: Rubric, meta: dict, *, agent: str, sandbox: str,
                 status: str = "complete", timing: dict | None = None, cost: Cost | None = None,
                 extra_flags: list[Flag] | None = None) -> Report:
    packets = store.packets()
    interventions = store.interventions()
    facts = facts_from_packets(packets, interventions)
    decision = derive_badges(facts, rubric)
    cross_flags, cross_trace = run_crosschecks(facts, decision.badges, rubric)
    flags = [f for p in packets.values() for f in p.flags] + cross_flags + list(extra_flags or [])
    flags.sort(key=lambda f: SEVERITY_ORDER[f.severity])
    gate_packet = packets.get("gate")
    gate = {}
    for gc in ("GC1", "GC2", "GC3"):
        it = gate_packet.item(gc) if gate_packet else None
        gate[gc] = GateResult(passed=bool(gate_packet and gate_packet.gate.get(gc)), evidence=it.evidence if it else [])
    dimensions = {d: _dimension(packets.get(d)) for d in DIMENSIONS}
    levels = [p.evidence_level for d, p in packets.items() if d in ("D3", "D4")]
    return Report(
        tool_version=__version__, run_id=meta["run_id"], paper=meta["paper"], artifact=meta["artifact"],
        agent=agent, sandbox=sandbox, status=status, badge=decision.badge, badges=decision.badges, gate=gate,
        dimensions=dimensions, evidence_level=level_max(levels), interventions=interventions,
        derivation=decision.trace + cross_trace, flags=flags, confidence=confidence(packets, interventions, flags),
        cost=cost or Cost(), timing=timing or {}, evidence=store.all(),
        not_established=_not_established(packets, gate_packet), next_badge=_next_badge(decision.trace, decision.badges))


def _dimension(packet: PhasePacket | None) -> DimensionResult:
    if packet is None:
        return DimensionResult(score=None)
    return DimensionResult(score=packet.score, checklist=packet.checklist, evidence=packet.evidence,
                           evidence_level=packet.evidence_level, summary=packet.summary)


def _not_established(packets: dict[str, PhasePacket], gate: PhasePacket | None) -> list[str]:
    out = []
    if gate is None:
        return ["The availability gate was not decided; nothing else was assessed."]
    if not all(gate.gate.values()):
        out.append("The gate failed, so D1–D5 were not assessed (treated as not established).")
        return out
    for dim in DIMENSIONS:
        packet = packets.get(dim)
        if packet is None:
            out.append(f"{dim} has no committed packet (not established).")
            continue
        violated = [c.item for c in packet.checklist if c.status == "violated"]
        if violated:
            out.append(f"{dim}: not established — {', '.join(violated)}.")
    return out


def _next_badge(trace, badges: dict[str, bool]) -> list[str]:
    """The failed conditions of the lowest badge not yet earned, phrased for authors."""
    target = next((b for b in ("available", "functional", "reusable", "reproduced") if not badges[b]), None)
    if target is None:
        return []
    hints = {"gate.GC1": "Publish the artifact at a stable, downloadable location (e.g. an archive with a DOI).",
             "gate.GC2": "Add a README at the top level that explains what the artifact is and how to use it.",
             "gate.GC3": "Include the code, data or scripts behind the paper, not only the paper text.",
             "D1.score": "Document goal, setup, the commands to run, inputs/outputs and which outputs map to which paper tables.",
             "D2.score": "Declare the environment (pinned dependency file or container) so setup succeeds as written.",
             "D3.score": "Provide a documented command that runs to completion and prints or writes checkable output.",
             "D4.score": "Say which command produces which paper table/figure and make its output show the same values.",
             "D5.score": "Document how to apply the artifact to new data or a new configuration, with a concrete command.",
             "D5.transfer_validated": "Give a transfer example (another input or configuration) that runs as documented.",
             "evidence_level": "Make the documented workflow runnable by a reviewer so the review gets executed (E2) evidence.",
             "max_intervention": "Make the artifact run without reviewer changes to core code (an I4 change disqualifies the badge).",
             "D4.table_reproduced": "Make the documented command regenerate a paper table from the artifact's own computation.",
             "D4.copied_results": "Compute results in the workflow instead of printing checked-in result files.",
             "D4.evidence_level": "Make the documented command regenerate a paper table from the artifact's own computation."}
    out = []
    for step in trace:
        fact = step.condition.split()[0]
        if step.rule == target and not step.result and not fact.startswith("badge."):
            tip = hints.get(fact, f"Satisfy: {step.condition}.")
            if tip not in out:
                out.append(tip)
    return [f"For {target}: {tip}" for tip in out]


def write_reports(report: Report, run_dir: Path, rubric: Rubric) -> dict[str, Path]:
    """Validate report.json against its schema, then write all three renderings atomically (secrets redacted)."""
    redactor = default_redactor()
    data = redactor.redact_obj(report.model_dump(mode="json"))
    jsonschema.Draft202012Validator(schema_for("report")).validate(data)
    paths = {"json": run_dir / "report.json", "md": run_dir / "report.md", "html": run_dir / "report.html"}
    markdown = render_markdown(report, rubric)
    if (run_dir / "transcripts").is_dir():  # the LLM agent's trace: auditable, but not evidence
        markdown += ("\n## Agent transcripts\n\nEvery prompt, response and tool call of the LLM agent is in "
                     "[transcripts/](transcripts/) — a trace for audit, not evidence.\n")
    atomic_write(paths["json"], json.dumps(data, indent=2) + "\n")
    crash_point("report:write")  # between two report files: a resume must rewrite all three
    atomic_write(paths["md"], redactor.redact(markdown))
    atomic_write(paths["html"], redactor.redact(render_html(report, rubric, markdown)))
    return paths


__all__ = ["build_report", "write_reports", "render_markdown", "render_html", "Score"]
