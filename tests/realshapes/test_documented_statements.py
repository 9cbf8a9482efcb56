"""A documented loop runs whole, as written: its variable set for every item (the shell package reads the block)."""
from __future__ import annotations

from .shapes import write_artifact, write_paper

PAPER = """# Counting Words Across Corpora

*Anonymous authors*

## Abstract

We count the words of three corpora; `count.py` computes the counts of Table 1 for one corpus at a time.
"""
README = """# Corpus counts

## Reproduce Table 1

Run the counter on every corpus:

```bash
mkdir -p results
for corpus in alpha beta gamma; do
    python3 count.py "corpora/$corpus.txt" > "results/$corpus.txt"
    echo "counted $corpus"
done
```
"""
COUNT = """import sys
words = open(sys.argv[1]).read().split()
print(f"{sys.argv[1]}: {len(words)} words")
"""


def test_a_documented_for_loop_runs_with_its_variable_for_every_item(tmp_path, review):
    artifact = write_artifact(tmp_path / "a", README, {
        "count.py": COUNT, "corpora/alpha.txt": "a b c\n", "corpora/beta.txt": "d e\n", "corpora/gamma.txt": "f\n"})
    report, run_dir = review(write_paper(tmp_path / "paper.md", PAPER), artifact, timeout=60, sandbox_name="local")
    logs = [p.read_text() for p in (run_dir / "evidence").glob("D3-*.log")]
    loop = [text for text in logs if "for corpus in alpha beta gamma" in text]
    assert loop, "the loop is run as one documented step"
    assert all(f"counted {c}" in loop[0] for c in ("alpha", "beta", "gamma")), loop[0][-800:]
    assert "exit: 0 " in loop[0] and "# outcome: valid" in loop[0], loop[0][:800]
    assert "# files created: results/alpha.txt, results/beta.txt, results/gamma.txt" in loop[0]
    items = {i.item: i for i in report.dimensions["D3"].checklist}
    assert items["RW3"].status == "satisfied", items["RW3"].note


def test_a_long_loop_over_written_items_is_reduced_to_its_first_items_and_a_short_one_is_not():
    from artifactcopilot.discovery.reduce import find_reduction

    loop = "for corpus in a b c d e f g h; do\n    python3 count.py \"corpora/$corpus.txt\"\ndone"
    red = find_reduction(loop, ".", lambda rel: None)
    assert red is not None and red.full == 8 and red.reduced == 1
    assert red.script == "for corpus in a; do\n    python3 count.py \"corpora/$corpus.txt\"\ndone"
    assert red.text.startswith("RW5-reduced: the item count of the documented loop `for corpus in …`")
    assert find_reduction(loop.replace("a b c d e f g h", "a b c"), ".", lambda rel: None) is None
    assert find_reduction(loop.replace("a b c d e f g h", "corpora/*.txt"), ".", lambda rel: None) is None
