"""What the artifact's own dependency files declare, by distribution, with the file that declares each.

A module a run cannot import is "not declared by the artifact" only when no dependency file of the artifact names
the distribution that provides it: every requirement file (any name, any folder), the packaging metadata
(pyproject.toml, setup.py, setup.cfg), conda environment files and Pipfiles. A declared one that is missing means
the documented install did not complete — the artifact did declare it.
"""
from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from packaging.requirements import InvalidRequirement, Requirement

from .conda import parse_environment
from .locks import pipfile
from .metadata import read_project
from .requirements import REQ_FILE, read_requirements
from .tables import normalize, renamed

Reader = Callable[[str], str | None]
ENV_FILE = re.compile(r"(^|/)(environment[^/]*|conda[^/]*)\.ya?ml$", re.IGNORECASE)
PACKAGING = ("pyproject.toml", "setup.py", "setup.cfg")
MAX_FILES = 40


def _name(line: str) -> str | None:
    try:
        return Requirement(line).name
    except InvalidRequirement:
        match = re.match(r"\s*([A-Za-z0-9][\w.\-]*)", line)
        return match.group(1) if match else None


def declared_distributions(files: list[str], read: Reader) -> dict[str, str]:
    """Normalized distribution name -> the first dependency file that declares it (a retired name such as
    `sklearn` also counts for the distribution it stands for)."""
    out: dict[str, str] = {}

    def add(name: str | None, path: str) -> None:
        if not name:
            return
        out.setdefault(normalize(name), path)
        if new := renamed(name):
            out.setdefault(normalize(new), path)

    checked = 0
    for path in sorted(files, key=lambda f: (f.count("/"), f)):
        if checked >= MAX_FILES:
            break
        base = posixpath.basename(path)
        if REQ_FILE.search(path):
            checked += 1
            for name in read_requirements(path, read).names:
                add(name, path)
        elif base in PACKAGING:
            checked += 1
            for dep in read_project(files, read, posixpath.dirname(path) or ".").dependencies:
                add(_name(dep), path)
        elif ENV_FILE.search(path):
            checked += 1
            env = parse_environment(read(path), path)
            for line in env.lines:
                add(_name(line), path)
        elif base == "Pipfile":
            checked += 1
            for line in pipfile(read(path), path).lines:
                add(_name(line), path)
    return out


def declared_by(declared: dict[str, str], module: str, distribution: str) -> str | None:
    """The file declaring the distribution behind `module`, or None when no dependency file names it."""
    for name in (distribution, module):
        if name and normalize(name) in declared:
            return declared[normalize(name)]
    return None
