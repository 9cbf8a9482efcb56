"""What every tool of one review shares: the evidence store, the paper, the acquired artifact, the
sandbox session, the flag log and the review's options. Tools are grouped by capability (reading,
running, comparing, recording), each constructed for one phase (see `scope.py`)."""
from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path

from ..acquire.download import Acquisition, acquire
from ..acquire.paper import Paper
from ..acquire.union import acquire_linked
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
    offline: bool = False
    """--offline: no command gets network, linked repositories are not fetched, a remote artifact only from the
    download cache."""


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
    _started: Future[Session] | None = field(default=None, repr=False)
    """The session `prestart` began, until `ensure_session` takes it."""
    _prestarted: bool = field(default=False, repr=False)

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
        """The artifact, with what it says lives elsewhere (submodules, linked repositories) acquired into it."""
        if self.acquisition is None:
            offline, work = self.options.offline, self.store.root / "acquired"
            self.acquisition = acquire(self.source, work, cache_dir=self.cache_dir, offline=offline)
            acquire_linked(self.acquisition, work, self.cache_dir, offline)
        return self.acquisition

    def files(self) -> list[str]:
        return list(self.acquisition.files) if self.acquisition else []

    def prestart(self) -> None:
        """Begin the review's session in the background, once, as soon as the artifact is here: creating it (a
        container, for Docker) then overlaps with the phases that only read. Its errors surface in `take_started`."""
        if self._prestarted or self.session is not None or self.root is None:
            return
        self._prestarted, root = True, self.root
        future: Future[Session] = Future()

        def start() -> None:
            try:
                future.set_result(self.sandbox.start(root))
            except BaseException as exc:  # noqa: BLE001 - raised where the session is needed
                future.set_exception(exc)

        self._started = future
        threading.Thread(target=start, name="start-session", daemon=True).start()

    def take_started(self) -> Session | None:
        """Make the session `prestart` began the review's session (waiting for it; its error if it failed); None
        when there was none. A signal while it waits leaves it pending, for `close`."""
        future = self._started
        if future is None or self.session is not None:
            return self.session
        try:
            self.session = future.result()
        finally:
            if future.done():
                self._started = None
        return self.session

    def close(self) -> None:
        if self._started is not None:  # begun but never used: wait for it, then close it like any session
            try:
                self.take_started()
            except Exception:  # noqa: BLE001 - it never started: nothing to close
                pass
        if self.session is not None:
            self.session.close()
            self.session = None
