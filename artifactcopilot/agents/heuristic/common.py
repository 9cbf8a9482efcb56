"""What the heuristic phases share: D1's documented steps back as objects, time budgets, phase deadlines."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from ...discovery import Placeholder, Step
from ...interventions import Action
from ...models import PhasePacket
from ...provision import EnvPlan, ProvisionStep, PythonChoice

# Shares of the review's time budget (ReviewOptions.budget_s) for the phases that run artifact code.
PHASE_SHARE = {"D2": 0.30, "D3": 0.40, "D4": 0.12, "D5": 0.15}


def steps_of(d1: PhasePacket) -> list[Step]:
    out = []
    for raw in d1.facts.get("steps", []):
        data = {k: v for k, v in raw.items() if k != "runnable"}
        data["placeholders"] = [Placeholder(**p) for p in data.get("placeholders", [])]
        out.append(Step(**data))
    return out


def plan_of(d2: PhasePacket | None) -> EnvPlan:
    """The environment plan D2 committed (what fixes need of it: console scripts, project, interpreter)."""
    facts = (d2.facts.get("plan") or {}) if d2 else {}
    python = PythonChoice(**facts["python"]) if facts.get("python") else None
    return EnvPlan(python=python, console_scripts=dict(facts.get("console_scripts", {})),
                   project_name=facts.get("project_name"), project_dir=facts.get("project_dir"),
                   container=bool(facts.get("container")), declared=dict(facts.get("declared") or {}),
                   era=dict(facts["era"]) if facts.get("era") else None, octave=dict(facts.get("octave") or {}))


def action_for(step: ProvisionStep) -> Action:
    """The intervention classification of a provisioning step (documented ones run as written: I0)."""
    if step.documented and step.action == "run":
        return Action("run", step.script, documented=True)
    return Action(step.action if step.action != "run" else "install", step.script, documented=False)


@dataclass
class Deadline:
    """A phase's share of the review's time budget; commands get what is left of it."""

    seconds: float
    started: float = field(default_factory=time.monotonic)

    @classmethod
    def for_phase(cls, phase: str, budget_s: float) -> Deadline:
        return cls(max(30.0, budget_s * PHASE_SHARE.get(phase, 0.1)))

    def left(self) -> float:
        return self.seconds - (time.monotonic() - self.started)

    def timeout(self, limit: float, floor: float = 5.0) -> float | None:
        """The timeout for the next command: the smaller of `limit` and what is left; None when nothing is."""
        left = self.left()
        return None if left < floor else min(limit, left)
