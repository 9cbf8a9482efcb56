"""Turn a Markdown (or plain-text) document into a flat list of blocks with line numbers.

Blocks are headings, prose paragraphs (list items included) and code blocks (fenced or indented). A paragraph
made only of bold or italic text ("**Reproduce the results**:") is read as a minor heading, the way a reviewer
reads it. Inline code spans, links and quoted strings are kept with their offsets in the paragraph's plain text.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from markdown_it import MarkdownIt

MAX_PARSE_CHARS = 1_000_000
PSEUDO_HEADING_LEVEL = 7
MAX_RESUMES = 20
LEAVES = {"inline", "fence", "code_block", "html_block", "hr", "table_open", "paragraph_open", "heading_open"}


@dataclass
class Span:
    text: str
    start: int
    """Offset of the span in the paragraph's plain text."""
    kind: str = "code"
    """code | link | quote."""
    href: str = ""


@dataclass
class Block:
    kind: str
    """heading | para | code | table."""
    line: int
    """1-based first line in the document."""
    text: str
    level: int = 0
    info: str = ""
    fenced: bool = False
    spans: list[Span] = field(default_factory=list)
    in_list: bool = False
    rows: list[list[str]] = field(default_factory=list)
    """For a table: its rows (the header first), each cell's text with inline code kept in backticks."""

    def line_of(self, offset: int) -> int:
        return self.line + self.text[:offset].count("\n")


_QUOTED = re.compile(r"(?<![\w`])(['\"“‘])([^'\"“”‘’\n]{3,200})(['\"”’])(?![\w`])")


def _inline(children) -> tuple[str, list[Span], bool]:
    """Plain text of inline tokens, their code/link spans, and whether all text is emphasised."""
    parts: list[str] = []
    spans: list[Span] = []
    emphasis, plain_words, href, link_start = 0, False, "", -1
    size = 0
    for tok in children or []:
        piece = ""
        if tok.type == "text":
            piece = tok.content
            if emphasis == 0 and piece.strip(" :.-–"):
                plain_words = True
        elif tok.type == "code_inline":
            spans.append(Span(tok.content, size + 1))
            piece = f"`{tok.content}`"
            plain_words = plain_words or emphasis == 0
        elif tok.type in ("softbreak", "hardbreak"):
            piece = "\n"
        elif tok.type in ("strong_open", "em_open"):
            emphasis += 1
        elif tok.type in ("strong_close", "em_close"):
            emphasis -= 1
        elif tok.type == "link_open":
            href, link_start = str(tok.attrs.get("href", "")), size
        elif tok.type == "link_close" and link_start >= 0:
            spans.append(Span("".join(parts)[link_start:], link_start, "link", href))
            link_start = -1
        elif tok.type == "image":
            piece = ""
        parts.append(piece)
        size += len(piece)
    text = "".join(parts)
    for match in _QUOTED.finditer(text):
        if match.group(1) in "'‘" and match.group(3) not in "'’":
            continue
        spans.append(Span(match.group(2), match.start(2), "quote"))
    spans.sort(key=lambda s: s.start)
    return text, spans, bool(text.strip()) and not plain_words


def parse(text: str) -> tuple[list[Block], str | None]:
    """Blocks of a document; the second value says why parsing was cut short or degraded, if it was."""
    note = None
    if len(text) > MAX_PARSE_CHARS:
        text, note = text[:MAX_PARSE_CHARS], f"only the first {MAX_PARSE_CHARS} characters were read"
    lines = text.splitlines(keepends=True)
    blocks: list[Block] = []
    start = 0
    for attempt in range(MAX_RESUMES):
        chunk = "".join(lines[start:]) if attempt == 0 else "".join(ln.lstrip(" \t") for ln in lines[start:])
        try:
            tokens = MarkdownIt("commonmark").enable("table").parse(chunk)
        except Exception as exc:  # noqa: BLE001 - markdown-it is robust; anything it raises is reported, not propagated
            blocks += _shift(_plain_blocks(chunk), start)
            return blocks, f"markdown could not be parsed ({type(exc).__name__}); read as plain text"
        blocks += _shift(_blocks(tokens), start)
        read = max((t.map[1] for t in tokens if t.map and t.type in LEAVES), default=0)
        if not "".join(lines[start + read:]).strip():
            return blocks, note
        start += max(read, 1)  # nesting deeper than the parser follows: resume after what it read, unindented
        note = "markdown nested too deeply in places; the rest was read without indentation"
    blocks += _shift(_plain_blocks("".join(lines[start:])), start)
    return blocks, note


