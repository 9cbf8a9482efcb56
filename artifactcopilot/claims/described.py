"""An output the documentation describes in words, checked on the file a run wrote.

READMEs often say what a command writes without showing it: "the output file is a CSV file, same shape as the input
file with one additional column containing the cluster index of each element", "writes a JSON with keys `score` and
`label`", "a CSV with columns id, name, value". A committee member opens the file the run wrote and checks those
properties: the format parses, the rows are as many as the input's, the extra column is there and holds the kind
of values described, the named columns or keys are present. Nothing here reads the artifact or runs anything:
`read_descriptions` takes documentation text, `check_described` the text of the written file (and of the input).
"""
from __future__ import annotations

import csv
import io
import json
import re
from typing import Literal

from pydantic import Field

from ._base import Record, Verdict, clip

Format = Literal["csv", "tsv", "json", ""]
ValueKind = Literal["integer", "number", ""]

_OUTPUT = re.compile(r"\b(?:output|writes?|written|produces?|saves?|saved|generates?|results? file)\b", re.I)
_SAME_ROWS = re.compile(r"\bsame (?:shape|number of (?:rows|lines|records|entries)|rows|length|size) as (?:the |its )?"
                        r"input|\b(?:as many (?:rows|lines) as (?:the )?input)|\bone (?:row|line) (?:per|for each) "
                        r"(?:input |element|row|line|record|sample|item|point|entry)", re.I)
_NUMBERS = {"one": 1, "a": 1, "an": 1, "1": 1, "two": 2, "2": 2, "three": 3, "3": 3, "four": 4, "4": 4}
_EXTRA = re.compile(r"\b(one|an?|1|two|2|three|3|four|4)\s+(?:additional|extra|more|new|added)\s+columns?|"
                    r"\bplus\s+(one|an?|1|two|2|three|3)\s+columns?|\bwith\s+an?\s+(?:additional|extra|added)\s+column",
                    re.I)
_INTEGER = re.compile(r"\b(?:index|indices|id|ids|number|count|cluster|class|rank)\b", re.I)
_REAL = re.compile(r"\b(?:score|scores|probabilit(?:y|ies)|distance|similarity|value|weight)\b", re.I)
_NAME = r"`?[A-Za-z_][\w\-. ]{0,30}?`?"
_COLUMNS = re.compile(rf"\bcolumns?\s*(?:named\s*|called\s*|:\s*)?((?:{_NAME}\s*,\s*)+(?:and\s+)?{_NAME})(?=[.;)]|$)",
                      re.I | re.M)
_KEYS = re.compile(rf"\bJSON\b[^.]*?\bkeys?\s*(?:named\s*|called\s*|:\s*)?"
                   rf"((?:{_NAME}\s*,\s*)*(?:(?:and|or)\s+)?{_NAME})(?=[.;)]|$)", re.I | re.M)
_FILE = re.compile(r"`([\w./*\-{}]+\.(?:csv|tsv|json|txt|out))`|\b([\w\-]+(?:/[\w\-*]+)*\.(?:csv|tsv|json|txt|out))\b",
                   re.I)
_LINES = re.compile(r"\b(?:will have|has|have|contains?|with|of)\s+(\d[\d,]*)\s+(?:lines|rows|records|entries)\b", re.I)
MAX_SENTENCES = 8


class Description(Record):
    source: str = Field(description="The documentation file.")
    sentence: str = Field(description="The words that describe the output.")
    format: Format = ""
    same_rows: bool = Field(False, description="As many rows as the input.")
    extra_columns: int = Field(0, description="Columns beyond the input's.")
    extra_kind: ValueKind = Field("", description="The kind of values the extra column holds.")
    columns: list[str] = Field(default_factory=list, description="Columns the output is said to have.")
    keys: list[str] = Field(default_factory=list, description="JSON keys the output is said to have.")
    file: str = Field("", description="A file name or pattern the description names.")
    lines: int = Field(0, description="The number of lines or rows the output is said to have.")

    @property
    def properties(self) -> int:
        return (int(self.same_rows) + int(bool(self.extra_columns)) + len(self.columns) + len(self.keys)
                + int(bool(self.lines)))

    @property
    def grid(self) -> bool:
        """Whether a property needs the output read as a table."""
        return self.same_rows or bool(self.extra_columns or self.columns)


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


def _sentences(text: str) -> list[str]:
    paragraphs = re.split(r"\n\s*\n|\n\s*(?=[-*+]\s|\d+[.)]\s)", text)
    out = []
    for par in paragraphs:
        if par.lstrip().startswith(("```", "    ")):
            continue
        joined = " ".join(par.split()).lstrip("-*+ ")
        out += [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z`])", joined) if s]
    return out


def _names(group: str) -> list[str]:
    parts = re.split(r"\s*,\s*|\s+(?:and|or)\s+", group.strip())
    return [p.strip("` ") for p in parts if p.strip("` ") and len(p.split()) <= 3]


def read_descriptions(source: str, text: str) -> list[Description]:
    """Sentences of a documentation file that describe a command's output file by its shape; never raises."""
    out: list[Description] = []
    for sentence in _sentences(text or ""):
        if not _OUTPUT.search(sentence) or len(sentence) > 600:
            continue
        desc = Description(source=source, sentence=clip(sentence, 300))
        low = sentence.lower()
        desc.format = ("tsv" if "tab separated" in low or "tab-separated" in low or re.search(r"(?<![.\w])tsv\b", low)
                       else "csv" if re.search(r"(?<![.\w])csv\b|comma[- ]separated", low) else
                       "json" if re.search(r"(?<![.\w])json\b", low) else "")  # words, not file names
        desc.same_rows = bool(_SAME_ROWS.search(sentence))
        if m := _EXTRA.search(sentence):
            desc.extra_columns = _NUMBERS.get((m.group(1) or m.group(2) or "a").lower(), 1)
            tail = sentence[m.end():m.end() + 80]
            desc.extra_kind = ("integer" if _INTEGER.search(tail) else "number" if _REAL.search(tail) else "")
        if desc.format != "json" and (m := _COLUMNS.search(sentence)):
            desc.columns = _names(m.group(1))
        if desc.format == "json" and (m := _KEYS.search(sentence)):
            desc.keys = _names(m.group(1))
        if m := _LINES.search(sentence):
            desc.lines = int(m.group(1).replace(",", ""))
        if f := _FILE.search(sentence):
            desc.file = f.group(1) or f.group(2)
        if desc.properties:
            out.append(desc)
        if len(out) >= MAX_SENTENCES:
            break
    return out


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
        shape = [c for c in res.checks if c.name != "format" and c.ok]
        failed = [c for c in res.checks if c.checked and not c.ok]
        res.verdict = "mismatch" if failed else "match" if shape else "not_established"
        res.reason = "; ".join(c.detail for c in (failed or res.checks)) or "no described property could be checked"
    except (ValueError, TypeError, IndexError, RecursionError, csv.Error) as exc:
        res.verdict, res.reason = "not_established", f"check failed: {type(exc).__name__}: {clip(str(exc), 120)}"
    return res


__all__ = ["DescribedCheck", "Description", "PropertyCheck", "check_described", "parse_grid", "read_descriptions"]
