"""Comparing a produced table (or any output text) with an expected one, cell by cell."""
from __future__ import annotations

import json
import re
from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation
from typing import Literal

from pydantic import BaseModel, Field

from .model import Table, is_number_cell
from .numbers import ParsedNumber, parse_number, strip_markup
from .text import parse_tables


class CellResult(BaseModel):
    row: str
    column: str
    expected: str
    produced: str | None = None
    matched: bool = False
    kind: Literal["match", "missing", "rounding", "different"] = "missing"


class Comparison(BaseModel):
    expected_label: str | None = None
    matched: int = 0
    total: int = 0
    cells: list[CellResult] = Field(default_factory=list)

    @property
    def ratio(self) -> float:
        return self.matched / self.total if self.total else 0.0

    @property
    def success(self) -> bool:
        return self.total > 0 and self.matched == self.total


_CTX = Context(prec=400)  # room for any float at 20 decimals


def _round(d: Decimal, decimals: int) -> Decimal:
    q = abs(d).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP, context=_CTX)
    return -q if d < 0 else q


def _candidates(e: ParsedNumber, p: ParsedNumber, pct_hint: bool) -> list[Decimal]:
    """Produced value on the expected scale: 0.452 may be the fraction behind 45.2%."""
    v = Decimal(repr(p.value))
    if p.percent:
        return [v] if e.percent or pct_hint else [v, v / 100]
    return [v, v * 100] if e.percent or pct_hint else [v]


def _num_match(e: ParsedNumber, p: ParsedNumber, pct_hint: bool = False) -> bool:
    try:
        target = _round(Decimal(repr(e.value)), e.decimals)
        return any(_round(v, e.decimals) == target for v in _candidates(e, p, pct_hint))
    except InvalidOperation:  # absurd magnitudes
        return False


def _text_eq(a: str, b: str) -> bool:
    return " ".join(strip_markup(a).split()).casefold() == " ".join(strip_markup(b).split()).casefold()


def match_value(expected_text: str, produced: float | str) -> bool:
    e = parse_number(expected_text)
    if e is None:
        return _text_eq(expected_text, str(produced))
    if isinstance(produced, (int, float)) and not isinstance(produced, bool):
        p: ParsedNumber | None = ParsedNumber(value=float(produced), decimals=0)
    else:
        p = parse_number(str(produced))
    return p is not None and _num_match(e, p)


def _judge(row: str, col: str, expected: str, produced: str | None, pct: bool) -> CellResult:
    res = CellResult(row=row, column=col, expected=expected, produced=produced)
    if produced is None:
        return res
    e, p = parse_number(expected), parse_number(produced)
    if e is None or p is None:
        res.kind = "different"
    elif _num_match(e, p, pct):
        res.matched, res.kind = True, "match"
    else:
        gap = min(abs(v - Decimal(repr(e.value))) for v in _candidates(e, p, pct))
        res.kind = "rounding" if gap <= Decimal(1).scaleb(-e.decimals) else "different"
    return res


def norm_label(label: str) -> str:
    return re.sub(r"[\W_]+", "", strip_markup(label).casefold())


def _align(expected: list[str], produced: list[str]) -> dict[int, int]:
    """Index map expected -> produced by normalised label; then unique containment ("Acc" ~ "Test Acc")."""
    en, pn = [norm_label(x) for x in expected], [norm_label(x) for x in produced]
    out: dict[int, int] = {}
    for i, e in enumerate(en):
        j = next((j for j, p in enumerate(pn) if e and p == e and j not in out.values()), None)
        if j is not None:
            out[i] = j
    for i, e in enumerate(en):
        hits = [j for j, p in enumerate(pn) if i not in out and j not in out.values() and min(len(e), len(p)) >= 3
                and (e in p or p in e)]
        if len(hits) == 1:
            out[i] = hits[0]
    for i, label in enumerate(expected):  # "Existing RR" (a group and a name) ~ "RR"
        tail = norm_label(label.split()[-1]) if len(label.split()) > 1 else ""
        hits = [j for j, p in enumerate(pn) if i not in out and tail and p == tail and j not in out.values()]
        if len(hits) == 1:
            out[i] = hits[0]
    return out


_GENERIC_ROW = {"", "value", "values", "result", "results", "score"}


