"""A packet states only what its phase may state, and the rule engine fails closed.

Unit cases for the shapes a cheating reviewer tries (another phase's item, a rule fact's name as a checklist
item, a computed fact in `facts`, a mistyped declared fact), then property tests: packets generated from the
packet JSON schema with item and fact names drawn from the whole rubric namespace and from junk, through the
checker (and its downgrade, as on a last attempt) and the rule engine, committed over the offline review of
the same artifact: no exception, and never a badge above what the offline review's evidence earns.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from artifactcopilot.agents.llm.verifier import DialogueVerifier
from artifactcopilot.evidence import EvidenceStore
from artifactcopilot.models import ChecklistItem, EvidenceLevel, PhasePacket, Report, Score
from artifactcopilot.review import ReviewRequest, run_review
from artifactcopilot.rubric import default_rubric
from artifactcopilot.rules import Fact, Facts, check, derive_badges, facts_from_packets, run_crosschecks
from artifactcopilot.schemas import schema_for
from artifactcopilot.skills import default_skills
from artifactcopilot.verifier.checker import PacketChecker
from artifactcopilot.verifier.namespace import phase_packet_model

ROOT = Path(__file__).resolve().parents[1]
RUBRIC, SKILLS = default_rubric(), default_skills()
RANK = {"none": 0, "available": 1, "functional": 2, "reusable": 3}
NAMESPACE = sorted(set(RUBRIC.facts) | {i for p in RUBRIC.registry.phase_ids for i in RUBRIC.phase_items(p)}
                   | {k for p in RUBRIC.registry.phase_ids for k in RUBRIC.packet_facts(p)}
                   | {"score", "evidence_level", "max_intervention", "gate", "D4.evidence_level >= E3"})


def _d4_packet(store: EvidenceStore, **changes) -> PhasePacket:
    ev = store.add("D4", "comparison", "cmp.json", "{}", level=EvidenceLevel.E2)
    items = [ChecklistItem(item=i, status="violated", evidence=[ev.id]) for i in RUBRIC.phase_items("D4")]
    base = PhasePacket(phase="D4", score=Score.R, checklist=items, evidence=[ev.id], evidence_level=EvidenceLevel.E2)
    return base.model_copy(update=changes)


def test_items_of_other_phases_and_rule_fact_names_are_rejected_with_reasons(tmp_path):
    store = EvidenceStore(tmp_path)
    packet = _d4_packet(store)
    ev = packet.evidence[0]
    foreign = [ChecklistItem(item=name, status="satisfied", evidence=[ev])
               for name in ("D4.evidence_level", "gate.GC1", "max_intervention", "D5.transfer_validated", "RW3")]
    packet = packet.model_copy(update={"checklist": packet.checklist + foreign})
    result = PacketChecker(store, RUBRIC).check(packet, SKILLS["D4"])
    assert not result.accepted
    for name in ("D4.evidence_level", "gate.GC1", "max_intervention", "D5.transfer_validated", "RW3"):
        assert any(f"'{name}' is not a D4 rubric item" in r for r in result.reasons), name
    assert any("judge only D4.executed" in r for r in result.reasons)  # says what the agent may judge


def test_computed_and_mistyped_facts_are_rejected_and_removed_on_downgrade(tmp_path):
    store = EvidenceStore(tmp_path)
    packet = _d4_packet(store, facts={"evidence_level": "E3", "D4.score": "A", "max_intervention": "I0",
                                      "table_reproduced": "yes", "reproduction_evidence": "all", "notes": "kept"})
    checker = PacketChecker(store, RUBRIC)
    reasons = checker.check(packet, SKILLS["D4"]).reasons
    assert any("'evidence_level' is not one a D4 packet may state" in r for r in reasons)
    assert any("'D4.score'" in r for r in reasons) and any("'max_intervention'" in r for r in reasons)
    assert any("fact 'table_reproduced' must be a bool" in r for r in reasons)
    assert any("fact 'reproduction_evidence' must be a evidence-ids" in r for r in reasons)
    committed = checker.downgrade(packet, reasons)
    assert set(committed.facts) == {"notes"}  # a finding for later phases, never a rule fact
    assert any(f.code == "packet-namespace" and "evidence_level" in f.message for f in committed.flags)


def test_the_crash_shape_is_a_condition_not_met_with_a_flag():
    """A checklist item named after a level fact once replaced it with a bool and crashed `>=`."""
    forged_item = ChecklistItem(item="D4.evidence_level", status="satisfied", evidence=["x"])
    packets = {"D4": PhasePacket(phase="D4", score=Score.A, evidence_level=EvidenceLevel.E3, checklist=[forged_item])}
    facts = facts_from_packets(packets, [], RUBRIC)
    assert facts["D4.evidence_level"].value == EvidenceLevel.E3  # the computed fact stands
    assert any(f.code == "rule-fact-rejected" and "D4.evidence_level" in f.message for f in facts.problems)
    # and if a wrong-typed value reaches the engine anyway, the condition is not met, never an exception
    cond = next(c for b in RUBRIC.badges for c in b.conditions if c.fact == "evidence_level")
    forged = Facts({"evidence_level": Fact(True)})
    step = check(cond, forged, "functional", RUBRIC)
    assert step.result is False
    assert forged.problems and "a bool value where the rubric declares a evidence" in forged.problems[0].message


def test_unknown_fact_fails_closed():
    cond = RUBRIC.badges[0].conditions[0]
    unknown = type(cond)(text="made.up == true", fact="made.up", op="==", value=True)
    facts = Facts({"made.up": Fact(True)})
    assert check(unknown, facts, "available", RUBRIC).result is False
    assert "not a fact the rubric declares" in facts.problems[0].message


def test_a_declared_fact_of_the_wrong_type_in_a_committed_packet_is_not_established():
    packets = {"D1": PhasePacket(phase="D1", score=Score.A, facts={"declines_functional": "no"})}
    facts = facts_from_packets(packets, [], RUBRIC)
    assert facts["D1.declines_functional"].value is None  # so `D1.declines_functional == false` is not met
    assert any("D1.declines_functional" in f.message and f.phase == "D1" for f in facts.problems)


def test_the_schema_offered_to_a_model_enumerates_the_phase_items_and_facts():
    schema = phase_packet_model("D4", RUBRIC).model_json_schema()
    item_enum = schema["$defs"]["D4ChecklistItem"]["properties"]["item"]["enum"]
    assert item_enum == RUBRIC.phase_items("D4")
    facts = schema["$defs"]["D4Facts"]
    assert facts["additionalProperties"] is False
    assert set(facts["properties"]) == set(RUBRIC.packet_facts("D4")) >= {"table_reproduced", "copied_results"}
    assert "evidence_level" not in facts["properties"]


# ---- properties: any schema-valid packet, any name of the namespace ------------------------------------
@pytest.fixture(scope="module")
def offline(tmp_path_factory) -> tuple[Report, Path]:
    """The offline review of a fixture whose runs support Available only (its workflow crashes)."""
    case, out = ROOT / "tests" / "fixtures" / "corpus" / "available-crash", tmp_path_factory.mktemp("ns") / "run"
    req = ReviewRequest(paper=case / "paper.md", artifact=str(case / "artifact"), out=out, sandbox="local",
                        timeout_s=60, agent="heuristic")
    return run_review(req)[0], out


def from_schema(schema: dict, root: dict | None = None) -> st.SearchStrategy:
    """Any value the packet JSON schema allows (the subset of JSON Schema it uses: $ref, anyOf, enum, const,
    object with properties, array, string, integer, number, boolean, null)."""
    root = root or schema
    if "$ref" in schema:
        return st.deferred(lambda: from_schema(root["$defs"][schema["$ref"].rsplit("/", 1)[-1]], root))
    if "anyOf" in schema:
        return st.one_of([from_schema(s, root) for s in schema["anyOf"]])
    if "enum" in schema or "const" in schema:
        return st.sampled_from(schema.get("enum") or [schema["const"]])
    kind = schema.get("type", "object")
    if kind == "object" and "properties" in schema:
        required = set(schema.get("required", []))
        props = {k: from_schema(v, root) for k, v in schema["properties"].items()}
        return st.fixed_dictionaries({k: v for k, v in props.items() if k in required},
                                     optional={k: v for k, v in props.items() if k not in required})
    simple = {"string": st.text(max_size=8), "integer": st.integers(-3, 5), "number": st.floats(allow_nan=False),
              "boolean": st.booleans(), "null": st.none(),
              "object": st.dictionaries(st.text(max_size=6), st.booleans(), max_size=2)}
    if kind == "array":
        return st.lists(from_schema(schema.get("items", {"type": "string"}), root), max_size=3)
    return simple[kind]


NAMES = st.one_of(st.sampled_from(NAMESPACE), st.text(min_size=1, max_size=12))
VALUES = st.one_of(st.booleans(), st.none(), st.integers(), st.floats(allow_nan=True), st.text(max_size=6),
                   st.sampled_from(["E3", "A", "I0", "true"]), st.lists(st.text(max_size=6), max_size=2))


@st.composite
def hostile_packets(draw, evidence_ids: list[str]) -> PhasePacket:
    body = draw(from_schema(schema_for("packet")))
    phase = draw(st.sampled_from(RUBRIC.registry.phase_ids))
    cite = st.lists(st.one_of(st.sampled_from(evidence_ids), st.text(max_size=8)), max_size=3)
    body["checklist"] = [{"item": draw(NAMES), "status": draw(st.sampled_from(["satisfied", "violated"])),
                          "evidence": draw(cite), "note": ""} for _ in range(draw(st.integers(0, 8)))]
    body["facts"] = {draw(NAMES): draw(VALUES) for _ in range(draw(st.integers(0, 5)))}
    body["gate"] = {draw(st.one_of(st.sampled_from(RUBRIC.registry.gate_checks), NAMES)): draw(st.booleans())
                    for _ in range(draw(st.integers(0, 4)))}
    body["evidence"] = draw(cite)
    return PhasePacket.model_validate({**body, "phase": phase})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_no_packet_raises_or_lifts_the_badge_above_the_offline_evidence(offline, data):
    report, run_dir = offline
    assert not [f for f in report.flags if f.code in ("packet-namespace", "rule-fact-rejected")]
    store = EvidenceStore(run_dir)
    packets = store.packets()
    hostile = data.draw(hostile_packets([e.id for e in store.all()]))
    checker = PacketChecker(store, RUBRIC, DialogueVerifier(None, None, dialogue=False, rubric=RUBRIC))
    result = checker.check(hostile, SKILLS[hostile.phase])
    committed = hostile if result.accepted else checker.downgrade(hostile, result.reasons)
    facts = facts_from_packets({**packets, hostile.phase: committed}, store.interventions(), RUBRIC)
    decision = derive_badges(facts, RUBRIC)
    run_crosschecks(facts, decision.badges, RUBRIC)
    assert RANK[decision.badge] <= RANK[report.badge], (hostile.phase, decision.badge)
    assert report.badges["reproduced"] or not decision.badges["reproduced"]
