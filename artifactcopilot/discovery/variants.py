"""Commands the documentation gives as a pattern: "to reproduce any result, simply replace `fig_3a.py` with the desired
script from the `reproduction` folder (e.g. `fig_2.py`, `table_2.py`)".

The sentence names a file of a documented command (the pattern) and what may stand in its place: the files it lists
and, when it says "any"/"the desired"/"another" script of a folder, every entry script of that folder with the same
extension (a module the folder's other scripts import is a library, not an entry). Each becomes a step: the documented
command with the file replaced, in the pattern's folder, right after it. Pure.
"""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from ..shell import words
from .prose import ProseContext, find_dir, find_file
from .view import ArtifactView, safe_read

REPLACE = re.compile(r"\b(replac\w*|substitut\w*|swap\w*|exchang\w*|chang\w*)\b[^.;]{0,20}?`([^`\n]{1,120})`"
                     r"\s*(?:with|by|for|to)\b(?P<rest>[^\n]{0,400})", re.IGNORECASE)
ANY = re.compile(r"\b(any|the desired|another|the (?:corresponding|relevant|appropriate|respective)|other|whichever|"
                 r"one of the)\b[^.;]{0,60}?\b(scripts?|files?|notebooks?|experiments?|programs?)\b", re.IGNORECASE)
FOLDER = re.compile(r"\b(?:in|from|inside|within|under|of)\s+(?:the\s+)?`?([\w./\-]+)`?\s*(?:folder|directory|dir)\b",
                    re.IGNORECASE)
SCRIPT = re.compile(r"\.(py|sh|R|r|jl|m|ipynb)$")
MAX_VARIANTS = 40


@dataclass
class Variant:
    """A pattern the docs state: the file to replace and what may stand in its place."""

    pattern: str
    """The file name as the documented command writes it."""
    alternatives: list[str] = field(default_factory=list)
    """Artifact paths that may replace it, listed first in the docs' order."""
    source: str = ""
    sentence: str = ""


def variants_in(sentence: str, source: str, ctx: ProseContext, view: ArtifactView) -> list[Variant]:
    """The patterns one sentence states (none when it names no file to replace or nothing to replace it with)."""
    out = []
    for match in REPLACE.finditer(sentence):
        pattern = match.group(2).strip()
        if not SCRIPT.search(pattern) or " " in pattern:
            continue
        rest = match.group("rest")
        listed = [p for name in re.findall(r"`([^`\n]{1,120})`", rest) if SCRIPT.search(name)
                  and (p := find_file(ctx, name))]
        folder = None
        if ANY.search(rest):
            named = FOLDER.search(rest)
            folder = find_dir(ctx, named.group(1)) if named else None
            if folder is None:
                found = find_file(ctx, pattern)
                folder = posixpath.dirname(found) if found else None
        every = _entries(folder, posixpath.splitext(pattern)[1], ctx, view) if folder is not None else []
        own = posixpath.basename(pattern)
        alternatives = [p for p in dict.fromkeys(listed + every) if posixpath.basename(p) != own]
        if alternatives:
            out.append(Variant(pattern, alternatives[:MAX_VARIANTS], source, sentence.strip()[:300]))
    return out


def _entries(folder: str, ext: str, ctx: ProseContext, view: ArtifactView) -> list[str]:
    """The entry scripts of a folder: its files with the extension that no sibling imports."""
    files = sorted(f for f in ctx.index.files_in(folder) if f.endswith(ext) and posixpath.dirname(f) == folder
                   and not re.match(r"^(_|setup\.py$|conftest\.py$)", posixpath.basename(f)))
    if ext != ".py":
        return files
    stems = {posixpath.basename(f)[:-3]: f for f in files}
    imported: set[str] = set()
    for path in files:
        text = safe_read(view, path, 300_000) or ""
        for match in re.finditer(r"^\s*(?:from\s+([\w.]+)\s+import|import\s+([\w., ]+))", text, re.MULTILINE):
            names = (match.group(1) or match.group(2) or "").replace(" ", "").split(",")
            imported |= {n.split(".")[0] for n in names}
    return [f for stem, f in stems.items() if stem not in imported]


def apply_variant(inner: str, variant: Variant, alternative: str, cwd: str) -> str | None:
    """The documented command with the pattern's file replaced by `alternative` (a path relative to `cwd` where it
    lies there), or None when the command does not run the pattern."""
    parts = words(inner)
    base = posixpath.basename(variant.pattern)
    for word in parts:
        if posixpath.basename(word) == base:
            folder = posixpath.dirname(word)
            target = posixpath.join(folder, posixpath.basename(alternative)) if folder else \
                posixpath.relpath(alternative, cwd if cwd != "." else ".")
            return inner.replace(word, target, 1)
    return None
