"""Review overhead on the bundled example: wall time minus time inside artifact commands.

    python benchmarks/review_overhead.py [--runs 5]

Prints, per run and as a median: total wall time, seconds inside sandboxed artifact commands,
the review's own overhead (the rest: acquisition, parsing, evidence writes, graph, reports) and
overhead as a ratio of wall time. Ratios are what to compare across machines.
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from artifactcopilot.review import ReviewRequest, run_review

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "wordfreq"


def one_run(out: Path) -> tuple[float, float]:
    started = time.monotonic()
    report, _ = run_review(ReviewRequest(paper=EXAMPLE / "paper.md", artifact=str(EXAMPLE / "artifact"), out=out))
    wall = time.monotonic() - started
    return wall, report.timing["commands_s"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        one_run(Path(tmp) / "warmup")  # imports and first-use caches are not review overhead
        for i in range(args.runs):
            wall, commands = one_run(Path(tmp) / f"run{i}")
            rows.append((wall, commands, wall - commands))
            print(f"run {i + 1}: wall {wall:.3f}s  commands {commands:.3f}s  overhead {wall - commands:.3f}s "
                  f"({(wall - commands) / wall:.0%} of wall)")
    wall, commands, overhead = (statistics.median(col) for col in zip(*rows))
    print(f"median: wall {wall:.3f}s  commands {commands:.3f}s  overhead {overhead:.3f}s  "
          f"overhead/wall {overhead / wall:.2f}  overhead/commands {overhead / max(commands, 1e-9):.2f}")


if __name__ == "__main__":
    main()
