"""Documented statements: what compound command a statement is, and a `for` loop's written items (to run the
loop over fewer of them)."""
from __future__ import annotations

import re
from dataclasses import dataclass

from .syntax import COMPOUND_KINDS, ShellSyntaxError, parse, prepare, take_heredocs


def compound(text: str) -> str | None:
    """The kind of compound command a documented statement is (`for loop`, `while loop`, `if … fi`, `&&` across
    lines, `here-document`, ...); None for a line of simple commands (`cd x && make` included)."""
    body, docs = take_heredocs(text)
    if docs:
        return "here-document"
    one_line = "\n" not in text.strip()
    try:
        trees = parse(prepare(body))
    except ShellSyntaxError:
        return None if one_line else "lines"
    kind = next((k for k in map(_top_kind, trees) if k), None)
    if one_line:
        return kind if kind not in ("&&", "|") else None
    return kind or "lines"


def _top_kind(node) -> str | None:
    if node.kind in COMPOUND_KINDS:
        return COMPOUND_KINDS[node.kind]
    if node.kind == "compound":
        inner = [_top_kind(p) for p in node.list or []]
        return next((k for k in inner if k), "group")
    if node.kind == "list":
        inner = [_top_kind(p) for p in node.parts if p.kind != "operator"]
        found = next((k for k in inner if k), None)
        return found or ("&&" if any(p.kind == "operator" and p.op in ("&&", "||") for p in node.parts) else None)
    if node.kind == "pipeline" and len(node.parts) > 1:
        inner = [_top_kind(p) for p in node.parts if p.kind != "pipe"]
        return next((k for k in inner if k), "|")
    return None


@dataclass
class Loop:
    """A `for NAME in ITEMS` loop over words written out."""

    name: str
    items: list[str]
    span: tuple[int, int]
    """Where the items are written in the text (start, end)."""


def for_loop(text: str) -> Loop | None:
    """The statement's `for` loop over written words (no glob, no substitution), or None."""
    try:
        trees = parse(text)
    except ShellSyntaxError:
        return None
    node = trees[0] if len(trees) == 1 else None
    while node is not None and node.kind == "compound":
        node = node.list[0] if len(node.list) == 1 else None
    if node is None or node.kind != "for":
        return None
    words = [p for p in node.parts if p.kind == "word"]
    if len(words) < 2 or not any(p.kind == "reservedword" and p.word == "in" for p in node.parts):
        return None
    items = words[1:]
    if any(re.search(r"[*?\[$`{]", text[w.pos[0]:w.pos[1]]) for w in items):
        return None
    return Loop(words[0].word, [w.word for w in items], (items[0].pos[0], items[-1].pos[1]))
