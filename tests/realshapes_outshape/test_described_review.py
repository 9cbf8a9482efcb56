"""A README that describes a command's output file in words ("same shape as the input file with one additional
column containing the cluster index"): the file the run wrote is checked for those properties, and a match is
documented-output evidence for D4 (WA at most). On the code before this change nothing checked it: D4 stayed R."""
from __future__ import annotations

import json

from .shapes import clustering, configurations


def _item(report, dim: str, name: str):
    return next(c for c in report.dimensions[dim].checklist if c.item == f"{dim}.{name}")


def _described(run_dir) -> list[dict]:
    found = sorted((run_dir / "evidence").rglob("*described-output*"))
    return [json.loads(p.read_text(encoding="utf-8")) for p in found]


def test_output_of_the_described_shape_is_documented_output(review, tmp_path):
    art = clustering(tmp_path / "case")
    report, run_dir = review(tmp_path / "case" / "paper.md", art, timeout=120)
    found = _described(run_dir)
    assert [(f["output"], f["input"], f["verdict"]) for f in found] == [("result.csv", "data/small.csv", "match")]
    assert {c["name"] for c in found[0]["checks"] if c["ok"]} == {"same_rows", "extra_columns", "extra_kind"}
    documented = _item(report, "D4", "documented_output")
    assert documented.status == "satisfied", documented.note
    assert "wrote result.csv as the documentation describes it" in documented.note
    assert report.dimensions["D4"].score == "WA"
    assert not report.badges.get("reproduced")


def test_output_of_another_shape_is_not_established(review, tmp_path):
    art = clustering(tmp_path / "case", wrong="rows")
    report, run_dir = review(tmp_path / "case" / "paper.md", art, timeout=120)
    found = _described(run_dir)
    assert [f["verdict"] for f in found] == ["mismatch"]
    documented = _item(report, "D4", "documented_output")
    assert documented.status == "violated"
    assert "not as described" in documented.note and "3 rows against the input's 12" in documented.note
    assert report.dimensions["D4"].score != "WA"


def test_an_extra_column_of_names_is_not_a_cluster_index(review, tmp_path):
    art = clustering(tmp_path / "case", wrong="labels")
    report, run_dir = review(tmp_path / "case" / "paper.md", art, timeout=120)
    assert [f["verdict"] for f in _described(run_dir)] == ["mismatch"]
    assert _item(report, "D4", "documented_output").status == "violated"


def test_lines_of_the_documented_form_one_value_per_option_of_the_input(review, tmp_path):
    art = configurations(tmp_path / "case")
    report, run_dir = review(tmp_path / "case" / "paper.md", art, timeout=120)
    found = _described(run_dir)
    assert [(f["output"], f["input"], f["verdict"]) for f in found] == [
        ("small_configs.txt", "models/small.cnf", "match")]
    assert [c["detail"] for c in found[0]["checks"]] == [
        "6 lines of 5 values each, all 0/1, as the documented line `0 1 0`",
        "one value per option: 5 values, the input has 5"]
    assert _item(report, "D4", "documented_output").status == "satisfied"


def test_lines_with_fewer_values_than_the_input_has_options_are_not_established(review, tmp_path):
    art = configurations(tmp_path / "case", drop=1)
    report, run_dir = review(tmp_path / "case" / "paper.md", art, timeout=120)
    assert [f["verdict"] for f in _described(run_dir)] == ["mismatch"]
    documented = _item(report, "D4", "documented_output")
    assert documented.status == "violated" and "4 values, the input has 5" in documented.note
