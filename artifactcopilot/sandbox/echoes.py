"""Output lines that are the command's own text said back: `echo "Running experiment 1 ..."` prints what the script
already says, so it shows nothing about whether the work was done (sandbox/outcome.py's RW3 judgement).

The lines a command echoes are read from its text and from the shell scripts it runs (files of the artifact named
in it, `bash run.sh`, `./run_all.sh`): each `echo`/`printf` argument becomes a template in which a variable, a
command substitution or a format directive stands for any text.
"""
from __future__ import annotations

import re
from pathlib import Path

ECHO = re.compile(r"(?:^|[;&|({]\s*|\bthen\s+|\bdo\s+|\belse\s+)(?:echo|printf)\s+(?:-[neE]+\s+)*(?P<arg>.+)$",
                  re.M)
SCRIPT = re.compile(r"(?:^|[\s;&|(])((?:\./|[\w.\-]+/)*[\w.\-]+\.(?:sh|bash))\b")
VARIABLE = re.compile(r"\$\{[^}]*\}|\$\([^)]*\)|`[^`]*`|\$\w+|%[-+ #0-9.]*[sdifgexXuc]")
MAX_SCRIPT_BYTES = 200_000
MAX_TEMPLATES = 400


def _argument(raw: str) -> list[str]:
    """The text an echo/printf argument prints, split at its escaped newlines; the rest of the line (a redirection,
    the next command) cut off."""
    text, quote, out = raw.strip(), "", []
    for ch in text:
        if quote:
            if ch == quote:
                quote = ""
            else:
                out.append(ch)
        elif ch in "'\"":
            quote = ch
        elif ch in ";|&>":
            break
        else:
            out.append(ch)
    return [part.strip() for part in "".join(out).replace("\\t", " ").split("\\n")]


def _template(text: str) -> re.Pattern[str] | None:
    parts = VARIABLE.split(text)
    if not "".join(parts).strip():
        return None  # only a variable: it may print anything
    pattern = "(.*)".join(re.escape(" ".join(p.split())) for p in parts)
    return re.compile(rf"^\s*{pattern}\s*$")


def echo_templates(script: str, root: Path | None = None, cwd: str = ".") -> list[re.Pattern[str]]:
    """Templates of the lines the command's own text prints (see the module's docstring)."""
    texts = [script]
    if root is not None:
        base = (root / (cwd or ".")).resolve()
        for name in dict.fromkeys(SCRIPT.findall(script)):
            path = (base / name).resolve()
            try:
                if root.resolve() in path.parents and path.is_file() and path.stat().st_size <= MAX_SCRIPT_BYTES:
                    texts.append(path.read_text(encoding="utf-8", errors="replace"))
            except OSError:
                continue
    out: list[re.Pattern[str]] = []
    for text in texts:
        for match in ECHO.finditer(text):
            for part in _argument(match.group("arg")):
                found = _template(part) if part else None
                if found is not None:
                    out.append(found)
                if len(out) >= MAX_TEMPLATES:
                    return out
    return out


MEASURE = re.compile(r"\d\.\d|\d%|\d\s*(?:s|ms|sec|seconds)\b")


def is_echo(line: str, templates: list[re.Pattern[str]]) -> bool:
    """Whether the line is an echo of the command's text; a variable that printed a measurement (`Accuracy:
    $acc` giving 0.93) makes it output, not an echo."""
    squeezed = " ".join(line.split())
    for template in templates:
        found = template.match(squeezed) if squeezed else None
        if found and not any(MEASURE.search(g or "") for g in found.groups()):
            return True
    return False
