"""The LLM review agent: a skill-scoped, tool-calling reviewer behind any OpenAI-compatible endpoint.

Per phase attempt it gets the phase skill and only the tools of its Tool Scope, calls tools until
it submits a packet through `submit_packet` (whose argument schema is the packet schema), within
the step, cost and wall-clock limits. Working memory (the phase's messages) lives only while the
phase does; what crosses to the next phase is the committed packet and its evidence.
"""
from __future__ import annotations

import httpx
import openai
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from pydantic import ValidationError

from ..errors import CopilotError
from ..llm.calls import ModelCaller, UnparsableResponse
from ..llm.cost import CostMeter
from ..llm.phase_prompt import phase_prompt
from ..llm.prompts import render
from ..llm.settings import LLMSettings, settings_from_env
from ..llm.transcript import Transcript
from ..models import Cost, EvidenceLevel, Flag, PhasePacket, Score
from ..skills import Skill
from ..verifier import DialogueVerifier, ground, grounding_problems
from .base import PhaseContext
from .llm_tools import LLMToolbox

LIMIT_TEXT = {"steps": "reached its step limit without submitting a packet", "cost": "stopped at the review's cost limit",
              "wall": "stopped at the review's wall-clock limit", "unavailable": "could not reach the model"}


class LLMUnavailable(CopilotError):
    """The model endpoint cannot be used (unreachable, key rejected)."""


