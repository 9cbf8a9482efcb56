"""Documentation discovery: what an artifact's docs tell a reviewer to read, install, unpack and run.

    from artifactcopilot.discovery import DirectoryView, discover
    found = discover(DirectoryView("path/to/artifact"), paper_text)
    for step in found.steps: print(step.kind, step.cwd, step.cmd)
"""
from __future__ import annotations

from .discover import discover
from .model import (
                    ApiExample,
                    BadgeRequest,
                    Discovery,
                    DocCost,
                    DocFile,
                    DocSection,
                    DocumentedOutput,
                    DriverScript,
                    EnvVar,
                    ExpectedOutput,
                    InputFormat,
                    MakeTarget,
                    Notebook,
                    OptionDoc,
                    Placeholder,
                    Prerequisite,
                    ReuseHints,
                    Step,
)
from .view import ArtifactView, DirectoryView

__all__ = ["ApiExample", "ArtifactView", "BadgeRequest", "DirectoryView", "Discovery", "DocCost", "DocFile",
           "DocSection", "DocumentedOutput", "DriverScript", "EnvVar", "ExpectedOutput", "InputFormat", "MakeTarget",
           "Notebook", "OptionDoc", "Placeholder", "Prerequisite", "ReuseHints", "Step", "discover"]
