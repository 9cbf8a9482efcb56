"""What the provisioning shapes share: an artifact folder, a paper, the sandboxes they need, and reading a run's
evidence back."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

PAPER = """# Counting Type Errors Across Projects

*Anonymous authors*

## Abstract

We present a checker that reports the type errors of each project of a benchmark. On four projects it reports
41 errors.

## Evaluation

Table 1 lists the errors found per project (12, 7, 9 and 13); `main.py` regenerates it.
"""
TABLE_LINE = "errors found per project: 12 7 9 13"
INTRO = ("The checker reports the type errors of each project of the benchmark: it counts the errors per project "
         "and prints the counts of Table 1 of the paper (the checker, the projects and the benchmark).\n")


def write_artifact(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def write_paper(path: Path, text: str = PAPER) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def need_local() -> None:
    from artifactcopilot.sandbox import bwrap

    if bwrap.probe() is not None:
        pytest.skip(f"no local sandbox here: {bwrap.probe()}")


def need_docker(mirror: bool = False) -> None:
    import urllib.request

    from artifactcopilot.sandbox.image import DEFAULT_IMAGE, EngineUnavailable, connect, debian_mirror, image_present

    try:
        client = connect(timeout=5)
    except EngineUnavailable as exc:
        pytest.skip(f"no Docker engine: {exc}")
    if not image_present(client, DEFAULT_IMAGE):
        pytest.skip(f"the base image {DEFAULT_IMAGE} is missing")
    if mirror:
        try:
            urllib.request.urlopen(f"{debian_mirror()}/dists/bookworm/Release", timeout=5).close()
        except OSError as exc:
            pytest.skip(f"no network to the Debian mirror: {exc}")


def need_pypi() -> None:
    import urllib.request

    try:
        urllib.request.urlopen("https://pypi.org/simple/six/", timeout=5).close()
    except OSError as exc:
        pytest.skip(f"no network to PyPI: {exc}")


def item(report, dim: str, name: str):
    return next(c for c in report.dimensions[dim].checklist if c.item == name)


def logs(run: Path, phase: str | None = None) -> list[str]:
    """The text of every command log of the run (of one phase when given)."""
    folder = run / "evidence"
    return [p.read_text(encoding="utf-8", errors="replace") for p in sorted(folder.rglob("*.log"))
            if phase is None or p.name.startswith(phase) or f"/{phase}/" in p.as_posix()]


def packet(run: Path, phase: str) -> dict:
    return json.loads((run / "packets" / f"{phase}.json").read_text(encoding="utf-8"))