class LLMReviewAgent:
    name = "llm"

    def __init__(self, model, settings: LLMSettings):
        self.model, self.settings = model, settings
        self.meter = CostMeter(settings.price, settings.max_cost_usd, settings.wall_limit_s)
        self.caller = ModelCaller(settings, self.meter)
        self.verifier = DialogueVerifier(model, self.caller, settings.verifier_turns, settings.verify)
        self._working: dict[str, list[BaseMessage]] = {}
        self._down: str | None = None

    @property
    def cost(self) -> Cost:
        return self.meter.cost

    def run(self, skill: Skill, context: PhaseContext, tools) -> PhasePacket:
        phase = skill.phase
        for other in [p for p in self._working if p != phase]:
            del self._working[other]  # the previous phase ended: its working memory goes
        transcript = Transcript(tools.store.root, f"{phase}-{context.attempt}")
        box = LLMToolbox(tools, skill, self.settings.tool_output_chars)
        by_name = {t.name: t for t in box.langchain_tools()}
        messages = self._working.get(phase) if context.attempt > 1 else None
        if messages is None:
            messages = [SystemMessage(render("agent_system")),
                        HumanMessage(phase_prompt(skill, context, tools, self.settings.max_steps))]
        else:
            messages.append(HumanMessage(render("agent_feedback", reasons="\n".join(f"- {r}" for r in context.feedback))))
        self._working[phase] = messages
        bound, sent = self.model.bind_tools(list(by_name.values())), 0
        # The last step must be a submission: a packet the checker can judge beats none at all.
        final = self.model.bind_tools(list(by_name.values()), tool_choice="submit_packet") if "submit_packet" in by_name else bound
        for step in range(self.settings.max_steps):
            limit = "unavailable" if self._down else self.meter.exceeded()
            if limit:
                return self._limit_packet(skill, context, tools, limit, transcript)
            try:
                last = step == self.settings.max_steps - 1 and self.settings.max_steps > 1
                reply = self.caller.invoke(final if last else bound, messages, transcript, sent)
            except UnparsableResponse as exc:
                messages.append(HumanMessage(f"Your last reply could not be read ({exc}). Reply with one tool call."))
                sent = len(messages) - 1
                continue
            except (openai.APIConnectionError, openai.APITimeoutError, openai.RateLimitError, openai.InternalServerError) as exc:
                reason = f"{type(exc).__name__}: {exc}"[:200]
                if isinstance(exc, (openai.APIConnectionError, openai.APITimeoutError)):
                    self._down = reason  # retries are spent on a dead endpoint: later phases do not wait again
                transcript.write("error", error=reason)
                return self._limit_packet(skill, context, tools, "unavailable", transcript, reason)
            sent = len(messages)
            messages.append(for_history(reply))
            self._answer(reply, messages, by_name, transcript)
            if box.submitted is not None:
                return self._finish(box.submitted, context, tools, transcript)
        return self._limit_packet(skill, context, tools, "steps", transcript)

    def _answer(self, reply: AIMessage, messages: list[BaseMessage], by_name: dict, transcript: Transcript) -> None:
        """Run the reply's tool calls; every call, good or malformed, gets exactly one answer."""
        for bad in reply.invalid_tool_calls:
            transcript.write("malformed", name=bad.get("name"), args=bad.get("args"), error=bad.get("error"))
            messages.append(ToolMessage(f"malformed tool call '{bad.get('name')}': {bad.get('error') or 'arguments are not valid JSON'}. "
                                        "Call the tool again with JSON arguments that match its schema.",
                                        tool_call_id=bad.get("id") or "invalid", status="error"))
        for call in reply.tool_calls:
            tool = by_name.get(call["name"])
            if tool is None:
                result = f"'{call['name']}' is not a tool of this phase; available: {', '.join(by_name)}"
            else:
                try:
                    result = tool.invoke(call["args"])
                except ValidationError as exc:
                    result = f"invalid arguments for {call['name']}: {_errors(exc)}. Fix them and call again."
                except CopilotError as exc:
                    result = f"refused: {exc}"
                except Exception as exc:  # noqa: BLE001 - a failing tool is an observation, not a crash
                    result = f"tool error: {type(exc).__name__}: {exc}"[:500]
            transcript.write("tool", name=call["name"], args=call["args"], result=str(result)[:20_000])
            messages.append(ToolMessage(str(result), tool_call_id=call.get("id") or call["name"]))
        if not reply.tool_calls and not reply.invalid_tool_calls:
            messages.append(HumanMessage("Act only through tool calls. When the phase is done, call submit_packet."))

    def _finish(self, packet: PhasePacket, context: PhaseContext, tools, transcript: Transcript) -> PhasePacket:
        mine = [i.id for i in tools.store.interventions() if i.phase == packet.phase]
        packet = packet.model_copy(update={"attempt": context.attempt,
                                           "interventions": list(dict.fromkeys(packet.interventions + mine))})
        if context.attempt >= self.settings.max_attempts:
            # Last attempt: what the cited evidence does not back is withdrawn here, not left to a downgrade.
            problems = grounding_problems(packet, tools.store)
            if problems:
                packet = ground(packet, tools.store, context.rubric)
                packet = packet.model_copy(update={"flags": packet.flags + [Flag(
                    severity="medium", code="llm-claims-withdrawn", phase=packet.phase, message="; ".join(problems)[:500])]})
        transcript.write("submitted", packet=packet.model_dump(mode="json"))
        return packet

    def _limit_packet(self, skill: Skill, context: PhaseContext, tools, limit: str, transcript: Transcript,
                      reason: str | None = None) -> PhasePacket:
        """Commit what the phase has: its evidence so far, nothing claimed, and a flag saying why."""
        phase, store = skill.phase, tools.store
        have = [r for r in store.all() if r.phase == phase]
        kinds = {r.kind for r in have}
        for kind in skill.contract.evidence_kinds:
            if kind in kinds:
                continue
            if kind == "acquisition":
                have.append(tools.acquire_artifact()[1])
            else:
                have.append(store.add_json(phase, kind, "not-established", {"established": False, "reason": LIMIT_TEXT[limit]},
                                           f"{phase} {LIMIT_TEXT[limit]}: nothing established", EvidenceLevel.E0))
        ids = [r.id for r in have][-20:]
        checklist = [{"item": i, "status": "violated", "evidence": ids[:3], "note": f"not established: the agent {LIMIT_TEXT[limit]}"}
                     for i in skill.contract.checklist]
        flag = Flag(severity="high", code=f"llm-{limit}-limit" if limit != "unavailable" else "llm-unavailable", phase=phase,
                    message=f"{phase}: the LLM agent {LIMIT_TEXT[limit]}" + (f" ({reason or self._down})" if limit == "unavailable" else "")
                    + "; committed with the evidence collected so far and nothing claimed")
        packet = PhasePacket(phase=phase, score=Score.R if skill.contract.score else None,
                             gate=dict.fromkeys(context.rubric.registry.gate_checks, False) if phase == context.rubric.registry.gate_phase else {},
                             checklist=checklist, evidence=ids, evidence_level=EvidenceLevel.E0, attempt=context.attempt,
                             interventions=[i.id for i in store.interventions() if i.phase == phase],
                             summary=f"Not established: the agent {LIMIT_TEXT[limit]}.", flags=[flag])
        transcript.write("limit", limit=limit, packet=packet.model_dump(mode="json"))
        return packet


