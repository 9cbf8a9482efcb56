"""Tables in papers and in artifact output: parse, normalise, compare, obfuscate.

The paper's table is the *expected* result; whatever the artifact prints or writes is the
*produced* one. A produced number matches when it rounds (half away from zero) to the expected
cell's printed precision: papers print rounded values, programs print raw ones.
"""
from __future__ import annotations

import csv
import json
import re
from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation
from functools import lru_cache, partial
from typing import Literal

from pydantic import BaseModel, Field

# ---------------------------------------------------------------------------------- numbers

_FORMAT_CMD = re.compile(r"\\(?:textbf|textit|textsc|texttt|textrm|emph|underline|mathbf|mathrm|mathit|text|bm|"
                         r"boldsymbol|textsuperscript|mathbb|uline)\s*\{([^{}]*)\}")
_NUM = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_THOUSANDS = re.compile(r"[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?")
# Units that do not change the value as printed (speedups, times, sizes). Multipliers (K, M) would, so no.
_UNIT = re.compile(r"(?<=[\d.])\s*(?:x|×|ms|s|sec|min|h|hrs?|[kmgt]i?b)$", re.I)


class ParsedNumber(BaseModel):
    value: float
    decimals: int = Field(description="Decimals as printed (mantissa decimals minus exponent for 1.2e-3).")
    percent: bool = False


def _strip_markup(text: str) -> str:
    """Remove Markdown/LaTeX emphasis, math and footnote markers around a cell."""
    s = text.strip()
    for _ in range(3):  # nested \textbf{\underline{..}}
        s = _FORMAT_CMD.sub(r"\1", s)
    s = (s.replace("\\%", "%").replace("\\pm", "±").replace("+/-", "±").replace("\\approx", "≈")
         .replace("\\dagger", "†").replace("\\ddagger", "‡").replace("\\,", "").replace("\\ ", " "))
    s = re.sub(r"[*_$`{}^]", "", s)
    return s.strip()


def parse_number(text: str) -> ParsedNumber | None:
    """The number a table cell states, or None for text ("n/a", "ResNet", "-", "")."""
    s = _strip_markup(str(text)).replace("\u2212", "-").replace("\u2013", "-")
    s = s.split("±")[0].strip()
    s = re.sub(r"(?<=\S)\s*\([^()]*\)$", "", s)  # "76.1 (0.3)": trailing std in parentheses
    s = s.lstrip("~≈ ").rstrip("†‡§¶ ").strip()
    percent = s.endswith("%")
    s = _UNIT.sub("", s.rstrip("% ")) if s else s
    s = re.sub(r"(?<=\d)[\u2009\u202f\u00a0'](?=\d{3}\b)", "", s)  # thin-space thousands
    if _THOUSANDS.fullmatch(s):
        s = s.replace(",", "")
    if not _NUM.fullmatch(s):
        return None
    mantissa, _, exp = s.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    if exp:
        decimals = max(0, decimals - int(exp))
    value = float(s)
    if value != value or abs(value) == float("inf"):
        return None
    return ParsedNumber(value=value, decimals=min(decimals, 20), percent=percent)


# ---------------------------------------------------------------------------------- tables

class Table(BaseModel):
    label: str | None = None
    caption: str = ""
    header: list[str] = Field(default_factory=list)
    rows: list[list[str]] = Field(default_factory=list, description="Each row's first cell is its label.")
    ref: str | None = Field(None, description="LaTeX \\label{} key, so paper text can resolve \\ref{}.")

    def numeric_cells(self) -> list[tuple[int, int]]:
        return [(r, c) for r, row in enumerate(self.rows) for c, cell in enumerate(row)
                if c > 0 and parse_number(cell) is not None]


@lru_cache(maxsize=1 << 16)
def _is_num(cell: str) -> bool:
    return parse_number(cell) is not None


