"""The packet checker's verifier for the LLM path (plugs into checker.Verifier).

Two stages, both only over evidence the packet cites:
1. grounding rules, deterministic: a claim that something ran, matched or transferred must cite
   the tool-written evidence that shows it (exit 0, a successful comparison from a run's output).
2. a bounded dialogue (at most `verifier_turns` model calls): a verifier model reads cited
   evidence and returns consistent / inconsistent with reasons. It does not score anything.
Offline no verifier is plugged in; the checker's rule checks stand alone.
"""
from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import StructuredTool

from .checker import CheckResult
from .evidence import EvidenceStore
from .llm.calls import ModelCaller, UnparsableResponse
from .llm.prompts import render
from .llm.transcript import Transcript
from .models import Evidence, EvidenceLevel, PhasePacket
from .rules import supported_score
from .sandbox.commandlog import parse_log
from .skills import Skill

RUN_KINDS = ("command", "setup", "probe", "transfer", "provenance")


def _exit_ok(store: EvidenceStore, ev: Evidence) -> bool:
    return parse_log(store.read(ev.id)).ok


def _json(store: EvidenceStore, ev: Evidence) -> dict:
    try:
        value = json.loads(store.read(ev.id))
    except (json.JSONDecodeError, OSError):
        return {}
    return value if isinstance(value, dict) else {}


class Grounds:
    """What the evidence a packet cites shows, computed once per packet."""

    def __init__(self, packet: PhasePacket, store: EvidenceStore):
        ids = list(dict.fromkeys(packet.evidence + [e for c in packet.checklist for e in c.evidence]))
        self.cited = [r for e in ids if (r := store.get(e)) is not None]
        self.ok_runs = {kind: [r for r in self.cited if r.kind == kind and _exit_ok(store, r)] for kind in RUN_KINDS}
        comps = [_json(store, r) for r in self.cited if r.kind == "comparison"]
        run_comps = [c for c in comps if c.get("source_kind") == "run-output"]
        self.matched = any((c.get("matched") or 0) > 0 for c in run_comps)
        self.reproduced = any(c.get("success") for c in run_comps)
        self.acquired = any((d := _json(store, r)).get("file_count") and not d.get("error") for r in self.cited if r.kind == "acquisition")

    def runs(self, *kinds: str) -> int:
        return sum(len(self.ok_runs[k]) for k in kinds)

    def supported_level(self) -> EvidenceLevel:
        if self.reproduced:
            return EvidenceLevel.E3
        if self.runs(*RUN_KINDS) or self.matched:
            return EvidenceLevel.E2
        return EvidenceLevel.E1 if self.cited else EvidenceLevel.E0


# item -> (what must hold, what the reason says when it does not)
ITEM_RULES: dict[str, tuple[Any, str]] = {
    "GC1": (lambda g: g.acquired, "cites no successful acquisition log"),
    "RW3": (lambda g: g.runs("command") >= 1, "cites no workflow command that exited 0"),
    "D3.stable": (lambda g: g.runs("command") >= 2, "cites fewer than two successful runs"),
    "D2.evaluable": (lambda g: g.runs("probe", "setup", "command") >= 1, "cites no probe or setup step that exited 0"),
    "D4.executed": (lambda g: g.runs("command", "transfer") >= 1 or g.matched, "cites no reviewer-executed output"),
    "D4.mapping": (lambda g: g.matched, "cites no comparison in which a run's output matched paper cells"),
    "D4.main_result": (lambda g: g.reproduced, "cites no comparison in which a run's output reproduced a paper table"),
    "D5.transfer_validated": (lambda g: g.runs("transfer") >= 1, "cites no transfer run that exited 0"),
    "D5.repeatable": (lambda g: g.runs("transfer") >= 2, "cites fewer than two successful transfer runs"),
}


def grounding_problems(packet: PhasePacket, store: EvidenceStore) -> list[str]:
    """Claims the cited tool-written evidence does not back, one reason each."""
    g, reasons = Grounds(packet, store), []
    for c in packet.checklist:
        rule = ITEM_RULES.get(c.item)
        if rule and c.status == "satisfied" and not rule[0](g):
            reasons.append(f"grounding: {c.item} is marked satisfied but {rule[1]}")
    level = g.supported_level()
    if packet.evidence_level > level:
        reasons.append(f"grounding: evidence level {packet.evidence_level.value} claimed but the cited evidence shows {level.value}")
    if packet.facts.get("table_reproduced") and not g.reproduced:
        reasons.append("grounding: table_reproduced is claimed but no cited comparison of a run's output succeeded")
    if packet.facts.get("transfer_validated") and not g.runs("transfer"):
        reasons.append("grounding: transfer_validated is claimed but no cited transfer run exited 0")
    return reasons


