"""Which of a paper's tables carry its results, and which only describe its inputs.

Reproducing a data-set description (inputs, sizes, periods) is not reproducing the main result, so
D4 needs to know a table's role. Signals, weighed against each other: words of the caption and
header (strongest), row labels (methods as rows: "Ours", "Baseline"), the kind of numbers (mostly
counts vs. mostly decimals or percentages) and the paper sentences that cite the table.
"""
from __future__ import annotations

import re
from typing import Literal

from pydantic import Field

from ..tables import Table, parse_number
from ._base import Record

_DESCRIPTIVE: dict[str, str] = {
    "data set": r"\bdata[- ]?sets?\b", "statistics": r"\bstatistics\b|\bstats\b", "overview": r"\boverview\b",
    "description": r"\bdescriptions?\b|\bdescrib\w+", "subjects": r"\bsubjects?\b", "projects": r"\bprojects?\b",
    "participants": r"\bparticipants?\b|\brespondents?\b", "demographics": r"\bdemographics?\b|\bgender\b|\bage\b",
    "samples": r"#\s*samples|\bsamples\b", "size": r"\bsizes?\b", "period": r"\bperiods?\b|\btime ?spans?\b",
    "duration": r"\bduration\b", "LoC": r"\bk?loc\b|\blines of code\b|\bsloc\b", "number of": r"\bnumber of\b|#\s*\w",
    "collected": r"\bcollect(?:ed|ion)\b", "corpus": r"\bcorpus\b|\bcorpora\b",
    "characteristics": r"\bcharacteristics\b|\bproperties\b", "summary": r"\bsummary\b|\bsummari[sz]\w+",
    "repositories": r"\brepositor(?:y|ies)\b|\bcommits?\b|\bstars\b", "sources": r"\bsources?\b|\borigin\b",
    "benchmark list": r"\bbenchmarks? (?:used|programs|suite|subjects)\b", "inputs": r"\binputs?\b",
}
_RESULTS: dict[str, str] = {
    "accuracy": r"\baccura\w*\b|\bacc\b", "precision": r"\bprecision\b", "recall": r"\brecall\b",
    "F1": r"\bf1\b|\bf-?(?:measure|score)\b", "AUC": r"\bauc\b|\broc\b",
    "error": r"\berrors?\b|\bmae\b|\brmse\b|\bmse\b",
    "measured time": r"\b(?:run|execution|analysis|wall|cpu) ?time\b|\btime\s*\((?:s|ms|sec|min|h)\)|\bseconds\b",
    "overhead": r"\boverhead\b", "speedup": r"\bspeed-?ups?\b", "throughput": r"\bthroughput\b",
    "latency": r"\blatency\b", "comparison": r"\bcompar\w+\b|\bvs\.?\b|\bversus\b", "baselines": r"\bbaselines?\b",
    "results": r"\bresults?\b", "performance": r"\bperformance\b", "evaluation": r"\bevaluat\w+\b",
    "improvement": r"\bimprove\w*\b|\boutperform\w*\b", "utility": r"\butility\b", "loss": r"\bloss\b",
    "score": r"\bscores?\b|\bbleu\b|\brouge\b", "success rate": r"\bsuccess\b|\bdetect(?:ed|ion)\b",
    "false positives": r"\bfalse (?:positives?|negatives?)\b|\b(?:tp|fp|fn|tn)\b", "effectiveness":
    r"\beffectiveness\b|\befficiency\b", "correlation": r"\bcorrelation\b|\bp-?value\b",
}
# Header cells that name an evaluation metric: a table with such a column reports outcomes, whatever else it holds.
_METRIC_COLUMN = re.compile(r"(?i)\b(?:accura\w*|acc|precision|recall|f1|f-?measure|f-?score|auc|mae|rmse|mse|"
                            r"errors? rate|speed-?ups?|overhead|throughput|latency|bleu|rouge)\b")
_METHOD_ROW = re.compile(r"(?i)^\s*(?:ours|our (?:approach|method|tool)|proposed|baseline|random|\w+ \[\d+\]|"
                         r"state of the art|sota)\b")
