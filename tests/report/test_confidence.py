"""Confidence computed from the evidence: each weakness lowers it, and the report says which did."""
from __future__ import annotations

import json

from report_trees import all_dimensions, command_log, dimension, evidence, report

from artifactcopilot.models import ChecklistItem, Flag, GateResult, Intervention, InterventionLevel
from artifactcopilot.report.confidence import assess
from artifactcopilot.report.extras import extras_for
from artifactcopilot.report.markdown import render_markdown
from artifactcopilot.rubric import default_rubric


def _codes(conf) -> set[str]:
    return {f.code for f in conf.factors}


def test_a_complete_review_backed_by_a_reproduced_table_is_trusted(tmp_path):
    conf = assess(report([], dimensions=all_dimensions("A", "E3"), level="E3"), tmp_path)
    assert conf.value == 1.0 and conf.factors == []


def test_weak_evidence_lowers_confidence_in_order(tmp_path):
    values = {lv: assess(report([], dimensions=all_dimensions("WA", lv), level=lv), tmp_path).value
              for lv in ("E0", "E1", "E2", "E3")}
    assert values["E0"] < values["E1"] < values["E2"] < values["E3"]
    assert values["E0"] <= 0.6  # nothing ran: never near-certain
    assert "evidence-level" in _codes(assess(report([], dimensions=all_dimensions("WA", "E0")), tmp_path))


def test_missing_phases_and_interruption_lower_it(tmp_path):
    dims = all_dimensions("WA", "E3")
    dims["D5"] = dimension(None, [])
    full = assess(report([], dimensions=all_dimensions("WA", "E3"), level="E3"), tmp_path).value
    partial = assess(report([], dimensions=dims, level="E3", status="incomplete"), tmp_path)
    assert partial.value < full and {"incomplete", "interrupted"} <= _codes(partial)


def test_setup_failing_for_infrastructure_reasons_lowers_it_but_an_artifact_bug_does_not(tmp_path):
    offline = command_log("pip install -r requirements.txt", 1,
                          stderr="WARNING: Retrying ... NewConnectionError: Failed to establish a new connection")
    bug = command_log("pip install -r requirements.txt", 1, stderr="ERROR: Invalid requirement: 'numpy=1.2'")
    for name, log, expected in (("offline", offline, True), ("bug", bug, False)):
        run = tmp_path / name
        ev = [evidence(run, "D2-004-setup", "pip.log", log)]
        item = ChecklistItem(item="D2.setup_ok", status="violated", evidence=["D2-004-setup"], note="install (exit 1)")
        dims = all_dimensions("WA", "E2", D2=dimension("WR", ["D2-004-setup"], "E1", [item]))
        conf = assess(report(ev, dimensions=dims, level="E2"), run)
        assert ("setup-infrastructure" in _codes(conf)) is expected, name


def test_limits_and_checker_disagreement_lower_it(tmp_path):
    base = assess(report([], dimensions=all_dimensions("WA", "E2"), level="E2"), tmp_path).value
    flags = [Flag(severity="high", code="llm-steps-limit", phase="D3", message="step limit"),
             Flag(severity="low", code="sandbox-limit", phase="D3", message="memory")]
    limited = assess(report([], dimensions=all_dimensions("WA", "E2"), level="E2", flags=flags), tmp_path)
    assert limited.value < base and "limit-hit" in _codes(limited)
    downgrade = Flag(severity="high", code="checker-downgrade", phase="D4", message="x")
    downgraded = assess(report([], dimensions=all_dimensions("WA", "E2"), level="E2", flags=[downgrade]), tmp_path)
    assert downgraded.value < base and "verifier-disagreed" in _codes(downgraded)
    (tmp_path / "packets").mkdir()
    (tmp_path / "packets" / "D3.json").write_text(json.dumps({"phase": "D3", "attempt": 2}))
    revised = assess(report([], dimensions=all_dimensions("WA", "E2"), level="E2"), tmp_path)
    assert revised.value < base and "D3" in next(f.reason for f in revised.factors if f.code == "verifier-disagreed")


def test_interventions_lower_it(tmp_path):
    rep = report([], dimensions=all_dimensions("WA", "E3"), level="E3")
    rep.interventions = [Intervention(id="INT-001", phase="D2", action="sed -i x conf", purpose="cpu", rule="config",
                                      level=InterventionLevel.I3, anticipated_impact="slower")]
    assert assess(rep, tmp_path).value < 1.0 and "interventions" in _codes(assess(rep, tmp_path))


def test_an_unreachable_host_is_less_certain_than_a_corrupt_archive(tmp_path):
    def gate_failure(run, error):
        acq = evidence(run, "gate-001-acquisition", "acquisition.json", {"error": error})
        return report([acq], gate={gc: GateResult(passed=False, evidence=[acq.id]) for gc in ("GC1", "GC2", "GC3")})

    refused = "download x: failed after 4 attempts: Connection refused"
    down = assess(gate_failure(tmp_path / "a", refused), tmp_path / "a")
    broken = assess(gate_failure(tmp_path / "b", "archive a.zip is corrupt or truncated"), tmp_path / "b")
    assert down.value < broken.value < 1.0
    assert "fetch-may-be-transient" in _codes(down) and "gate-only" in _codes(broken)


def test_the_report_lists_what_lowered_it(tmp_path):
    rep = report([], dimensions=all_dimensions("WA", "E1"), level="E1")
    rep = rep.model_copy(update={"confidence": assess(rep, tmp_path).value})
    md = render_markdown(rep, default_rubric(), extras_for(rep, tmp_path))
    section = md.split("## Confidence and flags")[1]
    assert f"**Confidence: {rep.confidence:.2f}**" in section
    assert "| evidence-level | −0.30 |" in section and "no workflow output (E1)" in section
