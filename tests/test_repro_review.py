"""The review's D4 phase with the method judge: reproduced tables carry their method, differing cells are listed."""
from __future__ import annotations

from conftest import CORPUS, load_case


def test_reproduced_table_is_judged_full_and_awarded(review):
    _, paper, artifact = load_case(CORPUS / "reusable-full")
    report, run_dir = review(paper, artifact)
    assert report.badges["reproduced"]
    d4 = report.dimensions["D4"]
    assert "Table 2 (full)" in d4.summary


def test_differing_cells_are_reported_as_paper_artifact_inconsistencies(review):
    _, paper, artifact = load_case(CORPUS / "functional-partial-match")
    report, _ = review(paper, artifact)
    flags = [f for f in report.flags if f.code == "paper-artifact-inconsistency"]
    assert len(flags) == 1 and flags[0].phase == "D4"
    assert ("Table 2: 8 cells differ" in flags[0].message and "paper " in flags[0].message
            and "artifact " in flags[0].message)
    assert not report.badges["reproduced"]
