"""Result tables of a PDF page: found from their captions, bounded by the lines around them, cut into a grid.

A caption (`TABLE III`, `Table 3:`, `Table 3.`) sits above or below its grid, in one column or across both.
From the caption the table's lines are walked away from it, in the caption's column, until body text, a
heading, another caption or a wide gap; the side with the more tabular lines is the table. Rows are words on
one baseline; columns are the x ranges the rows' cells cover, split where (almost) no row has ink; header rows
(above the first rule inside the table, or the rows before the first number) are joined per column, so a
spanning header cell heads each column under it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .pdflayout import Line, PageLayout, Rule, Word, make_lines

CAPTION = re.compile(r"^(?:TABLE|Table|Tab\.)\s*([0-9]+|[IVXLC]+)(?:\s*[:.|]|\s*$|\s+\(cont|\s+[A-Z][A-Za-z]+\b)")
FIGURE = re.compile(r"^(?:FIGURE|Figure|Fig\.)\s*(\d+)\s*[:.|]")
HEADING = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[IVX]+\.|[A-H]\.)\s+[A-Z]")
DATA = re.compile(r"^[-+−~≈<>(]*\d[\d.,/%()±+\-−×x\s]*[kKMB]?[%)]*$")
NOTE = re.compile(r"^(?:[∗*†‡§¶]\s*\S|(?:Notes?|Source)\s*[:.])")
MARK = "\x00"
SYMBOL_MARK = re.compile(r"^[*†‡§¶#]*$")
ANNOTATION = re.compile(r"^(?:\(.*\)|±.*|\+/?-.*)$")


@dataclass
class Found:
    label: str
    caption: str
    page: int
    header: list[str]
    rows: list[list[str]]
    marks: list[str] = field(default_factory=list)  # footnote marks set apart from the numbers they follow
    lines: list[Line] = field(default_factory=list)  # the grid's lines on the page (kept out of the text)
    continued: bool = False
    side: str = "F"
    at_bottom: bool = False  # the grid runs to the foot of its column: it may go on at the top of the next page


def caption_label(text: str) -> str | None:
    m = CAPTION.match(text)
    return f"Table {m.group(1)}" if m else None


def _segments(words: list[Word], size: float) -> list[list[Word]]:
    """A row cut into cells: words closer than half an em belong to one cell."""
    out: list[list[Word]] = []
    for w in words:
        if out and w.x0 - out[-1][-1].x1 < 0.5 * size:
            out[-1].append(w)
        else:
            out.append([w])
    return out


def _tabular(line: Line) -> bool:
    return len(_segments(line.words, line.size)) >= 2


def _paragraph(line: Line, page: PageLayout, span: tuple[float, float]) -> bool:
    """Body text: as wide as its column, words at word spacing, in the body font size."""
    width = span[1] - span[0]
    if line.side == "F" and page.gutter is not None and width > 0.7 * page.width:
        halves = [Line([w for w in line.words if (w.x1 <= page.gutter) == left], "F") for left in (True, False)]
        if all(h.words for h in halves):
            return all(_paragraph(h, page, page.columns[s]) for h, s in zip(halves, "LR"))
    wide_gaps = sum(b.x0 - a.x1 >= 0.9 * line.size for a, b in zip(line.words, line.words[1:]))
    return (line.x1 - line.x0 >= 0.8 * width and line.max_gap() < 1.2 * line.size and wide_gaps <= 1
            and line.size >= 0.93 * page.body_size)


def _stop(line: Line, page: PageLayout, span: tuple[float, float]) -> bool:
    text = line.text
    return bool(CAPTION.match(text) or FIGURE.match(text) or _paragraph(line, page, span)
                or (HEADING.match(text) and not _tabular(line) and line.size >= page.body_size))


def _walk(lines: list[Line], edge: float, down: bool, page: PageLayout, span: tuple[float, float],
          taken: set[int], reach: float = 2.5) -> list[Line]:
    """The lines of a table, walked from the caption's edge away from it. Notes under the grid (a line that
    starts with a footnote mark) end it; walking up, the lines met before such a note were the note."""
    out: list[Line] = []
    for line in lines:
        gap = line.top - edge if down else edge - line.bottom
        limit = (max(3.5, reach) if not out else reach) * max(line.size, 6.0)
        if gap > limit or id(line.words[0]) in taken or _stop(line, page, span):
            break
        if NOTE.match(line.text):
            if down:
                break
            out = []
        else:
            out.append(line)
        edge = line.bottom if down else line.top
    return out


def _caption_block(lines: list[Line], i: int, page: PageLayout) -> int:
    """Index after the caption's last line: the lines right below it in its font, not tabular."""
    j = i + 1
    while j < len(lines):
        prev, line = lines[j - 1], lines[j]
        if (line.top - prev.bottom > 0.6 * prev.size or _tabular(line) or CAPTION.match(line.text)
                or abs(line.size - lines[i].size) > 0.6 or any(prev.bottom < r.y < line.top for r in page.rules)):
            break
        j += 1
    return j


