"""Paper objects a command is tied to by its own name: `table2.py`, `figure3.py`, `reproduction/fig_7a.py`, `rq1.sh`.

A name ties a command to "Table 2", "Figure 7" or "RQ1" only where the paper has that object (a table with that
number, a figure caption with it, the research question named in its text), so that `fig1.py` of an artifact whose
paper has no Figure 1 ties to nothing. Roman table numbers (TABLE II) are the same number.
"""
from __future__ import annotations

import re

NAMED = re.compile(r"(?:^|[^a-z])(tab(?:le)?|fig(?:ure)?|rq)[_\-\s.]?(\d{1,2})(?:[a-z])?(?=$|[^0-9])", re.I)
ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50}
KINDS = {"tab": "Table", "fig": "Figure", "rq": "RQ"}
PAPER_REF = re.compile(r"\b(Table|Tab\.|TABLE|Figure|Fig\.|FIGURE|RQ)\s*[-~]?\s*([IVXL]+|\d{1,2})\b")


def _number(text: str) -> int | None:
    if text.isdigit():
        return int(text)
    total, prev = 0, 0
    for ch in reversed(text.lower()):
        if ch not in ROMAN:
            return None
        value = ROMAN[ch]
        total += -value if value < prev else value
        prev = max(prev, value)
    return total or None


def _object(kind: str, number: str) -> str | None:
    n = _number(number)
    name = KINDS[kind.lower()[:3] if kind.lower().startswith(("tab", "fig")) else "rq"]
    return None if n is None else (f"RQ{n}" if name == "RQ" else f"{name} {n}")


def script_of(command: str) -> str:
    """The program file a command runs (`python reproduction/fig_7a.py --x` -> `reproduction/fig_7a.py`), else its
    first word."""
    words = command.split()
    for word in words:
        if re.search(r"\.(py|sh|r|R|ipynb|jl|m|pl|rb|js)$", word):
            return word
    return words[0] if words else ""


def named_objects(command: str) -> list[str]:
    """Objects the name of the command's program states ("Figure 7" for `fig_7a.py`), paper or not."""
    name = script_of(command).rsplit("/", 1)[-1].rsplit(".", 1)[0]
    out = [obj for m in NAMED.finditer(name) if (obj := _object(m.group(1), m.group(2)))]
    return list(dict.fromkeys(out))


def paper_objects(table_labels: list[str], figure_captions: list[str], text: str) -> set[str]:
    """The tables, figures and research questions a paper has, as "Table 2", "Figure 7", "RQ1"."""
    found: set[str] = set()
    for label in table_labels:
        m = re.match(r"\s*(?:Table|Tab\.)\s*([IVXL]+|\d{1,2})\b", label or "", re.I)
        if m and (obj := _object("tab", m.group(1))):
            found.add(obj)
    for caption in figure_captions:
        m = re.match(r"\s*(?:Figure|Fig\.?)\s*(\d{1,2})\b", caption or "", re.I)
        if m and (obj := _object("fig", m.group(1))):
            found.add(obj)
    for m in PAPER_REF.finditer(text or ""):
        kind = m.group(1).lower()
        if kind.startswith("rq") or kind.startswith("fig"):  # tables come from the tables read, not from prose
            if (obj := _object(kind, m.group(2))) and (kind.startswith("rq") or m.group(2).isdigit()):
                found.add(obj)
    return found


def tied_objects(command: str, mentions: list[str], objects: set[str]) -> list[str]:
    """The paper objects a command is tied to: those the documentation names beside it, and those its program's
    name states that the paper has."""
    documented = []
    for mention in mentions:
        m = PAPER_REF.match(mention.strip())
        obj = _object(m.group(1), m.group(2)) if m else None
        documented.append(obj or mention)
    return list(dict.fromkeys(documented + [o for o in named_objects(command) if o in objects]))
