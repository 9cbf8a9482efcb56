"""What the runs reproduced, read back from committed evidence: each paper table cell beside the value the run
produced and the verdict (D4's comparisons), and the tail of the failing workflow command's stderr (D3).

Two comparison shapes are read: the offline reviewer's claim mapping (`tables`: one entry per paper table compared
at printed precision, and `mapping.structure`: the same table paired by its labels and compared on one scale with
the stated tolerance) and an agent's single-table comparison records (`table`, `cells`, `success`). A reader sees
one comparison per table, the one D4 judged by: a table reproduced at printed precision is shown so; otherwise
the pairing on one scale (84.1% against 87.3%, −3.2 points, close), in D4's verdict words. For a table compared
several times the comparison with the most matched cells is shown.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..models import Report
from ..sandbox.commandlog import parse_log
from .reading import Reader, kind_of, read_json

JUDGED = {"equal": "equal at printed precision", "close": "close to the paper (within the tolerance)",
          "differs": "differs from the paper", "contradicts": "contradicts the paper"}
TAIL_LINES = 20
TAIL_CHARS = 3000


@dataclass
class Cell:
    row: str
    column: str
    expected: str
    produced: str | None
    matched: bool
    kind: str
    """match, rounding, different or missing (tables/compare.py); equal, close or far (one scale, claims/mapping.py)."""
    difference: str = ""
    """On one scale: the signed difference in its unit (`−3.2 points`)."""


@dataclass
class TableResult:
    """One paper table compared with a run's output."""

    label: str
    evidence: str
    matched: int
    total: int
    source: str = ""
    """Where the values came from, e.g. 'stdout of `python3 run.py`'."""
    method: str | None = None
    """full, last_mile or copy when the method judge ran (a full match); None otherwise."""
    role: str = ""
    cells: list[Cell] = field(default_factory=list)
    why: str = ""
    """The method judge's deciding flow in one line (value <- command <- source), or its first reason."""
    scale: str = ""
    """Set when the table was compared on one scale (D4's pairing): 'as printed' or the conversion made."""
    judged: str = ""
    """D4's verdict on one scale: equal, close, differs, contradicts."""
    note: str = ""
    """What the verdict rests on (orderings, a reduced run, the tolerance)."""

    @property
    def verdict(self) -> str:
        if self.judged:
            return JUDGED.get(self.judged, self.judged)
        if self.method == "copy":
            return "copied, not reproduced"
        if self.total and self.matched == self.total:
            if self.role == "descriptive":
                return "matched (a description of the data, not a result)"
            return f"reproduced ({self.method.replace('_', '-')} reproduction)" if self.method else "reproduced"
        if self.matched:
            return f"partly reproduced ({self.matched} of {self.total} cells)"
        return "not reproduced"


@dataclass
class FailedRun:
    """The workflow command whose failure D3 reports, with the end of what it wrote to stderr."""

    cmd: str
    status: str
    evidence: str
    tail: str
    stream: str = "stderr"


def reproduced_tables(report: Report, read: Reader) -> list[TableResult]:
    d4 = report.dimensions.get("D4")
    if d4 is None:
        return []
    kinds = kind_of(report)
    cited = list(dict.fromkeys(d4.evidence + [e for c in d4.checklist for e in c.evidence]))
    best: dict[str, TableResult] = {}
    for ev_id in cited:
        if kinds.get(ev_id) != "comparison":
            continue
        data = read_json(read, ev_id) or {}
        entries = tables if isinstance(tables := data.get("tables"), list) else [data] if "cells" in data else []
        for entry in entries:
            table = _table(entry, ev_id)
            if table and (table.label not in best or table.matched > best[table.label].matched):
                best[table.label] = table
        mapping = found if isinstance(found := data.get("mapping"), dict) else {}
        for entry in mapping.get("structure") or []:
            table = _paired(entry, ev_id)
            held = best.get(table.label) if table else None
            if table and not (held and held.total and held.matched == held.total and not held.judged):
                best[table.label] = table  # D4 judged this table on one scale: that is the comparison shown
    return list(best.values())


