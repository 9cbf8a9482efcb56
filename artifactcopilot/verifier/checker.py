"""Packet checker, rule part: schema, cited evidence, the skill's contract, consistency rules.

A verifier dialogue (an LLM questioning the packet against its logs) plugs in through
`Verifier`; offline, the deterministic consistency rules below stand in for it. A packet still
rejected on its last attempt is committed by `downgrade`, with the disputed claims withdrawn.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import jsonschema

from ..evidence import EvidenceStore
from ..models import EvidenceLevel, Flag, PhasePacket
from ..rubric import Rubric
from ..rules import supported_score
from ..schemas import schema_for
from ..skills import Skill
from . import CLAIM_FACTS, UNAVAILABLE, WITHDRAWN, disputed_in, ground, withdraw
from .namespace import PREFIX, namespace_problems, strip_foreign


@dataclass
class CheckResult:
    accepted: bool
    reasons: list[str] = field(default_factory=list)


class Verifier(Protocol):
    def verify(self, packet: PhasePacket, store: EvidenceStore, skill: Skill) -> CheckResult: ...


class PacketChecker:
    def __init__(self, store: EvidenceStore, rubric: Rubric, verifier: Verifier | None = None):
        self.store, self.rubric, self.verifier = store, rubric, verifier

    def check(self, packet: PhasePacket, skill: Skill) -> CheckResult:
        reasons = (self._schema(packet) + namespace_problems(packet, self.rubric) + self._evidence(packet)
                   + self._contract(packet, skill) + self._consistency(packet))
        if reasons:
            return CheckResult(False, reasons)
        if self.verifier is not None:
            return self.verifier.verify(packet, self.store, skill)
        return CheckResult(True)

    def _schema(self, packet: PhasePacket) -> list[str]:
        errors = jsonschema.Draft202012Validator(schema_for("packet")).iter_errors(packet.model_dump(mode="json"))
        return [f"schema: {e.message} at {'/'.join(map(str, e.path)) or 'packet'}" for e in errors]

    def _evidence(self, packet: PhasePacket) -> list[str]:
        ids = set(packet.evidence) | {e for c in packet.checklist for e in c.evidence}
        reasons = [problem for e in sorted(ids) if (problem := self.store.verify(e))]
        for c in packet.checklist:
            if c.status != "not_applicable" and not c.evidence:
                reasons.append(f"checklist item {c.item} cites no evidence")
        return reasons

    def _contract(self, packet: PhasePacket, skill: Skill) -> list[str]:
        reasons = []
        judged = {c.item for c in packet.checklist}
        missing = [i for i in skill.contract.checklist if i not in judged]
        if missing:
            reasons.append(f"contract: checklist items not judged: {', '.join(missing)}")
        kinds = {r.kind for r in self.store.cited(packet.evidence)}
        for kind in skill.contract.evidence_kinds:  # "docs|readme": either kind fulfils the contract
            if not kinds & set(kind.split("|")):
                either = "' or '".join(kind.split("|"))
                reasons.append(f"contract: packet cites no '{either}' evidence")
        if skill.contract.score and packet.score is None:
            reasons.append("contract: a dimension score is required")
        reg = self.rubric.registry
        if packet.phase == reg.gate_phase and set(packet.gate) != set(reg.gate_checks):
            reasons.append(f"contract: the gate packet must decide {', '.join(reg.gate_checks)}")
        return reasons

    def _consistency(self, packet: PhasePacket) -> list[str]:
        reasons = []
        if packet.phase == self.rubric.registry.gate_phase:
            for gc, passed in packet.gate.items():
                it = packet.item(gc)
                if it is None or (it.status == "satisfied") != passed:
                    reasons.append(f"{gc} outcome does not match its checklist item")
            return reasons
        if packet.score is not None:
            ceiling, _ = supported_score(packet.phase, packet.checklist, packet.evidence_level,
                                         self.store.interventions(), self.rubric)
            if packet.score > ceiling:
                reasons.append(f"{packet.phase} claims {packet.score.value} but its checklist and evidence support "
                               f"at most {ceiling.value}")
        if packet.phase == "D3" and packet.score is not None and packet.score.rank >= 2:
            runs = [r for r in self.store.cited(packet.evidence) if r.kind == "command"]
            rw3 = packet.item("RW3")
            if not runs or rw3 is None or rw3.status != "satisfied":
                reasons.append("D3 >= WA needs a cited workflow command with exit 0 and valid output (RW3)")
            if packet.evidence_level < EvidenceLevel.E2:
                reasons.append("D3 >= WA needs E2 or above")
        if packet.phase == "D4" and packet.facts.get("table_reproduced") and not any(
                r.kind == "comparison" for r in self.store.cited(packet.evidence)):
            reasons.append("a reproduced table needs a cited comparison record")
        if packet.phase == "D5" and packet.facts.get("transfer_validated"):
            it = packet.item("D5.transfer_validated")
            if it is None or it.status != "satisfied":
                reasons.append("transfer_validated fact contradicts the D5.transfer_validated item")
        return reasons

    def downgrade(self, packet: PhasePacket, reasons: list[str]) -> PhasePacket:
        """After the last allowed attempt, for every agent: commit what the undisputed evidence supports.

        Evidence ids that fail verification are dropped; each claim a reason names (checker or verifier) and
        each claim the grounding rules do not find backed is withdrawn (violated, "withdrawn: <reason>");
        the evidence level drops to what the cited evidence shows and the score is capped at what remains.
        Items and facts the phase may not state are removed first (flagged)."""
        packet = strip_foreign(packet, self.rubric)
        checklist = []
        for c in packet.checklist:
            kept = [e for e in c.evidence if self.store.verify(e) is None]
            if c.status == "satisfied" and c.evidence and not kept:
                c = c.model_copy(update={"status": "violated",
                                         "note": f"{WITHDRAWN}its cited evidence is missing or failed verification"})
            checklist.append(c.model_copy(update={"evidence": kept}))
        packet = packet.model_copy(update={"evidence": [e for e in packet.evidence if self.store.verify(e) is None],
                                           "checklist": checklist})
        disputes = disputed_in(packet, [r for r in reasons if not r.startswith(PREFIX)])
        packet = ground(withdraw(packet, disputes), self.store, self.rubric)
        withdrawn = [c.item for c in packet.checklist if c.note.startswith(WITHDRAWN)]
        withdrawn += [k for k in CLAIM_FACTS if k in disputes]
        flags = [Flag(severity="high", code="checker-downgrade", phase=packet.phase,
                      message=(f"withdrawn: {', '.join(withdrawn)}; " if withdrawn else "") + "; ".join(reasons)[:500])]
        unconfirmed = [name for name, reason in disputes.items() if UNAVAILABLE in reason]
        if unconfirmed:
            flags.append(Flag(severity="high", code="verifier-unavailable", phase=packet.phase,
                              message=f"the verifier could not confirm {', '.join(unconfirmed)}: "
                                      "withdrawn, not accepted"))
        return packet.model_copy(update={"flags": packet.flags + flags})
