"""Comparing tools: a run's output against the paper's tables."""
from __future__ import annotations

from ..tables import Comparison, Table, best_match
from .context import ReviewContext


class Comparing:
    def __init__(self, ctx: ReviewContext, phase: str):
        self.ctx, self.phase = ctx, phase

    def compare_table(self, expected: Table, text: str) -> Comparison | None:
        return best_match(expected, text)
