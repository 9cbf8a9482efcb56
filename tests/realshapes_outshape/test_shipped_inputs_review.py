"""The documented command reads one of several inputs the artifact ships in one folder: D5 runs it on another of
them (the smallest) twice. That makes a transfer concrete (D5.transfer_info) but the authors' own inputs are not new
input: it never validates a transfer, so D5 stays below WA. On the code before this change nothing was tried."""
from __future__ import annotations

import json

from .shapes import clustering


def _item(report, dim: str, name: str):
    return next(c for c in report.dimensions[dim].checklist if c.item == f"{dim}.{name}")


def test_another_shipped_input_is_run_twice_but_is_not_new_input(review, tmp_path):
    art = clustering(tmp_path / "case", suffix=".data")
    report, run_dir = review(tmp_path / "case" / "paper.md", art, timeout=120)
    found = next((run_dir / "evidence").rglob("*reuse-discovery*"))
    shipped = json.loads(found.read_text(encoding="utf-8"))["shipped_input"]
    assert (shipped["input"], shipped["sibling"], shipped["siblings"]) == ("data/small.data", "data/other.data", 2)
    assert shipped["valid"] and shipped["repeatable"] and len(shipped["evidence"]) == 2
    assert "data/other.data" in shipped["command"]
    assert _item(report, "D5", "transfer_info").status == "satisfied"
    validated = _item(report, "D5", "transfer_validated")
    assert validated.status == "violated" and "not new input" in validated.note
    assert report.dimensions["D5"].score in ("R", "WR")
    assert not report.badges.get("reusable")