def _table_lines(page: PageLayout, side: str) -> list[Line]:
    if side != "F" or page.gutter is None:
        return sorted((ln for ln in page.lines if ln.side == side), key=lambda ln: ln.top)
    lo, hi = page.columns["F"]
    return make_lines([w for w in page.words if w.x0 >= lo - 1 and w.x1 <= hi + 1], None)


def find_tables(page: PageLayout) -> list[Found]:
    out: list[Found] = []
    taken: set[int] = set()
    for cap in [ln for ln in page.lines if CAPTION.match(ln.text)]:
        lines = _table_lines(page, cap.side)
        span = page.columns.get(cap.side, page.columns["F"])
        mid = (cap.top + cap.bottom) / 2
        i = next((k for k, ln in enumerate(lines) if ln.top <= mid <= ln.bottom and ln.x0 <= cap.x0 + 1), None)
        if i is None:
            continue
        j = _caption_block(lines, i, page)
        below = _walk(lines[j:], lines[j - 1].bottom, True, page, span, taken)
        above = _walk(lines[:i][::-1], lines[i].top, False, page, span, taken)[::-1]
        scores = [sum(_tabular(ln) for ln in part) for part in (below, above)]
        body = below if scores[0] >= scores[1] else above
        if max(scores) < 2:
            continue
        taken |= {id(w) for ln in body for w in ln.words}
        caption = " ".join(ln.text for ln in lines[i:j])
        header, rows, marks = grid(body, [r for r in page.rules if r.x1 > span[0] and r.x0 < span[1]])
        out.append(Found(caption_label(cap.text) or "", caption, page.number, header, rows, marks, body,
                         continued=bool(re.search(r"(?i)\(cont(?:inued|\.)?", caption)), side=cap.side,
                         at_bottom=body is below and body[-1] is lines[-1]))
    return out


def continuation(page: PageLayout, side: str, taken: set[int]) -> Found | None:
    """A grid with no caption at the top of a column: the rest of a table the previous page ended with."""
    lines = [ln for ln in _table_lines(page, side) if id(ln.words[0]) not in taken]
    span = page.columns.get(side, page.columns["F"])
    if not lines or CAPTION.match(lines[0].text):
        return None
    body = _walk(lines, lines[0].top, True, page, span, taken)
    if sum(_tabular(ln) for ln in body) < 2:
        return None
    header, rows, marks = grid(body, [r for r in page.rules if r.x1 > span[0] and r.x0 < span[1]])
    return Found("", "", page.number, header, rows, marks, body, continued=True, side=side)


# ---------------------------------------------------------------------------------- grid

def _columns(rows: list[list[list[Word]]]) -> list[tuple[float, float]]:
    """Column x ranges: where the data rows' cells have ink, split at gaps that (almost) no row bridges."""
    data = [r for r in rows if len(r) >= 2] or rows
    lo = min(w.x0 for r in data for seg in r for w in seg)
    hi = max(w.x1 for r in data for seg in r for w in seg)
    cover = [0] * (int(hi - lo) + 2)
    for r in data:
        for seg in r:
            for x in range(int(seg[0].x0 - lo), int(seg[-1].x1 - lo) + 1):
                cover[x] += 1
    allowed = int(0.2 * len(data))
    cols, start = [], None
    for x, c in enumerate(cover + [0]):
        if c > allowed and start is None:
            start = x
        elif c <= allowed and start is not None:
            cols.append((lo + start, lo + x))
            start = None
    return cols or [(lo, hi)]


