"""Find an artifact's entry document: README*, then docs/index, INSTALL, a top-level notebook."""
from __future__ import annotations

import re
from pathlib import Path

_README = re.compile(r"^readme(\.[a-z0-9]+)?$", re.I)
_FALLBACKS = [re.compile(p, re.I) for p in (r"^docs?/index\.(md|rst|txt|html)$", r"^install(\.[a-z]+)?$",
                                             r"^[^/]+\.ipynb$")]


def effective_root(root: Path) -> Path:
    """A single nested top folder (common in archives) is the real root."""
    entries = [p for p in root.iterdir() if not p.name.startswith(".")] if root.is_dir() else []
    if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink():
        return entries[0]
    return root


def locate_entry(root: Path, files: list[str]) -> str | None:
    """Relative path of the entry document among `files` (relative paths under root), or None."""
    top = [f for f in files if "/" not in f and _README.match(f) and not (root / f).is_symlink()]
    if top:
        return sorted(top, key=lambda f: (not f.lower().endswith(".md"), len(f)))[0]
    for pattern in _FALLBACKS:
        hits = sorted(f for f in files if pattern.match(f) and not (root / f).is_symlink())
        if hits:
            return hits[0]
    nested = sorted((f for f in files if _README.match(f.rsplit("/", 1)[-1]) and f.count("/") == 1), key=len)
    return nested[0] if nested else None
