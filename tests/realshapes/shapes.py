"""Small artifacts in the shapes real artifacts take, written into a temporary folder by the tests."""
from __future__ import annotations

from pathlib import Path

PAPER = """# Checking Type Annotations at Scale

*Anonymous authors*

## Abstract

We present a checker that runs a language server over each project of a benchmark and reports the type errors
it finds. On eight projects it reports 41 errors, 12 of them confirmed by the developers.

## Evaluation

Table 1 lists the errors found per project; `evaluate.py` regenerates it.
"""


def write_artifact(root: Path, readme: str, files: dict[str, str]) -> Path:
    """An artifact folder with a README and the given files (relative path -> text)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "README.md").write_text(readme, encoding="utf-8")
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def write_paper(path: Path, text: str = PAPER) -> Path:
    path.write_text(text, encoding="utf-8")
    return path
