"""State shared by the language readers while one script is read: the artifact's files, variables, depth."""
from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path

from .model import Reading

MAX_DEPTH = 3
MAX_STEPS = 4000
MAX_CODE = 400_000


@dataclass
class Context:
    """One reading: where steps go, what the artifact holds, which programs were already read in place."""

    reading: Reading
    root: Path | None = None
    """The artifact folder, when there is one: invoked programs are read from it."""
    files: frozenset[str] | None = None
    """The artifact's files (relative paths); None without an artifact."""
    dirs: frozenset[str] = frozenset()
    depth: int = 0
    expanding: list[str] = field(default_factory=list)
    """Programs being read in place (no program is read inside itself)."""
    shell_vars: dict[str, str] = field(default_factory=dict)
    shell_functions: dict[str, object] = field(default_factory=dict)
    heredocs: dict[str, str] = field(default_factory=dict)
    expanding_heredocs: set[str] = field(default_factory=set)
    """Here-documents whose delimiter is unquoted: the shell expands `$VAR` in them."""
    mounts: dict[str, bool] = field(default_factory=dict)
    """Containers the script starts, by name: whether each sees host folders (a bind mount)."""
    written_code: dict[str, str] = field(default_factory=dict)
    """Programs the script itself writes from a here-document (`cat > analyze.py <<EOF`), by path."""
    given: set[str] = field(default_factory=set)
    """Numbers a masked table template shows: given with the task, not results the script writes out."""
    modules: dict[str, object] = field(default_factory=dict)
    """Artifact Python modules read for their functions (name -> reader, None when not found)."""

    @classmethod
    def make(cls, root: Path | None, files: list[str] | None) -> Context:
        known = frozenset(files) if files is not None else None
        dirs: set[str] = set()
        for f in known or ():
            parts = f.split("/")
            dirs.update("/".join(parts[:i]) for i in range(1, len(parts)))
        return cls(reading=Reading(), root=root, files=known, dirs=frozenset(dirs))

    @property
    def has_artifact(self) -> bool:
        return self.files is not None

    @property
    def in_artifact_code(self) -> bool:
        """Reading one of the artifact's own programs (not the submitted script or its inline code)."""
        return any(not name.startswith("inline ") for name in self.expanding)

    def resolve(self, path: str) -> str | None:
        """The artifact-relative spelling of `path` when it names a file or folder of the artifact, else None."""
        if self.files is None or not path:
            return None
        p = path.rstrip("/")
        p = p.removeprefix("./")
        if p in self.files or p in self.dirs:
            return p
        if any(ch in p for ch in "*?["):
            hit = next((f for f in self.files if fnmatch(f, p)), None)
            return p if hit else None
        if p.startswith(("/", "~")):
            parts = p.strip("/~").split("/")
            for i in range(len(parts)):
                tail = "/".join(parts[i:])
                if tail in self.files or tail in self.dirs:
                    return tail
        return None

    def exists(self, path: str) -> bool | None:
        """Whether the artifact holds `path` (None without an artifact)."""
        if self.files is None:
            return None
        return self.resolve(path) is not None

    def is_dir(self, path: str) -> bool:
        rel = self.resolve(path)
        return rel is not None and rel in self.dirs

    def code(self, path: str) -> tuple[str, str] | None:
        """(artifact-relative path, text) of an artifact program, or None when it is not there or not text."""
        if path in self.written_code:  # written by the script before it runs it: read as the script wrote it
            return path, self.written_code[path]
        rel = self.resolve(path)
        if rel is None or self.root is None or rel in self.dirs:
            return None
        try:
            target = (self.root / rel).resolve()
            if not target.is_relative_to(self.root.resolve()) or not target.is_file():
                return None
            data = target.read_bytes()[:MAX_CODE]
        except (OSError, ValueError):
            return None
        if b"\0" in data[:4096]:
            return None
        return rel, data.decode("utf-8", "replace")

    def child(self, program: str) -> bool:
        """Enter an invoked program (False when too deep or already being read)."""
        if self.depth >= MAX_DEPTH or program in self.expanding or len(self.reading.steps) > MAX_STEPS:
            return False
        self.depth += 1
        self.expanding.append(program)
        return True

    def leave(self) -> None:
        self.depth -= 1
        self.expanding.pop()


def rel_dir(path: str) -> str:
    d = posixpath.dirname(path)
    return "" if d in (".", "") else d
