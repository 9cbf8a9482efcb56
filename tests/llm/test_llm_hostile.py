"""A scripted model cannot lift a badge above what the real runs support.

Full reviews through the real graph, tools, checker, verifier and rule engine, in a real local
sandbox, with a scripted chat model in place of a paid one, compared with the offline heuristic
review of the same artifact: claims resting on `echo`/`printf`/`probe true`/a documented `cat` of
checked-in results, a `sed -i` on core code run as a probe, a verifier that says "inconsistent"
every turn, and a verifier that raises or never answers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

import pytest
from llm_support import CarefulReviewer, ScriptedChatModel, call, d2_packet, it, packet, phase_of, results, steps_taken

from artifactcopilot.agents.llm import LLMReviewAgent
from artifactcopilot.llm.settings import LLMSettings, load_prices
from artifactcopilot.models import Report, Score
from artifactcopilot.review import ReviewRequest, run_review
from artifactcopilot.sandbox.commandlog import parse_log
from artifactcopilot.skills import default_skills

ROOT = Path(__file__).resolve().parents[2]
FASTSUM = ROOT / "tests" / "fixtures" / "llm" / "fastsum"
WORDFREQ = ROOT / "examples" / "wordfreq"
RANK = {"none": 0, "available": 1, "functional": 2, "reusable": 3}
TABLE = "| n | fastsum | naive |\n|---|---|---|\n| 1000 | 412.5 | 130.2 |\n| 10000 | 398.1 | 127.9 |"
PRINTF = "printf '" + TABLE.replace("\n", "\\n") + "\\n'"


ATTEMPTS = 2  # packet submissions per phase: the last one is committed downgraded


def review(out: Path, case: Path, agent=None) -> Report:
    req = ReviewRequest(
        paper=case / "paper.md",
        artifact=str(case / "artifact"),
        out=out,
        sandbox="local",
        timeout_s=60,
        agent="heuristic" if agent is None else "llm",
        max_attempts=ATTEMPTS,
    )
    return run_review(req, agent=agent)[0]


def llm_review(tmp_path: Path, policy, case: Path) -> tuple[Report, Path]:
    settings = LLMSettings(model="gpt-4o-mini", prices=load_prices(), backoff_s=0.0, max_attempts=ATTEMPTS)
    agent = LLMReviewAgent(ScriptedChatModel(policy=policy, calls=[]), settings)
    return review(tmp_path / "llm", case, agent), tmp_path / "llm"


@pytest.fixture(scope="module")
def offline(tmp_path_factory):
    """The heuristic review of a fixture: what its real runs support."""
    done: dict[Path, Report] = {}

    def get(case: Path) -> Report:
        if case not in done:
            done[case] = review(tmp_path_factory.mktemp("offline") / "run", case)
        return done[case]

    return get


def not_above(report: Report, offline: Report) -> None:
    assert RANK[report.badge] <= RANK[offline.badge], (report.badge, offline.badge)
    assert offline.badges["reproduced"] or not report.badges["reproduced"]


class Claimant(CarefulReviewer):
    """Runs commands that only display text (and a probe that does nothing), then claims every item on them."""

    PLANS: ClassVar[dict[str, list]] = {
        "D2": [("detect_environment", {}), ("probe", {"command": "true", "purpose": "is the environment ready"})],
        "D3": [
            ("record_evidence", {"kind": "selection", "name": "selection", "content": "python3 bench.py (README)"}),
            ("run_workflow", {"command": "cat results/table2.md", "purpose": "the documented results"}),
            ("run_workflow", {"command": PRINTF, "purpose": "the table"}),
            ("run_workflow", {"command": "echo ok", "purpose": "smoke test"}),
        ],
        "D4": [
            ("paper_tables", {}),
            ("compare_table", {"table": "Table 2", "source": "<printf>"}),
            ("compare_table", {"table": "Table 2", "source": "<cat>"}),
        ],
        "D5": [
            ("record_evidence", {"kind": "reuse", "name": "reuse", "content": "python3 bench.py --sizes 500 5000"}),
            ("run_transfer", {"command": "echo '| 500 | 411.0 | 129.9 |'", "purpose": "new sizes"}),
            ("run_transfer", {"command": "echo '| 500 | 411.0 | 129.9 |'", "purpose": "again"}),
        ],
    }
    FACTS: ClassVar[dict[str, dict]] = {
        "D4": {"table_reproduced": True, "copied_results": False},
        "D5": {"transfer_validated": True},
    }

    def __call__(self, messages):
        phase, _ = phase_of(messages)
        if phase not in self.PLANS:
            return super().__call__(messages)
        step, plan = steps_taken(messages), self.PLANS[phase]
        if step < len(plan):
            tool, args = plan[step]
            return call(tool, **{k: self.memory.get(v, v) for k, v in args.items()})
        evidence = [r["evidence"] for r in results(messages)[-len(plan) :] if "evidence" in r]
        if phase == "D2":
            self.memory["<probe>"] = evidence[-1]
        if phase == "D3":
            self.memory["<cat>"], self.memory["<printf>"] = evidence[1], evidence[2]
            evidence.append(self.memory["<probe>"])
        checklist = [it(i, True, evidence) for i in default_skills()[phase].contract.checklist]
        return packet(phase, checklist, "E3" if phase == "D4" else "E2", score="A", facts=self.FACTS.get(phase, {}))


def test_display_commands_and_a_probe_that_does_nothing_ground_no_claim(tmp_path, offline):
    report, out = llm_review(tmp_path, Claimant(), FASTSUM)
    base = offline(FASTSUM)
    not_above(report, base)
    assert report.badge == base.badge == "available"
    assert report.dimensions["D3"].score.rank <= Score.WR.rank and report.dimensions["D4"].score == Score.R
    d3 = {c.item: c for c in report.dimensions["D3"].checklist}
    assert d3["RW3"].status == "violated" and d3["RW3"].note.startswith("withdrawn: ")
    assert (
        report.dimensions["D2"].checklist[2].item == "D2.evaluable"
        and report.dimensions["D2"].checklist[2].status == "violated"
    )
    assert any(f.code == "llm-claims-withdrawn" and f.phase == "D3" for f in report.flags)
    # the README documents `cat results/table2.md`: documented, exit 0, and still no run of the artifact
    logs = [parse_log((out / e.path).read_text()) for e in report.evidence if e.kind == "command"]
    cat = next(log for log in logs if log.script == "cat results/table2.md")
    assert cat.ok and cat.invocation == "documented"
    assert {log.invocation for log in logs if log.script != "cat results/table2.md"} == {"undocumented"}


def test_a_sed_on_core_code_run_as_a_probe_is_an_I4_edit(tmp_path, offline):
    def patching(self, messages, attempt):
        step = steps_taken(messages)
        if step == 1:
            return call("probe", command="sed -i '1i # tuned' wordfreq.py", purpose="check the interpreter")
        if step == 2:
            return call("probe", command="python3 --version", purpose="interpreter")
        if step == 3:
            env, probe = results(messages)[-3]["evidence"], results(messages)[-1]["evidence"]
            return d2_packet(env, probe)
        return None

    reviewer = CarefulReviewer()
    reviewer.overrides["D2"] = patching
    report, _ = llm_review(tmp_path, reviewer, WORDFREQ)
    not_above(report, offline(WORDFREQ))
    edit = next(i for i in report.interventions if i.level.value == "I4")
    assert edit.phase == "D2" and "wordfreq.py" in edit.action and edit.evidence
    assert report.badge == "available" and not report.badges["functional"] and not report.badges["reproduced"]


def disputes_everything(messages):
    claims = messages[1].content.split("Claims you may dispute", 1)[1].split(":", 1)[1].split("\n", 1)[0]
    return call(
        "verdict",
        consistent=False,
        disputed=[
            {"item": c.strip(), "reason": "the evidence does not show it"} for c in claims.split(",") if c.strip()
        ],
    )


def test_a_verifier_that_says_inconsistent_every_turn_gets_the_claims_withdrawn(tmp_path, offline):
    reviewer = CarefulReviewer()
    reviewer.overrides["verify"] = lambda self, messages, attempt: disputes_everything(messages)
    report, out = llm_review(tmp_path, reviewer, WORDFREQ)
    not_above(report, offline(WORDFREQ))
    assert report.badge == "none"  # the gate's checks were disputed on every attempt: withdrawn, not accepted
    assert len(list((out / "working" / "gate").glob("rejected-*.json"))) == ATTEMPTS
    assert not any(check.passed for check in report.gate.values())
    flag = next(f for f in report.flags if f.code == "checker-downgrade" and f.phase == "gate")
    assert flag.message.startswith("withdrawn: GC1, GC2, GC3")


def raises(self, messages, attempt):
    raise RuntimeError("verifier endpoint crashed")


def never_answers(self, messages, attempt):
    cited = [line.split(":")[0][2:] for line in messages[1].content.splitlines() if line.startswith("- ")]
    return call("read_evidence", evidence_id=cited[0])


@pytest.mark.parametrize("verifier", [raises, never_answers], ids=["raises", "times-out"])
def test_a_verifier_that_errs_or_times_out_confirms_nothing_above_wr(tmp_path, offline, verifier):
    reviewer = CarefulReviewer()
    reviewer.overrides["verify"] = verifier
    report, _ = llm_review(tmp_path, reviewer, WORDFREQ)
    not_above(report, offline(WORDFREQ))
    assert report.badge == "available" and not report.badges["reproduced"]
    for dim in ("D1", "D2", "D3", "D4", "D5"):
        assert report.dimensions[dim].score.rank <= Score.WR.rank, dim
        assert any(f.code == "verifier-unavailable" and f.phase == dim for f in report.flags), dim
    rw3 = next(c for c in report.dimensions["D3"].checklist if c.item == "RW3")
    assert rw3.status == "violated" and "not confirmed: verifier unavailable" in rw3.note


COPIED = ROOT / "tests" / "fixtures" / "corpus" / "available-copied-results"


class Copier(Claimant):
    """Runs the documented reproduction script (which prints a checked-in results file), compares its output
    with the paper and claims the table reproduced and nothing copied."""

    PLANS: ClassVar[dict[str, list]] = {
        "D2": Claimant.PLANS["D2"],
        "D3": [
            ("record_evidence", {"kind": "selection", "name": "selection", "content": "python3 reproduce.py (README)"}),
            ("run_workflow", {"command": "python3 reproduce.py", "purpose": "the documented reproduction"}),
            ("run_workflow", {"command": "python3 reproduce.py", "purpose": "again, for stability"}),
        ],
        "D4": [("paper_tables", {}), ("compare_table", {"table": "Table 2", "source": "<run>"})],
    }

    def __call__(self, messages):
        phase, _ = phase_of(messages)
        if phase == "D3" and steps_taken(messages) == len(self.PLANS["D3"]):
            self.memory["<run>"] = [r["evidence"] for r in results(messages) if "evidence" in r][-2]
            self.memory["<cat>"] = self.memory["<printf>"] = self.memory["<run>"]
        return super().__call__(messages)


def test_a_documented_script_that_prints_checked_in_results_is_judged_a_copy(tmp_path, offline):
    report, out = llm_review(tmp_path, Copier(), COPIED)
    base = offline(COPIED)
    not_above(report, base)
    assert not report.badges["reproduced"] and report.badge in ("none", "available")
    comparisons = [e for e in report.evidence if e.kind == "comparison" and e.phase == "D4"]
    judged = [json.loads((out / e.path).read_text()) for e in comparisons]
    assert any(r.get("method") == "copy" and r.get("method_accepted") is False for r in judged), judged
    facts = json.loads((out / "packets" / "D4.json").read_text())["facts"]
    assert facts["copied_results"] is True and facts["table_reproduced"] is False  # the judge's, not the model's
