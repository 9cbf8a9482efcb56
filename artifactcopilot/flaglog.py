"""The review's flags as they are raised: `flags.jsonl` in the run directory, append-only.

Phases put their own flags in their packets; what is raised outside a phase — sandbox isolation,
network enabled for an install step, a limit a command ran into, an agent falling back — is written
here by whoever observed it, and the report reads it back. Nothing is appended to an input object.
"""
from __future__ import annotations

import json
from pathlib import Path

from .models import Flag


class FlagLog:
    def __init__(self, path: Path | None = None):
        self.path = path
        self._flags: list[Flag] = []
        if path is not None and path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    self._flags.append(Flag.model_validate_json(line))
                except ValueError:
                    continue  # a torn last line from a crash

    def add(self, flag: Flag) -> None:
        if flag in self._flags:
            return
        self._flags.append(flag)
        if self.path is not None:
            with open(self.path, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(flag.model_dump(mode="json"), sort_keys=True) + "\n")

    def extend(self, flags: list[Flag]) -> None:
        for flag in flags:
            self.add(flag)

    def all(self) -> list[Flag]:
        return list(self._flags)