def _make(rows: list[list[str]], header: list[str] | None = None) -> Table:
    """Build a table, guessing the header row when none is given, padding rows to one width."""
    if header is None:
        header, rows = (rows[0], rows[1:]) if _looks_like_header(rows) else ([], rows)
    width = max([len(header)] + [len(r) for r in rows])
    pad = lambda r: [c.strip() for c in r] + [""] * (width - len(r))  # noqa: E731
    return Table(header=pad(header), rows=[pad(r) for r in rows])


def _looks_like_header(rows: list[list[str]]) -> bool:
    first = [parse_number(c) for c in rows[0][1:]]
    if not any(p is not None for p in first):
        return True
    # "Model 2019 2020" over "ResNet 0.91 0.92": integer years above decimals are labels.
    later = [parse_number(c) for r in rows[1:] for c in r[1:]]
    return (all(p is None or p.decimals == 0 for p in first)
            and any(p is not None and p.decimals > 0 for p in later))


def _split_header(rows: list[list[str]]) -> Table:
    """LaTeX headers often span 2-3 rows (\\multicolumn groups); merge rows above the first numbers."""
    k = next((i for i, r in enumerate(rows) if any(_is_num(c) for c in r[1:])), 1)
    k = max(1, min(k, 3))
    width = max(len(r) for r in rows[:k])
    header = []
    for c in range(width):
        parts: list[str] = []
        for r in rows[:k]:
            if c < len(r) and r[c] and r[c] not in parts:
                parts.append(r[c])
        header.append(" ".join(parts))
    return _make(rows[k:], header)


# ---- LaTeX

_TABULAR = re.compile(r"\\begin\{(tabular\*?|tabularx|tabulary|longtable)\}")
_TABLE_ENV = re.compile(r"\\begin\{(table\*?)\}(.*?)\\end\{\1\}", re.S)


def _braced(text: str, pos: int) -> tuple[str, int]:
    """Content of the {...} group at pos (skipping blanks and one [..] option) and the position after it."""
    m = re.compile(r"\s*(?:\[[^\]]*\]\s*)?").match(text, pos)
    pos = m.end() if m else pos
    if pos >= len(text) or text[pos] != "{":
        return "", pos
    depth = 0
    for i in range(pos, len(text)):
        if text[i] == "{" and text[i - 1] != "\\":
            depth += 1
        elif text[i] == "}" and text[i - 1] != "\\":
            depth -= 1
            if depth == 0:
                return text[pos + 1:i], i + 1
    return text[pos + 1:], len(text)


def _latex_text(s: str) -> str:
    """A LaTeX cell or caption as plain text: keep command arguments, drop command names and braces."""
    s = re.sub(r"(\d)\s*\\times\s*10\^\{?(-?\d+)\}?", r"\1e\2", s)  # 1.2\times10^{-3}
    s = re.sub(r"\\(?:cellcolor|rowcolor|color|textcolor)\s*(?:\[[^\]]*\])?\{[^{}]*\}", "", s)
    s = re.sub(r"\\(?:label|vspace|hspace|cite[pt]?|footnote)\*?\s*\{[^{}]*\}", "", s)
    for _ in range(3):  # nested \textbf{\underline{..}}
        s = _FORMAT_CMD.sub(r"\1", s)
    for a, b in (("\\%", "%"), ("\\&", "&"), ("\\_", "_"), ("\\#", "#"), ("\\pm", "±"), ("\\times", "×"),
                 ("\\approx", "≈"), ("\\dagger", "†"), ("\\ddagger", "‡"), ("\\,", ""), ("~", " "), ("--", "–")):
        s = s.replace(a, b)
    s = re.sub(r"\\[a-zA-Z]+\*?", "", s)  # \bf, \small, \centering ...
    return " ".join(re.sub(r"[${}^\\]", "", s).split())


