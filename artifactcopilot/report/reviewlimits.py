"""A command a limit of the review stopped is the review's limit, named — never the artifact's failure.

The sandbox records each limit a command ran into (sandbox/tmpspace.py tells the review's own: the disk budget for
temporary files, exec refused on a mount, memory, processes, time). When a failing command's log names one, the
report's "not established" line says so and what a reviewer with a larger budget would do; a time cut is said
with how long the command ran (report/unestablished.py).
"""
from __future__ import annotations

from typing import Any

from ..sandbox.commandlog import CommandLog
from ..sandbox.tmpspace import review_limits


def review_limit_cause(ev: str, log: CommandLog, shown: str, make: Any) -> Any:
    """`make(code, blocked, next, evidence, cmd, what)` for the first limit of the review (other than time) the
    command's log names, or None."""
    limits = [n for n in review_limits(log.limits) if not n.startswith(("timeout after", "phase budget"))]
    if not limits:
        return None
    return make("review-limit", f"{shown} was stopped by a limit of this review, not by a failure of the artifact: "
                f"{limits[0]}", "A reviewer with a larger budget for that limit would rerun {cmd} and go on from its "
                "output.", ev, shown, limits[0])
