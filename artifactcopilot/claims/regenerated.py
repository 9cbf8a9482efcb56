"""Regenerated vs committed: a result file the artifact ships, rewritten by a documented command, compared with
the version the authors committed (their record of the paper's numbers) — the first thing a committee member does.

The comparison is cell by cell at printed precision: two numbers agree when they are equal once rounded to the
fewer decimals of the two (a program that prints 0.91234 where the committed file says 0.912 agrees). CSV/TSV
files are compared row by row and column by column (columns aligned by header name when both have one), JSON
through its table shape or its scalar leaves, any other text line by line, number by number. Nothing here reads
the artifact or runs anything; `compare_versions` takes the two versions' text and never raises.
"""
from __future__ import annotations

import csv
import io
import json
import re
from decimal import Decimal, InvalidOperation
from typing import Literal

from pydantic import BaseModel, Field

from ..tables.compare import CellResult, norm_label
from ..tables.numbers import parse_number

RESULT_FILES = (".csv", ".tsv", ".json", ".txt", ".dat", ".tex", ".out")
"""Committed files a run may regenerate that can be compared value by value."""
MAX_CELLS = 200_000
_NUMBER = re.compile(r"[-+−]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?%?")

Verdict = Literal["match", "mismatch", "not_comparable"]


class FileComparison(BaseModel):
    path: str
    verdict: Verdict = "not_comparable"
    matched: int = 0
    total: int = 0
    reason: str = ""
    cells: list[CellResult] = Field(default_factory=list, description="The cells that differ (first 200).")
    read_by: str = Field("", description="A code file that reads this file by name: the run may have copied the "
                                         "committed values rather than computed them, so a match is not counted.")

    @property
    def counted(self) -> bool:
        """A match that counts as regenerated output: the values agree and no code file reads the file by name."""
        return self.verdict == "match" and not self.read_by

    def line(self) -> str:
        """One sentence for the report and the D4 checklist."""
        if self.verdict == "match":
            return (f"{self.path} regenerated: equal to the committed version at printed precision "
                    f"({self.matched} of {self.total} values)"
                    + (f"; not counted, {self.read_by} reads it by name" if self.read_by else ""))
        if self.verdict == "mismatch":
            return (f"{self.path} regenerated: {self.total - self.matched} of {self.total} values differ from the "
                    "committed version")
        return f"{self.path} regenerated, not comparable with the committed version ({self.reason})"


def _agree(a: str, b: str) -> tuple[bool, str]:
    """Whether two cells agree at printed precision, and the kind ('match', 'rounding', 'different')."""
    pa, pb = parse_number(a), parse_number(b)
    if pa is None or pb is None:
        same = " ".join(a.split()).casefold() == " ".join(b.split()).casefold()
        return same, "match" if same else "different"
    try:
        digits = min(pa.decimals, pb.decimals)
        step = Decimal(1).scaleb(-digits)
        va, vb = Decimal(repr(pa.value)), Decimal(repr(pb.value))
        if va.quantize(step) == vb.quantize(step) or abs(va - vb) <= step / 2:
            return True, "match"
        return False, "rounding" if abs(va - vb) <= step else "different"
    except InvalidOperation:
        return pa.value == pb.value, "match" if pa.value == pb.value else "different"


def _rows(text: str, delimiter: str) -> list[list[str]]:
    return [[c.strip() for c in row] for row in csv.reader(io.StringIO(text), delimiter=delimiter) if any(row)]


def _has_header(rows: list[list[str]]) -> bool:
    return bool(rows) and all(parse_number(c) is None for c in rows[0] if c)


