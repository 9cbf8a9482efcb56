"""A tool paper reviewed end to end: the tool's passing test suite is D4 weak mapping on a paper whose claims are
what the tool does (never Results Reproduced), and D5 runs the documented command on a new input of the documented
form (a CSV with the documented columns) written by the review. The same artifact with a study paper gets no D4
credit for its tests: what the paper argues decides, not the artifact."""
from __future__ import annotations

import json
from pathlib import Path

FIXTURE = Path(__file__).parent / "fixtures" / "tool-paper"


def _item(report, dim: str, name: str):
    return next(c for c in report.dimensions[dim].checklist if c.item == name)


def test_tool_paper_gets_weak_mapping_from_its_passing_tests_and_a_new_input_transfer(review):
    report, run_dir = review(FIXTURE / "paper.md", FIXTURE / "artifact", sandbox_name="local")
    capability = _item(report, "D4", "D4.tool_capability")
    assert capability.status == "satisfied", capability.note
    assert "run_tests.py" in capability.note and "Ran 2 tests" in capability.note
    assert report.dimensions["D4"].score.value == "WA"
    assert not report.badges["reproduced"]
    assert report.badge in ("functional", "reusable")
    transfer = _item(report, "D5", "D5.transfer_validated")
    assert transfer.status == "satisfied", transfer.note
    reuse = next(e for e in report.evidence if e.kind == "reuse")
    record = json.loads((run_dir / reuse.path).read_text())
    new = record["transfer"]["new_input"]
    assert new and new["path"].endswith("sales-new.csv") and "documented columns" in new["form"]
    written = next(p for p in run_dir.rglob("*.log") if "sales-new.csv" in p.read_text() and "printf" in
                   p.read_text())
    text = written.read_text()
    assert "region,product,units,price" in text and "north,apple,12,0.50\n" not in text.split("printf")[1]


def test_study_paper_gets_no_credit_for_the_tools_tests(review):
    report, _ = review(FIXTURE / "study-paper.md", FIXTURE / "artifact", sandbox_name="local")
    capability = _item(report, "D4", "D4.tool_capability")
    assert capability.status == "not_applicable"
    assert "not a tool paper" in capability.note and "study" in capability.note
    assert report.dimensions["D4"].score.value == "R"
    assert report.badge == "available"


SHIPPED = Path(__file__).parent / "fixtures" / "shipped-expected"


def test_documented_example_matches_the_expected_output_shipped_beside_it(review):
    report, run_dir = review(SHIPPED / "paper.md", SHIPPED / "artifact", sandbox_name="local")
    documented = _item(report, "D4", "D4.documented_output")
    assert documented.status == "satisfied", documented.note
    assert _item(report, "D4", "D4.tool_capability").status == "satisfied"
    assert report.dimensions["D4"].score.value == "WA" and not report.badges["reproduced"]
    shipped = next(e for e in report.evidence if "shipped-expected-output" in e.path)
    record = json.loads((run_dir / shipped.path).read_text())
    assert record["expected_file"] == "examples/sample.json" and record["verdict"] == "match"
    assert record["lines_matched"] == record["lines_total"] == 6  # keys and values, whatever the layout
