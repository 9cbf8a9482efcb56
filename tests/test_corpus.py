"""The heuristic reviewer on the adjudicated corpus: badge, gate, every dimension score, ledger.

Each fixture's expected.yaml was adjudicated against the rubric before the reviewer was tuned;
its `reason` says why. A mismatch here is a change in review behaviour a chair would notice.
"""
from __future__ import annotations

import json

import jsonschema
import pytest
from conftest import corpus_cases, load_case
from golden import check_golden

from artifactcopilot.schemas import schema_for

CASES = corpus_cases()


def test_corpus_covers_every_outcome():
    expected = [load_case(c)[0] for c in CASES]
    assert len(CASES) >= 12
    assert {e["badge"] for e in expected} == {"none", "available", "functional", "reusable"}
    assert any(e.get("reproduced") for e in expected)
    for gc in ("GC1", "GC2", "GC3"):  # each gate check fails on its own somewhere
        assert any(not e["gate"][gc] and all(e["gate"][o] for o in ("GC1", "GC2", "GC3") if o < gc)
                   for e in expected), gc


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_reviewer_matches_adjudication(case, review):
    expected, paper, artifact = load_case(case)
    report, run_dir = review(paper, artifact, timeout=expected.get("review_timeout", 60), sandbox_name="local")
    jsonschema.validate(json.loads((run_dir / "report.json").read_text()), schema_for("report"))
    assert report.badge == expected["badge"], expected["reason"]
    assert report.badges["reproduced"] == bool(expected.get("reproduced")), expected["reason"]
    assert {k: v.passed for k, v in report.gate.items()} == expected["gate"]
    got = {d: (r.score.value if r.score else None) for d, r in report.dimensions.items()}
    assert got == expected["dimensions"], expected["reason"]
    top = max((i.level.value for i in report.interventions), default="I0")
    assert top == expected.get("max_intervention", "I0")
    for dim in report.dimensions.values():  # every judged item is anchored to evidence that exists
        for c in dim.checklist:
            assert c.status == "not_applicable" or c.evidence
            for ev_id in c.evidence:
                ev = next(e for e in report.evidence if e.id == ev_id)
                assert (run_dir / ev.path).is_file()
    check_golden(case.name, run_dir)


def test_copied_results_are_flagged_not_reproduced(review):
    from conftest import CORPUS

    expected, paper, artifact = load_case(CORPUS / "available-copied-results")
    report, run_dir = review(paper, artifact)
    assert not report.badges["reproduced"]
    assert any(f.code == "copied-results" for f in report.flags)
    rw2 = next(c for c in report.dimensions["D3"].checklist if c.item == "RW2")
    assert rw2.status == "violated" and "results/table2.md" in rw2.note
    assert any(e.kind == "provenance" for e in report.evidence)


def test_path_fix_is_logged_once_before_it_runs(review):
    from conftest import CORPUS

    expected, paper, artifact = load_case(CORPUS / "functional-path-fix")
    report, run_dir = review(paper, artifact)
    fixes = [i for i in report.interventions if i.rule == "path-or-command-fix"]
    assert len(fixes) == 1 and fixes[0].level.value == "I2" and fixes[0].phase == "D2"
    ledger = (run_dir / "interventions.jsonl").read_text().splitlines()
    assert len(ledger) == len(report.interventions)


def test_hang_is_killed_and_reported(review):
    from conftest import CORPUS

    expected, paper, artifact = load_case(CORPUS / "hang-forever")
    report, _ = review(paper, artifact, timeout=3)
    rw3 = next(c for c in report.dimensions["D3"].checklist if c.item == "RW3")
    assert rw3.status == "violated" and "timed out" in rw3.note
