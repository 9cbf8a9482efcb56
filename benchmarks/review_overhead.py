"""Review overhead on the bundled example: wall time minus time inside artifact commands.

    python benchmarks/review_overhead.py [--runs 5] [--sandbox auto] [--smoke]

Prints, per run and as a median: total wall time, seconds inside sandboxed artifact commands,
the review's own overhead (the rest: acquisition, parsing, sandbox start, evidence writes, graph,
reports), overhead as a ratio of wall time and of the commands' time, the reviewer process's CPU time
(all its threads; what a loaded machine inflates least) and the load average while it ran. Ratios are
what to compare across machines. `--smoke`: one review without the warm-up run (checks that the
benchmark works, not a figure).
"""
from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from artifactcopilot.review import ReviewRequest, run_review

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "wordfreq"


def one_run(out: Path, sandbox: str) -> tuple[float, float, float]:
    started, cpu = time.monotonic(), time.process_time()
    report, _ = run_review(ReviewRequest(paper=EXAMPLE / "paper.md", artifact=str(EXAMPLE / "artifact"), out=out,
                                         agent="heuristic", sandbox=sandbox))
    wall, cpu = time.monotonic() - started, time.process_time() - cpu
    if report.badge != "reusable":  # the bundled example is reusable: anything else is a broken review
        raise SystemExit(f"the bundled example was judged '{report.badge}', not reusable: see {out}/report.md")
    return wall, report.timing["commands_s"], cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sandbox", default="auto", help="sandbox backend, as `copilot review --sandbox`")
    parser.add_argument("--smoke", action="store_true", help="one review, no warm-up (a check, not a figure)")
    args = parser.parse_args()
    runs = 1 if args.smoke else args.runs
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        if not args.smoke:
            one_run(Path(tmp) / "warmup", args.sandbox)  # imports and first-use caches are not review overhead
        for i in range(runs):
            wall, commands, cpu = one_run(Path(tmp) / f"run{i}", args.sandbox)
            rows.append((wall, commands, wall - commands, cpu))
            print(f"run {i + 1}: wall {wall:.3f}s  commands {commands:.3f}s  overhead {wall - commands:.3f}s "
                  f"({(wall - commands) / wall:.0%} of wall)  reviewer CPU {cpu:.3f}s")
    wall, commands, overhead, cpu = (statistics.median(col) for col in zip(*rows))
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"median: wall {wall:.3f}s  commands {commands:.3f}s  overhead {overhead:.3f}s  "
          f"overhead/wall {overhead / wall:.2f}  overhead/commands {overhead / max(commands, 1e-9):.2f}  "
          f"reviewer CPU {cpu:.3f}s  (load average {load}, {os.cpu_count()} CPUs)")


if __name__ == "__main__":
    main()
