"""Tables in plain text: Markdown pipes, grids, CSV/TSV, aligned columns, key: value runs."""
from __future__ import annotations

import csv
import re
from collections.abc import Callable
from functools import lru_cache, partial

from .latex import latex_rows, latex_tables
from .model import Table, is_number_cell, make_table, split_header

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
    return j - i >= 2 and len(rows) >= 2 and sum(is_number_cell(c) for r in rows for c in r[1:]) >= numeric


def _pipe_block(lines, i, blocked):
    j = _run(lines, i, blocked, lambda ln: "|" in ln and not _prose(_pipe_cells(ln)))
    rows = [list(_pipe_cells(ln)) for ln in lines[i:j] if _pipe_cells(ln)]
    ruled = any(not _pipe_cells(ln) for ln in lines[i:j])
    if not _enough(rows, i, j, 0 if ruled else 1) or max(map(len, rows)) < 2:  # unruled: shell pipelines
        return max(j, i + 1), None
    return j, _pipe_table(rows[1:], rows[0]) if not _pipe_cells(lines[i + 1]) else make_table(rows)


def _header_like(row: list[str]) -> bool:
    cells = row[1:]
    filled = [c for c in cells if c.strip()]
    return bool(cells) and len(filled) >= 0.6 * len(cells) and not any(is_number_cell(c) for c in filled)


def _pipe_table(body: list[list[str]], header: list[str]) -> Table:
    """A ruled Markdown table: an empty header row gives way to the first row; header rows continued below the rule
    (a second row of column names above the numbers) are merged into the header, a group name spanning the empty
    cells to its right; two label columns (a group repeated down the first, a unique name in the second) become one
    row label."""
    if not any(c.strip() for c in header) and body:
        header, body = body[0], body[1:]
    numeric_below = lambda k: any(is_number_cell(c) for r in body[k:] for c in r[1:])  # noqa: E731
    for _ in range(2):
        if len(body) < 2 or not _header_like(body[0]) or not numeric_below(1):
            break
        group = list(header)
        for c in range(1, len(group)):
            if not group[c].strip() and group[c - 1].strip() and c - 1 >= 1:
                group[c] = group[c - 1]
        below = body[0] + [""] * (len(group) - len(body[0]))
        header = [" ".join(x for x in (g.strip(), b.strip()) if x) for g, b in zip(group, below)]
        body = body[1:]
    return _merge_label_columns(make_table(body, header))


def _merge_label_columns(table: Table) -> Table:
    rows = table.rows
    if len(rows) < 3 or any(len(r) < 3 for r in rows):
        return table
    first, second = [r[0].strip() for r in rows], [r[1].strip() for r in rows]
    if (len(set(first)) < len(first) and all(second) and len(set(second)) == len(second)
            and not any(is_number_cell(c) for c in second)):
        head = " ".join(h for h in table.header[:2] if h.strip())
        return Table(label=table.label, caption=table.caption, header=[head, *table.header[2:]],
                     rows=[[f"{a} {b}".strip(), *r[2:]] for a, b, r in zip(first, second, rows)])
    return table


def _amp_block(lines, i, blocked):
    """Bare LaTeX rows ("a & 0.91 \\\\") printed by a script, outside any tabular."""
    j = _run(lines, i, blocked, lambda ln: "&" in ln and re.search(r"\\\\\s*(\\hline)?\s*$", ln))
    rows = latex_rows("\n".join(lines[i:j]))
    return (j, split_header(rows)) if _enough(rows, i, j, 0) else (max(j, i + 1), None)


def _delim_block(delim, lines, i, blocked):
    width = len(_fields(lines[i], delim))
    if width < 2:
        return i + 1, None
    j = _run(lines, i, blocked, lambda ln: len(_fields(ln, delim)) == width)
    rows = [list(_fields(ln, delim)) for ln in lines[i:j]]
    return (j, make_table(rows)) if _enough(rows, i, j) else (j, None)


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
    return j, make_table(rows)


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
    return (j, make_table(rows, ["key", "value"])) if _enough(rows, i, j, 2) else (max(j, i + 1), None)


_Detector = Callable[[list[str], int, set[int]], tuple[int, Table | None]]
_DETECTORS: tuple[_Detector, ...] = (_pipe_block, _amp_block, partial(_delim_block, "\t"),
                                     partial(_delim_block, ","), partial(_delim_block, ";"), _space_block, _kv_block)


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
    covered = {k for s, e, _ in spans for k in range(s, e)}

    def over_note(k: int) -> int | None:
        """A caption above a note paragraph that sits between it and the table (Markdown papers: caption,
        blank line, "C, W and D stand for ...", blank line, table)."""
        k = _up(lines, k, lambda ln: not ln.strip())  # the note's last line
        top = _up(lines, k, lambda ln: bool(ln.strip()) and _caption(ln) is None and "|" not in ln)
        if top == k or k - top > 6 or any(j in covered for j in range(top, k + 1)):
            return None
        k2 = _up(lines, top, lambda ln: not ln.strip())
        return k2 if k2 in captions else None

    for s, e, t in spans:
        k = near(s - 1, -1)
        if k is None and s >= 2 and s - 2 in captions and not captions[s - 2][1]:
            t.label, t.caption = captions[s - 2][0], lines[s - 1].strip()  # IEEE: "TABLE II" / caption / table
            continue
        k = k if k is not None else over_note(s - 1)
        if k is None:  # caption below, unless it introduces the next table (directly or over a note)
            k = near(e, 1)
            if k is not None and (k + 1 in starts or k + 2 in starts or _introduces(lines, k, starts)):
                k = None
        if k is not None:
            t.label, t.caption = captions[k]
    return [(s, t) for s, _, t in spans]


def _up(lines: list[str], k: int, ok) -> int:
    """From line k upwards past every line for which `ok` holds: the first line above them (k if ok(lines[k])
    does not hold)."""
    while 0 <= k < len(lines) and ok(lines[k]):
        k -= 1
    return k


def _introduces(lines: list[str], k: int, starts: set[int]) -> bool:
    """Whether the caption at line k is followed, over a short note paragraph, by a table."""
    j = k + 1
    while j < len(lines) and not lines[j].strip():
        j += 1
    end = j
    while end < len(lines) and lines[end].strip() and end - j <= 6:
        end += 1
    while end < len(lines) and not lines[end].strip():
        end += 1
    return end in starts


def parse_tables(text: str) -> list[Table]:
    """Every table in `text`: Markdown, LaTeX tabular, CSV/TSV, aligned text, `key: value` runs."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text, found = latex_tables(text)
    found += _line_tables(text.split("\n"))
    return [t for _, t in sorted(found, key=lambda p: p[0])]


# ---------------------------------------------------------------------------------- comparison
