"""Claim support as the rubric defines it, on whole reviews of small artifacts in real shapes: D4 WA when the run's
output *maps* to a paper object (labels and numbers, values compared and the differences stated), A and Results
Reproduced only on equal values, WR when mapped values contradict the paper. Before this change each positive case
below got D4 R (no equal numbers), and the far-off results file got WA (an over-award)."""
from __future__ import annotations

import json

from .shapes import far_off_results, named_scripts, reduced_run, table_shape, tool


def _item(report, name: str):
    return next(c for c in report.dimensions["D4"].checklist if c.item == f"D4.{name}")


def _mapping(run_dir) -> dict:
    found = sorted((run_dir / "evidence").rglob("*claim-mapping*"))
    return json.loads(found[-1].read_text(encoding="utf-8"))


def test_a_reduced_run_of_the_papers_experiment_maps_to_its_table(review, tmp_path):
    paper, art = reduced_run(tmp_path / "case")
    report, run_dir = review(paper, art, timeout=120)
    mapping = _item(report, "mapping")
    assert mapping.status == "satisfied", mapping.note
    assert "maps to Table 2" in mapping.note and "adult" in mapping.note.lower()
    assert "differs by" in mapping.note and "reduced run" in mapping.note
    assert _item(report, "contradicted").status == "violated"
    assert report.dimensions["D4"].score == "WA"
    assert report.badge == "functional" and not report.badges.get("reproduced")
    found = _mapping(run_dir)["mapping"]["structure"]
    assert [(m["table"], m["reduced"], m["counts"]["far"]) for m in found] == [("Table 2", True, 3)]


def test_an_output_table_of_other_labels_maps_to_nothing(review, tmp_path):
    paper, art = reduced_run(tmp_path / "case", unrelated=True)
    report, _ = review(paper, art, timeout=120)
    assert _item(report, "mapping").status == "violated"
    assert report.dimensions["D4"].score in ("R", "WR")
    assert report.badge == "available"


def test_scripts_named_after_paper_objects_run_first_and_map(review, tmp_path):
    paper, art = named_scripts(tmp_path / "case")
    report, run_dir = review(paper, art, timeout=120)
    selection = json.loads(next((run_dir / "evidence").rglob("*workflow-selection*")).read_text(encoding="utf-8"))
    ran = [a["cmd"] for a in selection["attempts"] if a["runs"]]
    assert ran[:2] == ["python reproduction/fig_7a.py", "python table2.py"]
    skipped = [s["cmd"] for s in selection["skipped"]]
    assert "python reproduction/fig_7a.py" not in skipped and "python table2.py" not in skipped
    assert any("not tied to a paper" in s["why"] for s in selection["skipped"])
    figures = _item(report, "figures")
    assert figures.status == "satisfied" and "Figure 7" in figures.note, figures.note
    mapping = _item(report, "mapping")
    assert mapping.status == "satisfied" and "Table 2" in mapping.note, mapping.note
    assert report.dimensions["D4"].score == "WA"


def test_a_figure_script_that_fails_regenerates_no_figure(review, tmp_path):
    paper, art = named_scripts(tmp_path / "case", broken_figure=True)
    report, _ = review(paper, art, timeout=120)
    assert _item(report, "figures").status == "violated"


def test_a_table_script_writing_the_papers_shape_in_fractions_maps(review, tmp_path):
    paper, art = table_shape(tmp_path / "case")
    report, run_dir = review(paper, art, timeout=120)
    mapping = _item(report, "mapping")
    assert mapping.status == "satisfied", mapping.note
    assert "table2_result maps to Table 2" in mapping.note
    assert "fractions against percentages" in mapping.note
    assert "ordering holds" in mapping.note
    assert report.dimensions["D4"].score == "WA" and not report.badges.get("reproduced")
    found = _mapping(run_dir)["mapping"]["structure"][0]
    assert found["verdict"] == "close" and found["counts"] == {"equal": 1, "close": 11, "far": 0}


def test_a_table_that_contradicts_the_paper_is_wr(review, tmp_path):
    paper, art = table_shape(tmp_path / "case", contradict=True)
    report, _ = review(paper, art, timeout=120)
    contradicted = _item(report, "contradicted")
    assert contradicted.status == "satisfied", contradicted.note
    assert "does not hold" in contradicted.note
    assert report.dimensions["D4"].score == "WR"
    assert report.badge == "available"


def test_a_documented_results_file_far_from_the_paper_does_not_make_it_functional(review, tmp_path):
    paper, art = far_off_results(tmp_path / "case")
    report, _ = review(paper, art, timeout=120)
    assert _item(report, "documented_output").status == "satisfied"
    contradicted = _item(report, "contradicted")
    assert contradicted.status == "satisfied", contradicted.note
    assert "0.31 against paper" in contradicted.note
    assert report.dimensions["D4"].score == "WR"
    assert report.badge == "available"


def test_a_tools_documented_usage_on_its_examples_and_its_tests_show_its_capability(review, tmp_path):
    paper, art = tool(tmp_path / "case")
    report, _ = review(paper, art, timeout=120)
    capability = _item(report, "tool_capability")
    assert capability.status == "satisfied", capability.note
    assert "examples/hello.py" in capability.note and "Ran 2 tests" in capability.note
    assert report.dimensions["D4"].score == "WA"


def test_a_tools_documented_usage_on_its_shipped_examples_alone_shows_its_capability(review, tmp_path):
    paper, art = tool(tmp_path / "case", tests=False)
    report, _ = review(paper, art, timeout=120)
    capability = _item(report, "tool_capability")
    assert capability.status == "satisfied", capability.note
    assert "ran validly on the shipped examples/hello.py" in capability.note
    assert report.dimensions["D4"].score == "WA" and not report.badges.get("reproduced")


def test_a_tool_whose_examples_crash_shows_nothing(review, tmp_path):
    paper, art = tool(tmp_path / "case", crash=True)
    report, _ = review(paper, art, timeout=120)
    assert _item(report, "tool_capability").status != "satisfied"
    assert report.dimensions["D4"].score in ("R", "WR")
