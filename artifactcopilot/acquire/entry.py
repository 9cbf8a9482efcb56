"""Find an artifact's entry document: README*, then docs/index, INSTALL, a top-level notebook, then a
README one level down — following single nested folders and unpacked archives ('<name>.contents/')."""
from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

_README = re.compile(r"^readme(\.[a-z0-9]+)?$", re.I)
_FALLBACKS = [re.compile(p, re.I) for p in (r"^docs?/index\.(md|rst|txt|html)$", r"^install(\.[a-z]+)?$",
                                             r"^[^/]+\.ipynb$")]
MAX_DEPTH = 6


def effective_root(root: Path) -> Path:
    """A single nested top folder (common in archives) is the real root."""
    entries = [p for p in root.iterdir() if not p.name.startswith(".")] if root.is_dir() else []
    if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink():
        return entries[0]
    return root


def _readme_in(names: list[str]) -> str | None:
    hits = [n for n in names if _README.match(n)]
    return sorted(hits, key=lambda n: (not n.lower().endswith(".md"), len(n), n))[0] if hits else None


def locate_entry(root: Path, files: list[str]) -> str | None:
    """Relative path of the entry document among `files` (relative paths under root), or None."""
    files = [f for f in files if not (root / f).is_symlink()]
    top = _readme_in([f for f in files if "/" not in f])
    if top:
        return top
    for pattern in _FALLBACKS:
        hits = sorted(f for f in files if pattern.match(f))
        if hits:
            return hits[0]
    return _nested_readme(files)


def _nested_readme(files: list[str]) -> str | None:
    """README in a top-level folder or an unpacked archive, descending while a folder holds only one folder."""
    subdirs: dict[str, set[str]] = defaultdict(set)
    names: dict[str, list[str]] = defaultdict(list)
    for rel in files:
        parts = rel.split("/")
        for depth in range(len(parts) - 1):
            subdirs["/".join(parts[:depth])].add(parts[depth])
        names["/".join(parts[:-1])].append(parts[-1])
    starts = sorted(subdirs[""])
    unpacked = (set(subdirs) | set(names)) - set(starts)
    starts += sorted(d for d in unpacked if d.endswith(".contents") and d.count("/") < MAX_DEPTH)
    found = []
    for folder in starts:
        for _ in range(MAX_DEPTH):
            readme = _readme_in(names.get(folder, []))
            if readme:
                found.append(f"{folder}/{readme}")
                break
            children = subdirs.get(folder, set())
            if names.get(folder) or len(children) != 1:
                break
            folder = f"{folder}/{next(iter(children))}"
    return sorted(found, key=lambda f: (f.count("/"), not f.lower().endswith(".md"), len(f), f))[0] if found else None
