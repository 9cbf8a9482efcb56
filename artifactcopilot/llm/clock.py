"""The review's wall-clock budget as the model's calls see it: each phase's share, and each call's timeout.

The review's time (`--max-minutes`, or COPILOT_LLM_WALL_S when smaller) is shared out over the phases still to
come when a phase starts, by weight: what an earlier phase left unused goes to the later ones. A few seconds
stay for the report. Every model call of the phase — the reviewer's and the verifier's — gets as its timeout
what is left of the phase's share (at most the per-call limit); a call with too little left is not made, and a
call cut by the share ends the phase as "out of time": it commits what it has.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

PHASE_WEIGHTS = {"gate": 1.0, "D1": 1.0, "D2": 1.5, "D3": 2.0, "D4": 1.25, "D5": 1.25}
"""How the time left is shared between the phases still to come (phases that run the artifact weigh more)."""
CLOSING_S = (20.0, 0.04)
"""Kept for the report after the last phase: at most 20 s, at most 4% of the budget."""
FLOOR_S = 5.0
"""A call with less time than this left is not made."""


class OutOfTime(Exception):
    """The phase's share of the review's time is used up."""


@dataclass
class Deadline:
    """The end of one phase's share (monotonic seconds); None: no limit."""

    at: float | None = None
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)

    def left(self) -> float | None:
        return None if self.at is None else self.at - self.clock()

    def timeout(self, limit: float | None) -> float | None:
        """The timeout of the next call or command: `limit`, or what is left when less; OutOfTime when too little
        is left to start it."""
        left = self.left()
        if left is None:
            return limit
        if left < FLOOR_S:
            raise OutOfTime(f"{max(0.0, left):.0f} s left of this phase's share of the review's time")
        return left if limit is None else min(limit, left)

    def cuts(self, timeout: float | None, limit: float | None) -> bool:
        """Whether a call given `timeout` ran into the phase's deadline rather than its own limit."""
        return self.at is not None and timeout is not None and (limit is None or timeout < limit)


@dataclass
class ReviewClock:
    """The review's end, and each phase's share of what is left when it starts."""

    end: float
    total_s: float
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)

    @classmethod
    def starting(cls, started: float, budget_s: float, clock: Callable[[], float] = time.monotonic) -> ReviewClock:
        return cls(started + budget_s, budget_s, clock)

    def share(self, phase: str, still_to_come: Sequence[str]) -> Deadline:
        """The deadline of `phase`, given the phases after it (this one included)."""
        closing = min(CLOSING_S[0], CLOSING_S[1] * self.total_s)
        left = max(0.0, self.end - closing - self.clock())
        weights = [PHASE_WEIGHTS.get(p, 1.0) for p in still_to_come] or [1.0]
        mine = PHASE_WEIGHTS.get(phase, 1.0)
        return Deadline(self.clock() + left * mine / max(mine, sum(weights)), self.clock)
