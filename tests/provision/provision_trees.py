"""Helpers for planner tests: artifacts as small in-memory file trees (imported by the test modules)."""
from __future__ import annotations

from artifactcopilot.provision import InstallStep

LOCAL = {"3.11": "python3"}
SUITES = {"3.9": "bullseye", "3.11": "bookworm", "3.13": "trixie"}


class Tree(dict):
    """path -> text; `files` and `read` are what plan_environment takes."""

    @property
    def files(self) -> list[str]:
        return sorted(self)

    def read(self, rel: str) -> str | None:
        value = self.get(rel)
        if isinstance(value, bytes):
            return value.decode("utf-8", errors="replace")
        return value


def doc(cmd: str, cwd: str = ".", source: str = "README.md:1", runner: str | None = None, inner: str = "",
        env: dict | None = None) -> InstallStep:
    return InstallStep(cmd=cmd, inner=inner, runner=runner, cwd=cwd, source=source, env=env or {})

