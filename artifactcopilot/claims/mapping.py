"""Mapping by structure (D4, rubric WA): does a run's output reproduce the shape of a paper table's experiment?

The rubric asks for a *mapping* at WA ("maps to at least one method, claim, result, table, figure, or
experiment") and for equal numbers only at A and for Results Reproduced. An output maps to a paper table when a
table in it shares at least two labels with that table — at least one row label and one column label, so that
some of its numbers stand where the paper's do (labels compared as `labels.py` says: case, arrows, plurals,
abbreviations) — carries numbers, and holds the same quantity: shared labels are not the same quantity, so the
kind the caption and headers state (seconds, counts, rates, p-values) and the scale of the values must agree first
(`quantity.py`); a pairing that fails this is recorded as `not comparable`, never compared cell by cell. An output
of one row (`precision: 0.31`, `recall: 0.42`) whose labels name two or more of the table's columns is held against
the paper row it is closest to.

Values are then compared cell by cell on one scale for the whole table (as printed, or fractions against the
paper's percentages), each cell `equal` at printed precision, `close` within the tolerance, or `far`:
TOLERANCE_POINTS percentage points for rates (a percentage, or a fraction on both sides), else TOLERANCE_RELATIVE
of the paper's value. The orderings the table shows (pairs of cells in a row or a column whose paper values
differ) are checked too. The verdict:
- `equal`: every aligned cell equal at printed precision;
- `close`: at least half the cells equal or close, and the orderings hold (or there are none to check);
- `contradicts`: more than half the cells far off, whatever the ordering — except for run times alone, which
  depend on the machine and contradict only with the orderings broken too;
- `differs`: anything between (close values with a broken ordering among them), stated cell by cell.
A contradiction is not drawn from a run the review or the documentation reduced (`reduced`): its values are
expected to differ, and the verdict says so.
"""
from __future__ import annotations

import statistics

from ..tables import Table
from ..tables.compare import json_table
from ..tables.numbers import parse_number
from ..tables.text import parse_tables
from .labels import align_labels, words
from .pairing import ORDERING_HOLDS, Cell, StructureMap
from .quantity import SCALE_FACTOR, incomparable, machine_dependent, output_kinds, paper_kinds

TOLERANCE_POINTS = 5.0
TOLERANCE_RELATIVE = 0.10
TOLERANCE_TEXT = (f"compared only when the quantity agrees (the kind the caption and headers state, and typical values "
                  f"within {SCALE_FACTOR:g}x of the paper's); close within {TOLERANCE_POINTS:g} percentage points for "
                  f"rates, {TOLERANCE_RELATIVE:.0%} of the paper's value otherwise; orderings hold when at least "
                  f"{ORDERING_HOLDS:.0%} of the paper's ordered pairs keep their order; contradicts when more than "
                  "half the cells are far off in a run that was not reduced (run times alone: with the orderings "
                  "broken too)")


def produced_tables(text: str) -> list[Table]:
    """The tables a run's output holds: text tables of every form, and a JSON document's."""
    found = [t for t in parse_tables(text) if t.rows]
    if text.lstrip()[:1] in ("{", "["):
        table = json_table(text)
        if table is not None and table.rows:
            found.append(table)
    return found


def _transpose(t: Table) -> Table:
    grid = [t.header] + t.rows
    width = max(len(r) for r in grid)
    cols = [[r[c] if c < len(r) else "" for r in grid] for c in range(width)]
    return Table(label=t.label, caption=t.caption, header=cols[0], rows=cols[1:])


def _row_keys(row: list[str]) -> list[str]:
    """The labels a produced row carries: its first cell and any other text cell ("LR,Adult,0.81")."""
    return [c for i, c in enumerate(row) if i == 0 or (c.strip() and parse_number(c) is None)]


def _align_rows(paper: Table, produced: Table) -> dict[int, int]:
    firsts = align_labels([r[0] if r else "" for r in paper.rows], [r[0] if r else "" for r in produced.rows])
    if firsts:
        return firsts
    keyed = [(j, k) for j, row in enumerate(produced.rows) for k in _row_keys(row)[1:]]
    hits = align_labels([r[0] if r else "" for r in paper.rows], [k for _, k in keyed])
    return {i: keyed[h][0] for i, h in hits.items()} if len(set(keyed[h][0] for h in hits.values())) == len(hits) \
        else {}


