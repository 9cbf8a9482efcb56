"""The layout of a PDF page as a paper prints it: words with their boxes, text lines split at the column gutter
of a two-column page, rule lines, and the page's text in reading order (full-width lines, then the left column,
then the right one, block by block).

Words come from pdfplumber (MIT) with a tight letter gap, since ACM fonts set words close together; a word's
trailing characters set smaller and raised are footnote marks and are kept apart from the word.
"""
from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field

# A word ends where the gap to the next letter exceeds this (points); pdfplumber's default of 3 merges the
# words of tightly set ACM papers.
LETTER_GAP = 1.5
FOOTNOTE_MARK = re.compile(r"^(?:[*†‡§¶#]+|[a-z]|\d{1,2})$")


@dataclass
class Word:
    text: str
    x0: float
    x1: float
    top: float
    bottom: float
    size: float
    mark: str = ""  # a footnote mark printed after the word (superscript), kept apart

    @property
    def mid_y(self) -> float:
        return (self.top + self.bottom) / 2


@dataclass
class Line:
    words: list[Word]
    side: str  # "L", "R" or "F" (full width: crosses the gutter, or a one-column page)

    @property
    def text(self) -> str:
        return " ".join(w.text + w.mark for w in self.words)

    @property
    def x0(self) -> float:
        return min(w.x0 for w in self.words)

    @property
    def x1(self) -> float:
        return max(w.x1 for w in self.words)

    @property
    def top(self) -> float:
        return min(w.top for w in self.words)

    @property
    def bottom(self) -> float:
        return max(w.bottom for w in self.words)

    @property
    def size(self) -> float:
        return statistics.median(w.size for w in self.words)

    def max_gap(self) -> float:
        return max((b.x0 - a.x1 for a, b in zip(self.words, self.words[1:])), default=0.0)


@dataclass
class Rule:
    x0: float
    x1: float
    y: float


@dataclass
class PageLayout:
    number: int  # 1-based
    width: float
    height: float
    words: list[Word]
    lines: list[Line]
    rules: list[Rule]
    gutter: float | None  # x of the column gap on a two-column page
    body_size: float = 10.0
    columns: dict[str, tuple[float, float]] = field(default_factory=dict)


def _split_mark(chars: list[dict], text: str) -> tuple[str, str]:
    """Trailing characters set smaller and raised after a number are a footnote mark: ("27.69%", "a")."""
    if len(chars) < 2:
        return text, ""
    base = max(c["size"] for c in chars)
    k = len(chars)
    while k > 1 and chars[k - 1]["size"] < 0.8 * base and chars[k - 1]["bottom"] < chars[0]["bottom"] - 0.15 * base:
        k -= 1
    mark = "".join(c["text"] for c in chars[k:])
    head = "".join(c["text"] for c in chars[:k])
    if k == len(chars) or not FOOTNOTE_MARK.match(mark) or not re.search(r"\d", head):
        return text, ""
    return head, mark


def page_words(page) -> list[Word]:
    raw = page.extract_words(x_tolerance=LETTER_GAP, y_tolerance=2, keep_blank_chars=False, return_chars=True)
    out = []
    for w in raw:
        chars = w.get("chars") or []
        text, mark = _split_mark(chars, w["text"])
        size = max((c["size"] for c in chars), default=w["bottom"] - w["top"])
        out.append(Word(text, w["x0"], w["x1"], w["top"], w["bottom"], size, mark))
    return out


def page_rules(page) -> list[Rule]:
    """Horizontal rules (booktabs \\toprule/\\midrule, \\hline): thin lines and thin filled rectangles."""
    out = []
    for obj in list(page.lines) + list(page.rects):
        if abs(obj["bottom"] - obj["top"]) <= 1.5 and obj["x1"] - obj["x0"] >= 15:
            out.append(Rule(obj["x0"], obj["x1"], (obj["top"] + obj["bottom"]) / 2))
    return sorted(out, key=lambda r: r.y)


def find_gutter(words: list[Word], width: float) -> float | None:
    """The x of the gap between two text columns, or None for a one-column page."""
    body = [w for w in words if len(w.text) > 1]
    if len(body) < 40:
        return None
    best: tuple[int, float] | None = None
    for x in [width * f / 100 for f in range(42, 59)]:
        crossing = sum(w.x0 < x < w.x1 for w in body)
        if best is None or crossing < best[0]:
            best = (crossing, x)
    assert best is not None
    left = sum(w.x1 <= best[1] for w in body)
    right = sum(w.x0 >= best[1] for w in body)
    if best[0] > 0.03 * len(body) or min(left, right) < 0.2 * len(body):
        return None
    return best[1]


def _rows(words: list[Word]) -> list[list[Word]]:
    """Words grouped into rows: a word joins the row whose first word's band holds its vertical middle."""
    rows: list[list[Word]] = []
    for w in sorted(words, key=lambda w: (w.top, w.x0)):
        if rows and rows[-1][0].top - 1 < w.mid_y < rows[-1][0].bottom + 1:
            rows[-1].append(w)
        else:
            rows.append([w])
    return [sorted(r, key=lambda w: w.x0) for r in rows]