def _grid_cells(old: list[list[str]], new: list[list[str]]) -> list[CellResult]:
    """Committed rows against regenerated rows, in order; columns by header name when both have a header."""
    head_old = old[0] if _has_header(old) else []
    head_new = new[0] if _has_header(new) else []
    cols: dict[int, int] = {}
    if head_old and head_new:
        names = {norm_label(h): j for j, h in enumerate(head_new)}
        cols = {i: names[norm_label(h)] for i, h in enumerate(head_old) if norm_label(h) in names}
    body_old, body_new = old[1 if head_old else 0:], new[1 if head_new else 0:]
    width = max((len(r) for r in body_old), default=0)
    if not cols:
        cols = {i: i for i in range(width)}
    cells = []
    for r, row in enumerate(body_old):
        other = body_new[r] if r < len(body_new) else None
        label = row[0] if row else str(r + 1)
        for c, value in enumerate(row):
            j = cols.get(c)
            produced = other[j] if other is not None and j is not None and j < len(other) else None
            column = head_old[c] if c < len(head_old) else f"column {c + 1}"
            res = CellResult(row=f"row {r + 1} ({label})", column=column, expected=value, produced=produced)
            if produced is not None:
                res.matched, res.kind = _agree(value, produced)  # type: ignore[assignment]
            cells.append(res)
            if len(cells) >= MAX_CELLS:
                return cells
    return cells


def _leaves(value: object, path: str = "") -> list[tuple[str, str]]:
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in _leaves(v, f"{path}.{k}" if path else str(k))]
    if isinstance(value, list):
        return [leaf for i, v in enumerate(value) for leaf in _leaves(v, f"{path}[{i}]")]
    return [(path or "value", "null" if value is None else str(value).lower() if isinstance(value, bool)
             else str(value))]


def _json_cells(old: str, new: str) -> list[CellResult] | None:
    try:
        a, b = json.loads(old), json.loads(new)
    except ValueError:
        return None
    produced = dict(_leaves(b))
    cells = []
    for key, value in _leaves(a)[:MAX_CELLS]:
        res = CellResult(row=key, column="value", expected=value, produced=produced.get(key))
        if res.produced is not None:
            res.matched, res.kind = _agree(value, res.produced)  # type: ignore[assignment]
        cells.append(res)
    return cells


def _text_cells(old: str, new: str) -> list[CellResult]:
    """Other text: line by line, the numbers of each committed line against the same line regenerated."""
    new_lines = [ln for ln in new.splitlines() if ln.strip()]
    cells: list[CellResult] = []
    for i, line in enumerate(ln for ln in old.splitlines() if ln.strip()):
        other = _NUMBER.findall(new_lines[i]) if i < len(new_lines) else []
        for k, value in enumerate(_NUMBER.findall(line)):
            res = CellResult(row=f"line {i + 1}", column=f"number {k + 1}", expected=value,
                             produced=other[k] if k < len(other) else None)
            if res.produced is not None:
                res.matched, res.kind = _agree(value, res.produced)  # type: ignore[assignment]
            cells.append(res)
            if len(cells) >= MAX_CELLS:
                return cells
    return cells


def compare_versions(path: str, committed: str, regenerated: str) -> FileComparison:
    """The committed text of `path` against the text a run wrote in its place."""
    ext = path.lower().rsplit(".", 1)[-1] if "." in path else ""
    if not regenerated.strip():
        return FileComparison(path=path, verdict="mismatch", reason="the regenerated file is empty",
                              total=max(1, len(_NUMBER.findall(committed))))
    cells: list[CellResult] | None = None
    if ext in ("csv", "tsv"):
        delim = "\t" if ext == "tsv" else ","
        try:
            cells = _grid_cells(_rows(committed, delim), _rows(regenerated, delim))
        except csv.Error:
            cells = None
    elif ext == "json":
        cells = _json_cells(committed, regenerated)
    if cells is None:
        cells = _text_cells(committed, regenerated)
    numeric = [c for c in cells if parse_number(c.expected) is not None]
    if not numeric:
        return FileComparison(path=path, reason="the committed version holds no numbers")
    matched = sum(c.matched for c in cells)
    differ = [c for c in cells if not c.matched]
    return FileComparison(path=path, verdict="match" if not differ else "mismatch", matched=matched,
                          total=len(cells), cells=differ[:200])


__all__ = ["RESULT_FILES", "FileComparison", "compare_versions"]
