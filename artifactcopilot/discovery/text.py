"""Reading prose: paper references (with ranges and lists), stated durations, quick/long wording, sentences."""
from __future__ import annotations

import re

_NUM = r"\d+(?:\.\d+)*[a-z]?(?:\s?\([a-z]\))?"
REF = re.compile(r"\b(Tables?|Tab\.|Figures?|Figs?\.|Sections?|Sec\.?|Listings?|Algorithms?|Alg\.)\s*"
                 rf"({_NUM}(?:\s*(?:,|and|&|-|–|to)\s*(?:and\s+)?{_NUM})*)", re.IGNORECASE)
_KIND = {"tab": "Table", "fig": "Figure", "sec": "Section", "lis": "Listing", "alg": "Algorithm"}
NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                "eight": 8, "nine": 9, "ten": 10, "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40,
                "fifty": 50, "sixty": 60, "a few": 3, "few": 3, "a couple of": 2, "several": 5}
_UNIT = {"s": 1, "sec": 1, "second": 1, "m": 60, "min": 60, "minute": 60, "h": 3600, "hr": 3600, "hour": 3600,
         "d": 86400, "day": 86400}
_QUANT = r"(\d+(?:\.\d+)?|a few|a couple of|several|" + "|".join(k for k in NUMBER_WORDS if " " not in k) + ")"
DURATION = re.compile(rf"(?:(?:≈|~|<=?|≤|>=?|≥|about|around|approximately|approx\.?|roughly|nearly|takes?|took|up to|"
                      rf"within|wait|less than|under|more than|over|at least)\s*)+(?:only\s+)?{_QUANT}"
                      r"(?:\s*(?:-|–|to)\s*(\d+(?:\.\d+)?))?\s*"
                      r"(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d)\b"
                      rf"|\(\s*(?:≈|~|<=?|≤|>=?|≥)?\s*{_QUANT}(?:\s*(?:-|–|to)\s*(\d+(?:\.\d+)?))?\s*"
                      r"(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?)\s*(?:each|per \w+)?\s*\)"
                      r"|\btime:\s*[≈~]?\s*(\d+(?:\.\d+)?)\s*(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?)\b",
                      re.IGNORECASE)
QUICK = re.compile(r"\b(quick(ly|er)?|reduced|smaller|subset|demo|toy|smoke|speed up|fewer|decreas(e|ing) the number|"
                   r"faster|minimal|lightweight|short(er)? (version|run)|--quick|--fast|--small|--smoke|--demo)\b",
                   re.IGNORECASE)
LONG = re.compile(r"\b(\d+(\.\d+)?\s*(hours?|hrs?|days?)|overnight|several hours|many hours|a day|days)\b",
                  re.IGNORECASE)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[`*_])|(?<=[.!?:])\s*\n|\n\s*\n")


def _canonical(word: str) -> str:
    return _KIND.get(word.lower()[:3], word.capitalize().rstrip("s"))


def _expand(nums: str) -> list[str]:
    parts = re.split(r"\s*(,|and|&|-|–|to)\s*", nums)
    out: list[str] = []
    prev: str | None = None
    pending_range = False
    for part in parts:
        part = part.strip()
        if not part or part in (",", "and", "&"):
            continue
        if part in ("-", "–", "to"):
            pending_range = True
            continue
        part = re.sub(r"\s?\(([a-z])\)", r"\1", part)
        if pending_range and prev and prev.isdigit() and part.isdigit() and 0 < int(part) - int(prev) <= 20:
            out += [str(n) for n in range(int(prev) + 1, int(part) + 1)]
        else:
            out.append(part)
        prev, pending_range = part, False
    return out


_REF_START = re.compile(r"\b(?:tab|fig|sec|lis|alg)", re.IGNORECASE)


def refs(text: str) -> list[str]:
    """Paper objects named in text, ranges and lists expanded: "Figures 4-7" gives Figure 4 … Figure 7."""
    out: list[str] = []
    text = text or ""
    for start in _REF_START.finditer(text):
        match = REF.match(text, start.start())
        if not match:
            continue
        kind = _canonical(match.group(1))
        for num in _expand(match.group(2)):
            ref = f"{kind} {num}"
            if ref not in out:
                out.append(ref)
    return out


def merge(first: list[str], *more: list[str]) -> list[str]:
    out = list(first)
    for items in more:
        out += [x for x in items if x not in out]
    return out


def _quantity(word: str) -> float | None:
    word = word.lower().strip()
    if word in NUMBER_WORDS:
        return float(NUMBER_WORDS[word])
    try:
        return float(word)
    except ValueError:
        return None


def _unit(word: str) -> int:
    word = word.lower().rstrip("s") or "s"
    return _UNIT.get(word, _UNIT.get(word[:3], _UNIT.get(word[:1], 1)))


def duration_s(text: str) -> float | None:
    """A stated duration in seconds ("(≈60 seconds)", "~3 minutes", "about 9 - 12 mins" gives the upper bound)."""
    match = DURATION.search(text or "")
    if not match:
        return None
    groups = match.groups()
    for qty, upper, unit in (groups[0:3], groups[3:6], (groups[6], None, groups[7])):
        if qty and unit:
            value = _quantity(upper or qty)
            return None if value is None else value * _unit(unit)
    return None


CELL_DURATION = re.compile(rf"^\s*(?:≈|~|<=?|≤|>=?|≥|about|around|approx\.?|approximately|roughly|less than|under|"
                           rf"up to|more than|over|at least)?\s*{_QUANT}(?:\s*(?:-|–|to)\s*(\d+(?:\.\d+)?))?\s*"
                           r"(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d)\b\.?"
                           r"(?:\s*(?:each|per\s+\w+|in total|total|\(.{0,40}\)))?\s*$", re.IGNORECASE)


def cell_duration(text: str) -> float | None:
    """A duration that is the whole of a short text, as a runtime table's cell states it ("~30 min each", "< 1 sec",
    "1h", "2-3 min"): the upper bound, in seconds."""
    match = CELL_DURATION.match((text or "").replace("`", "").replace("*", ""))
    if not match:
        return duration_s(text) if text and len(text) <= 40 else None
    value = _quantity(match.group(2) or match.group(1))
    return None if value is None else value * _unit(match.group(3))


def is_quick(text: str) -> bool:
    return bool(QUICK.search(text or ""))


def is_long(text: str) -> bool:
    return bool(LONG.search(text or ""))


def sentences(text: str) -> list[str]:
    return [s.strip() for s in SENTENCE_END.split(text or "") if s and s.strip()]


def words(text: str) -> int:
    return len((text or "").split())