def for_history(reply: AIMessage) -> AIMessage:
    """The reply as it is sent back: some servers (llama.cpp) reject a tool-call turn whose content is null."""
    if reply.tool_calls and not reply.content:
        return reply.model_copy(update={"content": "(tool call)"})
    return reply


def _errors(exc: ValidationError) -> str:
    return "; ".join(f"{'/'.join(map(str, e['loc'])) or 'packet'}: {e['msg']}" for e in exc.errors()[:8])


def make_chat_model(settings: LLMSettings):
    from langchain_openai import ChatOpenAI

    kwargs = {"seed": settings.seed} if settings.seed is not None else {}
    # Retries are ours (counted, logged, Retry-After honoured), so the client's own are off.
    return ChatOpenAI(model=settings.model, base_url=settings.base_url, api_key=settings.api_key,
                      temperature=settings.temperature, max_tokens=settings.max_output_tokens,
                      timeout=settings.request_timeout_s, max_retries=0, **kwargs)


def check_endpoint(settings: LLMSettings) -> None:
    """Fail fast, in one line, when the endpoint is unreachable or refuses the key."""
    base = (settings.base_url or "https://api.openai.com/v1").rstrip("/")
    hint = "start the model server or fix OPENAI_BASE_URL / OPENAI_API_KEY; --agent heuristic reviews offline"
    try:
        response = httpx.get(f"{base}/models", headers={"Authorization": f"Bearer {settings.api_key}"},
                             timeout=settings.probe_timeout_s)
    except httpx.HTTPError as exc:
        raise LLMUnavailable(f"cannot reach the LLM endpoint {base} ({type(exc).__name__}: {str(exc)[:120] or 'no answer'})", hint) from None
    if response.status_code in (401, 403):
        raise LLMUnavailable(f"the LLM endpoint {base} refused the API key (HTTP {response.status_code})", hint)


def build_llm_agent(req) -> tuple[LLMReviewAgent, list[Flag]]:
    """The agent `--agent llm` uses, and the flags the report should carry about it; raises LLMUnavailable
    when the endpoint cannot be used."""
    settings = settings_from_env(req.model, req.max_steps, req.max_cost, req.max_attempts)
    check_endpoint(settings)
    agent = LLMReviewAgent(make_chat_model(settings), settings)
    flags = [Flag(severity="info", code="llm-transcripts",
                  message=f"model {settings.model}: every prompt, response and tool call is in transcripts/ "
                          "(an audit trace, not evidence)")]
    if not settings.price.known:
        flags.append(Flag(severity="info", code="llm-price-unknown",
                          message=f"no price for model {settings.model}: usd counts 0 and --max-cost cannot stop the review; "
                                  "set COPILOT_LLM_PRICES"))
    return agent, flags
