"""Notebooks: code cells through the Python reader (shell `!` lines and `%%bash` cells through the shell
reader), the last expression of a cell displayed as Jupyter does. Stored outputs are not read here:
a notebook rendered without executing it is a display of its stored outputs (programs.py).
"""
from __future__ import annotations

import ast
import json
import re

from .context import Context
from .python import PyReader
from .shell import read_shell

_SHELL_CELL = re.compile(r"^%%(bash|sh|script\s+(ba)?sh)\b")


def cells(text: str) -> list[tuple[str, str]] | None:
    """(cell type, source) of each cell, or None when the text is not a notebook."""
    try:
        nb = json.loads(text)
    except ValueError:
        return None
    raw = nb.get("cells") if isinstance(nb, dict) else None
    if raw is None and isinstance(nb, dict):
        raw = [c for ws in nb.get("worksheets", []) or [] if isinstance(ws, dict) for c in ws.get("cells", []) or []]
    if not isinstance(raw, list):
        return None
    out = []
    for c in raw:
        if not isinstance(c, dict):
            continue
        src = c.get("source", c.get("input", ""))
        out.append((str(c.get("cell_type", "")), "".join(src) if isinstance(src, list) else str(src)))
    return out


_CHUNK = re.compile(r"^```+\s*\{\s*(r|python|bash|sh)\b[^}]*\}\s*\n(.*?)^```+\s*$", re.MULTILINE | re.DOTALL |
                    re.IGNORECASE)


def chunks(text: str) -> list[tuple[str, str]]:
    """(language, code) of the code chunks of an R Markdown or Quarto document (```{r} ... ```)."""
    lang = {"r": "r", "python": "python", "bash": "shell", "sh": "shell"}
    return [(lang[m.group(1).lower()], m.group(2)) for m in _CHUNK.finditer(text)]


def read_notebook(ctx: Context, text: str, cwd: str = "", where: str | None = None) -> None:
    found = cells(text)
    if found is None and chunks(text):  # R Markdown / Quarto: its code chunks run in order when it is rendered
        from . import read_into

        for lang, code in chunks(text):
            read_into(ctx, lang, code, cwd, where=where)
        return
    if found is None:
        ctx.reading.notes.append(f"{where or 'the notebook'} is not valid notebook JSON")
        ctx.reading.parsed = False
        return
    reader = PyReader(ctx, "", cwd, where)
    for n, (kind, source) in enumerate(found, 1):
        if kind != "code" or not source.strip():
            continue
        if _SHELL_CELL.match(source.lstrip()):
            read_shell(ctx, source.lstrip().split("\n", 1)[1] if "\n" in source.lstrip() else "", cwd)
            continue
        python = _python_lines(ctx, source, cwd, reader)
        try:
            tree = ast.parse(python)
        except SyntaxError as exc:
            ctx.reading.notes.append(f"cell {n} of {where or 'the notebook'} does not parse: {exc.msg}")
            continue
        reader.source = python
        reader.run(tree, display_last=True)


def _python_lines(ctx: Context, source: str, cwd: str, reader: PyReader) -> str:
    """The cell with `!cmd` lines read as shell commands, `%run x.py` as a program run, other magics dropped."""
    out = []
    for line in source.split("\n"):
        stripped = line.strip()
        if stripped.startswith("!"):
            read_shell(ctx, stripped[1:], cwd)
            out.append("")
        elif stripped.startswith("%run "):
            read_shell(ctx, "python " + stripped[5:], cwd)
            out.append("")
        elif stripped.startswith("%"):
            out.append("")
        else:
            m = re.match(r"^(\s*)(\w+)\s*=\s*!(.*)$", line)
            if m:
                read_shell(ctx, m.group(3), cwd)
                out.append(f"{m.group(1)}{m.group(2)} = None")
            else:
                out.append(line)
    return "\n".join(out)