# A sentence citing the table that presents it as what the paper found.
_MAIN_RESULT = re.compile(r"(?i)\b(?:(?:our|main|key|overall|experimental|evaluation) results\b|results (?:are|is) "
                          r"(?:shown|summari[sz]ed|reported|presented|given|listed)|(?:shows?|summari[sz]es|reports|"
                          r"presents|lists) (?:the|our) (?:results|performance|accuracy|comparison|findings)|"
                          r"as (?:shown|reported|summari[sz]ed) in (?:table|tab\.)|outperforms?)")
HEADER_WEIGHT, ROW_WEIGHT, CITE_WEIGHT, SHAPE_WEIGHT = 2.0, 1.0, 0.5, 1.5
MIN_SCORE, MARGIN = 2.0, 1.0


class TableRole(Record):
    role: Literal["results", "descriptive", "unknown"]
    reason: str
    results_signals: list[str] = Field(default_factory=list)
    descriptive_signals: list[str] = Field(default_factory=list)
    results_score: float = 0.0
    descriptive_score: float = 0.0


def _hits(patterns: dict[str, str], text: str) -> list[str]:
    return [name for name, pat in patterns.items() if re.search(pat, text, re.IGNORECASE)]


def _shape(table: Table) -> tuple[str, str] | None:
    """("descriptive"|"results", why) from the kind of numbers in the cells."""
    nums = [p for r, c in table.numeric_cells() if (p := parse_number(table.rows[r][c])) is not None]
    if len(nums) < 3:
        return None
    counts = sum(p.decimals == 0 and not p.percent for p in nums)
    if counts >= 0.8 * len(nums):
        return "descriptive", f"{counts}/{len(nums)} numbers are counts"
    measured = sum(p.decimals > 0 or p.percent for p in nums)
    if measured >= 0.6 * len(nums):
        return "results", f"{measured}/{len(nums)} numbers are decimals or percentages"
    return None


def _citing(table: Table, paper_text: str) -> str:
    m = re.search(r"(\d+|[IVXL]+)\s*$", table.label or "")
    if not m or not paper_text:
        return ""
    cite = re.compile(r"\b(?:Table|Tab\.)\s*~?" + re.escape(m.group(1)) + r"\b", re.IGNORECASE)  # TABLE II too
    sentences = re.split(r"(?<=[.!?])\s+", paper_text)
    return " ".join(s for s in sentences if cite.search(s) and len(s) < 600)[:5000]


def table_role(table: Table, paper_text: str = "") -> TableRole:
    """Whether `table` reports results, describes inputs, or cannot be told. Never raises."""
    try:
        return _role(table, str(paper_text or ""))
    except (ValueError, TypeError, AttributeError, re.error) as exc:
        return TableRole(role="unknown", reason=f"table could not be read: {type(exc).__name__}: {exc}")


def _role(table: Table, paper_text: str) -> TableRole:
    head = " ".join([table.caption or ""] + list(table.header))
    rows = " ".join(r[0] for r in table.rows if r)
    score = {"results": 0.0, "descriptive": 0.0}
    signals: dict[str, list[str]] = {"results": [], "descriptive": []}
    for role, patterns in (("results", _RESULTS), ("descriptive", _DESCRIPTIVE)):
        for where, text, weight in (("caption/header", head, HEADER_WEIGHT), ("row labels", rows, ROW_WEIGHT),
                                    ("citing text", _citing(table, paper_text), CITE_WEIGHT)):
            found = [h for h in _hits(patterns, text) if h not in signals[role]]
            score[role] += weight * len(found)
            signals[role] += [f"{h} ({where})" for h in found]
    if _MAIN_RESULT.search(_citing(table, paper_text)):  # "Table 3 shows our results", "as shown in TABLE II"
        score["results"] += HEADER_WEIGHT
        signals["results"].append("cited as the results (citing text)")
    if main := _MAIN_CAPTION.search(table.caption or ""):  # "Summary of our experimental evaluation" is results
        score["results"] += 2 * HEADER_WEIGHT
        signals["results"].append(f"the caption names the paper's results (\"{main.group(0)}\")")
    methods = sum(bool(_METHOD_ROW.match(r[0])) for r in table.rows if r)
    if methods:
        score["results"] += ROW_WEIGHT
        signals["results"].append(f"{methods} method row(s)")
    shape = _shape(table)
    if shape:
        score[shape[0]] += SHAPE_WEIGHT
        signals[shape[0]].append(shape[1])
    metrics = [h for h in table.header[1:] if _METRIC_COLUMN.search(h)]
    if metrics:
        signals["results"].append(f"metric column(s): {', '.join(metrics[:4])}")
    return _decide(score, signals, bool(metrics))


