"""Small artifacts in the shapes of documented routes: runtime tables, commands named in prose, folders to stand in,
prerequisites in prose, documented reductions. Written into a temporary folder by the tests."""
from __future__ import annotations

from pathlib import Path

from artifactcopilot.discovery import DirectoryView, discover
from artifactcopilot.route import Route, plan_route

PAPER = """# Private Counting with Sketches

*Anonymous authors*

## Abstract

We count distinct items under local differential privacy with sketches. Figure 2 shows the error of each sketch,
Figure 3 its variance over epsilon, Table 2 the accuracy per data set and Table 6 the running time.

## Evaluation

Table 2: Accuracy of each sketch per data set.

| Sketch | Adult | Census |
|---|---|---|
| HLL | 0.91 | 0.88 |
| CMS | 0.85 | 0.83 |
"""

OBJECTS = {"Figure 2", "Figure 3", "Table 2", "Table 6"}


ABOUT = ("Artifact of *Private Counting with Sketches*: distinct items counted under local differential privacy with "
         "HLL and CMS sketches.\n\n")


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """The files under `root`; a README starts with what the artifact is (the paper's terms)."""
    for rel, text in files.items():
        if rel == "README.md" and text.startswith("# "):
            title, _, rest = text.partition("\n")
            text = f"{title}\n\n{ABOUT}{rest.lstrip()}"
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def route_of(root: Path, objects: set[str] = frozenset(OBJECTS)) -> Route:
    view = DirectoryView(root)
    return plan_route(discover(view), set(objects), view.read, view.files)


def script(name: str, body: str = "") -> str:
    """A small Python script that prints its name (and runs `body` first)."""
    return f"{body}\nprint('{name} done')\n"
