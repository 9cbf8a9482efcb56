"""A phase whose agent failed: not established, never a verdict.

When an agent cannot finish a phase (the model's context window, an unreachable or refusing endpoint,
no valid packet within its steps, the review's budget, an internal error) the phase commits a packet
that claims nothing: no score, no checklist verdicts, `agent_failure` saying why. Only what
acquisition settles mechanically is recorded for the gate — the artifact was fetched and listed (GC1),
an entry document is present and readable (GC2) — from that evidence, whatever the model did.
GC3 (related to the paper) needs judgement and stays not established.
"""
from __future__ import annotations

from ..models import ChecklistItem, EvidenceLevel, Flag, PhasePacket
from ..tools import PhaseTools

FAILED_CODE = "agent-failed"


def failure_text(phase: str, reason: str) -> str:
    return f"{phase} not established — the agent failed: {reason}"


def mechanical_gate(tools: PhaseTools) -> tuple[dict[str, bool], list[ChecklistItem], list[str], dict]:
    """GC1 and GC2 as acquisition evidence shows them (gate, checklist, evidence ids, facts); {} when even the
    acquisition could not be run."""
    try:
        acq, acq_ev = tools.acquire_artifact()  # acquired once per review: this logs what is already known
    except Exception:  # noqa: BLE001 - nothing mechanical to record; the gate stays not established
        return {}, [], [], {}
    gc1_note = f"{acq.kind or 'source'}: {len(acq.files)} files (recorded from acquisition)" if acq.ok \
        else f"not acquired: {acq.error or 'no files'}"
    checklist = [ChecklistItem(item="GC1", status="satisfied" if acq.ok else "violated", evidence=[acq_ev.id],
                               note=gc1_note[:300])]
    if not acq.ok:  # nothing to review: a mechanical verdict, the model had no part in it
        return {"GC1": False}, checklist, [acq_ev.id], {"files": 0}
    entry = tools.locate_entry()
    text = (tools.read_file(entry) or "") if entry else ""
    readable = bool(text.strip())
    entry_ev = tools.record_evidence("entry", "entry-location", {"entry": entry, "bytes": len(text),
                                                                 "readable": readable},
                                     f"entry document {entry}" if entry else "no entry document found",
                                     EvidenceLevel.E1)
    checklist.append(ChecklistItem(item="GC2", status="satisfied" if readable else "violated",
                                   evidence=[entry_ev.id, acq_ev.id],
                                   note=f"entry: {entry} (recorded from acquisition)" if readable
                                   else "no readable entry document (recorded from acquisition)"))
    facts = {"entry": entry if readable else None, "files": len(acq.files), "skipped": acq.skipped}
    return {"GC1": True, "GC2": readable}, checklist, [acq_ev.id, entry_ev.id], facts


def failed_packet(phase: str, reason: str, tools: PhaseTools, gate_phase: str, attempt: int = 1,
                  evidence: list[str] | None = None, flags: list[Flag] | None = None) -> PhasePacket:
    """The packet of a phase whose agent failed; `evidence` is what the phase collected before it did."""
    note = tools.store.add_json(phase, "note", "agent-failure", {"established": False, "reason": reason},
                                failure_text(phase, reason), EvidenceLevel.E0)
    gate: dict[str, bool] = {}
    checklist: list[ChecklistItem] = []
    facts: dict = {}
    ids = list(evidence or [])
    if phase == gate_phase:
        gate, checklist, gate_ids, facts = mechanical_gate(tools)
        ids += gate_ids
    flag = Flag(severity="high", code=FAILED_CODE, phase=phase,
                message=failure_text(phase, reason) + " (a failure of the review, not a verdict on the artifact)")
    return PhasePacket(phase=phase, score=None, gate=gate, checklist=checklist,
                       evidence=list(dict.fromkeys(ids + [note.id]))[-20:], evidence_level=EvidenceLevel.E0,
                       attempt=attempt, facts=facts, summary=f"Not established — the agent failed: {reason}.",
                       flags=list(flags or []) + [flag], agent_failure=reason,
                       interventions=[i.id for i in tools.store.interventions() if i.phase == phase])