Pairs = list[tuple[int, int, str, str]]


def _numbers(paper: Table, produced: Table, rows: dict[int, int], cols: dict[int, int]) -> Pairs:
    out = []
    for r, c in paper.numeric_cells():
        pr, pc = rows.get(r), cols.get(c)
        if pr is None or pc is None or pc >= len(produced.rows[pr]):
            continue
        value = produced.rows[pr][pc].strip()
        if parse_number(value) is not None:
            out.append((r, c, paper.rows[r][c], value))
    return out


def _percent_table(paper: Table) -> bool:
    caption = paper.caption.casefold()
    return "%" in caption or "percent" in caption or any("%" in h for h in paper.header)


def _scale(paper: Table, pairs: Pairs) -> tuple[float, str]:
    """One factor for the whole output, read from magnitudes (never from which factor agrees best): fractions
    against the paper's percentages (×100) when the paper states percentages and every produced value is at most 1;
    percentages against the paper's fractions (×0.01) when every paper value is at most 1 and the output's are
    above 1 and at most 100."""
    papers = [p for _, _, text, _ in pairs if (p := parse_number(text)) is not None]
    produced = [q for _, _, _, text in pairs if (q := parse_number(text)) is not None]
    if not papers or not produced:
        return 1.0, "as printed"
    pv, qv = [abs(p.value) for p in papers], [abs(q.value) for q in produced]
    stated = _percent_table(paper) or any(p.percent for p in papers)
    rates = max(pv) <= 100.0 and any(p.decimals for p in papers) and not any(q.percent for q in produced)
    if max(qv) <= 1.0 and max(pv) > 1.0 and (stated or rates):
        return 100.0, "the output's fractions against the paper's percentages"
    if max(pv) <= 1.0 and not stated and 1.0 < max(qv) <= 100.0 and min(qv) > 0.0 and \
            all(q.percent for q in produced) | (min(qv) >= 1.0):
        return 0.01, "the output's percentages against the paper's fractions"
    return 1.0, "as printed"


def _cell(paper_text: str, produced_text: str, factor: float, percent_table: bool) -> tuple[str, float, str, float]:
    """(kind, gap, unit, signed difference) of one cell on the comparison scale."""
    e, p = parse_number(paper_text), parse_number(produced_text)
    assert e is not None and p is not None
    value = p.value * factor
    if round(value, e.decimals) == round(e.value, e.decimals) or abs(value - e.value) < 0.5 * 10 ** -e.decimals:
        return "equal", 0.0, "points", 0.0
    if e.percent or percent_table or factor == 100.0:  # the paper's value is a percentage
        signed, unit = value - e.value, "points"
    elif abs(e.value) <= 1.0 and abs(value) <= 1.0:  # fractions on both sides
        signed, unit = 100 * (value - e.value), "points"
    else:
        signed, unit = (value - e.value) / max(abs(e.value), 1e-9), "relative"
    gap = abs(signed)
    close = gap <= (TOLERANCE_POINTS if unit == "points" else TOLERANCE_RELATIVE)
    return ("close" if close else "far"), gap, unit, signed


def _orderings(values: dict[tuple[int, int], tuple[float, float]]) -> tuple[int, int]:
    """(ordered pairs, pairs that keep their order) over the cells of a row and of a column."""
    pairs = concordant = 0
    keys = sorted(values)
    for a_i, a in enumerate(keys):
        for b in keys[a_i + 1:]:
            if a[0] != b[0] and a[1] != b[1]:
                continue
            (pa, qa), (pb, qb) = values[a], values[b]
            if pa == pb:
                continue
            pairs += 1
            concordant += (pa - pb) * (qa - qb) > 0
    return pairs, concordant


def _verdict(m: StructureMap) -> str:
    if m.comparable:
        return "not comparable"
    n, total = m.counts(), len(m.cells)
    if n["equal"] == total:
        return "equal"
    holds = m.ordering_holds
    if (n["equal"] + n["close"]) * 2 >= total and holds is not False:
        return "close"
    if n["far"] * 2 > total and (holds is not True or not machine_dependent(set(m.kinds))):
        return "differs" if m.reduced else "contradicts"
    return "differs"