# A caption states the unit of all cells ("Accuracy (%)", "in percent"); a "%" elsewhere in it ("p < 5%") does not.
_CAPTION_PERCENT = re.compile(r"\(\s*%\s*\)|\bin\s*%|\bin\s+percent|\bpercentages?\b|\[%\]", re.IGNORECASE)
# Yes/no answers are results too: "no" for "Yes" is a different answer; "yes" for "Yes" is the same one.
_CATEGORIES = {"yes": "yes", "y": "yes", "true": "yes", "no": "no", "n": "no", "false": "no", "pass": "pass",
               "passed": "pass", "fail": "fail", "failed": "fail", "✓": "yes", "✔": "yes", "✗": "no", "✘": "no"}


def _category(text: str) -> str | None:
    return _CATEGORIES.get(" ".join(strip_markup(text).split()).casefold())


def _value(produced: Table, pr: int | None, pc: int | None) -> str | None:
    if pr is None or pc is None or pc >= len(produced.rows[pr]):
        return None
    return produced.rows[pr][pc].strip() or None


def _by_values(expected: Table, produced: Table, rows: dict[int, int], cols: dict[int, int], pct: bool) -> None:
    """Columns the labels left unpaired (renamed, reordered) are paired with the produced column whose values match."""
    width = max([len(produced.header)] + [len(r) for r in produced.rows])
    free = [j for j in range(1, width) if j not in cols.values()]
    numeric = expected.numeric_cells()
    for c in sorted({c for _, c in numeric if c not in cols}):
        head = expected.header[c] if c < len(expected.header) else ""
        cells = [(r, expected.rows[r][c]) for r, cc in numeric if cc == c and r in rows]
        scores = []
        for j in free:
            hits = sum(bool(v) and _judge("", head, e, v, pct or "%" in head).matched
                       for r, e in cells for v in [_value(produced, rows[r], j)])
            scores.append((hits, -abs(j - c), j))
        best = max(scores, default=None)
        if best is not None and best[0] and best[0] * 2 > len(cells) and sum(s[0] == best[0] for s in scores) == 1:
            cols[c] = best[2]
            free.remove(best[2])
    widest = max([len(expected.header)] + [len(r) for r in expected.rows])
    positional = [c for c in range(1, widest) if c not in cols]
    if len(expected.header) == len(produced.header) or width == widest:
        for c, j in zip(positional, free):  # positional fallback over what is left, in order
            cols[c] = j


def _compare(expected: Table, produced: Table) -> Comparison:
    rows = _align([r[0] if r else "" for r in expected.rows], [r[0] if r else "" for r in produced.rows])
    # A single produced row with a generic label ("value" from a key: value log) stands for the single expected row.
    if not rows and len(expected.rows) == 1 and len(produced.rows) == 1:
        label = produced.rows[0][0] if produced.rows[0] else ""
        if norm_label(label) in _GENERIC_ROW or is_number_cell(label):
            rows = {0: 0}
    cols = {i + 1: j + 1 for i, j in _align(expected.header[1:], produced.header[1:]).items()}
    pct_all = bool(_CAPTION_PERCENT.search(expected.caption))
    _by_values(expected, produced, rows, cols, pct_all)
    cells = []
    for r, c in expected.numeric_cells():
        head = expected.header[c] if c < len(expected.header) else ""
        value = _value(produced, rows.get(r), cols.get(c))
        cells.append(_judge(expected.rows[r][0], head, expected.rows[r][c], value, pct_all or "%" in head))
    for r, row in enumerate(expected.rows):
        for c, cell in enumerate(row):
            want = _category(cell) if c > 0 else None
            value = _value(produced, rows.get(r), cols.get(c)) if want else None
            if want and value is not None:  # a yes/no column the output has: its answers count
                got = _category(value)
                cells.append(CellResult(row=row[0], column=expected.header[c] if c < len(expected.header) else "",
                                        expected=cell, produced=value, matched=got == want,
                                        kind="match" if got == want else "different"))
    return Comparison(expected_label=expected.label, matched=sum(c.matched for c in cells), total=len(cells),
                      cells=cells)


def _transpose(t: Table) -> Table:
    grid = [t.header] + t.rows
    width = max(len(r) for r in grid)
    if not width:
        return t
    cols = [[r[c] if c < len(r) else "" for r in grid] for c in range(width)]
    return Table(label=t.label, caption=t.caption, header=cols[0], rows=cols[1:])


def _score(c: Comparison) -> tuple[int, int]:
    return c.matched, sum(x.kind != "missing" for x in c.cells)


def compare_tables(expected: Table, produced: Table) -> Comparison:
    """Cell-by-cell comparison, aligned by labels in either orientation (produced may be transposed)."""
    return max((_compare(expected, produced), _compare(expected, _transpose(produced))), key=_score)


