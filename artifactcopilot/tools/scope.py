"""The tools one phase may use: its skill's Tool Scope, each capability constructed for that phase."""
from __future__ import annotations

from pathlib import Path

from ..acquire.download import Acquisition
from ..acquire.paper import Paper
from ..errors import ToolScopeError
from ..evidence import EvidenceStore
from ..sandbox.base import Session
from .comparing import Comparing
from .context import ReviewContext, ReviewOptions
from .reading import Reading
from .recording import Recording
from .registry import TOOLS
from .running import Running

CAPABILITIES = {"reading": Reading, "running": Running, "comparing": Comparing, "recording": Recording}


class PhaseTools:
    """What an agent holds during one phase: the review's context (read-only) and the tools of its scope."""

    def __init__(self, ctx: ReviewContext, phase: str, scope: tuple[str, ...]):
        self.ctx, self.phase = ctx, phase
        self.scope = frozenset(scope) | {n for n, s in TOOLS.items() if s.granted_with in scope}
        self._capabilities = {name: cls(ctx, phase) for name, cls in CAPABILITIES.items()}

    @property
    def source(self) -> str:
        """The artifact as the reviewer gave it (path or URL)."""
        return self.ctx.source

    @property
    def store(self) -> EvidenceStore:
        return self.ctx.store

    @property
    def paper(self) -> Paper:
        return self.ctx.paper

    @property
    def options(self) -> ReviewOptions:
        return self.ctx.options

    @property
    def root(self) -> Path | None:
        return self.ctx.root

    @property
    def acquisition(self) -> Acquisition | None:
        return self.ctx.acquisition

    @property
    def session(self) -> Session | None:
        return self.ctx.session

    @property
    def documented_workflow(self) -> set[str]:
        return self.ctx.documented_workflow

    def __getattr__(self, name: str):
        spec = TOOLS.get(name)
        if spec is None or spec.capability in ("packet", "context"):
            raise AttributeError(name)
        if name not in self.scope:
            raise ToolScopeError(f"phase {self.phase} may not call '{name}' (not in its Tool Scope)")
        return getattr(self._capabilities[spec.capability], name)