def _latex_cells(raw: str) -> list[str]:
    cells: list[str] = []
    for cell in re.split(r"(?<!\\)&", raw):
        cell, span = cell.strip(), 1
        m = re.match(r"\\multicolumn\s*\{(\d+)\}", cell)
        if m:  # \multicolumn{n}{spec}{x} -> x, repeated so columns stay aligned
            span = int(m.group(1))
            cell = _braced(cell, _braced(cell, m.end())[1])[0]
        m = re.match(r"\\multirow\s*\{[^}]*\}", cell)
        if m:  # \multirow{n}[..]{width}{x} -> x
            cell = _braced(cell, _braced(cell, m.end())[1])[0]
        cells.extend([_latex_text(cell)] * span)
    return cells


def _latex_rows(body: str) -> list[list[str]]:
    body = re.sub(r"(?<!\\)%[^\n]*", "", body)
    body = re.sub(r"\\(?:cline|cmidrule)(?:\[[^\]]*\])?(?:\([^)]*\))?\{[^}]*\}", " ", body)
    body = re.sub(r"\\(?:hline|toprule|midrule|bottomrule|addlinespace|endhead|endfirsthead|endfoot|endlastfoot)"
                  r"(?:\[[^\]]*\])?", " ", body)
    rows = [_latex_cells(raw) for raw in re.split(r"\\\\(?:\s*\[[^\]]*\])?", body) if raw.strip()]
    return [r for r in rows if any(r)]


def _tabulars(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int, Table]]:
    out = []
    for m in _TABULAR.finditer(text, start, len(text) if end is None else end):
        pos = m.end()
        for _ in range(2 if m.group(1) in ("tabular*", "tabularx", "tabulary") else 1):
            pos = _braced(text, pos)[1]
        close = text.find("\\end{%s}" % m.group(1), pos)
        if close < 0:
            continue
        rows = _latex_rows(text[pos:close])
        if rows:
            out.append((m.start(), close + len(m.group(1)) + 6, _split_header(rows)))
    return out


def _latex_tables(text: str) -> tuple[str, list[tuple[int, Table]]]:
    """Tabulars (with caption/\\label of their table env); returns text with them blanked out."""
    found: list[tuple[int, int, Table]] = []
    for env in _TABLE_ENV.finditer(text):
        caption = _braced(text, m.end())[0] if (m := re.compile(r"\\caption\*?").search(text, *env.span(2))) else ""
        ref = _braced(text, m.end())[0] if (m := re.compile(r"\\label").search(text, *env.span(2))) else None
        for _s, _e, t in _tabulars(text, *env.span(2)):
            t.caption, t.ref = _latex_text(caption), ref
            n = re.search(r"\bTable\s+(\d+)", t.caption)
            t.label = f"Table {n.group(1)}" if n else None
            found.append((env.start(), env.end(), t))
    for s, e, t in _tabulars(text):
        if not any(fs <= s < fe for fs, fe, _ in found):
            found.append((s, e, t))
    for s, e, _ in found:  # keep line numbers so line-based tables sort with these
        text = text[:s] + re.sub(r"[^\n]", " ", text[s:e]) + text[e:]
    return text, [(text.count("\n", 0, s), t) for s, _, t in found]


# ---- line-based formats
# Each detector returns (end, Table) for a table at lines[i:end], or (dead, None): no table of its
# kind starts before line `dead`. Runs stop at prose lines, so a failed run fails for every later
# start inside it too; remembering `dead` keeps scanning long logs linear instead of quadratic.

_CAPTION = re.compile(r"^(?:Table|Tab\.)\s+([A-Z]?\d+[a-z]?|[IVXL]+)\s*(?:\*\*|__)?\s*(?:[.:|—–-]|$)\s*(?:\*\*|__)?"
                      r"\s*(.*)$", re.I)
_RULE = re.compile(r"^\s*(?:\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?|\+[-=+:]+\+)\s*$")
_KV = re.compile(r"^(?P<key>.{1,80}?)\s*[:=]\s*(?P<val>[^:=]{1,40}?)\s*$")
_CELL = re.compile(r"\S+(?: \S+)*")  # words separated by single spaces; 2+ spaces separate cells


