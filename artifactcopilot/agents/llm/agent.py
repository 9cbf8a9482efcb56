"""The LLM review agent: a skill-scoped, tool-calling reviewer behind any OpenAI-compatible endpoint.

Per phase attempt it gets the phase skill and only the tools of its Tool Scope (plus the context tools that read
the paper, the rubric, earlier packets and evidence in pages), and runs the one tool loop (llm/loop.py) until it
submits a packet through `submit_packet` (whose argument schema is the packet schema), within the step, cost and
wall-clock limits. Each phase gets a share of the review's time (llm/clock.py) that bounds its model calls, its
verifier dialogue and its commands; a phase whose share runs out commits what it has, flagged "out of time".
Working memory (the phase's messages) lives only while the phase does; what crosses to the next phase is the
committed packet and its evidence. Facts only tools can establish (a reproduced table, copied results) are taken
from the tool-written evidence the packet cites, never from the model.
"""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from ...llm.calls import ModelCaller
from ...llm.clock import Deadline, ReviewClock
from ...llm.loop import ToolLoop
from ...llm.paging import Pager
from ...llm.prompts import render
from ...llm.settings import LLMSettings
from ...llm.transcript import Transcript
from ...models import Cost, Flag, PhasePacket
from ...skills import Skill
from ...verifier import ground, grounding_problems, tool_facts
from ..base import PhaseContext
from ..failed import failed_packet
from .prompt import OpeningPrompt
from .toolbox import LLMToolbox
from .verifier import DialogueVerifier

LIMIT_TEXT = {
    "steps": "submitted no valid packet within its step limit",
    "cost": "stopped at the review's cost limit",
    "wall": "stopped at the review's wall-clock limit",
    "unavailable": "got no answer from the model endpoint",
    "refused": "was refused by the model endpoint",
    "context": "could not fit the phase into the model's context window",
    "time": "ran out of time (its share of the review's --max-minutes)",
}
LIMIT_CODE = {"unavailable": "llm-unavailable", "refused": "llm-refused", "context": "llm-context",
              "time": "llm-time-limit"}


