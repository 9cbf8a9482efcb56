"""A script that runs nothing of the artifact and reads nothing it did not write itself: what it outputs is its own
text (numbers typed in, a packed blob it unpacks, arithmetic over its own constants). That is a copy of the results,
whatever the numbers look like, not an undetermined method: nothing else could have produced them.
"""
from __future__ import annotations

from .covers import covers
from .marks import Confidence, Mark, loc
from .model import Step


def own_output(steps: list[Step], outputs: list[Step]) -> Mark | None:
    """The mark of an output made only of the script's own text, or None when anything else takes part: a program
    (the artifact's, an opaque one, a library that computes), a file the script did not write, the paper, a step
    the reader cannot follow."""
    written: list[str] = []
    carried: list[Step] = []
    for step in steps:
        for src in step.sources:
            if src.kind == "literal":
                if step not in carried:
                    carried.append(step)
            elif src.kind == "file":
                if src.use != "template" and not any(covers(w, src.ref) for w in written):
                    return None
            elif src.kind != "step":
                return None  # compute, paper, unknown
        if step.implicit_writes and not step.neutral:
            return None
        written += step.writes
    if not carried or not outputs:
        return None
    strong = any(src.kind == "literal" and (src.table or src.irregular) for s in carried for src in s.sources)
    first = carried[0]
    how = next(src.how for src in first.sources if src.kind == "literal")
    confidence: Confidence = "high" if strong else "medium"
    via = tuple(dict.fromkeys([outputs[-1].index, first.index]))
    return Mark("copy", confidence, f"the script runs nothing of the artifact and writes its own output "
                                    f"({loc(first)}: {how})", "literal", via)
