"""The marks the flow puts on an output's values: where they come from (copy, last-mile, full, a weak literal, or
opaque), through which steps, and why."""
from __future__ import annotations

import re
from typing import Literal, NamedTuple

from .model import Step

Confidence = Literal["high", "medium", "low"]


class Mark(NamedTuple):
    kind: str
    """copy | last | full | weak | opaque"""
    confidence: Confidence
    reason: str
    ref: str = ""
    via: tuple[int, ...] = ()
    """The steps the values went through, from the output back to their source."""


def weak_enough(mark: Mark) -> bool:
    """A weak literal mark counts when its numbers look like results (not a lone parameter echoed)."""
    parts = mark.ref.split(":")
    return len(parts) == 3 and int(parts[2]) >= 1


def member(path: str) -> bool:
    """A member of an archive (`bundle/data.zip/run/x.txt`)."""
    return bool(re.search(r"\.(zip|tar|tgz|tar\.gz|tar\.xz|tar\.bz2|7z)/", path, re.IGNORECASE))


def loc(step: Step) -> str:
    """Where a step is: `line 4` of the script, or `summarize.py line 31` of an artifact program it runs."""
    return f"{step.where} line {step.line}" if step.where else f"line {step.line}"


def spread_literals(marks: list[Mark]) -> list[Mark]:
    """Numbers written in the script over several output lines (one `echo` per row) make a table together."""
    parts = [m.ref.split(":") for m in marks if m.kind == "weak" and m.ref.startswith("literal:")]
    numbers, irregular = sum(int(p[1]) for p in parts), sum(int(p[2]) for p in parts)
    if len(parts) >= 2 and numbers >= 4 and irregular >= 2:
        return [Mark("copy", "high", f"{len(parts)} outputs print {numbers} numbers written in the script", "literal")]
    return []
