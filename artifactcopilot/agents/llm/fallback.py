"""`--agent auto` with a model: the LLM agent, and the offline reviewer for each phase the LLM agent fails.

The offline reviewer's packet stands in for the failed phase, flagged (`reviewed_by`, an
`agent-fallback` flag) so a reader knows which phases no model reviewed; the LLM agent goes on with
the next phase.
"""
from __future__ import annotations

from ...models import Flag, PhasePacket
from ...skills import Skill
from ...tools import TOOLS
from ..base import PhaseContext

FALLBACK_CODE = "agent-fallback"


class FallbackAgent:
    def __init__(self, primary, backup):
        self.primary, self.backup = primary, backup
        self.name = primary.name
        self.verifier = getattr(primary, "verifier", None)

    @property
    def cost(self):
        return self.primary.cost

    def run(self, skill: Skill, context: PhaseContext, tools) -> PhasePacket:
        try:
            packet = self.primary.run(skill, context, tools)
        except Exception as exc:  # noqa: BLE001 - the offline reviewer takes the phase over
            reason = f"internal error: {type(exc).__name__}: {str(exc)[:200]}"
        else:
            if packet.agent_failure is None or packet.reviewed_by:
                return self._with_backup_facts(packet, skill, context, tools)
            reason = packet.agent_failure
        return self.stand_in(skill, context, tools, reason)

    def stand_in(self, skill: Skill, context: PhaseContext, tools, reason: str) -> PhasePacket:
        """The offline reviewer's packet for a phase the LLM agent failed (`reason`), flagged as such."""
        stand_in = self.backup.run(skill, context, tools)
        flag = Flag(severity="medium", code=FALLBACK_CODE, phase=skill.phase,
                    message=f"{skill.phase}: the LLM agent failed ({reason}); reviewed by the offline "
                            f"{self.backup.name} reviewer instead")
        return stand_in.model_copy(update={"agent_failure": reason, "reviewed_by": self.backup.name,
                                           "flags": stand_in.flags + [flag]})

    def _with_backup_facts(self, packet: PhasePacket, skill: Skill, context: PhaseContext, tools) -> PhasePacket:
        """A later phase the offline reviewer may have to take over reads the facts its own earlier phases write
        (the documented steps D1 found, ...). For a phase that runs nothing (reading tools only) it works them out
        now, beside the model's packet, and adds the keys the model's packet lacks; verdicts stay the model's."""
        if any(TOOLS[t].capability == "running" for t in skill.tool_scope if t in TOOLS):
            return packet
        try:
            shadow = self.backup.run(skill, context, tools)
        except Exception:  # noqa: BLE001 - facts for a stand-in only; the model's packet stands as it is
            return packet
        extra = {k: v for k, v in shadow.facts.items() if k not in packet.facts}
        return packet.model_copy(update={"facts": {**packet.facts, **extra}}) if extra else packet
