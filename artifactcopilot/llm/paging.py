"""Pages of what grows with the artifact or the paper — files, the paper, listings, command output, evidence — sized
to what is left of the model's window.

The tool loop sets `share` (tokens) before it runs the tools of a reply; a tool cuts its text to that, counted
with the review's token counter, and says where the next page starts. Without a known window a page is
`chars` characters. A result still larger than its share is cut by the loop with a pointer to the evidence file.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .context import BYTES_PER_TOKEN, ContextBudget

WRAPPER = 100
"""Tokens of a tool result around its page (field names, ids, offsets)."""
MIN_PAGE = 120
"""The smallest page worth sending."""


@dataclass
class Pager:
    budget: ContextBudget | None
    chars: int = 4000
    """Page size in characters when the window is unknown."""
    share: int | None = None
    """Tokens the next tool result may take; None: the window is unknown."""

    def tokens(self, text: str) -> float:
        if self.budget is None:
            return len(text.encode("utf-8", "replace")) / BYTES_PER_TOKEN
        return self.budget.counter.count(text) * self.budget.scale

    def _quoted(self, text: str) -> float:
        """Tokens of `text` as a tool result carries it: inside a JSON string (newlines and quotes escaped)."""
        return self.tokens(json.dumps(text, ensure_ascii=False)[1:-1])

    def room(self, part: float = 1.0) -> int | None:
        """Tokens for `part` of the next result's page (None: unknown window)."""
        return None if self.share is None else max(MIN_PAGE, int((self.share - WRAPPER) * part))

    def page(self, text: str, offset: int = 0, part: float = 1.0) -> tuple[str, int | None]:
        """text[offset:] cut to `part` of the share: the page, and where the next page starts (None: no more)."""
        offset = max(0, offset)
        rest = text[offset:]
        most = self.room(part)
        n = self._fit(rest, most) if most is not None else _at_line(rest, max(200, int(self.chars * part)))
        return (rest, None) if n >= len(rest) else (rest[:n], offset + n)

    def _fit(self, text: str, most: int) -> int:
        """How many leading characters of `text` fit `most` tokens (at a line end when one is near), counted as a
        tool result carries them."""
        size = self._quoted(text)
        if size <= most:
            return len(text)
        n = max(1, int(len(text) * most / size * 0.95))
        for _ in range(6):
            used = self._quoted(text[:n])
            if used <= most:
                break
            n = max(1, int(n * most / used * 0.95))
        return _at_line(text, n)

    def items(self, values: Sequence[Any], part: float = 1.0) -> list[Any]:
        """The first of `values` that fit `part` of the share, written as JSON (and counted as a JSON string, as
        some tools carry them)."""
        most = self.room(part)
        if most is None:
            return list(values[: max(1, int(self.chars * part) // 40)])
        k = len(values)
        while k > 0:
            used = self._quoted(json.dumps(list(values[:k]), ensure_ascii=False, default=str))
            if used <= most:
                break
            k = min(k - 1, int(k * most / used * 0.95))
        return list(values[:k])

    def cut(self, text: str, pointer: str) -> str:
        """A whole tool result cut to the share, with a pointer to where all of it is."""
        if self.share is None or self.tokens(text) <= self.share:
            return text
        keep = text[: self._fit(text, max(MIN_PAGE, self.share - 40))]
        return keep + f"\n[... cut to fit the model's context window; the full output is in {pointer}]"


def _at_line(text: str, n: int) -> int:
    """`n`, moved back to the end of a line when one ends in the last fifth of text[:n]."""
    if n >= len(text):
        return len(text)
    cut = text.rfind("\n", int(n * 0.8), n)
    return cut + 1 if cut > 0 else n
