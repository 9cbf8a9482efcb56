"""One document as discovery reads it: the commands it gives and its headings, with the documentation's D1 facts.

Whoever asks about a single README (a model reviewing the artifact, the reproduction loop) gets the commands,
sections and paper references the offline review judges, not a second reading of the same text.
"""
from __future__ import annotations

import posixpath
import shlex
from dataclasses import dataclass, field

from ..shell import split_env
from .model import Discovery, DocSection, Step, _Dict


def doc_of(source: str) -> str:
    """The document of a `<doc path>:<line>` source ("README.md:12" -> "README.md")."""
    path, _, line = source.rpartition(":")
    return path if path and line.isdigit() else source


def steps_in(found: Discovery, path: str) -> list[Step]:
    """Documented steps the document gives, also those an earlier document gave first, in documentation order."""
    return [s for s in found.steps if s.documented and path in {doc_of(src) for src in [s.source, *s.sources]}]


def block_script(steps: list[Step]) -> str:
    """The lines a reviewer types from the artifact's root to run steps of one block as documented: a `cd` where
    the folder changes, the block's exports, then each command as written."""
    lines: list[str] = []
    exported: dict[str, str] = {}
    cwd = "."
    for step in steps:
        folder = posixpath.normpath(step.cwd or ".")
        if folder != cwd:
            lines.append(f"cd {shlex.quote(posixpath.relpath(folder, cwd))}")
            cwd = folder
        inline, _ = split_env(step.cmd)
        for name, value in step.env.items():
            if name not in inline and exported.get(name) != value:
                lines.append(f"export {name}={shlex.quote(value)}")
                exported[name] = value
        lines.append(step.cmd)
    return "\n".join(lines)


@dataclass
class DocumentReading(_Dict):
    """What a reviewer takes from one document; the D1 facts (signals, paper references, variables, long-run
    warning, reuse sections) are those of the whole documentation, as the D1 judgement uses them."""

    path: str
    read: bool
    """The document is one discovery reads (else `commands` and `sections` are empty; see `notes`)."""
    words: int
    sections: list[DocSection]
    commands: list[Step]
    env_vars: dict[str, str]
    paper_refs: list[str]
    signals: dict[str, bool]
    long_run_warning: bool
    reuse_sections: list[str]
    documents: list[str] = field(default_factory=list)
    """Every document discovery reads, in reading order."""
    notes: list[str] = field(default_factory=list)


def read_document(found: Discovery, path: str) -> DocumentReading:
    """The document `path` (relative to the artifact root) as `found` read it."""
    want = posixpath.normpath(path.strip().removeprefix("./")) if path.strip() else ""
    doc = next((d for d in found.docs if d.path == want), None) \
        or next((d for d in found.docs if d.path.casefold() == want.casefold()), None)
    notes: list[str] = []
    if doc is None:
        notes.append(f"{path!r} is not among the documents read; they are: "
                     + (", ".join(d.path for d in found.docs) or "none"))
    elif doc.note:
        notes.append(f"{doc.path}: {doc.note}")
    name = doc.path if doc else want
    return DocumentReading(
        path=name, read=doc is not None, words=doc.words if doc else 0,
        sections=[s for s in found.sections if doc and doc_of(s.source) == name],
        commands=steps_in(found, name) if doc else [],
        env_vars={v.name: v.values[0] for v in found.env_vars if v.values},
        paper_refs=list(found.paper_refs), signals=dict(found.signals), long_run_warning=found.long_run_warning,
        reuse_sections=list(found.reuse.sections), documents=[d.path for d in found.docs], notes=notes)
