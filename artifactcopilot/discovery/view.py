"""The artifact as discovery sees it: a file list and a text reader, plus an index for path questions.

`ArtifactView` is the protocol callers implement; `DirectoryView` implements it over a local folder.
`FileIndex` answers "does this file/folder exist", "where is a file with this name" and skips vendored trees.
"""
from __future__ import annotations

import os
import posixpath
import re
from collections import defaultdict
from pathlib import Path
from typing import Protocol

VENDORED = {"node_modules", "site-packages", "dist-packages", ".git", ".hg", ".svn", "__pycache__", ".tox", ".nox",
            "bower_components", ".ipynb_checkpoints", ".mypy_cache", ".pytest_cache", "venv", ".venv", "virtualenv",
            "third_party", "third-party", "thirdparty", "vendor"}


class ArtifactView(Protocol):
    files: list[str]
    """Posix paths relative to the artifact root, every file."""

    def read(self, rel: str, max_bytes: int = 2_000_000) -> str | None:
        """Text of a file, or None when it cannot be read."""
        ...


def decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


class DirectoryView:
    """An ArtifactView over a local folder (symlinks are not followed out of it)."""

    def __init__(self, root: str | Path, max_files: int = 200_000):
        self.root = Path(root).resolve()
        self.files: list[str] = []
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames[:] = sorted(d for d in dirnames if d != ".git")
            rel_dir = Path(dirpath).relative_to(self.root).as_posix()
            for name in sorted(filenames):
                self.files.append(name if rel_dir == "." else f"{rel_dir}/{name}")
                if len(self.files) >= max_files:
                    return

    def read(self, rel: str, max_bytes: int = 2_000_000) -> str | None:
        path = (self.root / rel).resolve()
        if self.root not in path.parents or not path.is_file():
            return None
        try:
            with open(path, "rb") as fh:
                return decode(fh.read(max_bytes))
        except OSError:
            return None


def safe_read(view: ArtifactView, rel: str, max_bytes: int = 2_000_000) -> str | None:
    """view.read that never raises: a failing or odd view makes the file count as unreadable."""
    try:
        text = view.read(rel, max_bytes)
    except Exception:  # noqa: BLE001 - a caller's view may fail in any way; the file is then reported unreadable
        return None
    return text if isinstance(text, str) else None


def looks_binary(text: str) -> bool:
    """True for text decoded from a binary file (NUL bytes or many control characters)."""
    sample = text[:4000]
    if "\x00" in sample:
        return True
    controls = sum(1 for ch in sample if ord(ch) < 32 and ch not in "\n\r\t\f\v\x1b")
    return bool(sample) and controls / len(sample) > 0.05


def is_vendored(rel: str, venv_dirs: set[str]) -> bool:
    parts = rel.split("/")[:-1]
    if any(p in VENDORED for p in parts):
        return True
    return any(rel.startswith(d + "/") for d in venv_dirs)


class FileIndex:
    """Path questions over the artifact's file list."""

    def __init__(self, files: list[str]):
        self.all_files = [f.strip("/") for f in files if f and not f.startswith("../")]
        venvs = {posixpath.dirname(f) for f in self.all_files if f.endswith("/pyvenv.cfg") or f == "pyvenv.cfg"}
        self.venv_dirs = {v for v in venvs if v}
        self.files = [f for f in self.all_files if not is_vendored(f, self.venv_dirs)]
        self.file_set = set(self.all_files)
        self.dirs: set[str] = {"."}
        self.by_name: dict[str, list[str]] = defaultdict(list)
        self.children: dict[str, list[str]] = defaultdict(list)
        for rel in self.files:
            parts = rel.split("/")
            for i in range(1, len(parts)):
                self.dirs.add("/".join(parts[:i]))
            self.by_name[parts[-1]].append(rel)
            if parts[-1].lower() != parts[-1]:
                self.by_name[parts[-1].lower()].append(rel)
            self.children[posixpath.dirname(rel) or "."].append(rel)
        self.dir_names: dict[str, list[str]] = defaultdict(list)
        for d in sorted(self.dirs - {"."}):
            self.dir_names[d.rsplit("/", 1)[-1]].append(d)

    def is_file(self, rel: str) -> bool:
        return norm(rel) in self.file_set

    def is_dir(self, rel: str) -> bool:
        return norm(rel) in self.dirs

    def exists(self, rel: str) -> bool:
        return self.is_file(rel) or self.is_dir(rel)

    def named(self, name: str) -> list[str]:
        """Files (not vendored) whose base name is `name`."""
        return list(dict.fromkeys(self.by_name.get(name, []) or self.by_name.get(name.lower(), [])))

    def files_in(self, folder: str) -> list[str]:
        return sorted(self.children.get(norm(folder), []))

    def glob_exists(self, pattern: str) -> bool:
        rx = re.compile(glob_regex(pattern))
        return any(rx.fullmatch(f) for f in self.files)


def norm(rel: str) -> str:
    """Normalise a relative path: no leading "./" or "/", ".." folded, "." for the root."""
    rel = rel.strip().strip("'\"")
    if not rel:
        return "."
    out = posixpath.normpath(rel.lstrip("/"))
    return "." if out in ("", ".") else out


def join(folder: str, rel: str) -> str:
    return norm(posixpath.join(folder, rel)) if folder not in ("", ".") else norm(rel)


def glob_regex(pattern: str) -> str:
    out = []
    for ch in pattern:
        out.append("[^/]*" if ch == "*" else "[^/]" if ch == "?" else re.escape(ch))
    return "".join(out)
