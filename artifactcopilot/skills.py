"""Phase skills: `skills/<phase>.md` with YAML front matter and an instruction body."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import yaml

from .errors import RubricError
from .phases import registry
from .resources import data_dir


@dataclass(frozen=True)
class EvidenceContract:
    checklist: tuple[str, ...] = ()
    """Checklist items the packet must judge."""
    evidence_kinds: tuple[str, ...] = ()
    """Evidence kinds the packet must cite at least one of each."""
    score: bool = False
    """Whether the packet must carry a dimension score."""


@dataclass(frozen=True)
class Skill:
    phase: str
    objective: str
    tool_scope: tuple[str, ...]
    contract: EvidenceContract
    completion_criteria: tuple[str, ...]
    body: str = field(repr=False)

    @property
    def text(self) -> str:
        """What an agent reads on entering the phase."""
        criteria = "\n".join(f"- {c}" for c in self.completion_criteria)
        return (f"Phase: {self.phase}\nObjective: {self.objective}\nTools: {', '.join(self.tool_scope)}\n"
                f"Completion criteria:\n{criteria}\n\n{self.body.strip()}\n")


def parse_skill(text: str, source: str) -> Skill:
    if not text.startswith("---"):
        raise RubricError(f"skill {source} has no front matter")
    try:
        _, front, body = text.split("---", 2)
        meta = yaml.safe_load(front)
        contract = meta["evidence_contract"]
        return Skill(phase=meta["phase"], objective=meta["objective"], tool_scope=tuple(meta["tool_scope"]),
                     contract=EvidenceContract(tuple(contract.get("checklist", [])),
                                               tuple(contract.get("evidence_kinds", [])), bool(contract.get("score"))),
                     completion_criteria=tuple(meta["completion_criteria"]), body=body)
    except (ValueError, KeyError, TypeError, yaml.YAMLError) as exc:
        raise RubricError(f"skill {source} is malformed: {exc}") from None


def load_skills(folder: Path | None = None) -> dict[str, Skill]:
    folder = folder or data_dir("skills")
    skills = {}
    for path in sorted(folder.glob("*.md")):
        skill = parse_skill(path.read_text(encoding="utf-8"), path.name)
        skills[skill.phase] = skill
    missing = {*registry().phase_ids, "report"} - set(skills)
    if missing:
        raise RubricError(f"skills missing for phases: {', '.join(sorted(missing))}")
    return skills


@lru_cache(maxsize=1)
def default_skills() -> dict[str, Skill]:
    return load_skills()
