"""Script-based classifier of reviewer actions into I0–I4 (rules in rubric/interventions.yaml).

Every action is classified *before* it runs and logged at once, so a later phase cannot lower it.
"""
from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from .errors import RubricError
from .models import InterventionLevel
from .resources import data_dir

ACTION_KINDS = {"run", "install", "env", "version", "path_fix", "command_fix", "wait", "edit", "create_file", "prepare",
                "evaluate", "reduce", "network"}


@dataclass(frozen=True)
class Action:
    kind: str
    command: str = ""
    documented: bool = False
    target: str | None = None  # file an edit touches, relative to the artifact root


@dataclass(frozen=True)
class Classification:
    level: InterventionLevel
    rule: str
    impact: str


@dataclass(frozen=True)
class Classifier:
    rules: tuple[dict, ...]
    non_core: tuple[str, ...]
    code: tuple[str, ...] = ()
    """Patterns of the artifact's code files (an undocumented change to one is a core edit)."""

    @staticmethod
    def _matches(target: str, patterns: tuple[str, ...]) -> bool:
        name = Path(target).name
        return any(fnmatch.fnmatch(target, p) or fnmatch.fnmatch(name, p) for p in patterns)

    def edit_of(self, path: str) -> str | None:
        """What changing a pre-existing file is: 'core' (code), 'non_core' (configuration, docs), None (data/output)."""
        if self._matches(path, self.non_core):
            return "non_core"
        return "core" if self._matches(path, self.code) else None

    def target_class(self, target: str | None) -> str | None:
        if target is None:
            return None
        return "non_core" if self._matches(target, self.non_core) else "core"

    def classify(self, action: Action) -> Classification:
        if action.kind not in ACTION_KINDS:
            raise RubricError(f"unknown action kind '{action.kind}'")
        fields = {"kind": action.kind, "documented": action.documented, "command": action.command,
                  "target_class": self.target_class(action.target)}
        for rule in self.rules:
            if all(self._holds(key, want, fields) for key, want in rule["match"].items()):
                return Classification(InterventionLevel(rule["level"]), rule["id"], rule["impact"])
        raise RubricError(f"no intervention rule classifies action {action}")

    @staticmethod
    def _holds(key: str, want, fields: dict) -> bool:
        if key not in fields:
            raise RubricError(f"intervention rule names unknown field '{key}'")
        have = fields[key]
        if key == "command":
            return bool(re.search(want, have or ""))
        if isinstance(want, list):
            return have in want
        return have == want


def load_classifier(path: Path | None = None) -> Classifier:
    path = path or data_dir("rubric") / "interventions.yaml"
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    for rule in doc["rules"]:
        InterventionLevel(rule["level"])
        for key in rule["match"]:
            if key not in ("kind", "documented", "command", "target_class"):
                raise RubricError(f"interventions.yaml rule {rule['id']}: unknown field '{key}'")
    return Classifier(tuple(doc["rules"]), tuple(doc.get("non_core_patterns", [])), tuple(doc.get("code_patterns", [])))


@lru_cache(maxsize=1)
def default_classifier() -> Classifier:
    return load_classifier()