def _caption(line: str) -> tuple[str | None, str] | None:
    m = _CAPTION.match(line.strip().strip("*_ "))
    if m:
        return f"Table {m.group(1)}", m.group(2).strip().strip("*_ ")
    m = re.match(r"^Table:\s*(.+)$", line.strip())  # pandoc caption without a number
    return (None, m.group(1).strip()) if m else None


def _prose(cells) -> bool:
    return any(len(c.split()) > 8 or len(c) > 80 for c in cells)


@lru_cache(maxsize=1 << 16)
def _pipe_cells(line: str) -> tuple[str, ...]:
    if _RULE.match(line):
        return ()
    cells = re.split(r"(?<!\\)\|", line.strip().strip("|"))
    return tuple(re.sub(r"(\*\*|__)(.+?)\1", r"\2", c.strip()).replace("\\|", "|") for c in cells)


@lru_cache(maxsize=1 << 16)
def _fields(line: str, delim: str) -> tuple[str, ...]:
    fields = tuple(next(csv.reader([line], delimiter=delim))) if line.strip() else ()
    # "A   1,234   5,678" is an aligned table with thousands separators, and "3, 4, and 5." a sentence.
    if any(re.search(r"\S(?: {2,}|\t)\S", f) for f in fields) or _prose(fields) or \
            (delim != "\t" and re.search(r"[a-z][.!?]$", fields[-1].strip())):
        return ()
    return fields


@lru_cache(maxsize=1 << 16)
def _aligned(line: str) -> tuple[tuple[int, int, str], ...]:
    cells = tuple((m.start(), m.end(), m.group()) for m in _CELL.finditer(line.expandtabs(8)))
    return () if _prose(c for _, _, c in cells) else cells


def _run(lines: list[str], i: int, blocked: set[int], ok) -> int:
    j = i
    while j < len(lines) and j not in blocked and ok(lines[j]):
        j += 1
    return j


def _enough(rows, i: int, j: int, numeric: int = 1) -> bool:
    return j - i >= 2 and len(rows) >= 2 and sum(_is_num(c) for r in rows for c in r[1:]) >= numeric


def _pipe_block(lines, i, blocked):
    j = _run(lines, i, blocked, lambda ln: "|" in ln and not _prose(_pipe_cells(ln)))
    rows = [list(_pipe_cells(ln)) for ln in lines[i:j] if _pipe_cells(ln)]
    ruled = any(not _pipe_cells(ln) for ln in lines[i:j])
    if not _enough(rows, i, j, 0 if ruled else 1) or max(map(len, rows)) < 2:  # unruled: shell pipelines
        return max(j, i + 1), None
    return j, _make(rows[1:], rows[0]) if not _pipe_cells(lines[i + 1]) else _make(rows)


def _amp_block(lines, i, blocked):
    """Bare LaTeX rows ("a & 0.91 \\\\") printed by a script, outside any tabular."""
    j = _run(lines, i, blocked, lambda ln: "&" in ln and re.search(r"\\\\\s*(\\hline)?\s*$", ln))
    rows = _latex_rows("\n".join(lines[i:j]))
    return (j, _split_header(rows)) if _enough(rows, i, j, 0) else (max(j, i + 1), None)


def _delim_block(delim, lines, i, blocked):
    width = len(_fields(lines[i], delim))
    if width < 2:
        return i + 1, None
    j = _run(lines, i, blocked, lambda ln: len(_fields(ln, delim)) == width)
    rows = [list(_fields(ln, delim)) for ln in lines[i:j]]
    return (j, _make(rows)) if _enough(rows, i, j) else (j, None)