def ground(packet: PhasePacket, store: EvidenceStore, rubric) -> PhasePacket:
    """The packet with every unbacked claim withdrawn and the score capped at what remains."""
    g = Grounds(packet, store)
    checklist = []
    for c in packet.checklist:
        rule = ITEM_RULES.get(c.item)
        if rule and c.status == "satisfied" and not rule[0](g):
            c = c.model_copy(update={"status": "violated", "note": f"withdrawn: {rule[1]}"[:300]})
        checklist.append(c)
    level = min(packet.evidence_level, g.supported_level(), key=lambda lv: lv.rank)
    facts = dict(packet.facts)
    if facts.get("table_reproduced") and not g.reproduced:
        facts["table_reproduced"] = False
    if facts.get("transfer_validated") and not g.runs("transfer"):
        facts["transfer_validated"] = False
    update: dict = {"checklist": checklist, "evidence_level": level, "facts": facts}
    if packet.phase == rubric.registry.gate_phase:
        update["gate"] = {gc: bool((it := next((c for c in checklist if c.item == gc), None)) and it.status == "satisfied")
                          for gc in rubric.registry.gate_checks}
    elif packet.score is not None:
        ceiling, _ = supported_score(packet.phase, checklist, level, store.interventions(), rubric)
        update["score"] = min(packet.score, ceiling, key=lambda s: s.rank)
    return packet.model_copy(update=update)


class DialogueVerifier:
    """checker.Verifier: grounding rules, then at most `turns` verifier model calls."""

    def __init__(self, model, caller: ModelCaller, turns: int = 5, dialogue: bool = True):
        self.model, self.caller, self.turns, self.dialogue = model, caller, turns, dialogue
        self._count = 0

    def verify(self, packet: PhasePacket, store: EvidenceStore, skill: Skill) -> CheckResult:
        problems = grounding_problems(packet, store)
        if problems:
            return CheckResult(False, problems)
        claims = any(c.status == "satisfied" for c in packet.checklist) or (packet.score is not None and packet.score.rank > 0)
        if not self.dialogue or not claims or self.caller.meter.exceeded():
            return CheckResult(True)  # nothing claimed, nothing to question
        self._count += 1
        transcript = Transcript(store.root, f"verify-{packet.phase}-{self._count}")
        try:
            return self._dialogue(packet, store, transcript)
        except Exception as exc:  # noqa: BLE001 - a failed dialogue leaves the rule checks' verdict standing
            transcript.write("error", error=f"{type(exc).__name__}: {exc}"[:500], outcome="accepted on rule checks")
            return CheckResult(True)

    def _dialogue(self, packet: PhasePacket, store: EvidenceStore, transcript: Transcript) -> CheckResult:
        cited = list(dict.fromkeys(packet.evidence + [e for c in packet.checklist for e in c.evidence]))
        verdict: dict = {}

        def read_evidence(evidence_id: str) -> str:
            if evidence_id not in cited or store.get(evidence_id) is None:
                return f"'{evidence_id}' is not cited by this packet; cited: {', '.join(cited)}"
            text = store.read(evidence_id)
            cut = text[:6000] + (f"\n[... {len(text) - 6000} more characters]" if len(text) > 6000 else "")
            return f"<artifact-data>\n{cut.replace('</artifact-data>', '</artifact-data >')}\n</artifact-data>"

        def give_verdict(consistent: bool, reasons: list[str] | None = None) -> str:
            verdict.update(consistent=bool(consistent), reasons=[str(r)[:300] for r in (reasons or [])][:10])
            return "recorded"

        tools = [StructuredTool.from_function(read_evidence, name="read_evidence", description="Read one cited evidence file."),
                 StructuredTool.from_function(give_verdict, name="verdict",
                                              description="Final answer: consistent, and one reason per unsupported claim.")]
        by_name = {t.name: t for t in tools}
        listing = "\n".join(f"- {e}: {r.kind}: {r.summary}" for e in cited if (r := store.get(e)))
        messages = [SystemMessage(render("verifier_system", turns=str(self.turns))),
                    HumanMessage(render("verifier_packet", phase=packet.phase, evidence=listing,
                                        packet=packet.model_dump_json(indent=1, exclude={"attempt"})))]
        bound, sent = self.model.bind_tools(tools), 0
        final = self.model.bind_tools(tools, tool_choice="verdict")
        for turn in range(self.turns):
            try:
                reply: AIMessage = self.caller.invoke(final if turn == self.turns - 1 else bound, messages, transcript, sent)
            except UnparsableResponse:
                reply = AIMessage(content="")
            messages.append(reply.model_copy(update={"content": "(tool call)"}) if reply.tool_calls and not reply.content else reply)
            sent = len(messages)
            if not reply.tool_calls:
                messages.append(HumanMessage("Answer with a tool call: read_evidence or verdict."))
                continue
            for call in reply.tool_calls:
                tool = by_name.get(call["name"])
                try:
                    result = tool.invoke(call["args"]) if tool else f"unknown tool '{call['name']}'"
                except Exception as exc:  # noqa: BLE001 - malformed arguments get a corrective message
                    result = f"bad arguments: {exc}"[:500]
                messages.append(ToolMessage(str(result), tool_call_id=call.get("id") or call["name"]))
            if verdict:
                transcript.write("verdict", **verdict)
                if verdict["consistent"]:
                    return CheckResult(True)
                return CheckResult(False, [f"verifier: {r}" for r in verdict["reasons"]] or ["verifier: packet inconsistent with its evidence"])
        transcript.write("verdict", consistent=None, outcome="no verdict within the turn limit; accepted on rule checks")
        return CheckResult(True)
