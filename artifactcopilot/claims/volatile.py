"""Run-dependent content in program output: what differs between two honest runs and is not a result.

Timestamps, durations, absolute paths, memory addresses, resource usage and progress bars change
from run to run and from machine to machine. Comparisons remove them first and count what they
removed, so a report can say how much of a documented output was not compared and why. Prompt
lines, elision markers ("...") and decoration (rules of dashes) are not output at all.
"""
from __future__ import annotations

import re
from collections import Counter

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
_NUMBER = r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"

# Token-level patterns, applied in order; each match is removed and counted under its kind.
_TOKENS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("timestamp", re.compile(r"\b\d{4}[-/]\d{2}[-/]\d{2}[ T_]\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?"
                             r"(?:\s?(?:Z|UTC|[+-]\d{2}:?\d{2}))?")),
    ("timestamp", re.compile(r"(?<![\d:.])\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?(?![\d:])")),
    ("address", re.compile(r"\b0x[0-9a-fA-F]{6,16}\b")),
    ("path", re.compile(r"(?<![\w./~:-])(?:~|[A-Za-z]:)?(?:[/\\][\w.@+~-]+){2,}[/\\]?")),
    ("duration", re.compile(r"(?<![\w.])" + _NUMBER + r"\s?(?:ms|µs|(?-i:us|ns)|s|secs?|seconds?|mins?|minutes?|h|"
                            r"hrs?|hours?|it/s|s/it)(?![\w/])", re.IGNORECASE)),
)
_KEYWORD_LINE: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("duration", re.compile(r"\b(?:time|timing|elapsed|took|duration|runtime|run-time|wall[- ]?clock|latency)\b"
                            r"(?!\s*(?:series|steps?|windows?|periods?|spans?|zones?|frames?|points?)\b)",
                            re.IGNORECASE)),
    ("resource", re.compile(r"\b(?:memory|mem|rss|ram)\b(?!\s+address)", re.IGNORECASE)),
)
_NUM_AFTER = re.compile(r"(?<![\w.])" + _NUMBER + r"(?:\s?(?:[KMGT]i?B|bytes|%))?(?![\w.])", re.IGNORECASE)

_PROGRESS = re.compile(r"\d{1,3}%\|[^|]*\|\s*\d+/\d+|[█▉▊▋▌▍▎▏]{2,}|\|\s*\d+/\d+\s*\[\d+:\d+|\[[=#>. -]{8,}\]\s*\d")
_WARNING = re.compile(r"\b\w*Warning:|\bWARNING\b:?|^\s*warnings\.warn\(|^\s*\[W\]\s")
# NumPy 2 prints scalars as np.float64(1.5) where NumPy 1 printed 1.5: the same value, another repr.
_NP_SCALAR = re.compile(r"\bnp\.(?:float|int|uint|complex|bool|str|bytes)_?\d*\(([^()]*)\)")
_NP_BOOL = re.compile(r"\bnp\.(True|False)_")
_PROMPT = re.compile(r"^\s*(?:\([^()\n]{1,40}\)\s*)?(?:\$\s*[./~\w\"'-]|[\w.-]+@[\w.-]+(?::[^\s$#]*)?\s*[$#]\s*\S)"
                     r"|^\s*>>>\s|^\s*In \[\d*\]:|^\s*PS [^>\n]*>\s|^\s*[A-Za-z]:\\[^>\n]*>\s*\S")
_ALNUM = re.compile(r"[^\W_]")
_DIGIT = re.compile(r"\d")
_PROGRESS_HINT = re.compile(r"[%█▉▊▋▌▍▎▏|\[]")
_ELISION = re.compile(r"^\s*(?:\.{3,}|…|\[\s*(?:\.\.\.|…)\s*\]|<\s*(?:\.\.\.|…)\s*>|\((?:\.\.\.|…)\)|#\s*\.\.\.)\s*$")


def clean_text(text: str) -> list[str]:
    """Output text as the terminal would show it: ANSI colours removed, `\\r`-overwritten progress collapsed."""
    out = []
    for line in _ANSI.sub("", str(text)).replace("\r\n", "\n").split("\n"):
        if "\r" in line:
            parts = [p for p in line.split("\r") if p.strip()]
            line = parts[-1] if parts else ""
        out.append(_NP_BOOL.sub(r"\1", _NP_SCALAR.sub(r"\1", line)) if "np." in line else line)
    return out


def line_kind(line: str, after_warning: bool = False) -> str | None:
    """Why a whole line is not output to compare ("prompt", "progress", ...), or None when it is."""
    if not line.strip():
        return "blank"
    if _ELISION.match(line):
        return "elision"
    if not _ALNUM.search(line):
        return "decoration"
    if _PROMPT.match(line):
        return "prompt"
    if _PROGRESS_HINT.search(line) and _PROGRESS.search(line):
        return "progress"
    if ("arn" in line or "ARN" in line or "[W]" in line) and _WARNING.search(line):
        return "warning"
    return "warning" if after_warning and line[:1].isspace() else None


def scrub(line: str, counts: Counter[str] | None = None) -> str:
    """The line without its run-dependent tokens; each removal is counted in `counts` by kind."""
    digits, slashes = _DIGIT.search(line) is not None, "/" in line or "\\" in line
    if not digits and not slashes:
        return line
    for kind, pattern in _TOKENS:
        if not digits and kind != "path" or not slashes and kind == "path":
            continue
        line, n = pattern.subn(" ", line)
        if n and counts is not None:
            counts[kind] += n
    for kind, keyword in _KEYWORD_LINE if digits else ():
        m = keyword.search(line)
        if m:
            head, tail = line[:m.end()], line[m.end():]
            tail, n = _NUM_AFTER.subn(" ", tail)
            line = head + tail
            if n and counts is not None:
                counts[kind] += n
    return line