def _space_block(lines, i, blocked):
    j = _run(lines, i, blocked, lambda ln: len(_aligned(ln)) >= 2)
    spans = [_aligned(ln) for ln in lines[i:j]]
    if not _enough([[c for _, _, c in cells] for cells in spans], i, j):
        return max(j, i + 1), None
    width = max(map(len, spans))
    # Column extents from the full-width rows; shorter rows (e.g. a header without a row-label
    # cell, or blank cells) place each cell in the column it overlaps most.
    full = [cells for cells in spans if len(cells) == width]
    ext = [(min(r[c][0] for r in full), max(r[c][1] for r in full)) for c in range(width)]
    rows = []
    for cells in spans:
        row = [c for _, _, c in cells] if len(cells) == width else [""] * width
        for k, (s, e, text) in enumerate(cells if len(cells) < width else ()):
            score = [min(e, e2) - max(s, s2) for s2, e2 in ext]
            c = max(range(width), key=lambda c: (score[c], -c))
            row[c if not row[c] else min(k, width - 1)] = text
        rows.append(row)
    return j, _make(rows)


def _kv_key(key: str) -> str:
    key = re.sub(r"^(?:[-*+]\s+|\[[^\]]*\]\s*|(?:INFO|DEBUG|WARNING|ERROR)\b\s*[-:]?\s*)+", "", key.strip())
    parts = re.split(r"[:=|]", key)
    return re.sub(r"^[\d\s\-]+", "", parts[-1]).strip() if len(parts) > 1 else key.strip()


def _kv_block(lines, i, blocked):
    def pair(ln: str) -> list[str] | None:
        m = _KV.match(ln.strip())
        return [_kv_key(m.group("key")), m.group("val")] if m and not _prose(m.groups()) else None
    j = _run(lines, i, blocked, lambda ln: pair(ln) is not None)
    rows = [pair(ln) for ln in lines[i:j]]
    return (j, _make(rows, ["key", "value"])) if _enough(rows, i, j, 2) else (max(j, i + 1), None)


_DETECTORS = (_pipe_block, _amp_block, partial(_delim_block, "\t"), partial(_delim_block, ","),
              partial(_delim_block, ";"), _space_block, _kv_block)


def _line_tables(lines: list[str]) -> list[tuple[int, Table]]:
    captions = {i: c for i, ln in enumerate(lines) if (c := _caption(ln))}
    blocked = {i for i, ln in enumerate(lines) if not ln.strip()} | set(captions)
    dead = [0] * len(_DETECTORS)
    spans: list[tuple[int, int, Table]] = []
    i = 0
    while i < len(lines):
        hit = None
        for n, detect in enumerate(_DETECTORS):
            if i in blocked or dead[n] > i:
                continue
            end, table = detect(lines, i, blocked)
            if table is not None:
                hit = (end, table)
                break
            dead[n] = end
        if hit:
            spans.append((i, *hit))
        i = hit[0] if hit else i + 1

    def near(k: int, step: int) -> int | None:  # caption line within one blank line of k
        for k2 in (k, k + step):
            if 0 <= k2 < len(lines) and lines[k2].strip():
                return k2 if k2 in captions else None
        return None

    starts = {s for s, _, _ in spans}
    for s, e, t in spans:
        k = near(s - 1, -1)
        if k is None and s >= 2 and s - 2 in captions and not captions[s - 2][1]:
            t.label, t.caption = captions[s - 2][0], lines[s - 1].strip()  # IEEE: "TABLE II" / caption / table
            continue
        if k is None:  # caption below, unless it introduces the next table
            k = near(e, 1)
            if k is not None and (k + 1 in starts or k + 2 in starts):
                k = None
        if k is not None:
            t.label, t.caption = captions[k]
    return [(s, t) for s, _, t in spans]


