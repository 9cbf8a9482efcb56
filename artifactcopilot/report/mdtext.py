"""Inert Markdown for text that came from the artifact or an agent, and the report's table and link helpers.

Everything untrusted goes through `esc` (inline text), `code` (a code span) or `fenced` (a code block), so a
hostile artifact cannot add links, HTML, table cells or blocks to the report.
"""
from __future__ import annotations

import re
from urllib.parse import quote

from ..models import Report

# Backslash-escapable punctuation that can start markup inline (CommonMark + GFM tables/strikethrough).
_SPECIAL = re.compile(r"([\\`*_\[\]<>|&!~#])")
_LIST_START = re.compile(r"^([-+=])|^(\d+)([.)])")


def esc(text: object, block: bool = False) -> str:
    """Artifact text as inert Markdown on one line (a newline could end a table row or open a block).
    With block=True the text starts a block (a list item), where '- ' or '1. ' would nest a list."""
    flat = _SPECIAL.sub(r"\\\1", " ".join(str(text).split()))
    return _LIST_START.sub(lambda m: "\\" + m[1] if m[1] else f"{m[2]}\\{m[3]}", flat) if block else flat


def code(text: object, cell: bool = False) -> str:
    """A code span. Backslashes do not work inside code spans, so backticks in the text get a
    longer fence instead; `|` still needs `\\|` inside a table, where rows are split first."""
    flat = " ".join(str(text).split())
    fence = "`" * (max((len(r) for r in re.findall(r"`+", flat)), default=0) + 1)
    if cell:
        flat = flat.replace("|", "\\|")
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}" if flat else "(empty)"


def fenced(text: str) -> list[str]:
    """A fenced code block whose fence no line of `text` can close (a longer run of backticks than any inside)."""
    body = text.replace("\r", "")
    fence = "`" * max(3, max((len(r) for r in re.findall(r"`+", body)), default=0) + 1)
    return [f"{fence}text", *body.split("\n"), fence]


def mark(ok: bool | None) -> str:
    return "–" if ok is None else ("✓" if ok else "✗")


def shown(value: object) -> str:
    """Observed fact value; None means the review did not establish it, never 'false'."""
    if value is None:
        return "*not established*"
    return esc(str(value).lower() if isinstance(value, bool) else value)


class Links:
    """Evidence ids as relative links into the run directory, where report.md is written."""

    def __init__(self, report: Report):
        self.paths = {e.id: e.path for e in report.evidence}
        self.ledger = {i.id for i in report.interventions}  # the rule engine cites INT-* for max_intervention

    def __call__(self, ids: list[str]) -> str:
        out = []
        for ev_id in ids:
            path = self.paths.get(ev_id)
            if ev_id in self.ledger:
                out.append(f"{esc(ev_id)} (ledger)")
            elif path is None:  # cited but never committed: show it, so the chair sees the gap
                out.append(f"{esc(ev_id)} (missing)")
            else:  # percent-quote so a path can never become a scheme ('javascript:') or break the link
                out.append(f"[{esc(ev_id)}]({quote(path, safe='/._-')})")
        return ", ".join(out) or "—"


def table(head: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return lines + ["| " + " | ".join(r) + " |" for r in rows] + [""]
