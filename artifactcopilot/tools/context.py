"""What every tool of one review shares: the evidence store, the paper, the acquired artifact, the
sandbox session, the flag log and the review's options. Tools are grouped by capability (reading,
running, comparing, recording), each constructed for one phase (see `scope.py`)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..acquire.download import Acquisition, acquire
from ..acquire.paper import Paper
from ..config import MAX_ATTEMPTS, REVIEW_BUDGET_S, TIMEOUT_S
from ..errors import AcquisitionError
from ..evidence import EvidenceStore
from ..flaglog import FlagLog
from ..interventions import Classifier, default_classifier
from ..sandbox.base import SAFE_PATH, VENV, Sandbox, Session


@dataclass
class ReviewOptions:
    """Settings of one review that agents and tools read."""

    timeout_s: float = TIMEOUT_S
    """Per-command time limit for artifact commands."""
    max_attempts: int = MAX_ATTEMPTS
    """Packet submissions per phase before the checker commits a downgraded packet."""
    stability_rerun_max_s: float = 120.0
    """Rerun a workflow to check stability only when its first run took less than this."""
    budget_s: float = REVIEW_BUDGET_S
    """Time for the artifact's commands in the whole review, shared out per phase."""


@dataclass
class ReviewContext:
    store: EvidenceStore
    paper: Paper
    source: str
    """The artifact as given (path or URL)."""
    sandbox: Sandbox
    flags: FlagLog = field(default_factory=FlagLog)
    options: ReviewOptions = field(default_factory=ReviewOptions)
    classifier: Classifier = field(default_factory=default_classifier)
    cache_dir: Path | None = None
    """Download cache for remote artifacts (None: env ARTIFACTCOPILOT_CACHE_DIR, else the user cache dir)."""
    acquisition: Acquisition | None = None
    session: Session | None = None
    command_seconds: float = 0.0
    """Time spent inside artifact commands (the review's own overhead is the rest)."""
    documented_workflow: set[str] = field(default_factory=set)
    """Documented workflow commands: D2's setup tool refuses to run them."""
    progress: Callable[[str, str, str], None] | None = None
    """The review's progress callback (phase, event, detail): 'command' when one starts, 'output' with its latest
    line, 'command-done' when it ends — what a live view shows."""
    venv_ready: bool = False
    """The review's virtual environment exists: artifact commands run with it first on PATH."""

    def run_env(self, env: dict[str, str] | None = None) -> dict[str, str]:
        """The environment of an artifact command: the review's venv activated once it exists, then `env`."""
        base = {"VIRTUAL_ENV": VENV, "PATH": f"{VENV}/bin:{SAFE_PATH}"} if self.venv_ready else {"PATH": SAFE_PATH}
        merged = {**base, **(env or {})}
        if "$PATH" in merged["PATH"]:  # a step's PATH that extends the sandbox's own
            merged["PATH"] = merged["PATH"].replace("$PATH", base["PATH"])
        return merged

    @property
    def root(self) -> Path | None:
        return self.acquisition.root if self.acquisition and self.acquisition.ok else None

    def artifact_root(self) -> Path:
        """The acquired artifact's folder, which commands need (the gate ends a review that has none)."""
        if self.root is None:
            raise AcquisitionError("the artifact was not acquired: there is nothing to run")
        return self.root

    def acquire(self) -> Acquisition:
        if self.acquisition is None:
            self.acquisition = acquire(self.source, self.store.root / "acquired", cache_dir=self.cache_dir)
        return self.acquisition

    def files(self) -> list[str]:
        return list(self.acquisition.files) if self.acquisition else []

    def close(self) -> None:
        if self.session is not None:
            self.session.close()
            self.session = None
