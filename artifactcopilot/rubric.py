"""Load ArtifactGuide from `rubric/*.yaml` and validate it before any review starts.

Every condition is parsed at load time and every fact it names must be declared in
`facts.yaml` (or be a checklist item of `dimensions.yaml`); a typo is a RubricError, never a
condition that is silently false.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from .errors import RubricError
from .models import EvidenceLevel, InterventionLevel, Score
from .phases import Registry, load_registry
from .resources import data_dir

FACT_TYPES = {"bool", "score", "intervention", "evidence", "number", "text"}
_ENUMS = {"score": Score, "intervention": InterventionLevel, "evidence": EvidenceLevel}
_CONDITION = re.compile(r"^\s*([A-Za-z0-9_.]+)\s*(==|!=|>=|<=|>|<)\s*(.+?)\s*$")


@dataclass(frozen=True)
class Condition:
    """`fact op value`, with the value already typed."""

    text: str
    fact: str
    op: str
    value: Any


@dataclass
class LevelRule:
    all_of: list[str] = field(default_factory=list)
    at_least: tuple[int, list[str]] | None = None
    facts: list[Condition] = field(default_factory=list)
    none_of: list[str] = field(default_factory=list)
    """Findings that rule the level out: items that must not be satisfied (an item the phase did not establish
    does not rule it out — a contradiction needs evidence, as any finding does)."""


@dataclass
class Dimension:
    id: str
    title: str
    criteria: dict[str, str]
    items: dict[str, str]
    levels: dict[str, LevelRule]  # ordered A, WA, WR


@dataclass
class BadgeRule:
    id: str
    title: str
    rule: str
    conditions: list[Condition]


@dataclass
class CrossCheck:
    code: str
    severity: str
    message: str
    when: list[Condition]
    then: list[Condition]


@dataclass
class Rubric:
    registry: Registry
    """Phases, dimensions, gate checks and badges (rubric/phases.yaml and friends)."""
    gate: dict[str, dict[str, str]]
    gc3: dict[str, int]
    dimensions: dict[str, Dimension]
    levels: dict[str, dict[str, str]]
    facts: dict[str, str]  # fact name -> type
    fact_evidence: dict[str, str]
    """Packet-computed facts: fact name -> the packet fact key that lists its evidence ids."""
    badges: list[BadgeRule]
    crosschecks: list[CrossCheck]
    advice: dict[str, str] = field(default_factory=dict)
    """fact -> what authors could do when a badge condition on it fails (advice.yaml)."""
    declared: dict[str, str] = field(default_factory=dict)
    """The facts facts.yaml declares (name -> type): the only facts a phase's packet may state."""
    fact_docs: dict[str, str] = field(default_factory=dict)
    """What a declared fact states, in words (facts.yaml `doc`)."""

    def phase_items(self, phase: str) -> list[str]:
        """The checklist items a phase judges: the gate's checks, or the dimension's items."""
        if phase == self.registry.gate_phase:
            return list(self.registry.gate_checks)
        return list(self.dimensions[phase].items) if phase in self.dimensions else []

    def packet_facts(self, phase: str) -> dict[str, str]:
        """The facts a phase's packet may state (packet fact key -> declared type), with the keys that list the
        evidence behind them (type `evidence-ids`). A declared fact that is also a checklist item is read from the
        checklist; the packet fact of that name must agree with it (the checker says so)."""
        out: dict[str, str] = {}
        for name, kind in self.declared.items():
            prefix, _, key = name.partition(".")
            if prefix == phase:
                out[key] = kind
            if prefix == phase and name in self.fact_evidence:
                out[self.fact_evidence[name]] = "evidence-ids"
        return out

    def item_text(self, item_id: str) -> str:
        """Human text for any checklist item id (GC*, RW*, D*.x)."""
        if item_id in self.gate:
            return self.gate[item_id]["title"]
        if item_id in self.levels["representative_workflow"]:
            return self.levels["representative_workflow"][item_id]
        for dim in self.dimensions.values():
            if item_id in dim.items:
                return dim.items[item_id]
        return item_id


def _read(folder: Path, name: str) -> Any:
    path = folder / name
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RubricError(f"rubric file missing: {path}") from None
    except yaml.YAMLError as exc:
        raise RubricError(f"rubric file {path} is not valid YAML: {exc}") from None


def parse_condition(text: str, facts: dict[str, str], where: str) -> Condition:
    match = _CONDITION.match(str(text))
    if not match:
        raise RubricError(f"{where}: cannot parse condition '{text}' (expected 'FACT OP VALUE')")
    fact, op, raw = match.groups()
    if fact not in facts:
        raise RubricError(f"{where}: unknown fact '{fact}' in condition '{text}'")
    return Condition(text=text.strip(), fact=fact, op=op, value=_typed_value(raw, facts[fact], where, text))


