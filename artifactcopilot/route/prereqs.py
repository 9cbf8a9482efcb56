"""Which documented commands a prerequisite precedes: those documented after it in the same document and section —
every later one when it sits in a setup section ("Before you start", "Setup", "Preparation") — and the documented
reductions as the legs' ways to run smaller."""
from __future__ import annotations

import re

from ..discovery import Prerequisite, Step
from .model import Leg, Route

SETUP = re.compile(r"\b(setup|set up|set-up|install\w*|prerequisites?|requirements?|before|prepar\w*|getting started|"
                   r"configur\w*|environment|preliminar\w*|data)\b", re.I)


def _where(source: str) -> tuple[str, int]:
    doc, _, line = source.rpartition(":")
    return (doc, int(line)) if line.isdigit() else (source, 0)


def precedes(pre: Prerequisite, step: Step) -> bool:
    """The prerequisite comes before the step in the documentation and governs it."""
    pdoc, pline = _where(pre.source)
    sdoc, sline = _where(step.source)
    if pdoc != sdoc:
        return pdoc.startswith("README") and not sdoc.startswith("README")  # the README's setup governs other docs
    if sline <= pline:
        return pre.kind == "reduce" and step.section == pre.section  # "… set `trials` lower" may follow the command
    return step.section == pre.section or not pre.section or bool(SETUP.search(pre.section)) or pre.kind == "edit"


def attach(route: Route, steps: list[Step]) -> None:
    """Put each prerequisite on the legs it precedes (reductions become the legs' documented reductions)."""
    by_order = {s.order: s for s in steps}
    for pre in route.prerequisites:
        for leg in route.legs:
            step = by_order.get(leg.step)
            if step is None or not precedes(pre, step) or _own_step(pre, leg):
                continue
            pre.applies_to.append(leg.step)
            if pre.kind == "reduce":
                leg.reductions.append(pre)
            else:
                leg.prerequisites.append(pre)


def _own_step(pre: Prerequisite, leg: Leg) -> bool:
    """A service prerequisite does not precede the command that starts it."""
    return pre.kind == "service" and pre.command.strip() == leg.cmd.strip()
