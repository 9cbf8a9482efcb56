"""Whether a run's output shows the numbers a paper states, at the precision the paper prints them.

A produced number shows a claim when it rounds (half away from zero) to the claim's printed digits on
the claim's scale: 9,654,702 shows "9.65 million", 42,123,456 shows "42M", 99.2 or 99.21% shows
"99.2%". A fraction shows a percentage (0.9921 for "99.2%") only when it has enough digits and the
output line says percent or the claim is a rate (precision, recall, accuracy, "% of ..."); 0.847
never shows a plain 84.7. Numbers with few significant digits (10%, 42M) count only when the output
line shares a word with the claim's sentence, so a stray "10" is not taken for "10%".
"""
from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from ._base import clip
from .claimtypes import ClaimMatch, ClaimNumber
from .volatile import clean_text

STRONG_DIGITS = 3  # from this many significant digits on, a value alone identifies a claim
MAX_LINES = 200_000

_SCALES = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "b": 1e9, "billion": 1e9}
_PRODUCED = re.compile(r"(?<![\w.])[-+]?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?P<exp>[eE][-+]?\d+)?"
                       r"(?P<suffix>\s?%|[KMB](?![\w])|k(?![\w])|\s(?:thousand|million|billion)\b)?(?![\w]|\.\d)")
_PERCENT_WORD = re.compile(r"%|\bpercent|\bpct\b", re.IGNORECASE)
_RATE = re.compile(r"(?i)\b(?:precision|recall|accuracy|acc|f1|f-?measure|f-?score|rate|ratio|fraction|share|"
                   r"proportion|percentage|coverage|success|error|agreement|auc|hit|utility)\b|%\s*of\b")
_STOP = frozenset("""
about above after again against also among and another any are based been before being below between both but
can could does done each either every from further have having here however into its itself just more most
much must near only other over paper same several should show shows shown since some such than that their them
then there these they this those though through under until upon used using very were what when where which
while will with within would results result
""".split())  # noqa: SIM905 - a word list reads better as text


def _round_eq(value: float, target: float, decimals: int) -> bool:
    try:
        q = Decimal(1).scaleb(-decimals)
        v, t = Decimal(repr(value)), Decimal(repr(target))
        return abs(v).quantize(q, rounding=ROUND_HALF_UP).copy_sign(v) == abs(t).quantize(q, ROUND_HALF_UP).copy_sign(t)
    except InvalidOperation:
        return False


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z][a-z-]{3,}", text.lower()) if w not in _STOP}


def _produced(text: str):
    """(printed text, value with scale, printed unit, percent, line) for every number in the output."""
    for line in clean_text(text)[:MAX_LINES]:
        for m in _PRODUCED.finditer(line):
            num, exp, suffix = m.group("num"), m.group("exp") or "", (m.group("suffix") or "").strip().lower()
            try:
                value = float(num.replace(",", "") + exp)
            except ValueError:
                continue
            decimals = (len(num.split(".")[1]) if "." in num else 0) - (int(exp[1:]) if exp else 0)
            decimals = max(-300, min(300, decimals))  # a printed 0e310 has no representable precision
            scale = _SCALES.get(suffix, 1.0)
            yield m.group().strip(), value * scale, 10.0 ** -decimals * scale, suffix == "%", line


def _shows(c: ClaimNumber, value: float, unit: float, percent: bool, line: str) -> str | None:
    """How the produced number shows the claim ("same", "scaled", "fraction"), or None."""
    claim_unit = 10.0 ** -c.decimals * c.scale
    if percent and not c.percent:
        return None  # 70.4% does not show a plain 0.704 or 70.4
    if unit <= claim_unit * (1 + 1e-9) and _round_eq(value / c.scale, c.mantissa, c.decimals):
        return "scaled" if c.scale != 1.0 else "same"
    fraction = c.percent and not percent and unit * 100 <= claim_unit * (1 + 1e-9) and abs(value) <= 1.0
    if fraction and (_PERCENT_WORD.search(line) or _RATE.search(c.context)) \
            and _round_eq(value * 100, c.mantissa, c.decimals):
        return "fraction"
    return None


def _strong(c: ClaimNumber) -> bool:
    return c.significant >= STRONG_DIGITS


def find_claim_numbers(claims: list[ClaimNumber], produced_text: str) -> list[ClaimMatch]:
    """For each stated number, whether the output shows it at its printed precision. Never raises."""
    try:
        found = list(_produced(str(produced_text or "")))
    except (ValueError, TypeError, RecursionError):
        found = []
    out = []
    for c in claims or []:
        out.append(_match(c, found) if found else ClaimMatch(claim=c, reason="no numbers in the produced output"))
    return out


_RANK = {"same": 0, "scaled": 1, "fraction": 2}


def _match(c: ClaimNumber, found: list) -> ClaimMatch:
    context = _words(c.context)
    best: tuple | None = None
    weak: tuple | None = None
    for text, value, decimals, percent, line in found:
        via = _shows(c, value, decimals, percent, line)
        if via is None:
            continue
        shared = sorted(context & _words(line))
        if not _strong(c) and not shared:
            weak = weak or (text, line, via)
            continue
        key = (_RANK[via], -len(shared))
        if best is None or key < best[0]:
            best = (key, text, line, via, shared)
            if key[0] == 0 and shared:
                break
    if best:
        _, text, line, via, shared = best
        why = f"printed as {text!r}" + (" (as a fraction)" if via == "fraction" else "")
        if shared:
            why += f"; the line shares {', '.join(shared[:3])!r} with the claim"
        return ClaimMatch(claim=c, found=True, produced=text, line=clip(line, 200), via=via, reason=why)
    if weak:
        return ClaimMatch(claim=c, reason=f"only {weak[0]!r} on a line unrelated to the claim "
                          f"({clip(weak[1], 80)!r}); too few digits to count without context")
    return ClaimMatch(claim=c, reason=f"{c.text} does not appear at its printed precision")
