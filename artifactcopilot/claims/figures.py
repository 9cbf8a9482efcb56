"""Figures and documented output files: is a file a real figure, and did the run produce what the README promises.

A README often maps outputs to the paper ("Figure 2: ./Resources/Output/annotationsPerYear2.pdf",
"results/ holds Table 3"). For each documented path (file, folder or glob) this checks whether the run
created or modified matching files and whether they are valid figures or non-empty data files.
A file that already existed and was not touched by the run is not evidence of reproduction.
"""
from __future__ import annotations

import fnmatch
import itertools
import posixpath
import re
from pathlib import Path
from typing import Literal

from pydantic import Field

from ._base import Record, clip
from .magic import CHECKS, EXTENSIONS, HEAD, TAIL, detect

MIN_FIGURE_BYTES = 100  # below this no figure format holds a real picture
MAX_CHECKED = 20  # files checked per documented path
MAX_LISTED = 50


class FigureCheck(Record):
    path: str
    exists: bool = False
    format: str | None = Field(None, description="Format found in the content (magic bytes), whatever the name says.")
    declared: str | None = Field(None, description="Format the file extension implies.")
    size: int = 0
    valid: bool = False
    pages: int | None = None
    width: int | None = None
    height: int | None = None
    reason: str = ""


def _read_ends(path: Path, size: int) -> tuple[bytes, bytes]:
    with path.open("rb") as fh:
        head = fh.read(HEAD)
        if size > HEAD:
            fh.seek(max(size - TAIL, HEAD))
        tail = fh.read(TAIL) if size > HEAD else head[-TAIL:]
    return head, tail


def check_figure(path: Path) -> FigureCheck:
    """Whether `path` is a real figure: known format by content, non-trivial size, intact structure. Never raises."""
    path = Path(path)
    res = FigureCheck(path=str(path), declared=EXTENSIONS.get(path.suffix.lower()))
    try:
        if not path.is_file():
            res.reason = "no such file" if not path.exists() else "not a regular file"
            return res
        res.exists, res.size = True, path.stat().st_size
        if res.size == 0:
            res.reason = "empty file"
            return res
        head, tail = _read_ends(path, res.size)
        res.format = detect(head)
        if res.format is None:
            res.reason = "not a figure: content is no known figure format" + (
                f" (the name says {res.declared})" if res.declared else "")
            return res
        res.valid, res.reason, info = CHECKS[res.format](head, tail, path)
        res.pages, res.width, res.height = info.get("pages"), info.get("width"), info.get("height")
        if res.valid and res.size < MIN_FIGURE_BYTES:
            res.valid, res.reason = False, f"{res.format} of only {res.size} bytes: too small to show a result"
        if res.declared and res.declared != res.format:
            res.reason += f" (named as {res.declared})"
    except OSError as exc:
        res.valid, res.reason = False, f"unreadable: {type(exc).__name__}: {exc}"
    return res


# ---------------------------------------------------------------------------------- documented outputs

Kind = Literal["file", "folder", "glob"]


class FileCheck(Record):
    path: str
    role: Literal["figure", "data"]
    valid: bool
    reason: str


class DocumentedOutputResult(Record):
    documented: str = Field(description="The path as the documentation gives it.")
    normalized: str = Field("", description="Relative to the artifact root, `./` and `../` prefixes removed.")
    objects: list[str] = Field(default_factory=list, description="Paper objects it stands for (Figure 2, Table 5).")
    kind: Kind = "file"
    produced: list[str] = Field(default_factory=list, description="Files the run created or modified that match.")
    preexisting: int = Field(0, description="Matching files in the artifact that the run did not touch.")
    checks: list[FileCheck] = Field(default_factory=list)
    valid: int = 0
    invalid: int = 0
    verdict: Literal["produced", "partial", "invalid", "not_produced", "not_established"] = "not_established"
    reason: str = ""


def _norm(path: str) -> tuple[str, bool]:
    """(relative path, anchored): documented paths lose quotes, `./`, `../`, leading `/` and trailing punctuation."""
    p = path.strip().strip("`'\"").replace("\\", "/").rstrip(".,;:")
    while p.endswith(")") and p.count(")") > p.count("("):  # "(see results/)" in prose
        p = p[:-1].rstrip(".,;:")
    anchored = not p.startswith(("/", "~", "../"))
    folder = p.endswith("/")
    p = posixpath.normpath(re.sub(r"^(?:~/|/)+", "", p)) if p else p
    while p.startswith(("./", "../")) or p == "..":
        p = p.split("/", 1)[1] if "/" in p else ""
    p = "" if p in (".", "") else p
    return (p + "/" if p and folder else p), anchored


