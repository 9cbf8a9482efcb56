"""The one walk over requirement lines: continuations joined, comments dropped, `-r` includes followed.

Reading pins (`requirements.py`), relaxing pins for older Pythons (`relax.py`) and the lines a lock file was
translated into all read requirement text the same way, through `requirement_lines`: each logical line with the
file it is in, its first physical line number, its text without the comment, and how deep the include chain is.
An include (`-r FILE`, `--requirement=FILE`) is a line of its own, with the included path resolved against the
including file's folder; it is followed (up to MAX_DEPTH) when `follow` allows it and the file can be read, and the
line says which (`followed`). A constraint file (`-c FILE`) is a line with `constraint` set, never followed.
"""
from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

MAX_DEPTH = 4
_COMMENT = re.compile(r"(^|\s)#.*$")
_INCLUDE = re.compile(r"^(?P<flag>-r|--requirement|-c|--constraint)\s*=?\s*(?P<path>\S+)")


@dataclass(frozen=True)
class RequirementLine:
    path: str
    """The requirement file the line is in."""
    number: int
    """1-based number of the line's first physical line."""
    line: str
    """The logical line: continuations joined, the comment removed, stripped (may be empty)."""
    depth: int = 0
    """0 in the file asked for, 1 in a file it includes, and so on."""
    include: str | None = None
    """For `-r FILE`: the included file, relative to the artifact root (normalised)."""
    constraint: str | None = None
    """For `-c FILE`: the constraint file, likewise."""
    followed: bool = False
    """For an include: whether its lines follow (allowed, readable and within MAX_DEPTH)."""


def _joined(text: str) -> Iterator[tuple[int, str]]:
    """Physical lines joined at backslash continuations, with the number of the first."""
    start = 0
    parts: list[str] = []
    for n, raw in enumerate(text.splitlines(), start=1):
        if not parts:
            start = n
        if raw.rstrip("\r").endswith("\\"):
            parts.append(raw.rstrip("\r")[:-1])
            continue
        parts.append(raw)
        yield start, " ".join(parts)
        parts = []
    if parts:
        yield start, " ".join(parts)


def text_lines(text: str, path: str = "", depth: int = 0) -> Iterator[RequirementLine]:
    """The logical lines of requirement text that is not a file of the artifact (a lock file translated)."""
    for number, raw in _joined(text):
        yield RequirementLine(path, number, _COMMENT.sub("", raw).strip(), depth)


def requirement_lines(path: str, read: Callable[[str], str | None], follow: Callable[[str], bool] = lambda _: True,
                      depth: int = 0) -> Iterator[RequirementLine]:
    """Every logical line of the requirement file at `path` and of the files it includes, in pip's order. Nothing
    is yielded for a file that cannot be read (the including line says it was not followed)."""
    text = read(path)
    if text is None:
        return
    folder = posixpath.dirname(path)
    for line in text_lines(text, path, depth):
        match = _INCLUDE.match(line.line)
        if match is None:
            yield line
            continue
        target = posixpath.normpath(posixpath.join(folder, match.group("path")))
        if match.group("flag") in ("-c", "--constraint"):
            yield RequirementLine(path, line.number, line.line, depth, constraint=target)
            continue
        can = depth < MAX_DEPTH and follow(target) and read(target) is not None
        yield RequirementLine(path, line.number, line.line, depth, include=target, followed=can)
        if can:
            yield from requirement_lines(target, read, follow, depth + 1)
