"""Documented expected output (a README's "the output will be:" block) against what a run printed or wrote.

Every meaningful documented line is looked up in the produced output, in any order, tolerant to
whitespace, column alignment, prompt lines and text around it; numbers compare at the printed
precision of the documented value. Run-dependent tokens are left out and counted.
"""
from __future__ import annotations

from pydantic import Field

from ._base import Record, Verdict, clip
from .index import LineIndex
from .lines import Token, split_block

LONG_BLOCK = 10  # from this many documented lines on, 90% found is a match (a line or two of drift is normal)
LONG_RATIO = 0.9
MAX_MISSING = 5


class NearMiss(Record):
    expected: str
    produced: str
    numbers_matched: int = Field(description="Numbers of the documented line the produced line shows.")
    numbers_total: int


class OutputMatch(Record):
    verdict: Verdict
    lines_total: int = Field(0, description="Meaningful documented lines compared.")
    lines_matched: int = 0
    numbers_total: int = Field(0, description="Numbers in the compared documented lines (run-dependent ones excluded).")
    numbers_matched: int = Field(0, description="Of those, shown by the produced output at the documented precision.")
    missing: list[str] = Field(default_factory=list, description="First documented lines not found.")
    near_misses: list[NearMiss] = Field(default_factory=list,
                                        description="Documented lines whose words were found but some numbers differ.")
    ignored: int = Field(0, description="Run-dependent tokens and non-output lines left out of the comparison.")
    ignored_kinds: dict[str, int] = Field(default_factory=dict)
    reason: str = ""


def _verdict(total: int, matched: int, numbers: int) -> Verdict:
    if matched == total or (total >= LONG_BLOCK and matched >= LONG_RATIO * total):
        return "match"
    return "partial" if matched or numbers else "mismatch"


def match_expected_output(expected: str, produced: str) -> OutputMatch:
    """Compare a documented output block with produced output; never raises."""
    try:
        return _match(str(expected or ""), str(produced or ""))
    except Exception as exc:  # noqa: BLE001 - a comparison failure is a result, not a crash
        return OutputMatch(verdict="not_established", reason=f"comparison failed: {type(exc).__name__}: {exc}")


def _match(expected: str, produced: str) -> OutputMatch:
    doc = split_block(expected)
    ignored = dict(doc.ignored)
    base = {"ignored": sum(ignored.values()), "ignored_kinds": ignored}
    if not doc.toks:
        return OutputMatch(verdict="not_established", reason="the documented block has no comparable content "
                           f"(only {_kinds(ignored) or 'blank lines'})", **base)
    out = split_block(produced)
    if not out.toks:
        return OutputMatch(verdict="not_established", lines_total=len(doc.toks),
                           numbers_total=sum(t[0] for toks in doc.toks for t in toks),
                           reason="no produced output to compare with", **base)
    index = LineIndex(out)
    found: dict[int, tuple[int | None, int, int | None]] = {}
    for k, toks in enumerate(doc.toks):  # verbatim lines first, so a loose line cannot take another's twin
        i = index.find_exact(toks)
        if i is not None:
            found[k] = (i, sum(t[0] for t in toks), i)
    rest = sorted(set(range(len(doc.toks))) - set(found), key=lambda k: -_precision(doc.toks[k]))
    for k in rest:  # then the most precise lines, which can match fewer produced lines
        found[k] = index.find(doc.toks[k])
    matched = numbers = numbers_total = 0
    missing: list[str] = []
    near: list[NearMiss] = []
    for k, (raw, toks) in enumerate(zip(doc.raw, doc.toks)):
        n_nums = sum(t[0] for t in toks)
        numbers_total += n_nums
        line, hits, best = found[k]
        numbers += max(hits, 0)
        if line is not None:
            matched += 1
            continue
        if len(missing) < MAX_MISSING:
            missing.append(clip(raw))
        if best is not None and n_nums and len(near) < MAX_MISSING:
            near.append(NearMiss(expected=clip(raw), produced=clip(out.raw[best]), numbers_matched=max(hits, 0),
                                 numbers_total=n_nums))
    total = len(doc.toks)
    verdict = _verdict(total, matched, numbers)
    reason = f"{matched}/{total} documented lines found"
    if numbers_total:
        reason += f", {numbers}/{numbers_total} numbers at the documented precision"
    if ignored:
        reason += f"; left out: {_kinds(ignored)}"
    return OutputMatch(verdict=verdict, lines_total=total, lines_matched=matched, numbers_total=numbers_total,
                       numbers_matched=numbers, missing=missing, near_misses=near, reason=reason, **base)


def _precision(toks: list[Token]) -> int:
    return sum(len(t[1].split(".")[1]) if "." in t[1] else 0 for t in toks if t[0]) + len(toks)


def _kinds(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {k}" for k, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
