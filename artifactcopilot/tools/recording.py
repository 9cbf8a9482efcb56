"""Recording tools: evidence the agent writes itself, and the intervention ledger."""
from __future__ import annotations

import json
from typing import Any

from ..interventions import Action
from ..models import Evidence, EvidenceLevel, Intervention
from .context import ReviewContext


class Recording:
    def __init__(self, ctx: ReviewContext, phase: str):
        self.ctx, self.phase = ctx, phase

    def record_evidence(self, kind: str, name: str, data: Any, summary: str = "",
                        level: EvidenceLevel = EvidenceLevel.E0) -> Evidence:
        store = self.ctx.store
        if isinstance(data, (dict, list)):
            return store.add_json(self.phase, kind, name, data, summary, level)
        return store.add(self.phase, kind, name, data if isinstance(data, (str, bytes)) else json.dumps(data), summary,
                         level)

    def record_intervention(self, action: Action, purpose: str, evidence: list[str] | None = None) -> Intervention:
        """Classify and log an action; the same fix applied again is one ledger entry, not two."""
        return log_intervention(self.ctx, self.phase, action, purpose, evidence)


def log_intervention(ctx: ReviewContext, phase: str, action: Action, purpose: str,
                     evidence: list[str] | None = None) -> Intervention:
    cls = ctx.classifier.classify(action)
    text = action.command or str(action.target)
    for earlier in ctx.store.interventions():
        if earlier.action == text and earlier.level == cls.level:
            return earlier
    entry = Intervention(id=ctx.store.next_intervention_id(), phase=phase, action=text, purpose=purpose,
                         level=cls.level, rule=cls.rule, anticipated_impact=cls.impact, evidence=evidence or [])
    return ctx.store.log_intervention(entry)
