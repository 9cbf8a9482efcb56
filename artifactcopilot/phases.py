"""The review's phases, dimensions, gate checks and badges, declared once in the rubric data.

`rubric/phases.yaml` orders the phases, `gate.yaml` names the gate checks, `dimensions.yaml` the
dimensions' titles and `badges.yaml` the badges in evaluation order. Everything that lists them —
the graph, console and report titles, report sections, batch columns and summary models, shipped
schemas, confidence — asks this registry instead of spelling them out.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import yaml

from .errors import RubricError
from .resources import data_dir

PhaseKind = Literal["gate", "dimension"]


@dataclass(frozen=True)
class PhaseSpec:
    """One phase of the review."""

    id: str
    """Phase id: `gate`, `D1` … as used in packets, evidence ids and skills."""
    kind: PhaseKind
    """gate: decides the gate checks and may end the review; dimension: scored R/WR/WA/A."""
    title: str
    """Short title for the console and the report, e.g. 'D3 execution'."""
    name: str = ""
    """The dimension's full name from dimensions.yaml (empty for the gate)."""
    workflow_evidence: bool = False
    """Whether its evidence level counts towards the review's overall evidence level."""


@dataclass(frozen=True)
class Registry:
    phases: tuple[PhaseSpec, ...]
    gate_checks: tuple[str, ...]
    """Gate check ids in order (GC1 …)."""
    badges: tuple[str, ...]
    """Badge ids in evaluation order (available, functional, reusable, reproduced)."""
    tiers: tuple[str, ...]
    """The report's `badge` ladder, lowest first, starting with 'none'."""
    badge_rules: tuple[tuple[str, str], ...] = ()
    """(badge, its rule in words) from badges.yaml, e.g. ('available', 'GC1–GC3 pass')."""

    def badge_rule(self, badge: str) -> str:
        return dict(self.badge_rules).get(badge, "")

    @property
    def phase_ids(self) -> tuple[str, ...]:
        return tuple(p.id for p in self.phases)

    @property
    def dimensions(self) -> tuple[str, ...]:
        return tuple(p.id for p in self.phases if p.kind == "dimension")

    @property
    def gate_phase(self) -> str:
        return next(p.id for p in self.phases if p.kind == "gate")

    @property
    def workflow_phases(self) -> tuple[str, ...]:
        return tuple(p.id for p in self.phases if p.workflow_evidence)

    def spec(self, phase: str) -> PhaseSpec:
        for p in self.phases:
            if p.id == phase:
                return p
        raise RubricError(f"unknown phase '{phase}'")

    def title(self, phase: str) -> str:
        return next((p.title for p in self.phases if p.id == phase), "Report" if phase == "report" else phase)

    def next_phase(self, phase: str) -> str:
        ids = self.phase_ids
        i = ids.index(phase)
        return ids[i + 1] if i + 1 < len(ids) else "report"

    def dimension_span(self) -> str:
        """'D1–D5': how texts name all dimensions at once."""
        dims = self.dimensions
        return f"{dims[0]}–{dims[-1]}" if len(dims) > 1 else (dims[0] if dims else "")


def _yaml(folder: Path, name: str) -> Any:
    path = folder / name
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RubricError(f"rubric file missing: {path}") from None
    except yaml.YAMLError as exc:
        raise RubricError(f"rubric file {path} is not valid YAML: {exc}") from None


def load_registry(folder: Path | None = None) -> Registry:
    folder = folder or data_dir("rubric")
    doc = _yaml(folder, "phases.yaml")
    dims_doc = _yaml(folder, "dimensions.yaml") or {}
    phases = []
    for raw in (doc or {}).get("phases", []):
        if not isinstance(raw, dict) or raw.get("kind") not in ("gate", "dimension") or not raw.get("id"):
            raise RubricError(f"phases.yaml: malformed phase entry {raw!r}")
        name = (dims_doc.get(raw["id"]) or {}).get("title", "") if raw["kind"] == "dimension" else ""
        phases.append(PhaseSpec(id=str(raw["id"]), kind=raw["kind"], title=str(raw.get("title") or raw["id"]),
                                name=name, workflow_evidence=bool(raw.get("workflow_evidence"))))
    if [p.kind for p in phases].count("gate") != 1 or phases[0].kind != "gate":
        raise RubricError("phases.yaml: the first phase, and only it, must be the gate")
    dims = [p.id for p in phases if p.kind == "dimension"]
    if set(dims) != set(dims_doc):
        raise RubricError(f"phases.yaml and dimensions.yaml disagree: phases {', '.join(dims)}; "
                          f"dimensions {', '.join(dims_doc)}")
    checks = tuple((_yaml(folder, "gate.yaml") or {}).get("checks", {}))
    badge_doc = _yaml(folder, "badges.yaml") or {}
    tiers = ("none",) + tuple(b for b, spec in badge_doc.items() if spec.get("tier"))
    rules = tuple((b, str((spec or {}).get("rule", ""))) for b, spec in badge_doc.items())
    return Registry(phases=tuple(phases), gate_checks=checks, badges=tuple(badge_doc), tiers=tiers, badge_rules=rules)


@lru_cache(maxsize=1)
def registry() -> Registry:
    return load_registry()
