"""Checks of an output described in words (see `described`) on the text of the file a run wrote: the rows against
the input's, the added columns and the kind of their values, the named columns or JSON keys, the number of lines,
the form of a documented example line and one value per unit of the input. Never reads or runs anything."""
from __future__ import annotations

import csv
import io
import json
import re

from pydantic import Field

from ._base import Record, Verdict, clip
from .described import CNF_HEADER, Description, tokens


class PropertyCheck(Record):
    name: str
    ok: bool
    detail: str
    checked: bool = Field(True, description="False when the property could not be checked (input unreadable).")


class DescribedCheck(Record):
    verdict: Verdict
    output: str = ""
    input: str = ""
    checks: list[PropertyCheck] = Field(default_factory=list)
    reason: str = ""

    def line(self, command: str) -> str:
        done = "; ".join(c.detail for c in self.checks if c.ok)
        return f"`{clip(command, 60)}` wrote {self.output} as the documentation describes it ({done})"


def _kind(token: str) -> str:
    if token in ("0", "1"):
        return "binary"
    return "integer" if _is_int(token) else "number" if _is_number(token) else "text"


def _input_width(text: str | None) -> int | None:
    """How many units (options, variables, columns) the input has: a DIMACS CNF's variables, a table's columns."""
    if not text:
        return None
    if m := CNF_HEADER.search(text[:200_000]):
        return int(m.group(1))
    rows = parse_grid(text[:2_000_000])
    return len(rows[-1]) if rows else None


def _line_checks(desc: Description, text: str, input_text: str | None) -> list[PropertyCheck]:
    """Every line of the form of the documented example line (as many values, of the same kind); and, when each
    value stands for a unit of the input, as many values as the input has units."""
    lines = [tokens(ln) for ln in text.splitlines() if ln.strip()]
    kinds = {_kind(t) for t in tokens(desc.line_example)}
    kind = "binary" if kinds == {"binary"} else "integer" if kinds <= {"binary", "integer"} else (
        "number" if kinds <= {"binary", "integer", "number"} else "")
    widths = {len(t) for t in lines}
    allowed = {"binary": ("binary",), "integer": ("binary", "integer"), "number": ("binary", "integer", "number")}
    same_kind = not kind or all(_kind(t) in allowed[kind] for ln in lines for t in ln)
    width = widths.pop() if len(widths) == 1 else None
    checks = [PropertyCheck(name="line_form", ok=bool(lines) and width is not None and same_kind,
                            detail=f"{len(lines)} lines of " + (f"{width} values each" if width is not None else
                                                                 "differing lengths")
                            + ((", all " if same_kind else ", not all ") + ("0/1" if kind == "binary" else kind)
                               if kind else "")
                            + f", as the documented line `{clip(desc.line_example, 40)}`")]
    if desc.per_unit:
        units = _input_width(input_text)
        checks.append(PropertyCheck(name="per_unit", ok=units is not None and width == units,
                                    checked=units is not None,
                                    detail=f"one value per {desc.per_unit.removesuffix('s')}: {width} values, "
                                    f"the input has {units}" if units is not None else
                                    f"the number of {desc.per_unit} of the input could not be read"))
    return checks


