"""What quantity a table holds, so that only like is compared with like (D4's pairing, `mapping.py`).

Two tables that share row and column labels (the same data sets, the same methods) may still hold different
quantities: a paper's "Execution time (in seconds)" and a run's share of cases beating a baseline. Before cells are
compared, two things must agree:

- the *kind* a table states in its caption, headers or (for an output) its file name: time (seconds, ms, runtime),
  count (number of, #), rate (%, accuracy, precision, share), p-value, error (MSE, loss), memory (MB, GB). Kinds
  disagree only when both sides state one and they have none in common ("error rate" is both an error and a rate);
- the *scale* of the values: the typical (median non-zero) value of the output, on the comparison scale, within a
  factor of SCALE_FACTOR of the paper's. Fractions against percentages are one scale once converted; 0.64 against
  2,140 seconds is not.

Run times are machine-dependent: a run on other hardware is expected to be slower or faster, so far-off times alone
do not contradict a paper (`mapping.py` asks for their ordering to break as well).
"""
from __future__ import annotations

import re
import statistics

SCALE_FACTOR = 30.0
KINDS: dict[str, re.Pattern[str]] = {
    "time": re.compile(r"\b(?:time|runtime|run-time|latency|duration|elapsed|seconds?|secs?|ms|milliseconds?|"
                       r"minutes?|mins?|hours?|hrs?|wall[- ]?clock)\b|\((?:s|ms|h|min)\)", re.I),
    "count": re.compile(r"\b(?:number of|no\. of|count|counts|num|amount of)\b|#", re.I),
    "rate": re.compile(r"%|\b(?:percent|percentage|rate|ratio|share|fraction|proportion|accuracy|acc|precision|"
                       r"recall|f1|f-?score|auc|probability|success)\b", re.I),
    "p-value": re.compile(r"\bp[- ]?values?\b|\bsignificance\b", re.I),
    "error": re.compile(r"\b(?:error|errors|mse|rmse|mae|loss)\b", re.I),
    "memory": re.compile(r"\b(?:memory|mb|gb|kb|bytes|mib|gib)\b", re.I),
}


def kinds(text: str) -> set[str]:
    """The quantity kinds a caption, header or file name states."""
    text = re.sub(r"[_\-./]+", " ", text or "")
    return {name for name, pattern in KINDS.items() if pattern.search(text)}


def paper_kinds(caption: str, header: list[str]) -> set[str]:
    """What a paper table states it holds: its caption, else its column headers."""
    return kinds(caption) or kinds(" ".join(header[1:]))


def output_kinds(header: list[str], caption: str, source: str) -> set[str]:
    """What an output table states it holds: its caption or headers, else the name of the file it is in."""
    name = source.rsplit("/", 1)[-1].rsplit(".", 1)[0] if not source.startswith("stdout") else ""
    return kinds(caption) or kinds(" ".join(header[1:])) or kinds(name)


def _typical(values: list[float]) -> float | None:
    nonzero = [abs(v) for v in values if v]
    return statistics.median(nonzero) if nonzero else None


def incomparable(paper_kind: set[str], produced_kind: set[str], paper_values: list[float],
                 produced_values: list[float]) -> str:
    """Why two tables hold different quantities ('' when they may be compared): kinds both stated and disjoint, or
    typical values more than SCALE_FACTOR apart on the comparison scale."""
    if paper_kind and produced_kind and not paper_kind & produced_kind:
        return (f"the paper's table holds {'/'.join(sorted(paper_kind))}, the output "
                f"{'/'.join(sorted(produced_kind))}")
    p, q = _typical(paper_values), _typical(produced_values)
    if p and q and not 1 / SCALE_FACTOR <= q / p <= SCALE_FACTOR:
        return (f"the values are on another scale (typical {q:.3g} against the paper's {p:.3g}, more than "
                f"{SCALE_FACTOR:g}× apart)")
    return ""


def machine_dependent(paper_kind: set[str]) -> bool:
    """A table of run times only (they depend on the machine the run had)."""
    return paper_kind == {"time"}