def _kind(p: str, root: Path, created: list[str]) -> Kind:
    if any(ch in p for ch in "*?["):
        return "glob"
    if p.endswith("/") or (root / p).is_dir():
        return "folder"
    if "." not in p.rsplit("/", 1)[-1] and any(c.startswith(p + "/") or f"/{p}/" in f"/{c}" for c in created):
        return "folder"
    return "file"


def _matches(p: str, kind: Kind, anchored: bool, rel: str) -> bool:
    p = p.rstrip("/")
    if kind == "glob":
        return fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(rel, "*/" + p)
    if kind == "folder":
        return rel.startswith(p + "/") or f"/{p}/" in f"/{rel}"
    return rel == p or rel.endswith("/" + p) or (not anchored and p.endswith("/" + rel))


def _inside(root: Path, rel: str) -> Path | None:
    try:
        full = (root / rel).resolve()
        return full if full.is_relative_to(root.resolve()) else None
    except (OSError, ValueError):
        return None


def _check_file(root: Path, rel: str) -> FileCheck:
    full = _inside(root, rel)
    if full is None:
        return FileCheck(path=rel, role="data", valid=False, reason="resolves outside the artifact")
    role = "figure" if EXTENSIONS.get(full.suffix.lower()) else "data"
    if role == "data" and full.is_file():
        try:
            with full.open("rb") as fh:
                head = fh.read(HEAD)
        except OSError as exc:
            return FileCheck(path=rel, role=role, valid=False, reason=f"unreadable: {exc}")
        if detect(head):
            role = "figure"
        elif not head.strip():
            return FileCheck(path=rel, role=role, valid=False, reason="empty file")
        elif full.suffix.lower() in (".csv", ".tsv") and len(head.strip().splitlines()) < 2 and len(head) < HEAD:
            return FileCheck(path=rel, role=role, valid=False, reason="only a header line")
        else:
            return FileCheck(path=rel, role=role, valid=True, reason="non-empty data file")
    if role == "data":
        return FileCheck(path=rel, role=role, valid=False, reason="listed as produced but not found (removed later?)")
    fig = check_figure(full)
    return FileCheck(path=rel, role="figure", valid=fig.valid, reason=fig.reason)


def _preexisting(root: Path, p: str, kind: Kind, produced: set[str]) -> int:
    try:
        if kind == "file":
            return int((root / p).is_file() and p not in produced)
        pattern = f"{p.rstrip('/')}/**/*" if kind == "folder" else p
        files = (f for f in root.glob(pattern) if f.is_file())
        return sum(f.relative_to(root).as_posix() not in produced for f in itertools.islice(files, 1000))
    except (OSError, ValueError, NotImplementedError):
        return 0


def match_documented_outputs(documented: list[tuple[str, list[str]]], created: list[str],
                             root: Path) -> list[DocumentedOutputResult]:
    """For each documented output path (with its paper objects), what the run produced there. Never raises."""
    root = Path(root)
    created_norm = list(dict.fromkeys(c for c in (_norm(str(x))[0] for x in created or []) if c))
    out = []
    for path, objects in documented or []:
        try:
            out.append(_one(str(path), list(objects or []), created_norm, root))
        except (OSError, ValueError) as exc:  # unusable names: too long, NUL bytes, unreadable folders
            reason = f"could not be checked: {type(exc).__name__}: {clip(str(exc), 160)}"
            out.append(DocumentedOutputResult(documented=str(path), objects=list(objects or []), reason=reason))
    return out


def _one(documented: str, objects: list[str], created: list[str], root: Path) -> DocumentedOutputResult:
    p, anchored = _norm(documented)
    res = DocumentedOutputResult(documented=clip(documented, 300), normalized=clip(p, 300), objects=objects)
    if not p:
        res.reason = "the documented path names no file or folder"
        return res
    res.kind = _kind(p, root, created)
    hits = [c for c in created if _matches(p, res.kind, anchored, c)]
    res.produced = hits[:MAX_LISTED]
    res.preexisting = _preexisting(root, p, res.kind, set(hits))
    if not hits:
        res.verdict = "not_produced"
        res.reason = f"the run created or modified no file matching {p!r}"
        if res.preexisting:
            res.reason += f"; {res.preexisting} matching file(s) were already in the artifact (not regenerated)"
        return res
    res.checks = [_check_file(root, rel) for rel in hits[:MAX_CHECKED]]
    res.valid = sum(c.valid for c in res.checks)
    res.invalid = len(res.checks) - res.valid
    res.verdict = "produced" if not res.invalid else ("partial" if res.valid else "invalid")
    res.reason = f"{len(hits)} file(s) produced, {res.valid}/{len(res.checks)} checked valid"
    bad = next((c for c in res.checks if not c.valid), None)
    if bad:
        res.reason += f"; {bad.path}: {bad.reason}"
    return res
