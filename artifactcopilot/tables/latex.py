"""LaTeX tabular environments (with captions and labels) as tables."""
from __future__ import annotations

import re

from .model import Table, split_header
from .numbers import FORMAT_CMD

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
        s = FORMAT_CMD.sub(r"\1", s)
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


def latex_rows(body: str) -> list[list[str]]:
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
        close = text.find(f"\\end{{{m.group(1)}}}", pos)
        if close < 0:
            continue
        rows = latex_rows(text[pos:close])
        if rows:
            out.append((m.start(), close + len(m.group(1)) + 6, split_header(rows)))
    return out


def latex_tables(text: str) -> tuple[str, list[tuple[int, Table]]]:
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

