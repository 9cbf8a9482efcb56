"""The verifier of the LLM path (plugs into checker.Verifier).

Two stages, both only over evidence the packet cites:
1. the rule stage (artifactcopilot.verifier): a claim that something ran, matched or transferred must
   cite the tool-written evidence that shows it; each reason names the claim it disputes.
2. a bounded dialogue (at most `turns` model calls through the one tool loop): a verifier model reads
   cited evidence and gives a verdict, naming each checklist item or fact it disputes. It scores nothing.
A verifier that errs, runs out of turns or budget, or cannot reach the model confirms nothing: the claims
above WR are disputed as "not confirmed: verifier unavailable", so the checker withdraws them rather than
accept them. Offline no verifier is plugged in; the checker's rule checks stand alone.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.tools import StructuredTool
from pydantic import BaseModel, Field

from ...evidence import EvidenceStore
from ...llm.calls import ModelCaller
from ...llm.loop import ToolLoop
from ...llm.prompts import render
from ...llm.transcript import Transcript
from ...models import PhasePacket
from ...rubric import Rubric, default_rubric
from ...skills import Skill
from ...verifier import CLAIM_FACTS, UNAVAILABLE, claims_above, grounding_problems
from ...verifier.checker import CheckResult
from ...verifier.grounding import cited_ids
from .inert import data

EVIDENCE_CHARS = 6000


class Dispute(BaseModel):
    item: str = Field(
        description="The checklist item id (e.g. RW3, D4.mapping) or claimed fact (table_reproduced) disputed."
    )
    reason: str = Field(description="What the cited evidence shows instead.")


class VerdictArgs(BaseModel):
    consistent: bool = Field(description="True when every claim is backed by its cited evidence.")
    disputed: list[Dispute] = Field(default_factory=list, description="One entry per claim the evidence does not back.")


class DialogueVerifier:
    """checker.Verifier: the rule stage, then at most `turns` verifier model calls."""

    def __init__(self, model, caller: ModelCaller, turns: int = 5, dialogue: bool = True, rubric: Rubric | None = None):
        self.model, self.caller, self.turns, self.dialogue = model, caller, turns, dialogue
        self.rubric = rubric or default_rubric()
        self._count = 0

    def verify(self, packet: PhasePacket, store: EvidenceStore, skill: Skill) -> CheckResult:
        problems = grounding_problems(packet, store, self.rubric)
        if problems:
            return CheckResult(False, problems)
        claims = any(c.status == "satisfied" for c in packet.checklist) or (
            packet.score is not None and packet.score.rank > 0
        )
        if not self.dialogue or not claims or packet.reviewed_by:  # a stand-in reviewer's packet: rules decide
            return CheckResult(True)  # nothing claimed, or the dialogue is turned off: the rule checks decide
        self._count += 1
        transcript = Transcript(store.root, f"verify-{packet.phase}-{self._count}")
        try:
            verdict, why = self._dialogue(packet, store, transcript)
        except Exception as exc:  # noqa: BLE001 - a failed dialogue confirms nothing
            verdict, why = None, f"{type(exc).__name__}: {exc}"[:200]
        if verdict is None:
            return self._unconfirmed(packet, why, transcript)
        transcript.write("verdict", **verdict)
        if verdict["consistent"]:
            return CheckResult(True)
        return CheckResult(False, [f"verifier: {d['item']}: {d['reason']}" for d in verdict["disputed"]])

    def _unconfirmed(self, packet: PhasePacket, why: str, transcript: Transcript) -> CheckResult:
        """No verdict: the claims above WR are not confirmed (and so disputed); what WR needs stands on the rules."""
        open_claims = claims_above(packet, self.rubric)
        transcript.write("verdict", consistent=None, outcome=f"verifier unavailable ({why})", unconfirmed=open_claims)
        if not open_claims:
            return CheckResult(True)
        return CheckResult(False, [f"verifier: {name}: {UNAVAILABLE} ({why})" for name in open_claims])

    def _dialogue(self, packet: PhasePacket, store: EvidenceStore, transcript: Transcript) -> tuple[dict | None, str]:
        """The verdict (None when there is none) and, without one, why."""
        cited = cited_ids(packet)
        verdict: dict[str, Any] = {}
        claims = [c.item for c in packet.checklist if c.status == "satisfied"]
        claims += [k for k in CLAIM_FACTS if packet.facts.get(k) is True]
        listing = "\n".join(f"- {e}: {r.kind}: {r.summary}" for e in cited if (r := store.get(e)))
        opening = render(
            "verifier_packet",
            phase=packet.phase,
            evidence=listing,
            claims=", ".join(claims),
            packet=packet.model_dump_json(indent=1, exclude={"attempt"}),
        )
        messages = [SystemMessage(render("verifier_system", turns=str(self.turns))), HumanMessage(opening)]
        loop = ToolLoop(
            self.model,
            self.caller,
            _tools(store, cited, claims, verdict),
            final="verdict",
            max_steps=self.turns,
            scope="verification",
            nudge="Answer with a tool call: read_evidence or verdict.",
        )
        outcome = loop.run(messages, transcript, done=lambda: bool(verdict))
        if verdict:
            return verdict, ""
        reasons = {
            "steps": f"no verdict within {self.turns} turns",
            "cost": "the review's cost limit",
            "wall": "the review's wall-clock limit",
            "time": "out of time: the phase's share of the review's time",
            "context": "the dialogue does not fit the model's context window",
        }
        return None, reasons.get(outcome.stop) or f"model unavailable: {outcome.error}"


def _tools(store: EvidenceStore, cited: list[str], claims: list[str], verdict: dict[str, Any]) -> list[StructuredTool]:
    """read_evidence (cited ids only) and verdict (recorded into `verdict` once it names what it disputes)."""

    def read_evidence(evidence_id: str) -> str:
        if evidence_id not in cited or store.get(evidence_id) is None:
            return f"'{evidence_id}' is not cited by this packet; cited: {', '.join(cited)}"
        text = store.read(evidence_id)
        more = f"\n[... {len(text) - EVIDENCE_CHARS} more characters]" if len(text) > EVIDENCE_CHARS else ""
        return data(text[:EVIDENCE_CHARS] + more)

    def give_verdict(consistent: bool, disputed: list | None = None) -> str:
        named = [d if isinstance(d, dict) else d.model_dump() for d in disputed or []]
        named = [
            {"item": str(d.get("item")), "reason": str(d.get("reason") or "")[:300]}
            for d in named
            if d.get("item") in claims
        ]
        if not consistent and not named:
            return f"not recorded: name each claim you dispute; item must be one of {', '.join(claims)}"
        verdict.update(consistent=bool(consistent), disputed=[] if consistent else named[:10])
        return "recorded"

    return [
        StructuredTool.from_function(read_evidence, name="read_evidence", description="Read one cited evidence file."),
        StructuredTool.from_function(
            give_verdict,
            name="verdict",
            args_schema=VerdictArgs,
            description="Final answer: consistent, or the claims the evidence does not back.",
        ),
    ]