def parse_tables(text: str) -> list[Table]:
    """Every table in `text`: Markdown, LaTeX tabular, CSV/TSV, aligned text, `key: value` runs."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text, found = _latex_tables(text)
    found += _line_tables(text.split("\n"))
    return [t for _, t in sorted(found, key=lambda p: p[0])]


# ---------------------------------------------------------------------------------- comparison

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
    return " ".join(_strip_markup(a).split()).casefold() == " ".join(_strip_markup(b).split()).casefold()


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


def _norm(label: str) -> str:
    return re.sub(r"[\W_]+", "", _strip_markup(label).casefold())


def _align(expected: list[str], produced: list[str]) -> dict[int, int]:
    """Index map expected -> produced by normalised label; then unique containment ("Acc" ~ "Test Acc")."""
    en, pn = [_norm(x) for x in expected], [_norm(x) for x in produced]
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
    return out


_GENERIC_ROW = {"", "value", "values", "result", "results", "score"}


def _compare(expected: Table, produced: Table) -> Comparison:
    rows = _align([r[0] if r else "" for r in expected.rows], [r[0] if r else "" for r in produced.rows])
    # A single produced row with a generic label ("value" from a key: value log) stands for the single expected row.
    if not rows and len(expected.rows) == 1 and len(produced.rows) == 1:
        label = produced.rows[0][0] if produced.rows[0] else ""
        if _norm(label) in _GENERIC_ROW or _is_num(label):
            rows = {0: 0}
    cols = {i + 1: j + 1 for i, j in _align(expected.header[1:], produced.header[1:]).items()}
    width = max([len(expected.header)] + [len(r) for r in expected.rows])
    if width == max([len(produced.header)] + [len(r) for r in produced.rows]):  # positional fallback
        for c in range(1, width):
            if c not in cols and c not in cols.values():
                cols[c] = c
    pct_all = "%" in expected.caption
    cells = []
    for r, c in expected.numeric_cells():
        head = expected.header[c] if c < len(expected.header) else ""
        pr, pc = rows.get(r), cols.get(c)
        value = None
        if pr is not None and pc is not None and pc < len(produced.rows[pr]):
            value = produced.rows[pr][pc].strip() or None
        cells.append(_judge(expected.rows[r][0], head, expected.rows[r][c], value, pct_all or "%" in head))
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


_NUMBER_IN_TEXT = re.compile(r"(?<![\w.])[-+−]?(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?%?(?!\d)")


def _free_text(expected: Table, text: str) -> Table:
    """Rows from lines that mention an expected row label, numbers taken in order."""
    lines = text.splitlines()
    noise = sorted([h for h in expected.header if h.strip()], key=len, reverse=True)
    rows = []
    for r, row in enumerate(expected.rows):
        numeric = [c for rr, c in expected.numeric_cells() if rr == r]
        if not row or not row[0].strip() or not numeric:
            continue
        pat = re.compile(r"(?<!\w)" + r"\s*".join(map(re.escape, row[0].split())) + r"(?!\w)", re.I)
        best, best_n = None, -1
        for ln in lines:
            if not pat.search(ln):
                continue
            rest = pat.sub(" ", ln)
            for h in noise:
                rest = re.sub(re.escape(h), " ", rest, flags=re.I)
            nums = _NUMBER_IN_TEXT.findall(rest)
            for vals in (nums[:len(numeric)], nums[-len(numeric):]):
                cand = [row[0]] + [""] * (len(row) - 1)
                for c, v in zip(numeric, vals):
                    cand[c] = v
                n = sum(match_value(row[c], cand[c]) for c in numeric if cand[c])
                if n > best_n:
                    best, best_n = cand, n
        if best:
            rows.append(best)
    return Table(header=list(expected.header), rows=rows)


_KV_ANYWHERE = re.compile(r"[\"']?([A-Za-z][\w\-./@]*(?: [A-Za-z][\w\-./@]*)?)[\"']?\s*[:=]\s*"
                          r"([-+]?\d[\d.,]*(?:[eE][-+]?\d+)?%?)")


def _kv_anywhere(text: str) -> Table:
    """`name=value` pairs anywhere ("epoch 9: acc=0.91 f1=0.85"); the last occurrence wins (final epoch)."""
    found: dict[str, str] = {}
    for key, val in _KV_ANYWHERE.findall(text):
        found[key.strip()] = val.rstrip(".,")
    return Table(header=["key", "value"], rows=[[k, v] for k, v in found.items()])


def _json_table(text: str) -> Table | None:
    """results.json shapes: {row: {col: v}}, {key: v}, [{col: v}, ...] or JSON lines."""
    try:
        data = json.loads(text)
    except ValueError:
        try:
            data = [json.loads(ln) for ln in text.splitlines() if ln.strip()]
        except ValueError:
            return None
    scalar = lambda v: isinstance(v, (int, float, str)) and not isinstance(v, bool)  # noqa: E731
    if isinstance(data, dict) and data and all(isinstance(v, dict) for v in data.values()):
        cols = list(dict.fromkeys(k for v in data.values() for k in v))
        rows = [[str(r)] + [str(v.get(c, "")) if scalar(v.get(c)) else "" for c in cols] for r, v in data.items()]
        return Table(header=[""] + cols, rows=rows)
    if isinstance(data, dict):
        return Table(header=["key", "value"], rows=[[str(k), str(v)] for k, v in data.items() if scalar(v)])
    if isinstance(data, list) and data and all(isinstance(d, dict) for d in data):
        cols = list(dict.fromkeys(k for d in data for k in d))
        label = next((c for c in cols if all(isinstance(d.get(c), str) for d in data)), None)
        cols = [c for c in cols if c != label]
        rows = [[str(d.get(label, ""))] + [str(d[c]) if scalar(d.get(c)) else "" for c in cols] for d in data]
        return Table(header=[label or ""] + cols, rows=rows)
    return None


def best_match(expected: Table, text: str) -> Comparison | None:
    """The produced table in `text` (stdout, a results file) that reproduces most expected cells."""
    if not expected.numeric_cells():
        return None
    candidates = parse_tables(text) + [_free_text(expected, text), _kv_anywhere(text)]
    if text.lstrip()[:1] in ("{", "["):
        candidates.append(_json_table(text) or Table())
    results = [compare_tables(expected, t) for t in candidates if t.rows]
    results = [c for c in results if _score(c)[1] > 0]
    return max(results, key=_score) if results else None


# ---------------------------------------------------------------------------------- feedback

def obfuscate(table: Table) -> Table:
    """Hide every digit of numeric cells, so an agent cannot copy the paper's numbers into its output."""
    out = table.model_copy(deep=True)
    for r, c in table.numeric_cells():
        out.rows[r][c] = re.sub(r"\d", "?", out.rows[r][c])
    return out