def _paired(entry: object, ev_id: str) -> TableResult | None:
    """A paper table as D4 paired it with an output (claims/mapping.py's record): every cell on one scale."""
    if not isinstance(entry, dict) or not isinstance(entry.get("cells"), list) or entry.get("comparable"):
        return None
    cells = [Cell(row=str(c.get("row", "")), column=str(c.get("column", "")), expected=str(c.get("paper", "")),
                  produced=str(c.get("on_scale") or c.get("produced", "")), matched=c.get("kind") == "equal",
                  kind=str(c.get("kind", "")), difference=str(c.get("difference") or ""))
             for c in entry["cells"] if isinstance(c, dict)]
    if not cells:
        return None
    counts = found if isinstance(found := entry.get("counts"), dict) else {}
    order = entry.get("ordering_holds")
    note = "" if order is None else (f"the paper's ordering {'holds' if order else 'does not hold'} "
                                     f"({entry.get('concordant')} of {entry.get('ordered_pairs')} ordered pairs)")
    if entry.get("reduced"):
        note += ("; " if note else "") + "the run was reduced, so its values are not expected to equal the paper's"
    return TableResult(label=str(entry.get("table") or "table"), evidence=ev_id,
                       matched=int(counts.get("equal", 0)), total=len(cells), source=str(entry.get("source") or ""),
                       cells=cells, scale=str(entry.get("scale") or "as printed"),
                       judged=str(entry.get("verdict") or "differs"), note=note,
                       role="", why="")


def _table(entry: object, ev_id: str) -> TableResult | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("cells"), list):
        return None
    cells = [Cell(row=str(c.get("row", "")), column=str(c.get("column", "")), expected=str(c.get("expected", "")),
                  produced=None if c.get("produced") is None else str(c.get("produced")),
                  matched=bool(c.get("matched")), kind=str(c.get("kind", "")))
             for c in entry["cells"] if isinstance(c, dict)]
    method = entry.get("method") if isinstance(entry.get("method"), str) else None
    if method is None and entry.get("success"):
        method = ""  # an agent's comparison: a full match, no method judgement recorded
    matched, total = entry.get("matched"), entry.get("total")
    return TableResult(label=str(entry.get("table") or "table"), evidence=ev_id,
                       matched=matched if isinstance(matched, int) else sum(c.matched for c in cells),
                       total=total if isinstance(total, int) else len(cells), source=str(entry.get("source") or ""),
                       method=method or None, role=str(entry.get("role") or ""), cells=cells, why=_why(entry))


def _why(entry: dict) -> str:
    flow = entry.get("method_flow")
    if isinstance(flow, str) and flow:
        return flow
    reasons = entry.get("method_reasons")
    return str(reasons[0]) if isinstance(reasons, list) and reasons else ""


def safe_view(table: TableResult) -> list[Cell]:
    """The table as an agent may see it: paper values of cells the run did not reproduce have every digit
    replaced by '?', so a transcript never carries a number the run did not produce itself."""
    return [Cell(c.row, c.column, c.expected if c.matched else re.sub(r"\d", "?", c.expected), c.produced,
                 c.matched, c.kind) for c in table.cells]


def failed_run(report: Report, read: Reader) -> FailedRun | None:
    """D3's failing workflow command: the chosen command's run if it failed, else the last documented command
    run that failed, else the last cited command that failed. None when D3 has no failing run."""
    d3 = report.dimensions.get("D3")
    if d3 is None:
        return None
    kinds = kind_of(report)
    cited = list(dict.fromkeys(d3.evidence + [e for c in d3.checklist for e in c.evidence]))
    chosen_runs: list[str] = []
    other_runs: list[str] = []
    for ev_id in cited:
        data = (read_json(read, ev_id) if kinds.get(ev_id) == "selection" else None) or {}
        attempts = tried if isinstance(tried := data.get("attempts"), list) else []
        for attempt in (a for a in attempts if isinstance(a, dict)):
            runs = [r for r in attempt.get("runs") or [] if isinstance(r, str)]
            is_chosen = bool(data.get("chosen")) and attempt.get("cmd") == data.get("chosen")
            (chosen_runs if is_chosen else other_runs).extend(runs)
    commands = [e for e in cited if kinds.get(e) == "command"]
    if chosen_runs:  # the chosen command ran: only its own failure is the one to quote
        return _failure(chosen_runs[-1], read)
    for ev_id in dict.fromkeys(other_runs[::-1] + commands[::-1]):
        failure = _failure(ev_id, read)
        if failure:
            return failure
    return None


def _failure(ev_id: str, read: Reader) -> FailedRun | None:
    text = read(ev_id)
    if not text:
        return None
    log = parse_log(text)
    if log.ok or (log.exit_code is None and not log.timed_out):
        return None
    status = "timed out" if log.timed_out else f"exit {log.exit_code}"
    stream, body = ("stderr", log.stderr) if log.stderr.strip() else ("stdout", log.stdout)
    return FailedRun(cmd=log.script.strip().splitlines()[-1] if log.script.strip() else "", status=status,
                     evidence=ev_id, tail=tail(body), stream=stream)


def tail(text: str, lines: int = TAIL_LINES, chars: int = TAIL_CHARS) -> str:
    kept = [ln.rstrip()[:300] for ln in text.rstrip().splitlines()[-lines:]]
    out = "\n".join(kept)
    return out[-chars:] if len(out) > chars else out
