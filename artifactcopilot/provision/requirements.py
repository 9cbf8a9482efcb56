"""Requirement files: which ones belong to the workflow, and what they pin.

Never merge every requirements*.txt in the tree: example, documentation, test and vendored folders and
unrelated sub-projects (a web app beside the analysis notebooks) have their own. The file nearest to the
documented workflow (same folder, then parents up to the root) is the one the workflow needs.
"""
from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from packaging.requirements import InvalidRequirement, Requirement

from .reqlines import MAX_DEPTH, requirement_lines
from .tables import series_below

REQ_FILE = re.compile(r"(^|/)(requirements[^/]*\.txt|requirements/[^/]+\.txt)$", re.IGNORECASE)
EXCLUDED = {
    "examples": "example code", "example": "example code", "samples": "example code", "demo": "example code",
    "docs": "documentation", "doc": "documentation", "tests": "tests", "test": "tests", "testing": "tests",
    "vendor": "vendored code", "vendored": "vendored code", "third_party": "vendored code",
    "third-party": "vendored code", "thirdparty": "vendored code", "external": "vendored code",
    "extern": "vendored code", "node_modules": "vendored code", "site-packages": "an installed environment",
    "venv": "an installed environment", ".venv": "an installed environment", "env": "an installed environment",
    "build": "build output", "dist": "build output", ".github": "CI configuration", ".git": "version control",
}
DEV_NAME = re.compile(r"requirements[-_.]?(dev|develop|development|test|tests|testing|docs?|lint|ci|style|typing)\b",
                      re.IGNORECASE)
PREFERRED_NAME = re.compile(r"requirements[-_.]?(cpu|base|min|minimal|core|main|prod)?\.txt$", re.IGNORECASE)
PROJECT_MARKERS = ("Dockerfile", "docker-compose.yml", "docker-compose.yaml", "setup.py", "pyproject.toml",
                   "package.json", "manage.py", "pom.xml", "build.gradle", "Cargo.toml", "go.mod")


def owner_folder(path: str) -> str:
    """The folder a requirement file serves: its own, or the parent of a `requirements/` folder."""
    folder = posixpath.dirname(path)
    if posixpath.basename(folder).lower() == "requirements":
        folder = posixpath.dirname(folder)
    return folder or "."


def excluded_reason(path: str) -> str | None:
    for part in path.split("/")[:-1]:
        if part.lower() in EXCLUDED:
            return f"under {part}/ ({EXCLUDED[part.lower()]}, not the artifact's workflow)"
    return None


def _ancestors(folder: str) -> list[str]:
    out = []
    while folder not in ("", "."):
        out.append(folder)
        folder = posixpath.dirname(folder)
    return out + ["."]


def _pick(candidates: list[str]) -> tuple[str, list[str]]:
    ordered = sorted(candidates, key=lambda p: (not p.lower().endswith("/requirements.txt") and
                                                p.lower() != "requirements.txt",
                                                not PREFERRED_NAME.search(p), p))
    return ordered[0], ordered[1:]


def select_requirement_files(files: list[str], workflow_entries: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """(chosen, skipped with reasons) when the documentation names no requirement file."""
    all_req = [f for f in files if REQ_FILE.search(f)]
    skipped: list[tuple[str, str]] = []
    candidates: list[str] = []
    starts = [posixpath.dirname(e) or "." for e in workflow_entries] or ["."]
    for path in all_req:
        serves_workflow = any(owner_folder(path) in _ancestors(start) for start in starts if workflow_entries)
        if (reason := excluded_reason(path)) and not serves_workflow:
            skipped.append((path, reason))
        elif DEV_NAME.search(posixpath.basename(path)) or DEV_NAME.search(path.replace("/", "-")):
            skipped.append((path, "development/test requirements, not needed to run the workflow"))
        else:
            candidates.append(path)
    by_folder: dict[str, list[str]] = {}
    for path in candidates:
        by_folder.setdefault(owner_folder(path), []).append(path)
    chosen: list[str] = []
    for start in starts:
        for folder in _ancestors(start):
            if folder in by_folder:
                pick, others = _pick(by_folder[folder])
                if pick not in chosen:
                    chosen.append(pick)
                    skipped += [(o, f"alternative to {pick} in the same folder") for o in others]
                break
    files_set = set(files)
    where = ", ".join(sorted({s for s in starts})) if workflow_entries else "the artifact root"
    for path in candidates:
        if path in chosen or any(p == path for p, _ in skipped):
            continue
        skipped.append((path, _unrelated_reason(path, files_set, where)))
    return chosen, skipped


def _unrelated_reason(path: str, files: set[str], where: str) -> str:
    folder = owner_folder(path)
    for anc in _ancestors(folder)[:-1]:
        markers = [m for m in PROJECT_MARKERS if f"{anc}/{m}" in files]
        if markers:
            return f"belongs to the sub-project {anc}/ ({', '.join(markers)}); the workflow runs in {where}"
    return f"not on the workflow's path (the workflow runs in {where})"


@dataclass
class RequirementsInfo:
    """What a requirement file (and the files it includes) asks for."""

    names: list[str] = field(default_factory=list)
    pins: list[tuple[str, str]] = field(default_factory=list)
    remote: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    found: bool = True


def read_requirements(path: str, read: Callable[[str], str | None]) -> RequirementsInfo:
    """What the requirement file at `path` and the files it includes ask for (`reqlines.requirement_lines`)."""
    info = RequirementsInfo()
    if read(path) is None:
        info.found = False
        info.notes.append(f"{path} could not be read")
        return info
    for item in requirement_lines(path, read):
        if item.include is not None:
            if not item.followed and item.depth < MAX_DEPTH:
                info.notes.append(f"{item.path} includes {item.include}, which could not be read")
            continue
        line = item.line
        if not line or item.constraint is not None:
            continue
        if re.match(r"^(-e|--editable)\s", line):
            line = line.split(None, 1)[1]
        if line.startswith("-"):
            continue
        _requirement_line(line, item.path, info)
    return info


def _requirement_line(line: str, path: str, info: RequirementsInfo) -> None:
    if re.match(r"^(git|hg|svn|bzr)\+|^https?://", line):
        egg = re.search(r"#egg=([\w.-]+)", line)
        info.remote.append(f"{egg.group(1) if egg else 'a package'} ({line.split('#')[0]})")
        return
    if line.startswith((".", "/", "file:")):
        return
    try:
        req = Requirement(line)
    except InvalidRequirement:
        info.notes.append(f"{path}: cannot read requirement line {line[:60]!r}")
        return
    info.names.append(req.name)
    if req.url:
        info.remote.append(f"{req.name} ({req.url})")
    for spec in req.specifier:
        if spec.operator in ("==", "===") and "*" not in spec.version:
            info.pins.append((req.name, spec.version))
        elif spec.operator in ("<", "<=") and (newest := series_below(req.name, spec.version, spec.operator == "<=")):
            info.pins.append((req.name, newest))  # an upper bound: the newest series it allows