class LLMReviewAgent:
    name = "llm"

    def __init__(self, model, settings: LLMSettings, caller: ModelCaller | None = None):
        self.model, self.settings = model, settings
        self.caller = caller or ModelCaller(settings)
        self.meter = self.caller.meter
        self.verifier = DialogueVerifier(model, self.caller, settings.verifier_turns, settings.verify)
        self._working: dict[str, list[BaseMessage]] = {}
        self._openings: dict[str, OpeningPrompt] = {}
        self._clock: ReviewClock | None = None
        self._shares: dict[str, Deadline] = {}

    @property
    def cost(self) -> Cost:
        return self.meter.cost

    def run(self, skill: Skill, context: PhaseContext, tools) -> PhasePacket:
        phase = skill.phase
        for other in [p for p in self._working if p != phase]:
            del self._working[other]  # the previous phase ended: its working memory goes
            self._openings.pop(other, None)
        self._start_share(phase, context, tools)
        transcript = Transcript(tools.store.root, f"{phase}-{context.attempt}")
        pager = Pager(self.caller.budget, self.settings.tool_output_chars)
        box = LLMToolbox(tools, skill, pager, context.rubric, context.packets, self.caller.deadline)
        messages = self._working.get(phase) if context.attempt > 1 else None
        opening = self._openings.get(phase) if messages is not None else None
        if messages is None or opening is None:
            opening = self._openings[phase] = OpeningPrompt(skill, context, tools, self.settings.max_steps)
            messages = [SystemMessage(render("agent_system")), HumanMessage(opening.text())]
        else:
            messages.append(
                HumanMessage(render("agent_feedback", reasons="\n".join(f"- {r}" for r in context.feedback)))
            )
        self._working[phase] = messages
        loop = ToolLoop(
            self.model,
            self.caller,
            box.langchain_tools(),
            final="submit_packet",
            max_steps=self.settings.max_steps,
            nudge="Act only through tool calls. When the phase is done, call submit_packet.",
            shrink=opening.shrink,
            pager=pager,
            detail=1,
        )
        outcome = loop.run(messages, transcript, done=lambda: box.submitted is not None)
        if box.submitted is not None:
            packet = self._finish(box.submitted, context, tools, transcript)
        else:
            stop = outcome.stop if outcome.stop in LIMIT_TEXT else "steps"
            packet = self._failed(skill, context, tools, stop, transcript, outcome.error)
        if loop.compactions:  # counted and logged: what the model did not see whole
            budget = self.caller.budget
            note = Flag(severity="info", code="llm-compacted", phase=phase,
                        message=f"{phase}: the conversation was compacted {loop.compactions} time(s) to fit the "
                                f"model's {budget.window or 'unknown'}-token context window ({budget.source}); "
                                f"see transcripts/{transcript.name}.jsonl")
            packet = packet.model_copy(update={"flags": packet.flags + [note]})
        return packet

    def _start_share(self, phase: str, context: PhaseContext, tools) -> None:
        """The phase's share of the review's time, fixed at its first attempt and kept for the later ones."""
        if self._clock is None:
            budget = min(tools.options.budget_s, self.settings.wall_limit_s)
            self._clock = ReviewClock.starting(self.meter.started, budget)
        if phase not in self._shares:
            order = list(context.rubric.registry.phase_ids)
            later = order[order.index(phase):] if phase in order else [phase]
            self._shares[phase] = self._clock.share(phase, later)
        self.caller.deadline = self._shares[phase]

    def _finish(self, packet: PhasePacket, context: PhaseContext, tools, transcript: Transcript) -> PhasePacket:
        mine = [i.id for i in tools.store.interventions() if i.phase == packet.phase]
        packet = packet.model_copy(
            update={"attempt": context.attempt, "interventions": list(dict.fromkeys(packet.interventions + mine))}
        )
        # not the model's to set: a reproduced table and copied results are what the cited tool verdicts say
        packet = packet.model_copy(
            update={"facts": {**packet.facts, **tool_facts(packet, tools.store, context.rubric)}}
        )
        if context.attempt >= self.settings.max_attempts:
            # Last attempt: what the cited evidence does not back is withdrawn here, not left to a downgrade.
            problems = grounding_problems(packet, tools.store, context.rubric)
            if problems:
                packet = ground(packet, tools.store, context.rubric)
                packet = packet.model_copy(
                    update={
                        "flags": packet.flags
                        + [
                            Flag(
                                severity="medium",
                                code="llm-claims-withdrawn",
                                phase=packet.phase,
                                message="; ".join(problems)[:500],
                            )
                        ]
                    }
                )
        transcript.write("submitted", packet=packet.model_dump(mode="json"))
        return packet

    def _failed(
        self, skill: Skill, context: PhaseContext, tools, limit: str, transcript: Transcript, reason: str | None = None
    ) -> PhasePacket:
        """The agent failed: the phase commits what it collected, claims nothing and says why (not a verdict)."""
        phase = skill.phase
        why = f"the LLM agent {LIMIT_TEXT[limit]}"
        if limit == "steps":
            n = self.settings.max_steps
            why += f" ({n} step{'' if n == 1 else 's'})"
        elif limit in LIMIT_CODE:
            why += f" ({reason or self.caller.down})"
        flag = Flag(severity="high", code=LIMIT_CODE.get(limit, f"llm-{limit}-limit"), phase=phase,
                    message=f"{phase}: {why}; committed with the evidence collected so far and nothing claimed")
        have = [r.id for r in tools.store.all() if r.phase == phase]
        packet = failed_packet(phase, why[:400], tools, context.rubric.registry.gate_phase, context.attempt, have,
                               [flag])
        transcript.write("failed", limit=limit, packet=packet.model_dump(mode="json"))
        return packet