def _shift(blocks: list[Block], offset: int) -> list[Block]:
    for block in blocks:
        block.line += offset
    return blocks


def _blocks(tokens) -> list[Block]:
    blocks: list[Block] = []
    in_list = 0
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        line = (tok.map[0] + 1) if tok.map else (blocks[-1].line if blocks else 1)
        if tok.type in ("bullet_list_open", "ordered_list_open"):
            in_list += 1
        elif tok.type in ("bullet_list_close", "ordered_list_close"):
            in_list -= 1
        elif tok.type == "heading_open":
            text, spans, _ = _inline(tokens[i + 1].children)
            blocks.append(Block("heading", line, text.strip(), level=int(tok.tag[1]), spans=spans))
            i += 3
            continue
        elif tok.type == "paragraph_open" and i + 1 < len(tokens) and tokens[i + 1].type == "inline":
            text, spans, emphasised = _inline(tokens[i + 1].children)
            if emphasised and len(text) < 120 and not in_list and "\n" not in text.strip():
                blocks.append(Block("heading", line, text.strip().rstrip(":").strip(), level=PSEUDO_HEADING_LEVEL))
            else:
                blocks.append(Block("para", line, text, spans=spans, in_list=in_list > 0))
        elif tok.type in ("fence", "code_block"):
            info = (tok.info or "").strip().split()[0].lower() if (tok.info or "").strip() else ""
            blocks.append(Block("code", line + (1 if tok.type == "fence" else 0), tok.content, info=info,
                                fenced=tok.type == "fence", in_list=in_list > 0))
        elif tok.type == "table_open":
            rows, i = _table_rows(tokens, i)
            blocks.append(Block("table", line, "\n".join(" | ".join(r) for r in rows), rows=rows,
                                in_list=in_list > 0))
            continue
        elif tok.type == "html_block":
            blocks.append(Block("para", line, re.sub(r"<[^>]+>", " ", tok.content)))
        i += 1
    return blocks


def _table_rows(tokens, i: int) -> tuple[list[list[str]], int]:
    """The rows of the table that opens at token i, and the index after its closing token."""
    rows: list[list[str]] = []
    while i < len(tokens) and tokens[i].type != "table_close":
        tok = tokens[i]
        if tok.type == "tr_open":
            rows.append([])
        elif tok.type == "inline" and rows:
            rows[-1].append(_inline(tok.children)[0].strip())
        i += 1
    return rows, i + 1


def _plain_blocks(text: str) -> list[Block]:
    blocks: list[Block] = []
    buf: list[str] = []
    start = 1
    for n, line in enumerate(text.splitlines() + [""], 1):
        if line.strip():
            if not buf:
                start = n
            buf.append(line)
        elif buf:
            blocks.append(Block("para", start, "\n".join(buf)))
            buf = []
    return blocks


CONTEXT_CHARS = 4000
"""Prose kept on each side of a block as its context."""


def last_para(text: str) -> str:
    parts = [p for p in text.split("\n\n") if p.strip()]
    return parts[-1] if parts else ""


def around(blocks: list[Block]) -> tuple[list[str], list[str]]:
    """For every block: the prose since the previous heading/code block, and the prose until the next one (each cut
    to CONTEXT_CHARS next to the block)."""
    before, after = [""] * len(blocks), [""] * len(blocks)
    acc = ""
    for i, block in enumerate(blocks):
        before[i] = acc.strip()
        if block.kind != "table":  # a table between prose and a code block does not cut the prose off
            acc = "" if block.kind != "para" else (acc + "\n\n" + block.text)[-CONTEXT_CHARS:]
    acc = ""
    for i in range(len(blocks) - 1, -1, -1):
        after[i] = acc.strip()
        if blocks[i].kind != "table":
            acc = "" if blocks[i].kind != "para" else (blocks[i].text + "\n\n" + acc)[:CONTEXT_CHARS]
    return before, after