def _overlap(a0: float, a1: float, col: tuple[float, float]) -> float:
    return min(a1, col[1]) - max(a0, col[0])


def _place(seg: list[Word], cols: list[tuple[float, float]], spread: bool,
           extent: tuple[float, float] | None = None) -> dict[int, list[Word]]:
    """The column(s) a cell belongs to: a header cell spreads over every column it overlaps; a body cell
    overlapping two columns is split word by word."""
    x0, x1 = extent or (seg[0].x0, seg[-1].x1)
    hit = [k for k, c in enumerate(cols) if _overlap(x0, x1, c) > 0]
    if len(hit) == 1 or (hit and spread):
        return {k: seg for k in hit}
    if not hit:
        mid = (x0 + x1) / 2
        return {min(range(len(cols)), key=lambda k: min(abs(mid - cols[k][0]), abs(mid - cols[k][1]))): seg}
    out: dict[int, list[Word]] = {}
    for w in seg:
        k = max(hit, key=lambda k: _overlap(w.x0, w.x1, cols[k]))
        out.setdefault(k, []).append(w)
    return out


def _header_count(lines: list[Line], rules: list[Rule], cells: list[list[str]]) -> int:
    """Header rows: those above the first rule inside the table, else those before the first number."""
    if len(lines) > 1:
        top, bottom = lines[0].top, lines[-1].bottom
        left, right = min(ln.x0 for ln in lines), max(ln.x1 for ln in lines)
        inner = [r.y for r in rules if top < r.y < bottom and r.x1 - r.x0 >= 0.6 * (right - left)]
        if inner:
            k = sum(ln.bottom <= inner[0] + 1 for ln in lines)
            if 0 < k <= 4:
                return k
    k = next((i for i, row in enumerate(cells) if any(DATA.match(c) for c in row[1:])), 0)
    return k if k <= 3 else 1


def _split_at_gaps(seg: list[Word], cols: list[tuple[float, float]]) -> list[list[Word]]:
    """A header cell set close to its neighbours ("Version kLoC # Commits") and so read as one, cut at the gaps
    wider than its word spacing; a cell over one column, or evenly spaced (a spanning title), stays whole."""
    if len(seg) < 2 or sum(_overlap(seg[0].x0, seg[-1].x1, c) > 0 for c in cols) < 2:
        return [seg]
    gaps = [b.x0 - a.x1 for a, b in zip(seg, seg[1:])]
    least = min(gaps) if len(gaps) > 1 else 0.25 * seg[0].size
    out = [[seg[0]]]
    for gap, w in zip(gaps, seg[1:]):
        if gap >= max(1.4 * least, 0.3 * w.size):
            out.append([w])
        else:
            out[-1].append(w)
    return out


def _join_header(parts: list[str]) -> str:
    text = ""
    for part in dict.fromkeys(p for p in parts if p):
        text = text[:-1] + part if text.endswith("-") and part[:1].islower() else f"{text} {part}".strip()
    return text


def _merge_columns(header: list[str], rows: list[list[str]]) -> tuple[list[str], list[list[str]]]:
    """One printed column set as two: a column of only "(7%)" or "±0.01" under the same (or no) header as the
    column on its left belongs to it, and so does a column under the same spanning header with nothing below
    it to tell them apart."""
    k = 1
    while k < len(header):
        cells = [r[k] for r in rows if r[k]]
        same = header[k] == header[k - 1] or not header[k] or not header[k - 1]
        notes = bool(cells) and all(ANNOTATION.match(c) for c in cells)
        if k > 1 and ((same and notes) or (header[k] and header[k] == header[k - 1])):
            header = header[:k - 1] + [header[k - 1] or header[k]] + header[k + 1:]
            rows = [r[:k - 1] + [" ".join(filter(None, (r[k - 1], r[k])))] + r[k + 1:] for r in rows]
        else:
            k += 1
    return header, rows