def _typed_value(raw: str, kind: str, where: str, text: str) -> Any:
    raw = raw.strip()
    try:
        if kind == "bool":
            if raw not in ("true", "false"):
                raise ValueError
            return raw == "true"
        if kind in _ENUMS:
            return _ENUMS[kind](raw)
        if kind == "number":
            return float(raw)
        return raw.strip("'\"")
    except ValueError:
        raise RubricError(f"{where}: value '{raw}' does not fit a {kind} fact in '{text}'") from None


def _level_rule(spec: dict, facts: dict[str, str], where: str) -> LevelRule:
    unknown = set(spec) - {"all_of", "at_least", "facts", "none_of"}
    if unknown:
        raise RubricError(f"{where}: unknown keys {sorted(unknown)}")
    rule = LevelRule(all_of=list(spec.get("all_of", [])))
    if "at_least" in spec:
        rule.at_least = (int(spec["at_least"]["n"]), list(spec["at_least"]["of"]))
    rule.facts = [parse_condition(c, facts, where) for c in spec.get("facts", [])]
    rule.none_of = list(spec.get("none_of", []))
    for item in rule.all_of + (rule.at_least[1] if rule.at_least else []) + rule.none_of:
        if facts.get(item) != "bool":
            raise RubricError(f"{where}: unknown checklist item '{item}'")
    return rule


def _generic_facts(registry: Registry) -> dict[str, str]:
    """Facts every review computes the same way for each gate check, dimension and badge."""
    facts = {f"gate.{gc}": "bool" for gc in registry.gate_checks}
    for dim in registry.dimensions:
        facts[f"{dim}.score"] = "score"
        facts[f"{dim}.evidence_level"] = "evidence"
    facts.update({f"badge.{b}": "bool" for b in registry.badges})
    facts.update({"evidence_level": "evidence", "max_intervention": "intervention"})
    return facts


def load_rubric(folder: Path | None = None) -> Rubric:
    folder = folder or data_dir("rubric")
    registry = load_registry(folder)
    gate_doc = _read(folder, "gate.yaml")
    dims_doc = _read(folder, "dimensions.yaml")
    facts_doc = _read(folder, "facts.yaml") or {}
    facts, fact_evidence = _generic_facts(registry), {}
    for name, spec in facts_doc.items():
        kind = spec.get("type") if isinstance(spec, dict) else None
        if kind not in FACT_TYPES:
            raise RubricError(f"facts.yaml: fact '{name}' has unknown type '{kind}'")
        if name in facts:
            raise RubricError(f"facts.yaml: fact '{name}' is computed for every review from its evidence; "
                              "no phase may state it")
        if name.partition(".")[0] not in registry.dimensions:
            raise RubricError(f"facts.yaml: fact '{name}' does not start with the dimension that states it")
        facts[name] = kind
        if spec.get("evidence"):
            fact_evidence[name] = str(spec["evidence"])
    for _dim_id, spec in dims_doc.items():
        for item in spec["items"]:
            facts[item] = "bool"
    dimensions = {}
    for dim_id, spec in dims_doc.items():
        levels = {}
        for level in ("A", "WA", "WR"):
            if level not in spec["levels"]:
                raise RubricError(f"dimensions.yaml: {dim_id} lacks a rule for level {level}")
            levels[level] = _level_rule(spec["levels"][level], facts, f"dimensions.yaml {dim_id}.{level}")
        dimensions[dim_id] = Dimension(dim_id, spec["title"], spec["criteria"], spec["items"], levels)
    badges = [
        BadgeRule(bid, spec["title"], spec["rule"],
                  [parse_condition(c, facts, f"badges.yaml {bid}") for c in spec["all"]])
        for bid, spec in _read(folder, "badges.yaml").items()
    ]
    crosschecks = [
        CrossCheck(c["code"], c["severity"], c["message"],
                   [parse_condition(x, facts, f"crosschecks.yaml {c['code']}") for x in c["if"]],
                   [parse_condition(x, facts, f"crosschecks.yaml {c['code']}") for x in c["then"]])
        for c in _read(folder, "crosschecks.yaml")
    ]
    return Rubric(registry=registry, fact_evidence=fact_evidence, gate=gate_doc["checks"], gc3=gate_doc.get("gc3", {}),
                  dimensions=dimensions, levels=_read(folder, "levels.yaml"), facts=facts, badges=badges,
                  crosschecks=crosschecks, advice=_advice(folder, facts),
                  declared={n: facts[n] for n in facts_doc},
                  fact_docs={n: str(spec.get("doc") or "") for n, spec in facts_doc.items() if isinstance(spec, dict)})


def _advice(folder: Path, facts: dict[str, str]) -> dict[str, str]:
    doc = _read(folder, "advice.yaml") if (folder / "advice.yaml").exists() else {}
    unknown = [f for f in (doc or {}) if f not in facts]
    if unknown:
        raise RubricError(f"advice.yaml: unknown facts {', '.join(unknown)}")
    return {str(k): str(v) for k, v in (doc or {}).items()}


@lru_cache(maxsize=1)
def default_rubric() -> Rubric:
    return load_rubric()