def reveal(expected: Table, comparison: Comparison) -> Table:
    """The obfuscated table with the cells already reproduced shown in clear."""
    out = obfuscate(expected)
    positions = expected.numeric_cells()
    if len(positions) == len(comparison.cells):  # cells were produced in numeric_cells() order
        pairs = zip(positions, comparison.cells)
    else:
        head = lambda c: _norm(expected.header[c]) if c < len(expected.header) else ""  # noqa: E731
        pairs = ((p, cell) for cell in comparison.cells for p in positions
                 if expected.rows[p[0]][0] == cell.row and head(p[1]) == _norm(cell.column))
    for (r, c), cell in pairs:
        if cell.matched and expected.rows[r][c] == cell.expected:
            out.rows[r][c] = expected.rows[r][c]
    return out


def render_markdown(table: Table) -> str:
    width = max([len(table.header)] + [len(r) for r in table.rows] + [1])
    esc = lambda s: str(s).replace("|", "\\|").replace("\n", " ")  # noqa: E731
    line = lambda r: "| " + " | ".join(esc(c) for c in list(r) + [""] * (width - len(r))) + " |"  # noqa: E731
    out = []
    if table.label or table.caption:
        out += [f"**{table.label}.** {table.caption}".strip() if table.label else table.caption, ""]
    out += [line(table.header), "|" + "---|" * width] + [line(r) for r in table.rows]
    return "\n".join(out)
