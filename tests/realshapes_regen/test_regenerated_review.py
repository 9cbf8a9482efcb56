"""Issue 21, item 6: a documented command that rewrites the authors' committed result file is compared with the
committed version at printed precision; a match is documented-output evidence for D4, a mismatch a cell-by-cell
flag. (On the code before this change neither happened: the rewritten CSV was not compared with anything.)"""
from __future__ import annotations

import json

from .shapes import copying, regenerating, rewriting_own_output


def _item(report, dim: str, name: str):
    return next(c for c in report.dimensions[dim].checklist if c.item == f"{dim}.{name}")


def _regenerated(run_dir) -> list[dict]:
    found = sorted((run_dir / "evidence").rglob("*regenerated-vs-committed*"))
    return [f for p in found for f in json.loads(p.read_text(encoding="utf-8"))["files"]]


def test_regenerated_results_equal_to_committed_are_documented_output(review, tmp_path):
    art = regenerating(tmp_path / "case")
    report, run_dir = review(tmp_path / "case" / "paper.md", art, timeout=120)
    files = _regenerated(run_dir)
    assert files and {(f["path"], f["verdict"], f["matched"], f["total"]) for f in files} == {
        ("results/summary.csv", "match", 9, 9)}  # three queues: label, median and max
    documented = _item(report, "D4", "documented_output")
    assert documented.status == "satisfied", documented.note
    assert "results/summary.csv regenerated: equal to the committed version" in documented.note
    assert _item(report, "D4", "weak_mapping").status == "satisfied"
    assert not report.badges.get("reproduced")  # a committed file regenerated is not a paper table reproduced


def test_regenerated_results_that_differ_are_listed_cell_by_cell(review, tmp_path):
    art = regenerating(tmp_path / "case", shift=0.5)
    report, run_dir = review(tmp_path / "case" / "paper.md", art, timeout=120)
    files = _regenerated(run_dir)
    assert files and files[0]["verdict"] == "mismatch"
    assert {(c["row"], c["column"]) for c in files[0]["cells"]} == {
        ("row 1 (kafka)", "median_ms"), ("row 2 (rabbit)", "median_ms"), ("row 3 (zmq)", "median_ms")}
    flag = next(f for f in report.flags if f.code == "regenerated-differs")
    assert "committed 4.20, regenerated 4.7000" in flag.message
    assert _item(report, "D4", "documented_output").status == "violated"


def test_a_results_file_the_code_reads_by_name_and_writes_back_is_not_counted(review, tmp_path):
    art = copying(tmp_path / "case")
    report, run_dir = review(tmp_path / "case" / "paper.md", art, timeout=120)
    files = _regenerated(run_dir)
    assert files and all(f["verdict"] == "match" and f["read_by"] == "analyse.py" for f in files)
    assert _item(report, "D4", "documented_output").status == "violated"


def test_a_file_an_earlier_command_of_the_review_wrote_is_not_the_authors_committed_version(review, tmp_path):
    art = rewriting_own_output(tmp_path / "case")
    report, run_dir = review(tmp_path / "case" / "paper.md", art, timeout=120)
    assert _regenerated(run_dir) == []
    assert not any(f.code == "regenerated-differs" for f in report.flags)