def _decide(score: dict[str, float], signals: dict[str, list[str]], metric_columns: bool) -> TableRole:
    r, d = score["results"], score["descriptive"]
    base = {"results_signals": signals["results"], "descriptive_signals": signals["descriptive"],
            "results_score": r, "descriptive_score": d}
    if r >= MIN_SCORE and r >= d + MARGIN:
        return TableRole(role="results", reason="evaluation outcomes: " + "; ".join(signals["results"]), **base)
    if d >= MIN_SCORE and d >= r + MARGIN and not metric_columns:
        return TableRole(role="descriptive", reason="describes inputs: " + "; ".join(signals["descriptive"]), **base)
    if not r and not d:
        return TableRole(role="unknown", reason="no words or numbers that tell results from a data description",
                         **base)
    return TableRole(role="unknown", reason=f"signals are weak or mixed (results {r:g}: "
                     f"{', '.join(signals['results']) or 'none'}; descriptive {d:g}: "
                     f"{', '.join(signals['descriptive']) or 'none'})", **base)


def descriptive_name(name: str) -> bool:
    """Whether a notebook, script or file name says it describes the inputs (demographics, data-set statistics)
    rather than producing results: its reproduced output is peripheral to the paper's claims."""
    words = re.sub(r"[_\-./]+", " ", name).lower()
    descriptive = any(re.search(p, words) for p in _DESCRIPTIVE.values())
    return descriptive and not any(re.search(p, words) for p in _RESULTS.values())


_MAIN_CAPTION = re.compile(r"(?i)\bmain results?\b|\bsummary of (?:our|the) (?:[\w-]+ ){0,2}(?:evaluation|results|"
                           r"experiments?|findings)\b|\boverall (?:results|performance|comparison)\b|"
                           r"\b(?:our|key|headline) results\b")
_MAIN_VERB = r"(?:shows?|summari[sz]es|presents?|reports?|lists?|gives?|contains?|compares?|displays?)"
_MAIN_WHAT = (r"(?:our|the)\s+(?:main\s+|overall\s+|key\s+|experimental\s+|evaluation\s+)*"
              r"(?:results|evaluation|findings)")


class MainTable(Record):
    """The table the paper itself calls its main results, and the words that say so."""

    label: str
    reason: str


def _cites_as_main(label: str, paper_text: str) -> str:
    m = re.search(r"(\d+|[IVXL]+)\s*$", label)
    if not m:
        return ""
    ref = r"\b(?:Table|Tab\.)\s*~?" + re.escape(m.group(1)) + r"\b"
    for pat in (ref + r"\s*(?:\([^)]*\)\s*)?" + _MAIN_VERB + r"\s+" + _MAIN_WHAT,
                r"(?i:(?:main|overall|key)\s+results?)\s+(?:are|is)\s+(?:\w+\s+)?(?:shown|given|summari[sz]ed|"
                r"reported|presented|listed)\s+in\s+" + ref):
        if found := re.search(pat, paper_text, re.IGNORECASE):
            return found.group(0)
    return ""


def main_results_table(tables: list[Table], paper_text: str = "") -> MainTable | None:
    """The results table the paper names as its main one — by its caption ("Main results", "Summary of our
    experimental evaluation") or by a sentence that cites it ("Table 3 shows our results"); None when the paper
    does not say. A table that describes inputs is never the main result. Never raises."""
    try:
        for table in tables:
            label = table.label or ""
            if not label or table_role(table, paper_text).role == "descriptive":
                continue
            if words := _cites_as_main(label, str(paper_text or "")):
                return MainTable(label=label, reason=f"the paper says so: \"{words}\"")
        for table in tables:
            if table.label and (m := _MAIN_CAPTION.search(table.caption or "")) and \
                    table_role(table, paper_text).role != "descriptive":
                return MainTable(label=table.label, reason=f"its caption: \"{m.group(0)}\"")
    except (re.error, ValueError, TypeError):
        return None
    return None
