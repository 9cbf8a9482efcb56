"""Rule engine: Table II badge rules, traces, and properties that must hold for every input."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from artifactcopilot.models import EvidenceLevel, InterventionLevel, Score
from artifactcopilot.rubric import default_rubric
from artifactcopilot.rules import Fact, derive_badges, run_crosschecks, score_dimension

RUBRIC = default_rubric()
BADGE_RANK = {"none": 0, "available": 1, "functional": 2, "reusable": 3}
scores = st.sampled_from(list(Score) + [None])


@st.composite
def fact_sets(draw):
    facts = {f"gate.GC{i}": Fact(draw(st.booleans())) for i in (1, 2, 3)}
    for d in ("D1", "D2", "D3", "D4", "D5"):
        facts[f"{d}.score"] = Fact(draw(scores))
    facts["evidence_level"] = Fact(draw(st.sampled_from(list(EvidenceLevel))))
    facts["D4.evidence_level"] = Fact(draw(st.sampled_from(list(EvidenceLevel))))
    facts["max_intervention"] = Fact(draw(st.sampled_from(list(InterventionLevel))))
    facts["D5.transfer_validated"] = Fact(draw(st.booleans()))
    facts["D4.table_reproduced"] = Fact(draw(st.booleans()))
    facts["D4.copied_results"] = Fact(draw(st.booleans()))
    for badge in ("functional", "reusable", "reproduced"):  # no badge application found: nothing declined
        facts[f"D1.declines_{badge}"] = Fact(False)
    return facts


def full_facts(**over):
    facts = {"gate.GC1": Fact(True, ["g1"]), "gate.GC2": Fact(True), "gate.GC3": Fact(True),
             **{f"D{i}.score": Fact(Score.A) for i in range(1, 6)}, "evidence_level": Fact(EvidenceLevel.E3),
             "D4.evidence_level": Fact(EvidenceLevel.E3), "max_intervention": Fact(InterventionLevel.I0),
             "D5.transfer_validated": Fact(True), "D4.table_reproduced": Fact(True), "D4.copied_results": Fact(False),
             **{f"D1.declines_{b}": Fact(False) for b in ("functional", "reusable", "reproduced")}}
    facts.update({k: Fact(v) for k, v in over.items()})
    return facts


def test_all_accept_gives_reusable_and_reproduced():
    decision = derive_badges(full_facts(), RUBRIC)
    assert decision.badge == "reusable"
    assert decision.badges == {"available": True, "functional": True, "reusable": True, "reproduced": True}


def test_trace_lists_every_condition_with_evidence():
    decision = derive_badges(full_facts(), RUBRIC)
    conditions = [s.condition for s in decision.trace]
    assert "D3.score >= WA" in conditions and "max_intervention < I4" in conditions
    gc1 = next(s for s in decision.trace if s.condition == "gate.GC1 == true")
    assert gc1.evidence == ["g1"] and gc1.result is True


def test_not_established_never_passes():
    decision = derive_badges(full_facts(**{"D3.score": None}), RUBRIC)
    assert decision.badge == "available"
    step = next(s for s in decision.trace if s.condition == "D3.score >= WA")
    assert step.value is None and step.result is False


def test_e1_evidence_blocks_functional():
    assert derive_badges(full_facts(evidence_level=EvidenceLevel.E1), RUBRIC).badge == "available"


def test_copied_results_block_reproduced_only():
    decision = derive_badges(full_facts(**{"D4.copied_results": True}), RUBRIC)
    assert decision.badge == "reusable" and not decision.badges["reproduced"]


@settings(max_examples=300, deadline=None)
@given(fact_sets())
def test_badges_are_nested(facts):
    b = derive_badges(facts, RUBRIC).badges
    assert (not b["reusable"]) or b["functional"]
    assert (not b["functional"]) or b["available"]
    assert (not b["reproduced"]) or b["functional"]


@settings(max_examples=300, deadline=None)
@given(fact_sets())
def test_i4_never_functional(facts):
    facts["max_intervention"] = Fact(InterventionLevel.I4)
    b = derive_badges(facts, RUBRIC).badges
    assert not b["functional"] and not b["reusable"] and not b["reproduced"]


@settings(max_examples=300, deadline=None)
@given(fact_sets(), st.sampled_from(["D1", "D2", "D3", "D4", "D5"]), st.sampled_from(list(Score)))
def test_raising_a_score_never_lowers_the_badge(facts, dim, new):
    before = derive_badges(facts, RUBRIC).badge
    old = facts[f"{dim}.score"].value
    if old is not None and new < old:
        return
    facts[f"{dim}.score"] = Fact(new)
    assert BADGE_RANK[derive_badges(facts, RUBRIC).badge] >= BADGE_RANK[before]


@settings(max_examples=200, deadline=None)
@given(fact_sets(), st.sampled_from(list(InterventionLevel)))
def test_lowering_interventions_never_lowers_the_badge(facts, lower):
    before = derive_badges(facts, RUBRIC).badge
    if lower <= facts["max_intervention"].value:
        facts["max_intervention"] = Fact(lower)
        assert BADGE_RANK[derive_badges(facts, RUBRIC).badge] >= BADGE_RANK[before]


def test_dimension_levels_follow_the_rubric():
    items = {f"D1.{n}": Fact(True)
             for n in ("entry", "goal", "setup", "workflow", "io", "mapping", "structure", "dependencies", "resources")}
    items["D1.limits"] = Fact(False)
    score, trace = score_dimension("D1", items, RUBRIC)
    assert score == Score.A  # 3 of the 4 extras are enough
    items["D1.resources"] = Fact(False)
    assert score_dimension("D1", items, RUBRIC)[0] == Score.WA
    assert score_dimension("D1", {"D1.entry": Fact(True)}, RUBRIC)[0] == Score.WR
    assert score_dimension("D1", {}, RUBRIC)[0] == Score.R
    assert any(s.condition.startswith("at least 3 of") for s in trace)


def test_d3_accept_needs_low_intervention():
    items = {k: Fact(True) for k in ("RW1", "RW2", "RW3", "D3.stable")}
    items["D3.evidence_level"] = Fact(EvidenceLevel.E2)
    items["max_intervention"] = Fact(InterventionLevel.I2)
    assert score_dimension("D3", items, RUBRIC)[0] == Score.WA
    items["max_intervention"] = Fact(InterventionLevel.I1)
    assert score_dimension("D3", items, RUBRIC)[0] == Score.A
    items["max_intervention"] = Fact(InterventionLevel.I4)
    assert score_dimension("D3", items, RUBRIC)[0] == Score.WR


def test_crosschecks_flag_unsupported_scores():
    facts = full_facts(**{"D3.evidence_level": EvidenceLevel.E1, "D5.transfer_validated": False})
    flags, trace = run_crosschecks(facts, derive_badges(facts, RUBRIC).badges, RUBRIC)
    codes = {f.code for f in flags}
    assert {"d3-without-e2", "d5-without-transfer"} <= codes
    assert all(s.rule.startswith("crosscheck:") for s in trace)


def test_a_badge_the_authors_did_not_apply_for_is_not_awarded():
    """A committee evaluates the badges requested: declined Reusable stops at Functional, the rest unchanged."""
    decision = derive_badges(full_facts(**{"D1.declines_reusable": True}), default_rubric())
    assert decision.badge == "functional" and decision.badges["reproduced"]
    decision = derive_badges(full_facts(**{"D1.declines_functional": True, "D1.declines_reusable": True}),
                             default_rubric())
    assert decision.badge == "available" and not decision.badges["reproduced"]


def test_a_contradiction_rules_out_wa_and_a_whatever_else_holds():
    """`none_of`: D4.contradicted satisfied rules WA and A out; not established, it rules nothing out."""
    items = {"D4.executed": Fact(True, ["ev-run"]), "D4.weak_mapping": Fact(True), "D4.documented_output": Fact(True),
             "D4.mapping": Fact(True), "D4.evidence_level": Fact(EvidenceLevel.E2)}
    assert score_dimension("D4", items, RUBRIC)[0] == Score.WA
    score, trace = score_dimension("D4", {**items, "D4.contradicted": Fact(True, ["ev-map"])}, RUBRIC)
    assert score == Score.WR
    step = next(s for s in trace if s.condition == "D4.contradicted not found")
    assert step.result is False and step.evidence == ["ev-map"]
    assert score_dimension("D4", {**items, "D4.contradicted": Fact(False)}, RUBRIC)[0] == Score.WA