def _extent(seg: list[Word], line: Line, rules: list[Rule]) -> tuple[float, float]:
    """A header cell's reach: a partial rule right under it (\\cmidrule) spans the columns it heads."""
    x0, x1 = seg[0].x0, seg[-1].x1
    for r in rules:
        if line.bottom - 1 <= r.y <= line.bottom + 1.2 * line.size and r.x0 < x1 and r.x1 > x0:
            x0, x1 = min(x0, r.x0), max(x1, r.x1)
    return x0, x1


def _cell_text(words: list[Word]) -> str:
    """Words of a cell as printed; a footnote mark in letters or digits is set apart after MARK."""
    out = []
    for w in sorted(words, key=lambda w: w.x0):
        out.append(w.text + (w.mark if SYMBOL_MARK.match(w.mark) else MARK + w.mark if w.mark else ""))
    return " ".join(out)


def _place_row(row: list[list[Word]], cols: list[tuple[float, float]], line: Line, rules: list[Rule] | None
               ) -> list[str]:
    """A row's cells by column; `rules` is given for a header row (its cells may span columns)."""
    head = rules is not None
    out: list[list[Word]] = [[] for _ in cols]
    for seg in row:
        for part in _split_at_gaps(seg, cols) if head else [seg]:
            extent = _extent(part, line, rules) if rules is not None else None
            for k, ws in _place(part, cols, spread=head, extent=extent).items():
                out[k].extend(ws)
    return [_cell_text(c) for c in out]


def _marks(header: list[str], rows: list[list[str]]) -> tuple[list[list[str]], list[str]]:
    marks = []
    for row in rows:
        for k, cell in enumerate(row):
            if MARK in cell:
                for text, mark in re.findall(r"(\S*)" + MARK + r"(\w*)", cell):
                    marks.append(f"{row[0]} / {header[k] if k < len(header) else k}: {text} (mark {mark})")
                row[k] = re.sub(MARK + r"\w*", "", cell)
    return rows, marks


def grid(lines: list[Line], rules: list[Rule]) -> tuple[list[str], list[list[str]], list[str]]:
    """Header (rows joined per column), body rows, and the footnote marks set apart from their cells."""
    rows = [_segments(ln.words, ln.size) for ln in lines]
    cols = _columns(rows)
    provisional = [[" ".join(w.text for w in s) for s in r] for r in rows]
    nhead = _header_count(lines, rules, provisional)
    width = max(ln.x1 for ln in lines) - min(ln.x0 for ln in lines)
    partial = [r for r in rules if r.x1 - r.x0 < 0.8 * width]
    cells = [_place_row(row, cols, ln, partial if n < nhead else None) for n, (row, ln) in enumerate(zip(rows, lines))]
    header = [_join_header([r[k].replace(MARK, "") for r in cells[:nhead]]) for k in range(len(cols))]
    body: list[list[str]] = []
    for r in cells[nhead:]:
        if body and r[0][:1].islower() and not any(r[1:]):  # a row label wrapped onto a second line
            body[-1][0] = _join_header([body[-1][0], r[0]])
        else:
            body.append(r)
    header, body = _merge_columns(header, body)
    body, marks = _marks(header, body)
    return header, body, marks


def figures(page: PageLayout) -> tuple[list[str], list[Line]]:
    """Figure captions, and the text drawn inside each figure above its caption (axis labels, legends),
    which is not body text."""
    captions, inside = [], []
    for side in sorted({ln.side for ln in page.lines}, key="LFR".index):
        lines = sorted((ln for ln in page.lines if ln.side == side), key=lambda ln: ln.top)
        span = page.columns.get(side, page.columns["F"])
        for i, ln in enumerate(lines):
            if FIGURE.match(ln.text):
                captions.append(" ".join(x.text for x in lines[i:_caption_block(lines, i, page)]))
                inside += _walk(lines[:i][::-1], ln.top, False, page, span, set(), 8.0)
    return captions, inside
