"""Locate the data folders (skills/, rubric/, schemas/) in a source tree or an installed wheel."""
from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """Return the folder `name`; a wheel ships it under `_data/`, a checkout at the repo root."""
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"data folder '{name}' not found next to the artifactcopilot package")
