"""Build the Report from committed packets (rule engine only) and write report.json/.md/.html."""
from __future__ import annotations

import json
from pathlib import Path

from .. import __version__
from ..evidence import EvidenceStore
from ..faults import crash_point
from ..fileio import atomic_write, sync_files
from ..models import Cost, DimensionResult, Flag, GateResult, PhasePacket, Report, Score
from ..redact import default_redactor
from ..rubric import Rubric
from ..rules import derive_badges, facts_from_packets, level_max, run_crosschecks
from ..schemas import validator_for
from .acquisition import AcquisitionFailure, acquisition_failure
from .agentfail import agent_failures, badges_not_established, blocked_advice, failure_lines
from .confidence import assess
from .extras import extras_for
from .html import render_html
from .markdown import render_markdown
from .reach import network_use
from .reading import Reader
from .route import route_of
from .summary import summarize
from .unestablished import not_established_words

SEVERITY_ORDER = {"high": 0, "medium": 1, "low": 2, "info": 3}


def build_report(store: EvidenceStore, rubric: Rubric, meta: dict, *, agent: str, sandbox: str,
                 status: str = "complete", timing: dict | None = None, cost: Cost | None = None,
                 extra_flags: list[Flag] | None = None, offline: bool = False, containment: str = "") -> Report:
    packets = store.packets()
    interventions = store.interventions()
    reg = rubric.registry
    facts = facts_from_packets(packets, interventions, rubric)
    decision = derive_badges(facts, rubric)
    cross_flags, cross_trace = run_crosschecks(facts, decision.badges, rubric)
    flags = [f for p in packets.values() for f in p.flags] + cross_flags + facts.problems + list(extra_flags or [])
    flags.sort(key=lambda f: SEVERITY_ORDER[f.severity])
    gate_packet = packets.get(reg.gate_phase)
    gate = {}
    failures = agent_failures(packets, rubric)
    for gc in reg.gate_checks:
        it = gate_packet.item(gc) if gate_packet else None
        unknown = gate_packet is not None and gate_packet.agent_failure and not gate_packet.reviewed_by \
            and gc not in gate_packet.gate
        gate[gc] = GateResult(passed=bool(gate_packet and gate_packet.gate.get(gc)), evidence=it.evidence if it else [],
                              agent_failure=gate_packet.agent_failure if unknown and gate_packet else None)
    dimensions = {d: _dimension(packets.get(d)) for d in reg.dimensions}
    levels = [p.evidence_level for d, p in packets.items() if d in reg.workflow_phases]
    report = Report(
        tool_version=__version__, run_id=meta["run_id"], paper=meta["paper"], artifact=meta["artifact"],
        title=meta.get("title") or Path(meta["paper"]).name,
        title_note=meta.get("title_note", "") if meta.get("title") else "The paper's title was not read; the title "
                                                                        "is its file name.",
        agent=agent, sandbox=sandbox, status=status, badge=decision.badge, badges=decision.badges, gate=gate,
        dimensions=dimensions, evidence_level=level_max(levels), interventions=interventions,
        derivation=decision.trace + cross_trace, flags=flags, confidence=1.0,
        cost=cost or Cost(), timing=timing or {}, evidence=store.all(), agent_failures=failures,
        badges_not_established=badges_not_established(decision.trace, decision.badges, failures, rubric),
        network=network_use(packets, offline, containment))
    read = _store_reader(store)
    failure = acquisition_failure(report, read)
    report = report.model_copy(update={
        "confidence": assess(report, store.root, read).value, "route": route_of(packets, read),
        "not_established": failure_lines(failures, gate_packet, rubric)
        + _not_established(packets, gate_packet, rubric, failure, read),
        "next_badge": blocked_advice(report, rubric) or _next_badge(decision.trace, decision.badges, rubric, failure)})
    return report.model_copy(update={"summary": summarize(report, rubric, read, failure)})


def _store_reader(store: EvidenceStore):
    def read(ev_id: str) -> str | None:
        try:
            return store.read(ev_id)
        except (KeyError, OSError):
            return None

    return read


def _dimension(packet: PhasePacket | None) -> DimensionResult:
    if packet is None:
        return DimensionResult(score=None)
    return DimensionResult(score=packet.score, checklist=packet.checklist, evidence=packet.evidence,
                           evidence_level=packet.evidence_level, summary=packet.summary,
                           agent_failure=packet.agent_failure, reviewed_by=packet.reviewed_by)


def _not_established(packets: dict[str, PhasePacket], gate: PhasePacket | None, rubric: Rubric,
                     failure: AcquisitionFailure | None = None, read: Reader | None = None) -> list[str]:
    out = []
    if gate is None:
        return ["The availability gate was not decided; nothing else was assessed."]
    if failure is not None:
        out.append(f"The artifact could not be acquired ({failure.cause}); the reason is in {failure.evidence}.")
    if not all(gate.gate.values()):
        out.append(f"The gate failed, so {rubric.registry.dimension_span()} were not assessed "
                   "(treated as not established).")
        return out + [f"{c.item}: {c.note}" for c in gate.checklist
                      if c.status == "violated" and c.note and failure is None]
    failed = {d for d, p in packets.items() if p.agent_failure and not p.reviewed_by}  # said by failure_lines
    words = not_established_words(packets, rubric, read or (lambda _id: None))
    return out + [w for w in words if w.split(" ", 1)[0] not in failed]


def _next_badge(trace, badges: dict[str, bool], rubric: Rubric, failure: AcquisitionFailure | None = None) -> list[str]:
    """The failed conditions of the lowest badge not yet earned, phrased for authors (rubric/advice.yaml).
    An artifact that could not be acquired gets advice that fits the cause, not advice about its content."""
    target = next((b for b in rubric.registry.badges if not badges.get(b)), None)
    if target is None:
        return []
    if failure is not None:
        return [f"For {target}: the artifact could not be acquired ({failure.cause}). {failure.advice}"]
    out = []
    for step in trace:
        fact = step.condition.split()[0]
        if step.rule == target and not step.result and not fact.startswith("badge."):
            tip = rubric.advice.get(fact, f"Satisfy: {step.condition}.")
            if tip not in out:
                out.append(tip)
    return [f"For {target}: {tip}" for tip in out]


def write_reports(report: Report, run_dir: Path, rubric: Rubric) -> dict[str, Path]:
    """Validate report.json against its schema, then write all three renderings atomically (secrets redacted)."""
    redactor = default_redactor()
    data = redactor.redact_obj(report.model_dump(mode="json"))
    validator_for("report").validate(data)
    paths = {"json": run_dir / "report.json", "md": run_dir / "report.md", "html": run_dir / "report.html"}
    extras = extras_for(report, run_dir)
    markdown = render_markdown(report, rubric, extras)
    if (run_dir / "transcripts").is_dir():  # the LLM agent's trace: auditable, but not evidence
        markdown += ("\n## Agent transcripts\n\nEvery prompt, response and tool call of the LLM agent is in "
                     "[transcripts/](transcripts/) — a trace for audit, not evidence.\n")
    atomic_write(paths["json"], json.dumps(data, indent=2) + "\n", sync=False)
    crash_point("report:write")  # between two report files: a resume must rewrite all three
    atomic_write(paths["md"], redactor.redact(markdown), sync=False)
    atomic_write(paths["html"], redactor.redact(render_html(report, rubric, markdown, extras)), sync=False)
    sync_files(paths.values())  # three files, one folder: durable together
    return paths


__all__ = ["Score", "build_report", "render_html", "render_markdown", "write_reports"]
