"""A README that describes a command's output file in words ("same shape as the input file with one additional
column containing the cluster index"): the file the run wrote is checked for those properties, and a match is
documented-output evidence for D4 (WA at most). On the code before this change nothing checked it: D4 stayed R."""
from __future__ import annotations

import json

from .shapes import clustering


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
