"""Issue 21, item 8 on a review: the documented command needs data that is not in the repository; the report says
what was run, what blocked it and what a reviewer would do — not "D3: not established — RW3, RW4, …"."""
from __future__ import annotations

import re

from .shapes import blocked


def test_not_established_says_what_was_tried_what_blocked_and_what_next(review, tmp_path):
    art = blocked(tmp_path / "case")
    report, run_dir = review(tmp_path / "case" / "paper.md", art, timeout=120)
    d3 = next(w for w in report.not_established if w.startswith("D3"))
    assert "ran “python3 analyse.py”" in d3
    assert "Blocked: a file it needs (data/latency.csv) is not in the repository" in d3
    assert "A reviewer would obtain data/latency.csv" in d3
    assert not any(re.search(r"\b(?:RW\d|D\d\.[a-z_]+)\b", w) for w in report.not_established)
    assert report.confidence <= 0.75  # the workflow never produced valid output: no more than a gate-only review
    text = (run_dir / "report.md").read_text(encoding="utf-8")
    assert "data/latency.csv) is not in the repository" in text
