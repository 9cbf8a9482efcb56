"""What the documentation says running something costs: runtime tables and lines that name a script or a paper
object together with a duration.

    | Figure   | Script          | Time         |        - `fig_2.py`: Figure 2 (<1 sec)
    |----------|-----------------|--------------|        - `fig_3.py`: Figure 3 (~30 min each)
    | Figure 2 | `fig_2.py`      | ~1 sec       |
    | Table 6  | `table_6.py`    | ~1 hour      |

Each becomes a `DocCost`: the seconds stated (the upper bound of a range), the words as written, where, the paper
objects and the artifact files the row or line names. Pure: reads the text and the artifact's file list only.
"""
from __future__ import annotations

import re

from . import text as tx
from .model import DocCost
from .prose import ProseContext, find_file

TIME_HEAD = re.compile(r"\b(time|times|runtime|run[- ]?time|duration|took|takes|wall|cost|expected|approx\.?|"
                       r"estimated|est\.?|how long)\b", re.IGNORECASE)
FILE_WORD = re.compile(r"(?<![\w\-./])[\w\-./]{1,200}\.(?:py|sh|bash|ipynb|R|r|jl|m|pl|rb|js|java|jar)\b")
EACH = re.compile(r"\b(each|per\s+\w+)\b", re.IGNORECASE)
RQ = re.compile(r"\bRQ\s?(\d{1,2})\b", re.IGNORECASE)
MAX_LINE = 300


def objects_in(text: str) -> list[str]:
    """Paper objects a short text names: tables, figures (ranges expanded) and research questions."""
    found = [r for r in tx.refs(text) if r.startswith(("Table", "Figure"))]
    return tx.merge(found, [f"RQ{m.group(1)}" for m in RQ.finditer(text or "")])


def files_in(text: str, ctx: ProseContext) -> list[str]:
    """Artifact files a short text names, in text order (code spans first: they are what the docs point at)."""
    names = re.findall(r"`([^`\n]{1,200})`", text or "") + FILE_WORD.findall(re.sub(r"`[^`]*`", " ", text or ""))
    out: list[str] = []
    for name in names:
        for word in name.split():
            if FILE_WORD.fullmatch(word.strip("(),;:")):
                path = find_file(ctx, word.strip("(),;:"))
                if path and path not in out:
                    out.append(path)
    return out


def table_costs(rows: list[list[str]], source: str, ctx: ProseContext) -> list[DocCost]:
    """The costs a runtime table states: one per row whose time cell reads as a duration and that names a paper
    object or an artifact file."""
    if len(rows) < 2:
        return []
    head = [c.replace("`", "").replace("*", "").strip() for c in rows[0]]
    body = [r for r in rows[1:] if any(c.strip() for c in r)]
    column = next((i for i, h in enumerate(head) if TIME_HEAD.search(h)), None)
    if column is None:  # no header says time: a column whose every filled cell is a duration
        for i in range(len(head)):
            cells = [r[i] for r in body if i < len(r) and r[i].strip()]
            if cells and all(tx.cell_duration(c) is not None for c in cells):
                column = i
                break
    if column is None:
        return []
    out = []
    for row in body:
        if column >= len(row) or (seconds := tx.cell_duration(row[column])) is None:
            continue
        rest = " | ".join(c for i, c in enumerate(row) if i != column)
        objects, files = objects_in(rest), files_in(rest, ctx)
        if objects or files:
            out.append(DocCost(seconds, row[column].strip(), source, objects, files,
                               bool(EACH.search(row[column]))))
    return out


def line_costs(text: str, line_of, source_of, ctx: ProseContext) -> list[DocCost]:
    """Costs stated on lines of a paragraph or list item that name a paper object or an artifact file with a duration
    ("`fig_2.py`: Figure 2 (<1 sec)", "Table 6 takes about an hour")."""
    out, offset = [], 0
    for raw in text.split("\n"):
        stripped = raw.strip()
        if stripped and len(stripped) <= MAX_LINE and (seconds := tx.duration_s(stripped)) is not None:
            objects, files = objects_in(stripped), files_in(stripped, ctx)
            if objects or files:
                match = tx.DURATION.search(stripped)
                written = match.group(0).strip(" ()") if match else stripped
                out.append(DocCost(seconds, written, source_of(line_of(offset)), objects, files,
                                   bool(EACH.search(stripped[match.end():match.end() + 12] if match else ""))))
        offset += len(raw) + 1
    return out