def make_lines(words: list[Word], gutter: float | None) -> list[Line]:
    """Text lines; on a two-column page the columns' lines are found apart, and a line crossing the gutter
    takes in the column lines beside it."""
    if gutter is None:
        return [Line(r, "F") for r in _rows(words)]
    crossing = [Line(r, "F") for r in _rows([w for w in words if w.x0 < gutter < w.x1])]
    lines: list[Line] = []
    for side, part in (("L", [w for w in words if w.x1 <= gutter]), ("R", [w for w in words if w.x0 >= gutter])):
        for row in _rows(part):
            mid = (row[0].top + row[0].bottom) / 2
            full = next((ln for ln in crossing if ln.words[0].top - 1 < mid < ln.words[0].bottom + 1), None)
            if full is None and side == "R":
                # a line whose words run on across the gutter at word spacing (a centred caption) is one line
                full = next((ln for ln in lines if ln.side == "L" and ln.words[0].top - 1 < mid
                             < ln.words[0].bottom + 1 and row[0].x0 - ln.x1 < 0.8 * row[0].size), None)
                if full is not None:
                    full.side = "F"
            if full is not None:
                full.words = sorted(full.words + row, key=lambda w: w.x0)
            else:
                lines.append(Line(row, side))
    return sorted(lines + crossing, key=lambda ln: ln.top)


def _furniture_key(line: Line) -> str:
    return re.sub(r"\d+", "#", line.text.strip().lower())


def drop_furniture(pages: list[PageLayout]) -> None:
    """Remove running heads and feet: a page's first or last line whose text (digits aside) is also the first
    or last line of several other pages."""
    def edges(page: PageLayout) -> list[Line]:
        if not page.lines:
            return []
        top, bottom = min(ln.top for ln in page.lines), max(ln.bottom for ln in page.lines)
        return [ln for ln in page.lines if ln.top < top + 2 or ln.bottom > bottom - 2]

    counts: dict[str, int] = {}
    for page in pages:
        for key in {_furniture_key(ln) for ln in edges(page)}:
            counts[key] = counts.get(key, 0) + 1
    least = max(2, len(pages) // 3)
    for page in pages:
        drop = [ln for ln in edges(page) if counts.get(_furniture_key(ln), 0) >= least]
        gone = {id(w) for ln in drop for w in ln.words}
        page.lines = [ln for ln in page.lines if not all(id(w) in gone for w in ln.words)]
        page.words = [w for w in page.words if id(w) not in gone]


def layout(page, number: int) -> PageLayout:
    words = page_words(page)
    gutter = find_gutter(words, page.width)
    lines = make_lines(words, gutter)
    sizes = [round(w.size, 1) for w in words if len(w.text) > 2]
    body = statistics.mode(sizes) if sizes else 10.0
    x0 = min((w.x0 for w in words), default=0.0)
    x1 = max((w.x1 for w in words), default=page.width)
    cols = {"F": (x0, x1)}
    if gutter is not None:
        cols |= {"L": (x0, gutter), "R": (gutter, x1)}
    return PageLayout(number, page.width, page.height, words, lines, page_rules(page), gutter, body, cols)


def title_of(page: PageLayout) -> str:
    """The title printed on a first page: the first run of lines in its upper half set in the page's largest type,
    when that type is clearly larger than the body's ('' when no line stands out)."""
    lines = sorted((ln for ln in page.lines if ln.top < page.height / 2 and sum(c.isalpha() for c in ln.text) > 2),
                   key=lambda ln: (ln.top, ln.x0))
    big = max((ln.size for ln in lines), default=0.0)
    if big < 1.25 * page.body_size:
        return ""
    run: list[Line] = []
    for line in lines:
        if abs(line.size - big) <= 0.5:
            run.append(line)
        elif run:
            break
    return " ".join(" ".join(w.text for ln in run for w in ln.words).split())[:300]


def reading_text(lines: list[Line]) -> str:
    """The page's text in reading order: between two full-width lines, the left column before the right one."""
    out: list[str] = []
    block: dict[str, list[Line]] = {"L": [], "R": []}

    def flush() -> None:
        for side in ("L", "R"):
            out.extend(_paragraphs(block[side]))
            block[side] = []

    for line in sorted(lines, key=lambda ln: ln.top):
        if line.side == "F":
            flush()
            out.extend(_paragraphs([line]))
        else:
            block[line.side].append(line)
    flush()
    return "\n".join(out)


def _paragraphs(lines: list[Line]) -> list[str]:
    """Lines as text, with a blank line where the vertical gap says a new paragraph or block starts."""
    out: list[str] = []
    for prev, line in zip([None, *lines], lines):
        if prev is not None and line.top - prev.bottom > 0.9 * line.size:
            out.append("")
        out.append(line.text)
    return out
