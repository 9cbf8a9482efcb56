"""Output lines as tokens, and whether a produced line shows a documented one.

Whitespace and column alignment do not matter (lines are compared token by token), words compare
case-insensitively, punctuation is ignored, and numbers compare at the printed precision of the
documented value with the semantics of `tables.match_value`. A documented line must appear as a
contiguous run of tokens in one produced line; text before or after it (a log prefix, extra
columns) is allowed.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

from ..tables import match_value, parse_number
from .volatile import clean_text, line_kind, scrub

MAX_LINES = 200_000  # produced lines looked at; beyond this, output is a log, not a result
FLOAT_NOISE_DIGITS = 12  # raw float reprs differ past this many significant digits between platforms

_TOKEN = re.compile(r"(?P<id>\b(?=\w*\d)(?=\w*[A-Za-z])\w{8,}\b)"
                    r"|(?P<num>(?<![\w.])[-+\u2212]?(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
                    r"(?:[eE][-+]?\d+)?(?!\d)(?:\s?%)?)"
                    r"|(?P<word>\w+)")

Token = tuple[bool, str]  # (is_number, text): numbers as printed, words case-folded


def tokens(line: str) -> list[Token]:
    out: list[Token] = []
    for m in _TOKEN.finditer(line):
        if m.group("num"):
            out.append((True, m.group("num").replace("\u2212", "-").replace(" ", "")))
        else:
            out.append((False, m.group().casefold()))
    return out


@lru_cache(maxsize=1 << 16)
def _reduced(text: str) -> str:
    """A raw float repr cut to FLOAT_NOISE_DIGITS significant digits; shorter numbers unchanged."""
    p = parse_number(text)
    digits = len(re.sub(r"\D", "", text.split("e")[0].split("E")[0]).lstrip("0"))
    if p is None or digits <= FLOAT_NOISE_DIGITS or p.value == 0:
        return text
    decimals = max(0, p.decimals - (digits - FLOAT_NOISE_DIGITS))
    return f"{p.value:.{decimals}f}" + ("%" if p.percent else "")


@lru_cache(maxsize=1 << 16)
def quick_number(text: str) -> tuple[float, int, bool] | None:
    """(value, printed decimals, percent) by plain float parsing: a cheap pre-check before `match_value`."""
    s = text.rstrip("%").replace(",", "")
    try:
        value = float(s)
    except ValueError:
        return None
    mantissa, _, exp = s.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return value, max(0, decimals - int(exp or 0)), text.endswith("%")


def number_eq(expected: str, produced: str) -> bool:
    """`produced` shows the documented number `expected` at its printed precision."""
    if expected == produced:
        return True
    e, p = quick_number(expected), quick_number(produced)
    # Rounding half away from zero only reaches the documented value from within half a unit of it.
    if e and p and not e[2] and not p[2] and abs(e[0] - p[0]) > max(0.5 * 10.0 ** -e[1], abs(e[0]) * 1e-9) * (1 + 1e-9):
        return False
    return _number_eq(expected, produced)


@lru_cache(maxsize=1 << 16)
def _number_eq(expected: str, produced: str) -> bool:
    return match_value(_reduced(expected), produced)


def align(expected: list[Token], produced: list[Token]) -> tuple[bool, int]:
    """(every token matched, most numbers matched at a position where all words agree); (False, -1) if none."""
    best, n = -1, len(expected)
    for s in range(len(produced) - n + 1):
        window = produced[s:s + n]
        if any(e[0] != p[0] or (not e[0] and e[1] != p[1]) for e, p in zip(expected, window)):
            continue
        hits = sum(number_eq(e[1], p[1]) for e, p in zip(expected, window) if e[0])
        if hits == sum(e[0] for e in expected):
            return True, hits
        best = max(best, hits)
    return False, best


@dataclass
class Block:
    """A block of output split into comparable lines, with what was left out and why."""
    raw: list[str] = field(default_factory=list)
    """The original text of each comparable line."""
    toks: list[list[Token]] = field(default_factory=list)
    ignored: Counter[str] = field(default_factory=Counter)
    """Run-dependent tokens and non-output lines left out, by kind."""


def split_block(text: str, limit: int = MAX_LINES) -> Block:
    block = Block()
    after_warning = False
    lines = clean_text(text)
    if len(lines) > limit:  # a log: keep its start and, longer, its end, where results are usually printed
        block.ignored["lines beyond the limit"] = len(lines) - limit
        lines = lines[:limit // 5] + lines[-(limit - limit // 5):]
    for line in lines:
        kind = line_kind(line, after_warning)
        after_warning = kind == "warning" and not line[:1].isspace()  # Python echoes one source line after it
        if kind:
            if kind != "blank":
                block.ignored[kind] += 1
            continue
        counts: Counter[str] = Counter()
        toks = tokens(scrub(line, counts))
        block.ignored.update(counts)
        if toks:
            block.raw.append(line.strip())
            block.toks.append(toks)
        elif counts:
            block.ignored["run-dependent line"] += 1
    return block
