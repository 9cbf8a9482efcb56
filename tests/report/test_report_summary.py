"""The summary's one sentence on the badge and why: the first failed condition of the next badge, in words, for each
kind of condition the rubric's badge rules use; and what ran, read from the command logs (never assumed)."""
from __future__ import annotations

from pathlib import Path

import pytest
from report_trees import command_log, evidence

from artifactcopilot.models import (
    AgentFailure,
    DimensionResult,
    EvidenceLevel,
    GateResult,
    InterventionLevel,
    Report,
    RouteEntry,
    Score,
)
from artifactcopilot.models import Route as RouteModel
from artifactcopilot.report.reading import run_dir_reader
from artifactcopilot.report.summary import summarize
from artifactcopilot.rubric import default_rubric
from artifactcopilot.rules import Fact, derive_badges

RUBRIC = default_rubric()
ALL_WA = {f"{d}.score": Fact(Score.WA) for d in ("D1", "D2", "D3", "D4", "D5")}
BASE = {**{f"gate.{gc}": Fact(True) for gc in ("GC1", "GC2", "GC3")}, **ALL_WA,
        "evidence_level": Fact(EvidenceLevel.E2), "D4.evidence_level": Fact(EvidenceLevel.E2),
        "max_intervention": Fact(InterventionLevel.I1), "D5.transfer_validated": Fact(True),
        "D4.table_reproduced": Fact(False), "D4.copied_results": Fact(False),
        **{f"D1.declines_{b}": Fact(False) for b in ("functional", "reusable", "reproduced")}}


def _report(facts: dict, **extra) -> Report:
    decision = derive_badges(facts, RUBRIC)
    fields = dict(tool_version="0", run_id="r", paper="p.md", artifact="a", agent="heuristic", sandbox="local",
                  badge=decision.badge, badges=decision.badges, dimensions={},
                  gate={gc: GateResult(passed=bool(facts[f"gate.{gc}"].value)) for gc in ("GC1", "GC2", "GC3")},
                  evidence_level=EvidenceLevel.E2, derivation=decision.trace, confidence=1.0)
    return Report(**{**fields, **extra})


def _verdict(facts: dict, **extra) -> str:
    return summarize(_report(facts, **extra), RUBRIC, lambda _id: None).verdict


@pytest.mark.parametrize(("changed", "words"), [
    ({"gate.GC2": Fact(False)}, "No badge: not Artifacts Available, because the availability check GC2 "),
    ({"D3.score": Fact(Score.WR)}, "Artifacts Available: not Artifacts Evaluated — Functional, because D3 (Workflow "
                                   "executability) scored WR; WA or above is needed."),
    ({"D3.score": Fact(None)}, "because D3 (Workflow executability) was not scored."),
    ({"evidence_level": Fact(EvidenceLevel.E1)}, "because the review's evidence reached E1; E2 (reviewer runs "
                                                 "representative workflow and obtains valid output) is needed."),
    ({"max_intervention": Fact(InterventionLevel.I4)}, "because the review logged an I4 intervention (semantic "
                                                       "change to algorithm"),
    ({"D5.transfer_validated": Fact(False)}, "Functional: not Artifacts Evaluated — Reusable, because not shown: "
                                             "a transfer case on new input/config ran and gave valid output."),
    ({"D5.transfer_validated": Fact(None)}, "because it was not established whether a transfer case on new "
                                            "input/config ran and gave valid output."),
    ({"D1.declines_reusable": Fact(True)}, "because the authors' badge application leaves Reusable out."),
    ({"D4.table_reproduced": Fact(True), "D4.copied_results": Fact(True), "D4.evidence_level": Fact(EvidenceLevel.E3)},
     "Reusable: not Results Reproduced, because the matching output was copied from pre-existing results."),
])
def test_the_first_failed_condition_of_the_next_badge_in_words(changed, words):
    assert words in _verdict({**BASE, **changed})


def test_more_failed_conditions_are_counted_and_every_badge_held_is_said():
    verdict = _verdict({**BASE, "D2.score": Fact(Score.R), "D4.score": Fact(Score.WR)})
    assert verdict.endswith("because D2 (Environment reconstruction) scored R; WA or above is needed (and 1 more "
                            "condition, under Badge verdict).")
    held = {**BASE, "D4.table_reproduced": Fact(True), "D4.evidence_level": Fact(EvidenceLevel.E3)}
    assert _verdict(held) == ("Artifacts Evaluated — Reusable + Results Reproduced: every condition of every badge "
                              "holds.")