def _one(paper: Table, produced: Table, source: str, reduced: bool) -> StructureMap | None:
    cols = {i + 1: j + 1 for i, j in align_labels(paper.header[1:], produced.header[1:]).items()}
    rows = _align_rows(paper, produced)
    if not rows and len(cols) >= 2 and len(produced.rows) == 1:  # one row of named values: the closest paper row
        best: tuple[int, StructureMap] | None = None
        for r in range(len(paper.rows)):
            attempt = _measure(paper, produced, {r: 0}, cols, source, reduced)
            if attempt and (best is None or _distance(attempt) < _distance(best[1])):
                best = (r, attempt)
        if best is None:
            return None
        best[1].closest_row, best[1].rows = paper.rows[best[0]][0], []
        return best[1]
    if not rows or not cols:
        return None
    return _measure(paper, produced, rows, cols, source, reduced)


def _distance(m: StructureMap) -> float:
    return statistics.median(c.gap for c in m.cells) if m.cells else float("inf")


def _measure(paper: Table, produced: Table, rows: dict[int, int], cols: dict[int, int], source: str,
             reduced: bool) -> StructureMap | None:
    pairs = _numbers(paper, produced, rows, cols)
    if not pairs:
        return None
    factor, scale = _scale(paper, pairs)
    percent = _percent_table(paper)
    stated = paper_kinds(paper.caption, paper.header)
    m = StructureMap(table=paper.label or "table", source=source, scale=scale, reduced=reduced,
                     rows=[_named(paper.rows[r][0], produced.rows[j][0]) for r, j in rows.items()],
                     columns=[_named(paper.header[c], produced.header[j]) for c, j in cols.items()
                              if c < len(paper.header) and j < len(produced.header)],
                     kinds=sorted(stated), percent=percent or factor == 100.0)
    numbers = [(e, p) for _, _, want, got in pairs if (e := parse_number(want)) and (p := parse_number(got))]
    m.comparable = incomparable(stated, output_kinds(produced.header, produced.caption, source),
                                [e.value for e, _ in numbers], [p.value * factor for _, p in numbers])
    if m.comparable:
        m.verdict = _verdict(m)
        return m
    values: dict[tuple[int, int], tuple[float, float]] = {}
    for r, c, want, got in pairs:
        kind, gap, unit, signed = _cell(want, got, factor, percent)
        head = paper.header[c] if c < len(paper.header) else ""
        e, p = parse_number(want), parse_number(got)
        scaled = p.value * factor if p is not None else None
        m.cells.append(Cell(paper.rows[r][0], head, want, got, kind, round(gap, 4), unit, scaled, round(signed, 4)))
        if e is not None and p is not None:
            values[(r, c)] = (e.value, p.value * factor)
    m.ordered_pairs, m.concordant = _orderings(values)
    m.verdict = _verdict(m)
    return m


def _named(paper_label: str, produced_label: str) -> str:
    return paper_label if words(paper_label) == words(produced_label) else f"{paper_label}={produced_label}"


def agreement(m: StructureMap) -> tuple:
    """How well a pairing agrees: comparable first, then the verdict most in agreement, the most labels shared, the
    most cells equal or close."""
    n = m.counts()
    rank = {"equal": 4, "close": 3, "differs": 2, "contradicts": 1, "not comparable": 0}[m.verdict]
    return (not m.comparable, rank, m.labels, n["equal"] + n["close"], -len(m.cells))


def map_each(paper: Table, text: str, source: str, reduced: bool = False) -> list[StructureMap]:
    """For each table in `text` that shares two labels with `paper` and a number where the paper has one, its
    pairing with `paper` (the orientation that shares more labels), numbered by `output`."""
    if not paper.numeric_cells():
        return []
    out = []
    for index, produced in enumerate(produced_tables(text)):
        best: StructureMap | None = None
        for oriented in (produced, _transpose(produced)):
            found = _one(paper, oriented, source, reduced)
            if found is None or found.labels < 2:
                continue
            if best is None or (found.labels, agreement(found)) > (best.labels, agreement(best)):
                best = found
        if best is not None:
            best.output = index
            out.append(best)
    return out


def map_structure(paper: Table, text: str, source: str, reduced: bool = False) -> StructureMap | None:
    """The output table in `text` that maps best to `paper` (comparable, then most in agreement, then most
    labels), or None when none shares two labels with it and a number where the paper has one."""
    return max(map_each(paper, text, source, reduced), key=agreement, default=None)
