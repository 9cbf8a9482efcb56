"""Finding a documented line among many produced lines without trying every pair.

A documented line is looked up first verbatim, then among produced lines of the same shape (same
words, numbers in the same places) whose first number is within rounding distance, then among other
lines that contain its words (a log prefix, extra columns). Near misses are scored on a bounded sample.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Sequence

from .lines import Block, Token, align, quick_number

MAX_TRIED = 2000  # produced lines of another shape tried per documented line
MAX_NEAR = 200  # lines of the same shape scored for a near miss when none is close in value

Shape = tuple[str, ...]


def shape_of(toks: list[Token]) -> Shape:
    return tuple("#" if t[0] else t[1] for t in toks)


class LineIndex:
    """Produced lines indexed by text, shape, first-number value and word; each produced line is used once."""

    def __init__(self, block: Block):
        self.block = block
        self.shapes = [shape_of(toks) for toks in block.toks]
        self.exact: dict[tuple[Token, ...], list[int]] = defaultdict(list)
        self.by_shape: dict[Shape, list[int]] = defaultdict(list)
        self.by_word: dict[str, list[int]] = defaultdict(list)
        for i, toks in enumerate(block.toks):
            self.exact[tuple(toks)].append(i)
            self.by_shape[self.shapes[i]].append(i)
            for w in {t[1] for t in toks if not t[0]}:
                self.by_word[w].append(i)
        self._values: dict[tuple[Shape, int], list[tuple[float, int]]] = {}
        self.used: set[int] = set()

    def _close(self, shape: Shape, pos: int, text: str) -> list[int] | None:
        """Same-shape lines whose number at `pos` may round to `text` (a superset; `align` decides)."""
        q = quick_number(text)
        if q is None:
            return None
        if (shape, pos) not in self._values:
            vals = []
            for i in self.by_shape[shape]:
                p = quick_number(self.block.toks[i][pos][1])
                if p is not None:  # a percentage may stand for a fraction and the other way round
                    vals += [(p[0], i), (p[0] / 100 if p[2] else p[0] * 100, i)]
            self._values[(shape, pos)] = sorted(vals)
        vals = self._values[(shape, pos)]
        delta = max(0.5 * 10.0 ** -q[1], abs(q[0]) * 1e-9) * (1 + 1e-6) + 1e-300
        lo, hi = bisect_left(vals, (q[0] - delta, -1)), bisect_right(vals, (q[0] + delta, len(self.shapes)))
        return sorted({i for _, i in vals[lo:hi]})

    def _others(self, expected: list[Token], shape: Shape) -> list[int]:
        words = {t[1] for t in expected if not t[0]}
        if words:
            pool: Sequence[int] = min((self.by_word.get(w, []) for w in words), key=len)
        else:
            pool = range(len(self.shapes))
        n = len(expected)
        return [i for i in pool if len(self.shapes[i]) > n and self.shapes[i] != shape][:MAX_TRIED]

    def find_exact(self, expected: list[Token]) -> int | None:
        """An unused produced line printed exactly like the documented one (the common case)."""
        for i in self.exact.get(tuple(expected), ()):
            if i not in self.used:
                self.used.add(i)
                return i
        return None

    def find(self, expected: list[Token]) -> tuple[int | None, int, int | None]:
        """(produced line matching fully, or None; best partial number hits; line of that partial)."""
        i = self.find_exact(expected)
        if i is not None:
            return i, sum(t[0] for t in expected), i
        shape = shape_of(expected)
        same = self.by_shape.get(shape, [])
        pos = next((k for k, t in enumerate(expected) if t[0]), None)
        close = self._close(shape, pos, expected[pos][1]) if pos is not None and same else None
        best, best_line = -1, None
        for i in (close if close is not None else same[:MAX_TRIED]) + self._others(expected, shape):
            full, hits = align(expected, self.block.toks[i])
            if full and i not in self.used:
                self.used.add(i)
                return i, hits, i
            if hits > best:
                best, best_line = hits, i
        if close is not None and best < 0:  # nothing close in value: score a sample of the same shape
            for i in same[:MAX_NEAR]:
                hits = align(expected, self.block.toks[i])[1]
                if hits > best:
                    best, best_line = hits, i
        return None, best, best_line
