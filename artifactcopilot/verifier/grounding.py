"""The verifier's rule stage: what each claim of a packet must cite to stand, and what remains of a
packet once the claims its evidence does not back are withdrawn.

Only evidence the packet cites counts, and only tool-written evidence: a run's command log (see
`runs.py` for which runs ground a claim) and the comparison records the comparing tools write.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from ..evidence import EvidenceStore
from ..models import Evidence, EvidenceLevel, PhasePacket
from ..rules import supported_score
from .runs import RunView, artifact_files, run_view

RUN_KINDS = ("command", "setup", "probe", "transfer", "provenance")
WITHDRAWN = "withdrawn: "
UNAVAILABLE = "not confirmed: verifier unavailable"
"""How a claim the verifier could not confirm is disputed (and then withdrawn)."""


def _json(store: EvidenceStore, ev: Evidence) -> dict:
    try:
        value = json.loads(store.read(ev.id))
    except (json.JSONDecodeError, OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def cited_ids(packet: PhasePacket) -> list[str]:
    return list(dict.fromkeys(packet.evidence + [e for c in packet.checklist for e in c.evidence]))


class Grounds:
    """What the evidence a packet cites shows, computed once per packet."""

    def __init__(self, packet: PhasePacket, store: EvidenceStore, workflow_phase: bool = True):
        self.store, self.workflow_phase = store, workflow_phase
        self.files = artifact_files(store)
        self.cited = [r for e in cited_ids(packet) if (r := store.get(e)) is not None]
        self.runs = [run_view(store, r, self.files) for r in self.cited if r.kind in RUN_KINDS]
        self._store_runs: dict[str, RunView] | None = None
        self.matched = self.reproduced = self.copied = False
        for record in (_json(store, r) for r in self.cited if r.kind == "comparison"):
            self._read_comparison(record)
        self.acquired = any(
            (d := _json(store, r)).get("file_count") and not d.get("error")
            for r in self.cited
            if r.kind == "acquisition"
        )

    # ---- runs ------------------------------------------------------------------------------------
    def grounded(self, *kinds: str) -> list[RunView]:
        return [r for r in self.runs if r.evidence.kind in kinds and r.grounds]

    def repeated(self, kind: str) -> bool:
        """Two grounded runs of the same command."""
        scripts = [" ".join(r.script.split()) for r in self.grounded(kind)]
        return len(scripts) > len(set(scripts))

    def probed(self) -> bool:
        """An exit-0 probe, setup step or run of some program beyond shell builtins."""
        return any(r.ran_program for r in self.runs if r.evidence.kind in ("probe", "setup", "command"))

    def run_of(self, ev_id: str) -> RunView | None:
        return next((r for r in self._all_runs().values() if r.evidence.id == ev_id), None)

    def _all_runs(self) -> dict[str, RunView]:
        """Every workflow and transfer run of the review (a comparison may read a file one of them wrote)."""
        if self._store_runs is None:
            self._store_runs = {
                ev.id: run_view(self.store, ev, self.files)
                for ev in self.store.all()
                if ev.kind in ("command", "transfer")
            }
        return self._store_runs

    def _source_grounded(self, source: str) -> bool:
        """Whether `source` (a run's evidence id, or a file a run wrote) is the output of a grounding run."""
        run = self.run_of(source)
        if run is not None:
            return run.grounds
        return any(source in r.outputs and r.grounds for r in self._all_runs().values())

    # ---- comparisons -------------------------------------------------------------------------------
    def _read_comparison(self, record: dict) -> None:
        """A compare_table record (one table) or a claim mapping (a list of tables with method verdicts)."""
        if record.get("paper_tables_in_displayed_output") or record.get("copied_tables"):
            self.copied = True
        if "source" in record:
            if record.get("source_kind") == "run-output" and self._source_grounded(str(record["source"])):
                self.matched |= (record.get("matched") or 0) > 0
                # reproduced only when the method judge accepted how the run made the table
                self.reproduced |= bool(record.get("success")) and record.get("method_accepted") is True
            return
        ran = [r for r in self.grounded("command", "transfer")]
        for entry in record.get("tables") or []:
            if not isinstance(entry, dict):
                continue
            if entry.get("method") == "copy":
                self.copied = True
                continue
            source = str(entry.get("source") or "")
            if any(source.startswith("stdout of") or source in r.outputs for r in ran):
                self.matched |= (entry.get("matched") or 0) > 0
                self.reproduced |= entry.get("method") not in (None, "copy")

    def supported_level(self) -> EvidenceLevel:
        if self.reproduced:
            return EvidenceLevel.E3
        if self.grounded("command", "transfer") or self.matched or (not self.workflow_phase and self.probed()):
            return EvidenceLevel.E2
        return EvidenceLevel.E1 if self.cited else EvidenceLevel.E0


Rule = tuple[Callable[[Grounds], bool], str]
RUN = "a documented command (or a logged fix of one) that ran the artifact's own code and exited 0"
ITEM_RULES: dict[str, Rule] = {
    "GC1": (lambda g: g.acquired, "cites no successful acquisition log"),
    "RW3": (lambda g: bool(g.grounded("command")), f"cites no workflow run of {RUN}"),
    "D3.stable": (lambda g: g.repeated("command"), f"cites no second run of the same {RUN[2:]}"),
    "D2.evaluable": (lambda g: g.probed(), "cites no probe or setup step that ran a program and exited 0"),
    "D4.executed": (lambda g: bool(g.grounded("command", "transfer")) or g.matched, f"cites no output of {RUN}"),
    "D4.mapping": (lambda g: g.matched, f"cites no comparison in which the output of {RUN} matched paper cells"),
    "D4.main_result": (
        lambda g: g.reproduced,
        f"cites no comparison in which the output of {RUN} reproduced a paper table",
    ),
    "D5.transfer_validated": (lambda g: bool(g.grounded("transfer")), f"cites no transfer run of {RUN}"),
    "D5.repeatable": (lambda g: g.repeated("transfer"), f"cites no second transfer run of the same {RUN[2:]}"),
}
FACT_RULES: dict[str, Rule] = {
    "table_reproduced": (
        lambda g: g.reproduced,
        f"no cited comparison of the output of {RUN} reproduced a paper table",
    ),
    "transfer_validated": (lambda g: bool(g.grounded("transfer")), f"no cited transfer run of {RUN}"),
}
CLAIM_FACTS = tuple(FACT_RULES)
TOOL_FACTS = ("table_reproduced", "copied_results")
"""Facts no model sets: they follow the tool-written evidence a packet cites."""


def grounds_for(packet: PhasePacket, store: EvidenceStore, rubric) -> Grounds:
    return Grounds(packet, store, packet.phase in rubric.registry.workflow_phases)


def grounding_problems(packet: PhasePacket, store: EvidenceStore, rubric) -> list[str]:
    """Claims the cited tool-written evidence does not back, one reason each, naming the item or fact."""
    g, reasons = grounds_for(packet, store, rubric), []
    for c in packet.checklist:
        rule = ITEM_RULES.get(c.item)
        if rule and c.status == "satisfied" and not rule[0](g):
            reasons.append(f"grounding: {c.item} is marked satisfied but {rule[1]}")
    for key, (holds, why) in FACT_RULES.items():
        if packet.facts.get(key) is True and not holds(g):
            reasons.append(f"grounding: {key} is claimed but {why}")
    level = g.supported_level()
    if packet.evidence_level > level:
        reasons.append(
            f"grounding: evidence level {packet.evidence_level.value} claimed "
            f"but the cited evidence shows {level.value}"
        )
    return reasons


def ground(packet: PhasePacket, store: EvidenceStore, rubric) -> PhasePacket:
    """The packet with every unbacked claim withdrawn, the evidence level lowered to what the cited
    evidence shows and the score (or the gate) recomputed from what remains."""
    g = grounds_for(packet, store, rubric)
    disputes = {
        c.item: rule[1]
        for c in packet.checklist
        if (rule := ITEM_RULES.get(c.item)) and c.status == "satisfied" and not rule[0](g)
    }
    disputes |= {key: why for key, (holds, why) in FACT_RULES.items() if packet.facts.get(key) is True and not holds(g)}
    packet = withdraw(packet, disputes)
    level = min(packet.evidence_level, g.supported_level(), key=lambda lv: lv.rank)
    return settle(packet.model_copy(update={"evidence_level": level}), store, rubric)


def withdraw(packet: PhasePacket, disputes: dict[str, str]) -> PhasePacket:
    """Disputed checklist items become violated ("withdrawn: <reason>"); disputed claimed facts become false."""
    checklist = [
        c.model_copy(update={"status": "violated", "note": f"{WITHDRAWN}{disputes[c.item]}"[:300]})
        if c.item in disputes and c.status == "satisfied"
        else c
        for c in packet.checklist
    ]
    facts = {k: (False if k in disputes and v is True else v) for k, v in packet.facts.items()}
    return packet.model_copy(update={"checklist": checklist, "facts": facts})


def settle(packet: PhasePacket, store: EvidenceStore, rubric) -> PhasePacket:
    """The gate outcomes from the checklist, or the score capped at what the checklist and level support."""
    reg = rubric.registry
    if packet.phase == reg.gate_phase:
        gate = {gc: bool((it := packet.item(gc)) and it.status == "satisfied") for gc in reg.gate_checks}
        return packet.model_copy(update={"gate": gate})
    if packet.score is None:
        return packet
    ceiling, _ = supported_score(packet.phase, packet.checklist, packet.evidence_level, store.interventions(), rubric)
    return packet.model_copy(update={"score": min(packet.score, ceiling, key=lambda s: s.rank)})


def tool_facts(packet: PhasePacket, store: EvidenceStore, rubric) -> dict[str, Any]:
    """The rubric facts of the packet's phase that only tools establish, as the tool-written comparisons and
    method verdicts it cites say, whatever the packet says: `table_reproduced` only when the packet claims it
    and a grounded comparison reproduced a table; `copied_results` when a cited verdict found a copy."""
    declared = [k for k in TOOL_FACTS if f"{packet.phase}.{k}" in rubric.facts]
    if not declared:
        return {}
    g = grounds_for(packet, store, rubric)
    values = {
        "table_reproduced": packet.facts.get("table_reproduced") is True and g.reproduced,
        "copied_results": g.copied,
    }
    return {k: values[k] for k in declared}


def disputed_in(packet: PhasePacket, reasons: list[str]) -> dict[str, str]:
    """The claims the reasons dispute: for each reason, the satisfied item or claimed fact it names first."""
    claims = [c.item for c in packet.checklist if c.status == "satisfied"] + [
        k for k in CLAIM_FACTS if packet.facts.get(k) is True
    ]
    disputes: dict[str, str] = {}
    for reason in reasons:
        found = [
            (m.start(), name) for name in claims if (m := re.search(rf"(?<![\w.]){re.escape(name)}(?![\w.])", reason))
        ]
        if found:
            disputes.setdefault(min(found)[1], reason)
    return disputes


def claims_above(packet: PhasePacket, rubric, level: str = "WR") -> list[str]:
    """Satisfied items that only levels above `level` need, and claimed facts: what an unconfirmed packet loses."""
    dim = rubric.dimensions.get(packet.phase)
    if dim is None:
        return []
    ranks = list(dim.levels)  # ordered from the top level down
    below = ranks[ranks.index(level) :] if level in ranks else []
    needed_below = {i for lv in below for i in _items(dim.levels[lv])}
    above = {i for lv in ranks if lv not in below for i in _items(dim.levels[lv])} - needed_below
    items = [c.item for c in packet.checklist if c.status == "satisfied" and c.item in above]
    return items + [k for k in CLAIM_FACTS if packet.facts.get(k) is True]


def _items(rule) -> list[str]:
    return list(rule.all_of) + (list(rule.at_least[1]) if rule.at_least else [])
