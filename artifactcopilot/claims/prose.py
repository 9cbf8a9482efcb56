"""A paper's prose as sentences: tables, code, captions, headings, metadata lines and references left out.

Claim numbers are read from what the paper *says*, so everything that is not running text goes first:
fenced code, LaTeX tabulars, Markdown and LaTeX table rows, flattened table rows of PDF text (lines that
are mostly numbers, or whose numbers are the cells of one of the paper's tables), captions, headings,
"**Key:** value" metadata lines, and everything from the references section on.
"""
from __future__ import annotations

import re

from ..tables import Table, parse_number

_FENCE = re.compile(r"^\s*(```|~~~).*?^\s*\1\s*$", re.MULTILINE | re.DOTALL)
_TABULAR = re.compile(r"\\begin\{(tabular\*?|tabularx|tabulary|longtable|table\*?|figure\*?)\}.*?\\end\{\1\}",
                      re.DOTALL)
_REFERENCES = re.compile(r"(?im)^\s*(?:#+\s*|\\section\*?\{\s*|\d+\.?\s+)?(?:references|bibliography)\s*\}?\s*$")
_HEADING = re.compile(r"^\s*#{1,6}\s")
_LATEX_HEADING = re.compile(r"\\(?:(?:sub)*section|chapter|paragraph|title|caption)\*?\{[^{}]*\}")
_CAPTION = re.compile(r"^\s*(?:\*\*|__)?(?:Table|Tab\.|Figure|Fig\.|Listing|Algorithm)\s*[A-Z]?\d+[a-z]?\s*(?:\*\*|__)?"
                      r"\s*[.:|—–-]", re.IGNORECASE)
_METADATA = re.compile(r"^\s*(?:[-*]\s+)?(?:\*\*|__)[^*_\n]{1,40}:?(?:\*\*|__):?\s")
_ABBREV = re.compile(r"(?i)(?:\be\.g|\bi\.e|\bet al|\bfig|\bsec|\beq|\btab|\bvs|\bcf|\bapprox|\bresp|\bno|\bca)\.$")
_NUM = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?%?")


def _table_row(line: str) -> bool:
    s = line.strip()
    if s.count("|") >= 2 or (s.startswith("|") and s.endswith("|")):
        return True
    return "&" in s and bool(re.search(r"\\\\\s*(?:\\hline)?\s*$", s))


def _numeric_line(line: str, cells: set[str]) -> bool:
    """A flattened table row: mostly numbers, or two or more numbers that are all cells of the paper's tables."""
    words = line.split()
    nums = _NUM.findall(line)
    if len(nums) >= 3 and len(nums) >= 0.6 * len(words):
        return True
    return len(nums) >= 2 and all(n.rstrip("%") in cells or n in cells for n in nums)


def table_cells(tables: list[Table]) -> set[str]:
    """The printed numbers of every table cell (markup and thousands separators as printed)."""
    out: set[str] = set()
    for t in tables or []:
        for r, c in t.numeric_cells():
            cell = t.rows[r][c].strip()
            out.add(cell)
            p = parse_number(cell)
            if p is not None:
                out.add(f"{p.value:.{p.decimals}f}")
    return out


def prose_lines(text: str, tables: list[Table]) -> list[str]:
    text = str(text or "").replace("\r\n", "\n").replace("\r", "\n")
    m = _REFERENCES.search(text)
    if m:
        text = text[:m.start()]
    text = _LATEX_HEADING.sub("\n\n", _TABULAR.sub("\n\n", _FENCE.sub("\n\n", text)))
    cells = table_cells(tables)
    out = []
    for line in text.split("\n"):
        if _table_row(line) or _HEADING.match(line) or _CAPTION.match(line) or _METADATA.match(line) \
                or _numeric_line(line, cells):
            out.append("")  # a paragraph break: what follows is a new sentence
        else:
            out.append(line)
    return out


def sentences(text: str, tables: list[Table] | None = None) -> list[str]:
    """The prose sentences of `text`, in order."""
    body = "\n".join(prose_lines(text, tables or []))
    body = re.sub(r"(\w)-\n(\w)", r"\1\2", body)  # hyphenation of PDF text
    body = re.sub(r"(\*\*|__)(.+?)\1", r"\2", body)
    out: list[str] = []
    for paragraph in re.split(r"\n\s*\n", body):
        for piece in re.split(r"(?<=[.!?])\s+(?=[A-Z(\[\d])", paragraph):
            piece = " ".join(piece.split())
            if out and out[-1] and _ABBREV.search(out[-1]) and piece:
                out[-1] += " " + piece
            elif piece:
                out.append(piece)
    return out
