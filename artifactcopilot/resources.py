"""Locate the data folders (skills/, rubric/, schemas/) in a source tree or an installed wheel."""
from __future__ import annotations

import os
from pathlib import Path

DATA_ENV = "ARTIFACTCOPILOT_DATA_DIR"
"""A folder holding rubric/, skills/, schemas/ and prompts/ that replaces the shipped ones (a rubric
under development, an extra phase)."""
_PACKAGE = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """Return the folder `name`: from $ARTIFACTCOPILOT_DATA_DIR when set, else the wheel's `_data/`,
    else the checkout's root."""
    override = os.environ.get(DATA_ENV)
    if override and (Path(override) / name).is_dir():
        return Path(override) / name
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"data folder '{name}' not found next to the artifactcopilot package")
