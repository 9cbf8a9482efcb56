"""Small artifacts in the shapes of issue 21, items 6 and 8, written into a test's tmp_path.

- regenerating: a documented script recomputes the authors' committed results/*.csv from the data it ships
  (the committed file is the authors' record of the numbers; the README does not name it);
- drifting: the same, but the recomputed numbers differ from the committed ones in two cells;
- blocked: the documented command needs a data set that is not in the repository (it downloads it elsewhere).
"""
from __future__ import annotations

from pathlib import Path

PAPER = """# Latency of Message Queues Under Load

*Anonymous authors*

## Abstract

We measure the delivery latency of three message queues under increasing load and find that
batching halves the tail latency at the price of a higher median.

## 1 Method

Each queue delivers a fixed stream of messages; we record per-message latency and summarise it per queue.

## 2 Results

Batching lowers the tail latency of every queue we measured.
"""

README = """# queue-latency

Code for our study of message-queue latency.

## Running

```bash
python3 analyse.py
```

It recomputes the summary statistics of every queue from the measurements in `data/`.
"""

ANALYSE = """import csv, os, statistics
rows = list(csv.DictReader(open("data/latency.csv")))
queues = sorted({r["queue"] for r in rows})
os.makedirs("results", exist_ok=True)
with open("results/summary.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["queue", "median_ms", "max_ms"])
    for q in queues:
        vals = [float(r["ms"]) for r in rows if r["queue"] == q]
        w.writerow([q, f"{statistics.median(vals) + SHIFT:.4f}", f"{max(vals):.4f}"])
print(f"wrote results/summary.csv for {len(queues)} queues")
"""

DATA = "queue,ms\n" + "".join(f"{q},{v}\n" for q, vals in
                               {"kafka": (3.1, 4.2, 9.9), "rabbit": (2.0, 2.5, 7.25), "zmq": (1.1, 1.3, 2.6)}.items()
                               for v in vals)
COMMITTED = "queue,median_ms,max_ms\nkafka,4.20,9.90\nrabbit,2.50,7.25\nzmq,1.30,2.60\n"


def regenerating(root: Path, shift: float = 0.0) -> Path:
    art = root / "artifact"
    (art / "data").mkdir(parents=True)
    (art / "results").mkdir()
    (art / "README.md").write_text(README, encoding="utf-8")
    (art / "analyse.py").write_text(f"SHIFT = {shift!r}\n" + ANALYSE, encoding="utf-8")
    (art / "data" / "latency.csv").write_text(DATA, encoding="utf-8")
    (art / "results" / "summary.csv").write_text(COMMITTED, encoding="utf-8")
    (root / "paper.md").write_text(PAPER, encoding="utf-8")
    return art


BLOCKED_README = """# queue-latency

Code for our study of message-queue latency. The measurements (40 GB) are hosted on our lab server;
download them into `data/` first.

## Running

```bash
python3 analyse.py
```
"""


def blocked(root: Path) -> Path:
    art = root / "artifact"
    art.mkdir(parents=True)
    (art / "README.md").write_text(BLOCKED_README, encoding="utf-8")
    (art / "analyse.py").write_text("SHIFT = 0.0\n" + ANALYSE, encoding="utf-8")
    (root / "paper.md").write_text(PAPER, encoding="utf-8")
    return art


COPY = """import shutil
rows = open("results/summary.csv").read()
open("results/summary.csv", "w").write(rows)
print("wrote results/summary.csv")
"""


def copying(root: Path) -> Path:
    """The documented script reads the committed results file and writes it back: nothing is computed."""
    art = regenerating(root)
    (art / "analyse.py").write_text(COPY, encoding="utf-8")
    return art


TWO_RUNS = """# queue-latency

Code for our study of message-queue latency.

## Running

```bash
python3 analyse.py kafka
python3 analyse.py zmq
```
"""

PER_QUEUE = """import csv, statistics, sys
rows = [r for r in csv.DictReader(open("data/latency.csv")) if r["queue"] == sys.argv[1]]
open("output.txt", "w").write(f"{sys.argv[1]} median {statistics.median(float(r['ms']) for r in rows):.2f}\\n")
print(open("output.txt").read())
"""


def rewriting_own_output(root: Path) -> Path:
    """Two documented commands write the same uncommitted output file with different values."""
    art = regenerating(root)
    (art / "README.md").write_text(TWO_RUNS, encoding="utf-8")
    (art / "analyse.py").write_text(PER_QUEUE, encoding="utf-8")
    (art / "results" / "summary.csv").unlink()
    return art
