"""Decide what a code block is: commands to run, output a command prints, an API example, or something else
(a file listing, a format description, SQL, BibTeX)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .cmdlines import LogicalLine, logical_lines, looks_like_command
from .prereqs import assignment_line

SHELL_INFOS = {"bash", "sh", "shell", "console", "zsh", "shell-session", "sh-session", "cmd", "terminal",
               "shellsession", "powershell", "ps", "ps1", "bat", "batch", "fish", "ksh", "csh", "tcsh"}
PLAIN_INFOS = {"", "text", "txt", "none", "plain", "plaintext", "commandline", "command", "code"}
CODE_INFOS = {"python", "py", "python3", "ipython", "pycon", "r", "julia", "java", "javascript", "js", "c", "cpp",
              "c++"}
TREE_LINE = re.compile(r"^\s*(?:[│┃║¦├└┣┗╠╚]|[+\\`][-─—]{2,}|\|(?!.*\|\s*$))")
"""A line of a drawn directory tree (`├── main.py`, `│   └── x`, `|   run.sh`, `+---data`, `\\---src`, `` `-- x``):
no shell command starts with a pipe or a box-drawing character. A Markdown table row (`| a | b |`) is not one."""
OUTPUT_INTRO = re.compile(r"\b(output|outputs|print|prints|printed|display|displays|return|returns|stdout|stderr|"
                          r"will have|should see|will see|looks? like|result is|results are|shows?|log)\b",
                          re.IGNORECASE)


@dataclass
class BlockReading:
    kind: str
    """commands | output | code | other."""
    lines: list[LogicalLine] = field(default_factory=list)
    outputs: dict[int, str] = field(default_factory=dict)
    """Output text printed after the command at position i of `lines` (prompted blocks)."""


def read_block(code: str, info: str, before: str, console_scripts: frozenset[str]) -> BlockReading:
    lines = logical_lines(code)
    if any(ln.prompted for ln in lines):
        return _prompted(lines, code)
    if is_tree_listing(code):
        return BlockReading("other")  # a drawn directory tree, even in a block labelled `bash`
    lines = [ln for ln in lines if not TREE_LINE.match(ln.text) and not assignment_line(ln.text)]
    info = info.lower()
    commandish = [ln for ln in lines if looks_like_command(ln.text, console_scripts)]
    if info in SHELL_INFOS:
        if lines and (commandish or not _is_output_intro(before)):
            return BlockReading("commands", lines)
    elif (info in PLAIN_INFOS or info in CODE_INFOS) and lines and commandish and lines[0] in commandish and \
            len(commandish) >= 0.6 * len(lines) and (info in PLAIN_INFOS or len(commandish) == len(lines)):
        return BlockReading("commands", commandish)
    if _is_output_intro(before):
        return BlockReading("output")
    if info in CODE_INFOS or re.search(r"^\s*(import|from)\s+\w", code, re.MULTILINE):
        return BlockReading("code")
    return BlockReading("other")


def _is_output_intro(before: str) -> bool:
    text = before.strip()
    if not text:
        return False
    last = re.split(r"(?<=[.!?])\s+", text)[-1]
    return (text.endswith(":") or "following" in last.lower()) and bool(OUTPUT_INTRO.search(last))


def _prompted(lines: list[LogicalLine], code: str) -> BlockReading:
    raw = code.splitlines()
    commands: list[LogicalLine] = []
    outputs: dict[int, str] = {}
    for i, line in enumerate(lines):
        if not line.prompted:
            continue
        commands.append(line)
        end = next((ln.line for ln in lines[i + 1:] if ln.prompted), len(raw))
        body = "\n".join(raw[max(line.end, line.line) + 1:end]).strip("\n")
        if body.strip():
            outputs[len(commands) - 1] = body
    return BlockReading("commands", commands, outputs)


def is_tree_listing(code: str) -> bool:
    """A code block that draws a directory tree: at least two tree lines, and at least 40% of its lines."""
    lines = [ln for ln in code.splitlines() if ln.strip()]
    tree = sum(1 for ln in lines if TREE_LINE.match(ln))
    return tree >= 2 and tree >= 0.4 * len(lines)
