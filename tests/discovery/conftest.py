"""Fixtures for discovery tests."""
from __future__ import annotations

import pytest

from artifactcopilot.discovery import DirectoryView, Discovery, discover

from .helpers import write_tree


@pytest.fixture
def run(tmp_path):
    """run(files, paper=None) -> Discovery over a tree written to tmp_path."""

    def _run(files: dict[str, str | bytes], paper: str | None = None) -> Discovery:
        root = write_tree(tmp_path / "artifact", files)
        return discover(DirectoryView(root), paper)

    return _run
