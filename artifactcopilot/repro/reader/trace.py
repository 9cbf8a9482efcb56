"""The flow that decided a verdict, as a reviewer would check it: the needed value (the output step), the commands
it went through (with their lines), and the source it comes from (a file, the script's own numbers, a program)."""
from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from .model import Step

_KIND = {"copy": "copy", "weak": "copy", "last": "last_mile", "full": "full", "opaque": "undetermined"}


class FlowTrace(BaseModel):
    """One deciding flow: value -> commands -> source."""

    finding: str = Field(description="What this flow shows: copy, last_mile, full or undetermined.")
    value: str = Field(description="The output that carries the table's values, with its line.")
    through: list[str] = Field(default_factory=list,
                               description="The commands the values went through, from the output back to the source.")
    source: str = Field("", description="Where the values come from: a file (archive members as archive/member), "
                                        "`literal`, `paper`, a program, or a database.")
    reason: str = ""


def where(step: Step) -> str:
    place = f"{step.where} line {step.line}" if step.where else f"line {step.line}"
    return f"{place}: {step.text[:120]}"


def traces(steps: Sequence[Step], marks: Sequence, kinds: set[str], limit: int = 8) -> list[FlowTrace]:
    """The flows of `marks` (flow.Mark: kind, reason, ref, via) whose kind is in `kinds`."""
    out: list[FlowTrace] = []
    seen = set()
    for m in marks:
        if m.kind not in kinds or (m.reason, m.via) in seen:
            continue
        seen.add((m.reason, m.via))
        chain = [steps[i] for i in m.via if 0 <= i < len(steps)]
        if not chain:
            continue
        out.append(FlowTrace(finding=_KIND.get(m.kind, m.kind), value=where(chain[0]),
                             through=[where(s) for s in chain[1:]], source=m.ref, reason=m.reason))
        if len(out) >= limit:
            break
    return out


def one_line(flow: FlowTrace) -> str:
    """The deciding flow in one line: value <- the command nearest the source <- the source."""
    parts = [flow.value] + flow.through[-1:] + [flow.source or "not traced"]
    return f"{flow.finding.replace('_', '-')}: " + " \u2190 ".join(p for p in parts if p)
