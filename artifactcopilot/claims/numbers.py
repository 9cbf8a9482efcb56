"""Numbers a paper's prose states as claims, and whether a run's output shows them.

Claim numbers are percentages, decimals, large counts (9,654,702), scaled counts (42M, 9.6 million,
681k) and ratios (3.5x). Not claims: years, references to sections, figures, tables, equations and
citations, version numbers, parameter settings (n = 150, epsilon = 0.5), ordinals, list enumerations,
small plain integers, and numbers in the paper's tables (those are compared as tables).
"""
from __future__ import annotations

import re

from ..tables import Table, parse_number
from ._base import clip
from .claimtypes import ClaimKind, ClaimMatch, ClaimNumber
from .matching import find_claim_numbers
from .prose import sentences

_SCALES = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "b": 1e9, "billion": 1e9, "trillion": 1e12}
_CLAIM = re.compile(
    r"(?<![\w.,/:#§$€£¥^-])(?<!\w-)"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?P<suffix>\s?(?:%|\\%|percent\b|per\s?cent\b)"
    r"|(?:x|\s?×)(?!\s*\d)(?![\w])|\s(?:times)\b"
    r"|[KMB](?![\w])|k(?![\w])|\s(?i:thousand|million|billion|trillion)\b)?"
    r"(?![\w/]|\.\d|,\d)")
_RANGE_PCT = re.compile(r"^\s*(?:-|–|—|to)\s*\d+(?:\.\d+)?\s?%")
_REF_BEFORE = re.compile(
    r"(?i)(?:\b(?:tables?|tab\.|figures?|figs?\.|sections?|secs?\.|§|eqs?\.|equations?|appendix|algorithms?|alg\.|"
    r"lines?|listings?|chapters?|theorems?|lemmas?|definitions?|corollary|propositions?|steps?|rq|pages?|pp\.|p\.|"
    r"footnotes?|examples?|phases?|version|release|v)\s*"
    r"(?:[A-Z]?\d+(?:\.\d+)*[a-z]?\s*(?:,|and|or|to|-|–)\s*)*$)")
_SOFTWARE_BEFORE = re.compile(
    r"(?i)\b(?:python|java|jdk|openjdk|node(?:\.?js)?|ubuntu|debian|centos|fedora|gcc|clang|llvm|cuda|cudnn|pytorch|"
    r"torch|tensorflow|keras|numpy|pandas|scipy|sklearn|scikit-learn|android|ios|macos|os x|windows|rust|go|php|perl|"
    r"ruby|matplotlib|spark|hadoop|docker|kernel|linux|jupyter|ghc|scala|kotlin|swift|\.net|postgres(?:ql)?|"
    r"mysql|redis|latex|ecmascript|http|tls|unicode)[-\s]?$")
# Parameter settings and thresholds ("n = 150", "epsilon = 0.5", "p < 0.05"); r, rho, kappa, tau report results.
_PARAM_BEFORE = re.compile(r"(?:^|[\s(,;])(?:[A-QS-Za-qs-z]|[α-ιλ-οπσυ-ωΑ-Ω]|epsilon|eps|delta|alpha|beta|gamma|lambda|"
                           r"sigma|theta|mu)\s*(?:=|<|>|≤|≥|<=|>=)\s*$")
_PER_BEFORE = re.compile(r"(?i)\bper\s*$")
_CITATION = re.compile(r"\[\s*\d+(?:\s*[,;–-]\s*\d+)*\s*\]")
_ENUM = re.compile(r"\(\s*(?:\d{1,2}|[ivx]{1,5}|[a-h])\s*\)|^\s*\d{1,2}[.)]\s")
_YEAR = re.compile(r"^(?:1[89]|20)\d\d$")
# Statistical settings are not results: "a 95% confidence interval", "0.7 as threshold", "significance level of 5%".
_SETTING_BEFORE = re.compile(r"(?i)(?:confidence(?: level| interval)?|significance(?: level)?|margin of error|"
                             r"threshold|cut-?off)\s+(?:of\s+|at\s+|=\s*)?$")
_SETTING_AFTER = re.compile(r"(?i)^\s*(?:(?:as\s+(?:a\s+|the\s+)?)?(?:threshold|cut-?off)|confidence|significance"
                            r"|CI\b)")
