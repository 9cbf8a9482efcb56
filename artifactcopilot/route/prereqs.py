"""Which documented commands a prerequisite precedes: those documented after it in the same document and section —
every later one when it sits in a setup section ("Before you start", "Setup", "Preparation") — and the documented
reductions as the legs' ways to run smaller."""
from __future__ import annotations

import posixpath
import re

from ..discovery import Prerequisite, Step
from ..discovery.cwd import primary_file
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


def attach(route: Route, steps: list[Step], read=None) -> None:
    """Put each prerequisite on the legs it precedes (reductions become the legs' documented reductions; a reduction
    that names no file goes to every leg whose own script or notebook sets the value)."""
    by_order = {s.order: s for s in steps}
    for pre in route.prerequisites:
        for leg in route.legs:
            step = by_order.get(leg.step)
            if step is None or _own_step(pre, leg):
                continue
            if pre.kind == "reduce" and not pre.file and not pre.command:
                if not _sets(step, pre.name, read):
                    continue
            elif not precedes(pre, step):
                continue
            pre.applies_to.append(leg.step)
            if pre.kind == "reduce":
                if all((r.name, r.command, r.file) != (pre.name, pre.command, pre.file) for r in leg.reductions):
                    leg.reductions.append(pre)
            else:
                leg.prerequisites.append(pre)


def own_file(step: Step) -> str | None:
    """The script or notebook a step runs, from the artifact root."""
    if step.notebook:
        return step.notebook
    script = primary_file(step.inner)
    return posixpath.normpath(posixpath.join(step.cwd, script.removeprefix("./"))) if script else None


def _sets(step: Step, name: str, read) -> bool:
    """The step's own script or notebook assigns `name` at the start of a line (in a notebook: of a cell's line)."""
    path = own_file(step)
    text = (read(path) or "") if read and path else ""
    return bool(re.search(rf'(^|"|\\n)\s*{re.escape(name)}\s*=\s*[\d.eE_]+', text, re.MULTILINE))


def _own_step(pre: Prerequisite, leg: Leg) -> bool:
    """A service prerequisite does not precede the command that starts it."""
    return pre.kind == "service" and pre.command.strip() == leg.cmd.strip()