_NUMBER_IN_TEXT = re.compile(r"(?<![\w.])[-+−]?(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
                             r"(?:[eE][-+]?\d+)?%?(?!\d)")


def _free_text(expected: Table, text: str) -> Table:
    """Rows from lines that mention an expected row label, numbers taken in order."""
    lines = text.splitlines()
    noise = sorted([h for h in expected.header if h.strip()], key=len, reverse=True)
    rows = []
    for r, row in enumerate(expected.rows):
        numeric = [c for rr, c in expected.numeric_cells() if rr == r]
        if not row or not row[0].strip() or not numeric:
            continue
        pat = re.compile(r"(?<!\w)" + r"\s*".join(map(re.escape, row[0].split())) + r"(?!\w)", re.IGNORECASE)
        best, best_n = None, -1
        for ln in lines:
            if not pat.search(ln):
                continue
            rest = pat.sub(" ", ln)
            for h in noise:
                rest = re.sub(re.escape(h), " ", rest, flags=re.IGNORECASE)
            nums = _NUMBER_IN_TEXT.findall(rest)
            answers = [w for w in re.findall(r"[A-Za-z]+", rest) if _category(w)]
            for vals in (nums[:len(numeric)], nums[-len(numeric):]):
                cand = [row[0]] + [""] * (len(row) - 1)
                for c, v in zip(numeric, vals):
                    cand[c] = v
                for c, w in zip([c for c in range(1, len(row)) if _category(row[c])], answers):
                    cand[c] = w
                n = sum(match_value(row[c], cand[c]) for c in numeric if cand[c])
                if n > best_n:
                    best, best_n = cand, n
        if best:
            rows.append(best)
    return Table(header=list(expected.header), rows=rows)


_KV_ANYWHERE = re.compile(r"[\"']?([A-Za-z][\w\-./@]*(?: [A-Za-z][\w\-./@]*)?)[\"']?\s*[:=]\s*"
                          r"([-+]?\d[\d.,]*(?:[eE][-+]?\d+)?%?)")


def kv_anywhere(text: str) -> Table:
    """`name=value` pairs anywhere ("epoch 9: acc=0.91 f1=0.85"); the last occurrence wins (final epoch)."""
    found: dict[str, str] = {}
    for key, val in _KV_ANYWHERE.findall(text):
        found[key.strip()] = val.rstrip(".,")
    return Table(header=["key", "value"], rows=[[k, v] for k, v in found.items()])


def _scalar(v: object) -> bool:
    return isinstance(v, (int, float, str)) and not isinstance(v, bool)


def json_table(text: str) -> Table | None:
    """results.json shapes: {row: {col: v}}, {key: v}, [{col: v}, ...] or JSON lines."""
    try:
        data = json.loads(text)
    except ValueError:
        try:
            data = [json.loads(ln) for ln in text.splitlines() if ln.strip()]
        except ValueError:
            return None
    if isinstance(data, dict) and data and all(isinstance(v, dict) for v in data.values()):
        cols = list(dict.fromkeys(k for v in data.values() for k in v))
        rows = [[str(r)] + [str(v.get(c, "")) if _scalar(v.get(c)) else "" for c in cols] for r, v in data.items()]
        return Table(header=[""] + cols, rows=rows)
    if isinstance(data, dict):
        return Table(header=["key", "value"], rows=[[str(k), str(v)] for k, v in data.items() if _scalar(v)])
    if isinstance(data, list) and data and all(isinstance(d, dict) for d in data):
        cols = list(dict.fromkeys(k for d in data for k in d))
        label = next((c for c in cols if all(isinstance(d.get(c), str) for d in data)), None)
        cols = [c for c in cols if c != label]
        rows = [[str(d.get(label, ""))] + [str(d[c]) if _scalar(d.get(c)) else "" for c in cols] for d in data]
        return Table(header=[label or ""] + cols, rows=rows)
    return None


def best_match(expected: Table, text: str) -> Comparison | None:
    """The produced table in `text` (stdout, a results file) that reproduces most expected cells."""
    if not expected.numeric_cells():
        return None
    candidates = parse_tables(text) + [_free_text(expected, text), kv_anywhere(text)]
    if text.lstrip()[:1] in ("{", "["):
        candidates.append(json_table(text) or Table())
    results = [compare_tables(expected, t) for t in candidates if t.rows]
    results = [c for c in results if _score(c)[1] > 0]
    return max(results, key=_score) if results else None


# ---------------------------------------------------------------------------------- feedback