def parse_grid(text: str, fmt: str = "") -> list[list[str]] | None:
    """The rows of a delimited text file (the delimiter `fmt` says, else the one that gives a steady column count
    above one); None when it is not a grid."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        return None
    delims = {"csv": [","], "tsv": ["\t"]}.get(fmt, [",", "\t", ";", "|"])
    for delim in delims:
        try:
            rows = [[c.strip() for c in r] for r in csv.reader(io.StringIO("\n".join(lines)), delimiter=delim)]
        except csv.Error:
            continue
        widths = {len(r) for r in rows[1:] or rows}
        if len(widths) == 1 and widths.pop() > 1:
            return rows
    return None


def _is_int(cell: str) -> bool:
    return bool(re.fullmatch(r"[-+]?\d+(?:\.0+)?", cell.strip()))


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return cell.strip().lower() not in ("nan", "inf", "-inf", "")


def _row_index(rows: list[list[str]]) -> bool:
    """A leading column that only numbers the rows 0, 1, 2, … (as a data-frame writer adds)."""
    body = rows[1:]
    return len(body) >= 2 and all(r and _is_int(r[0]) and int(float(r[0])) == i + int(float(body[0][0]))
                                  for i, r in enumerate(body[:1000])) and not rows[0][0].strip()


def _grid_checks(desc: Description, out_rows: list[list[str]], in_rows: list[list[str]] | None,
                 truncated: bool) -> list[PropertyCheck]:
    checks: list[PropertyCheck] = []
    width = len(out_rows[-1])
    if desc.same_rows:
        if in_rows is None or truncated:
            checks.append(PropertyCheck(name="same_rows", ok=False, checked=False,
                                        detail="the input could not be read as a grid"
                                        if in_rows is None else "the file is too large to count its rows"))
        else:
            ok = abs(len(out_rows) - len(in_rows)) <= 1
            checks.append(PropertyCheck(name="same_rows", ok=ok, detail=f"{len(out_rows)} rows against the input's "
                                        f"{len(in_rows)}" + (" (a header line apart)" if ok and len(out_rows) !=
                                                             len(in_rows) else "")))
    if desc.extra_columns and in_rows is not None:
        index = _row_index(out_rows)
        added = width - len(in_rows[-1]) - int(index)
        ok = added == desc.extra_columns
        detail = (f"{width} columns: the input's {len(in_rows[-1])} plus {added}"
                  + (" and a row-index column" if index else ""))
        checks.append(PropertyCheck(name="extra_columns", ok=ok, detail=detail))
        if ok and desc.extra_kind:
            values = [r[-1] for r in out_rows if r]
            test = _is_int if desc.extra_kind == "integer" else _is_number
            bad = [v for v in values if not test(v)]
            if bad and bad[0] is values[0] and len(bad) == 1:  # a header line
                values, bad = values[1:], []
            checks.append(PropertyCheck(name="extra_kind", ok=bool(values) and not bad,
                                        detail=f"the added column holds {desc.extra_kind} values in "
                                               f"{len(values) - len(bad)} of {len(values)} rows"))
    elif desc.extra_columns:
        checks.append(PropertyCheck(name="extra_columns", ok=False, checked=False,
                                    detail="the input could not be read as a grid"))
    if desc.columns:
        header = [h.strip().strip('"').lower() for h in out_rows[0]]
        missing = [c for c in desc.columns if c.lower() not in header]
        checks.append(PropertyCheck(name="columns", ok=not missing, detail=f"columns {', '.join(desc.columns)}"
                                    + (f" (missing: {', '.join(missing)})" if missing else " in the header")))
    return checks


def _line_count(desc: Description, text: str, fmt: str, truncated: bool) -> PropertyCheck:
    """The number of lines (rows, a header line apart in a table) against the number the documentation states."""
    if truncated:
        return PropertyCheck(name="lines", ok=False, checked=False, detail="the file is too large to count its lines")
    n = sum(1 for ln in text.splitlines() if ln.strip())
    ok = n == desc.lines or (fmt in ("csv", "tsv") and n == desc.lines + 1)
    return PropertyCheck(name="lines", ok=ok, detail=f"{n} lines, the documentation says {desc.lines}")


def _keys(data: object) -> set[str]:
    if isinstance(data, dict):
        return {str(k).lower() for k in data} | {k for v in data.values() for k in _keys(v)}
    if isinstance(data, list):
        return {k for v in data[:50] for k in _keys(v)}
    return set()


def check_described(desc: Description, output: str, text: str, input_name: str = "", input_text: str | None = None,
                    truncated: bool = False) -> DescribedCheck:
    """The described properties on the text of a file the run wrote; a match needs every described property
    verified and at least one of them; never raises."""
    res = DescribedCheck(verdict="not_established", output=output, input=input_name)
    try:
        if not text.strip():
            res.verdict, res.reason = "mismatch", f"{output} is empty"
            return res
        fmt = desc.format or output.lower().rsplit(".", 1)[-1]
        if fmt == "json" or desc.keys:
            try:
                data = json.loads(text)
            except ValueError as exc:
                res.verdict, res.reason = "mismatch", f"{output} is not JSON ({clip(str(exc), 80)})"
                return res
            have = _keys(data)
            missing = [k for k in desc.keys if k.lower() not in have]
            res.checks.append(PropertyCheck(name="format", ok=True, detail="parses as JSON"))
            if desc.keys:
                res.checks.append(PropertyCheck(name="keys", ok=not missing, detail=f"keys {', '.join(desc.keys)}" + (
                    f" (missing: {', '.join(missing)})" if missing else " present")))
        elif desc.grid:
            rows = parse_grid(text, fmt if fmt in ("csv", "tsv") else "")
            if rows is None:
                res.verdict, res.reason = "mismatch", f"{output} does not parse as a table"
                return res
            in_rows = parse_grid(input_text) if input_text else None
            res.checks = _grid_checks(desc, rows, in_rows, truncated)
        if desc.lines:
            res.checks.append(_line_count(desc, text, fmt, truncated))
        if desc.line_example:
            res.checks += _line_checks(desc, text, input_text)
        shape = [c for c in res.checks if c.name != "format" and c.ok]
        failed = [c for c in res.checks if c.checked and not c.ok]
        res.verdict = "mismatch" if failed else "match" if shape else "not_established"
        res.reason = "; ".join(c.detail for c in (failed or res.checks)) or "no described property could be checked"
    except (ValueError, TypeError, IndexError, RecursionError, csv.Error) as exc:
        res.verdict, res.reason = "not_established", f"check failed: {type(exc).__name__}: {clip(str(exc), 120)}"
    return res


__all__ = ["DescribedCheck", "PropertyCheck", "check_described", "parse_grid"]