_NUMBER_RUN = re.compile(r"(?:(?<=\s)|^)(?:[-+]?\d[\d,.]*%?[,;]?\s+){2,}[-+]?\d[\d,.]*%?(?=\s|$)")
_SECTION_NUMBER = re.compile(r"\d{1,2}(?:\.\d{1,2}){1,3}\.?\s+[A-Z]")


def _excluded(sentence: str, start: int, end: int) -> bool:
    before, after = sentence[max(0, start - 40):start], sentence[end:end + 40]
    if any(p.search(before) for p in (_REF_BEFORE, _SOFTWARE_BEFORE, _PARAM_BEFORE, _PER_BEFORE, _SETTING_BEFORE)):
        return True
    return bool(_SETTING_AFTER.match(after))


def _classify(num: str, suffix: str, after: str) -> tuple[ClaimKind, float, bool] | None:
    """(kind, scale, percent) of a number in prose, or None when it carries no claim."""
    s = " ".join(suffix.replace("\\", "").lower().split())
    if s in ("%", "percent", "per cent"):
        return "percent", 1.0, True
    if s in ("x", "×", "times"):
        return "ratio", 1.0, False
    if s in _SCALES:
        return "scaled", _SCALES[s], False
    if _RANGE_PCT.match(after):  # "10-20%": the lower bound is a percentage too
        return "percent", 1.0, True
    plain = num.replace(",", "")
    if "." in plain:
        return "decimal", 1.0, False
    if "," in num or (int(plain) >= 10_000 and not _YEAR.match(plain)):
        return "count", 1.0, False
    return None


def _blank(m: re.Match[str]) -> str:
    return " " * len(m.group())


def _mask(sentence: str) -> str:
    """Blank out citations, enumerations and runs of bare numbers (axis ticks and table rows of PDF text)."""
    return _NUMBER_RUN.sub(_blank, _ENUM.sub(_blank, _CITATION.sub(_blank, sentence)))


def _claims_in(sentence: str) -> list[tuple[str, str, ClaimKind, float, bool]]:
    masked = _mask(sentence)
    out = []
    for m in _CLAIM.finditer(masked):
        if _excluded(masked, m.start(), m.end()):
            continue
        num, suffix = m.group("num"), m.group("suffix") or ""
        if m.start() == len(masked) - len(masked.lstrip()) and _SECTION_NUMBER.match(masked.lstrip()):
            continue  # "2.1 Dataset Our study ..." is a section heading run into its text
        kind = _classify(num, suffix, masked[m.end():m.end() + 16])
        if kind:
            out.append((num, suffix, *kind))
    return out


def _table_numbers(tables: list[Table]) -> list[tuple[str, float, int]]:
    """(label, value, decimals) of the numeric cells of the labelled or captioned tables."""
    out = []
    for t in tables or []:
        name = t.label or (clip(t.caption, 40) if t.caption else None)
        if name:
            out += [(name, p.value, p.decimals) for r, c in t.numeric_cells() if (p := parse_number(t.rows[r][c]))]
    return out


def _table_label(cells: list[tuple[str, float, int]], mantissa: float, decimals: int) -> str | None:
    return next((name for name, value, dec in cells
                 if dec == decimals and abs(value - mantissa) < 10.0 ** -(decimals + 3)), None)


def claim_numbers(paper_text: str, tables: list[Table]) -> list[ClaimNumber]:
    """Numbers the paper's prose states as claims, each with its sentence. Never raises."""
    out: list[ClaimNumber] = []
    seen: set[tuple[str, str]] = set()
    try:
        cells = _table_numbers(tables)
        for sentence in sentences(paper_text, tables):
            for num, suffix, kind, scale, percent in _claims_in(sentence):
                text = (num + suffix).replace("\\%", "%")
                mantissa = float(num.replace(",", ""))
                decimals = len(num.split(".")[1]) if "." in num else 0
                if (text, sentence) in seen:
                    continue
                seen.add((text, sentence))
                out.append(ClaimNumber(text=text, value=mantissa * scale, mantissa=mantissa, decimals=decimals,
                                       scale=scale, percent=percent, kind=kind, context=clip(sentence, 500),
                                       table=_table_label(cells, mantissa, decimals)))
    except (ValueError, TypeError, RecursionError):
        return out
    return out



__all__ = ["ClaimMatch", "ClaimNumber", "claim_numbers", "find_claim_numbers"]
