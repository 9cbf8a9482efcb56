"""Reading committed evidence back for the report: by id, from the run directory, size-capped, never raising."""
from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from ..models import Report

Reader = Callable[[str], "str | None"]
MAX_READ = 2_000_000
"""Bytes read of one evidence file (a command log beyond it is not needed for the report)."""


def run_dir_reader(report: Report, run_dir: Path) -> Reader:
    """id -> the evidence file's text (None when it is not indexed, outside the run directory or unreadable)."""
    paths = {e.id: e.path for e in report.evidence}
    root = Path(run_dir).resolve()

    def read(ev_id: str) -> str | None:
        rel = paths.get(ev_id)
        if not rel:
            return None
        path = (root / rel).resolve()
        if root not in path.parents:
            return None
        try:
            with open(path, "rb") as fh:
                return fh.read(MAX_READ).decode("utf-8", errors="replace")
        except OSError:
            return None

    return read


def read_json(read: Reader, ev_id: str) -> dict | None:
    """The evidence file as a JSON object, or None (missing, not JSON, not an object)."""
    text = read(ev_id)
    if not text:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def kind_of(report: Report) -> dict[str, str]:
    """Evidence id -> kind."""
    return {e.id: e.kind for e in report.evidence}
