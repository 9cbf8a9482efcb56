"""Set aside the committed result files before a documented command runs; compare what it rewrote afterwards.

`set_aside_committed` keeps the committed versions apart: the acquired tree, which no command touches (commands
run on a scratch copy). After the run, the result-like files (CSV/TSV/JSON and other text tables) the command
rewrote — the sandbox's before/after diff — that the authors committed are compared with their committed
versions at printed precision (claims/regenerated.py). The comparison is kept as evidence
("regenerated-vs-committed"), cited by the command's evidence id; D4 reads it back (`regenerated_for`).
A mismatch is listed cell by cell in a flag, like a paper inconsistency.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..claims.regenerated import RESULT_FILES, FileComparison, compare_versions
from ..evidence import EvidenceStore
from ..models import CommandRecord, EvidenceLevel, Flag
from .context import ReviewContext

MAX_FILE = 4_000_000
MAX_FILES = 200
SKIP_DIRS = {".git", "__pycache__", ".sandbox-home", ".copilot", "node_modules", ".venv", "venv", ".tox"}
EVIDENCE_NAME = "regenerated-vs-committed"


@dataclass
class Committed:
    """The committed versions of the artifact's result files: the acquired tree, which commands never touch (they
    run on a scratch copy), so a file an earlier command of the review wrote is never taken for the authors' own."""

    root: Path | None = None

    def text(self, rel: str) -> str | None:
        """The committed text of `rel` when it is a result-like file of the acquired tree (None otherwise)."""
        if self.root is None or not rel.lower().endswith(RESULT_FILES) or any(
                part in SKIP_DIRS for part in rel.split("/")):
            return None
        return _read(self.root, rel)


def set_aside_committed(root: Path | None) -> Committed | None:
    """The committed versions a documented command may rewrite, kept apart from the copy it runs in (never raises)."""
    try:
        return Committed(Path(root)) if root is not None and Path(root).is_dir() else None
    except OSError:
        return None


def _read(root: Path, rel: str) -> str | None:
    try:
        path = (root / rel).resolve()
        if root.resolve() not in path.parents or not path.is_file() or path.stat().st_size > MAX_FILE:
            return None
        return path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return None


def compare_regenerated(ctx: ReviewContext, phase: str, committed: Committed | None, root: Path,
                        record: CommandRecord, ev_id: str) -> list[FileComparison]:
    """Compare the committed files `record` rewrote with their new text; keep the comparison as evidence."""
    if committed is None:
        return []
    out = []
    for rel in (record.files_modified + record.files_created)[:MAX_FILES]:
        old = committed.text(rel)
        new = _read(root, rel) if old is not None else None
        if old is None or new is None:
            continue
        out.append(compare_versions(rel, old, new))
    if not out:
        return out
    for comp in out:
        if comp.verdict == "match" and (reader := code_reading(root, comp.path)):
            comp.read_by = reader
    data = {"command_evidence": ev_id, "command": record.cmd, "exit_code": record.exit_code,
            "files": [c.model_dump() for c in out]}
    ctx.store.add_json(phase, "comparison", EVIDENCE_NAME, data,
                       f"{len(out)} committed files rewritten by {ev_id}: "
                       + "; ".join(f"{c.path} {c.verdict}" for c in out[:4]), EvidenceLevel.E2)
    for comp in out:
        if comp.verdict == "mismatch" and comp.cells:
            ctx.flags.add(_mismatch_flag(phase, comp))
    return out


CODE_FILES = (".py", ".r", ".sh", ".jl", ".m", ".ipynb", ".js", ".java", ".scala", ".rb", ".pl", ".mk", "makefile")
READ_CALL = re.compile(r"read_csv|read_table|read_json|read_excel|loadtxt|genfromtxt|json\.load|pickle\.load|"
                       r"read\.csv|read\.table|fread|readtable|csvread|np\.load|\bopen\((?![^)]*['\"][wax]b?\+?['\"])|"
                       r"\bcat\b|<\s*\S|DictReader|csv\.reader", re.IGNORECASE)


def code_reading(root: Path, rel: str, limit: int = 3000) -> str:
    """A code file of the artifact that reads `rel` by name (a line naming it with a read call), or "". A file the
    code reads may have been copied into its own place rather than computed, so such a match is not counted."""
    name = rel.rsplit("/", 1)[-1]
    seen = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith(".")]
        for fname in filenames:
            if not fname.lower().endswith(CODE_FILES):
                continue
            seen += 1
            if seen > limit:
                return ""
            path = Path(dirpath) / fname
            try:
                text = path.read_bytes()[:MAX_FILE].decode("utf-8", errors="replace") if path.stat().st_size else ""
            except OSError:
                continue
            if name in text and any(name in ln and READ_CALL.search(ln) for ln in text.splitlines()):
                return path.relative_to(root).as_posix()
    return ""


def _mismatch_flag(phase: str, comp: FileComparison) -> Flag:
    shown = "; ".join(f"{c.row} / {c.column}: committed {c.expected}, regenerated "
                      f"{c.produced if c.produced is not None else '(missing)'} ({c.kind})" for c in comp.cells[:8])
    return Flag(severity="low", code="regenerated-differs", phase=phase,
                message=f"{comp.path}: {comp.total - comp.matched} of {comp.total} values differ from the committed "
                        f"version — {shown}" + (" …" if len(comp.cells) > 8 else ""))


def regenerated_for(store: EvidenceStore, run_evidence: set[str]) -> list[tuple[str, FileComparison]]:
    """(evidence id, comparison) of every committed file a run in `run_evidence` (command evidence ids) rewrote."""
    out = []
    for ev in store.all():
        if ev.kind != "comparison" or EVIDENCE_NAME not in ev.path:
            continue
        try:
            data = json.loads(store.read(ev.id))
        except (KeyError, OSError, ValueError):
            continue
        if not isinstance(data, dict) or data.get("command_evidence") not in run_evidence:
            continue
        for entry in data.get("files", []):
            try:
                out.append((ev.id, FileComparison.model_validate(entry)))
            except ValueError:
                continue
    return out


__all__ = ["Committed", "compare_regenerated", "regenerated_for", "set_aside_committed"]
