"""Helpers for discovery tests: an in-memory view, small artifact trees, notebooks, step lookups."""
from __future__ import annotations

import json
from pathlib import Path

from artifactcopilot.discovery import Discovery


class MemoryView:
    """An in-memory ArtifactView; `fail` names files whose read raises."""

    def __init__(self, files: dict[str, str | bytes], fail: set[str] = frozenset()):
        self.data = files
        self.files = sorted(files)
        self.fail = set(fail)

    def read(self, rel: str, max_bytes: int = 2_000_000) -> str | None:
        if rel in self.fail:
            raise OSError(f"cannot read {rel}")
        value = self.data.get(rel)
        if isinstance(value, bytes):
            return value[:max_bytes].decode("latin-1")
        return None if value is None else value[:max_bytes]


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def notebook(cells: list[tuple[str, str, bool]], language: str = "python") -> str:
    """A notebook JSON from (cell_type, source, has_output) triples."""
    out = []
    for kind, source, has_output in cells:
        cell = {"cell_type": kind, "metadata": {}, "source": source.splitlines(keepends=True)}
        if kind == "code":
            cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["ok\n"]}] if has_output else []
            cell["execution_count"] = 1 if has_output else None
        out.append(cell)
    meta = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": language}}
    return json.dumps({"cells": out, "metadata": meta, "nbformat": 4, "nbformat_minor": 5})


def cmds(found: Discovery, kind: str | None = None) -> list[str]:
    return [s.cmd for s in found.steps if kind is None or s.kind == kind]


def step(found: Discovery, fragment: str):
    hits = [s for s in found.steps if fragment in s.cmd]
    assert hits, f"no step with {fragment!r} in {cmds(found)}"
    return hits[0]