def test_a_badge_not_established_because_the_agent_failed_is_no_verdict():
    facts = {**BASE, "D5.score": Fact(None), "D5.transfer_validated": Fact(None)}
    verdict = _verdict(facts, badges_not_established=["reusable"],
                       agent_failures=[AgentFailure(phase="D5", reason="the model's context window")])
    assert verdict == ("Artifacts Evaluated — Functional: Artifacts Evaluated — Reusable is not established — the "
                       "agent failed at D5, so this is a lower bound, not a verdict.")


def test_what_ran_is_counted_from_the_command_logs(tmp_path: Path):
    ev = [evidence(tmp_path, "D2-001-setup", "pip.log", command_log("pip install -r requirements.txt", 0)),
          evidence(tmp_path, "D3-002-command", "run.log", command_log("python3 run.py", 0)),
          evidence(tmp_path, "D3-003-command", "bad.log", command_log("python3 plot.py", 1, stderr="Traceback")),
          evidence(tmp_path, "D3-004-command", "cut.log", command_log("python3 sim.py", None, timed_out=True)),
          evidence(tmp_path, "D3-005-note", "notes.log", "not a command log\n")]
    judged = command_log("python3 eval.py", 0).replace("# invocation: documented\n",
                                                       "# invocation: documented\n# outcome: invalid: 8 of 8 failed\n")
    ev.append(evidence(tmp_path, "D3-006-command", "eval.log", judged))
    route = RouteModel(entries=[RouteEntry(rank=1, command="python3 run.py", status="valid"),
                                RouteEntry(rank=2, command="python3 plot.py", status="failed"),
                                RouteEntry(rank=3, command="python3 big.py", status="skipped")],
                       covered=["Table 1"], not_covered=["Figure 3", "Table 4"])
    report = _report({**BASE, "D3.score": Fact(Score.WR)}, evidence=ev, route=route,
                     timing={"total_s": 725.0, "commands_s": 377.4})
    summary = summarize(report, RUBRIC, run_dir_reader(report, tmp_path))
    # five command logs (the note is none); valid: exit 0 and output not judged invalid
    assert (summary.commands, summary.valid, summary.seconds) == (5, 2, 377.4)
    assert summary.ran == ("5 commands in the sandbox (6 min 17 s), 2 of them valid; of the route's 3 documented "
                           "commands, 1 gave valid output, 1 failed, 1 skipped for their documented cost; the whole "
                           "review took 12 min 05 s")
    assert (summary.covered, summary.not_covered) == (["Table 1"], ["Figure 3", "Table 4"])


def test_a_review_stopped_at_the_gate_ran_nothing_and_says_why():
    report = _report({**BASE, "gate.GC1": Fact(False)}, dimensions={"D1": DimensionResult(score=None)})
    summary = summarize(report, RUBRIC, lambda _id: None)
    assert summary.ran == "No command ran in the sandbox; the review stopped at the availability gate"
    assert summary.commands == summary.valid == 0


def test_try_next_is_a_reviewers_step_from_what_was_not_established_else_the_authors_advice():
    facts = {**BASE, "D1.score": Fact(Score.WR), "D5.score": Fact(Score.R), "D5.transfer_validated": Fact(False)}
    said = ["D1 (Documentation quality), WR: unmet: inputs and outputs are described. Only the authors can add it; "
            "a reviewer can only infer it.",
            "D5 (Reusability), R: no command was run for it. A reviewer would write a new input of the documented "
            "form, run the documented command on it twice and check its output."]
    step = summarize(_report(facts, not_established=said), RUBRIC, lambda _id: None).next_step
    assert step == ("A reviewer would write a new input of the documented form, run the documented command on it "
                    "twice and check its output.")
    advice = ["For reusable: Give a transfer example (another input or configuration) that runs as documented."]
    step = summarize(_report(facts, not_established=said[:1], next_badge=advice), RUBRIC, lambda _id: None).next_step
    assert step == ("For Artifacts Evaluated — Reusable: Give a transfer example (another input or configuration) "
                    "that runs as documented.")
