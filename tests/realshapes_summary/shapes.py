"""A small artifact of the common shape "one script per paper object", written into a test's tmp_path: the README
ties `python3 table1.py` to Table 1 (it runs in a second and prints the paper's values) and `python3 figure2.py` to
Figure 2 (it needs a trace the repository does not ship, so it fails). The paper is Markdown with a title heading;
`heading=False` drops it (a paper whose title cannot be read)."""
from __future__ import annotations

from pathlib import Path

TITLE = "Sharded Caches Keep Tail Latency Flat"
PAPER = """# {title}

*Anonymous authors*

## Abstract

We shard a key-value cache by request class and show that the hit rate stays high while the tail latency stays
flat as the load grows.

## 4 Evaluation

Table 1: Hit rate per cache policy.

| Policy | Hit rate |
|---|---|
| LRU | 0.81 |
| LFU | 0.77 |
| Sharded | 0.93 |

The sharded cache reaches a hit rate of 0.93, 12 points above LRU. Figure 2 shows the tail latency as the load grows.
"""
README = """# shardcache

Simulator of request latency under sharded caches.

## Table 1: hit rate per cache policy

Takes about a second:

```
python3 table1.py
```

## Figure 2: tail latency as the load grows

Needs the full request trace, `traces/day.csv`:

```
python3 figure2.py
```
"""
TABLE1 = """rows = [("LRU", 0.81), ("LFU", 0.77), ("Sharded", 0.93)]
print("Policy  Hit rate")
for name, rate in rows:
    print(f"{name}  {rate:.2f}")
"""
FIGURE2 = """import csv
with open("traces/day.csv") as fh:
    rows = list(csv.reader(fh))
print(len(rows))
"""


def shard_cache(root: Path, heading: bool = True) -> tuple[Path, Path]:
    """(paper, artifact) under `root`."""
    artifact = root / "artifact"
    artifact.mkdir(parents=True)
    for name, text in {"README.md": README, "table1.py": TABLE1, "figure2.py": FIGURE2}.items():
        (artifact / name).write_text(text, encoding="utf-8")
    paper = PAPER.format(title=TITLE)
    if not heading:
        paper = paper.split("\n", 2)[2]
    (root / "paper.md").write_text(paper, encoding="utf-8")
    return root / "paper.md", artifact
