"""The sandbox backends and how a review, a batch, `copilot repro`, `copilot judge` and `copilot doctor` open one.

A backend is one module exposing `BACKEND` (see `Backend`) plus one line in `BACKENDS`. `auto` picks
the first usable backend in `AUTO_ORDER`; a backend that cannot provide the isolation it promises
refuses with one line saying what is missing and what to use instead — a review never runs half-isolated.
"""
from __future__ import annotations

import importlib
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ..errors import CopilotError, UsageError
from .base import Limits, Sandbox

BACKENDS: dict[str, str] = {
    "docker": "artifactcopilot.sandbox.docker",
    "local": "artifactcopilot.sandbox.local",
}
"""Backend name -> module exposing BACKEND."""
AUTO_ORDER = ("docker", "local")
SCRATCH_PREFIX = "copilot-sandbox-"


class SandboxUnavailable(CopilotError):
    """The requested sandbox cannot run here with the isolation it promises (exit 1)."""


@dataclass
class SandboxOptions:
    """Everything a backend needs to open a sandbox."""

    limits: Limits = field(default_factory=Limits)
    scratch: Path | None = None
    """Parent folder for the sandbox's own folder of artifact copies (None: the system temp dir); keep it outside
    the run directory and anything the review trusts."""
    image: str | None = None
    """Container image for backends that run containers (None: the built-in base image)."""
    review: str = ""
    """Label tying containers to one review (for cleanup after a crash)."""

    def scratch_dir(self) -> Path:
        """A new folder of this sandbox's own (removed when the sandbox closes)."""
        if self.scratch is not None:
            self.scratch.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=SCRATCH_PREFIX, dir=self.scratch))


class Backend(Protocol):
    name: str

    def check(self, options: SandboxOptions) -> str | None:
        """None when this machine can run the backend; else one line: what is missing and what to use instead."""
        ...

    def open(self, options: SandboxOptions) -> Sandbox: ...

    def doctor(self, options: SandboxOptions, clean: bool = False,
               build_base: bool = False) -> list[tuple[str, str, str]]:
        """(check, ok|warn|FAIL, detail) rows for `copilot doctor`; clean and build_base repair what they can."""
        ...


def names() -> list[str]:
    return ["auto", *BACKENDS]


def backend(name: str) -> Backend:
    if name not in BACKENDS:
        raise UsageError(f"unknown sandbox '{name}'", f"use {', '.join(names())}")
    return importlib.import_module(BACKENDS[name]).BACKEND


def open_sandbox(name: str, options: SandboxOptions) -> tuple[Sandbox, list[str]]:
    """The sandbox to run artifact commands in, and why backends tried before it were passed over."""
    candidates = AUTO_ORDER if name == "auto" else (name,)
    passed_over: list[str] = []
    for candidate in candidates:
        chosen = backend(candidate)
        problem = chosen.check(options)
        if problem is None:
            return chosen.open(options), passed_over
        passed_over.append(problem if name != "auto" else f"{candidate}: {problem}")
    if name != "auto":
        raise SandboxUnavailable(passed_over[0])
    raise SandboxUnavailable(f"no sandbox can run here ({'; '.join(passed_over)})",
                             "see `copilot doctor` for what each needs")
