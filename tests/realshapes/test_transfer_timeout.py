"""D5 runs the documented command on another input the artifact ships; when that run is cut by its time limit, D5
says so (the transfer case did not finish) — it is not a failure of the review. Before this change the cut run made
D5 ask for the workflow runner outside its tool scope, and D5 ended as an agent failure."""
from __future__ import annotations

from .shapes import write_artifact, write_paper

PAPER = """# Counting Distinct Words in Short Texts

*Anonymous authors*

## Abstract

We present wc, a small tool that counts the words and distinct words of a text file, and use it on short texts.

## 2 Tool

`count.py` takes a text file as input and prints its number of words and distinct words.
"""

TOOL = """import sys, time
path = sys.argv[1]
if "big" in path:
    time.sleep(120)
words = open(path).read().split()
print(f"{path}: {len(words)} words, {len(set(words))} distinct")
"""


def test_a_transfer_run_cut_by_its_time_limit_is_a_verdict_not_a_failure(review, tmp_path):
    art = write_artifact(tmp_path / "artifact", "# wc\n\nCount words.\n\n## Usage\n\n```\npython count.py "
                         "data/small.txt\n```\n", {"count.py": TOOL, "data/small.txt": "a b c a\n",
                                                  "data/big.txt": "x y\n"})
    paper = write_paper(tmp_path / "paper.md", PAPER)
    report, _ = review(paper, art, timeout=8)
    assert not [f for f in report.flags if f.code in ("phase-error", "agent-failed")], report.flags
    d5 = report.dimensions["D5"]
    assert d5.score is not None and d5.agent_failure is None
