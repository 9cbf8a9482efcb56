"""Batch throughput on the fixture corpus with 1, 2 and 4 local workers, as a ratio to 1 worker.

    python benchmarks/batch_scaling.py [--workers 1 2 4] [--copies 2] [--cases N] [--with-hang] [--smoke]

Each measurement reviews every corpus artifact (or the first `--cases`) `--copies` times (hang-forever,
which waits out a 5 s command limit, only with --with-hang) on a fresh local pool whose worker processes
are started before the clock starts. Prints reviews per second and the speed-up over one worker; on a
machine with C cores expect the ratio to level off near C. `--smoke`: one artifact, with 1 and then 2
workers, no warm-up review (checks that the benchmark works, not a figure).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from conftest import corpus_cases, load_case  # noqa: E402

from artifactcopilot.batch.local_pool import LocalPool  # noqa: E402
from artifactcopilot.batch.runners import BatchDir, run_jobs  # noqa: E402
from artifactcopilot.batch.work import Job  # noqa: E402


def corpus_jobs(copies: int, with_hang: bool, cases: int | None = None) -> list[Job]:
    jobs = []
    chosen = [case for case in corpus_cases() if with_hang or case.name != "hang-forever"]
    for case in chosen[:cases]:
        expected, paper, artifact = load_case(case)
        if not Path(artifact).exists():
            artifact = Path(artifact).resolve().as_uri()
        for k in range(copies):
            key = f"{case.name}-{k}"
            jobs.append(Job(id=key, run=1, key=key, paper=str(paper), artifact=str(artifact), agent="heuristic",
                            sandbox="local", timeout_s=float(expected.get("review_timeout", 60))))
    return jobs


def measure(workers: int, jobs: list[Job], warm_up: bool = True) -> tuple[float, int]:
    with tempfile.TemporaryDirectory(prefix="batch-scaling-") as tmp:
        batch = BatchDir(Path(tmp))
        batch.open()
        pool = LocalPool(workers, review_limit_s=600)
        pool.start()
        if warm_up:  # fork server and first imports are not throughput
            pool.submit(jobs[0])
            while not pool.poll(0.1):
                pass
        started = time.monotonic()
        try:
            result = run_jobs(jobs, pool, batch)
        finally:
            pool.close()
            batch.close()
        wall = time.monotonic() - started
        failed = sum(o["status"] != "ok" for o in result.done)
        if len(result.done) != len(jobs):
            raise SystemExit(f"{len(result.done)} of {len(jobs)} reviews came back from {workers} workers")
    return wall, failed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--copies", type=int, default=2, help="Reviews of each corpus artifact per measurement.")
    parser.add_argument("--cases", type=int, default=None, help="Only the first N corpus artifacts.")
    parser.add_argument("--with-hang", action="store_true", help="Include hang-forever (dominated by its 5 s limit).")
    parser.add_argument("--smoke", action="store_true", help="1 artifact, 1 and 2 workers, no warm-up (a check)")
    args = parser.parse_args()
    if args.smoke:
        args.workers, args.copies, args.cases = [1, 2], 1, 1
    jobs = corpus_jobs(args.copies, args.with_hang, args.cases)
    print(f"{len(jobs)} reviews per measurement, {os.cpu_count()} CPUs")
    base, failures = None, 0
    for workers in args.workers:
        wall, failed = measure(workers, jobs, warm_up=not args.smoke)
        rate = len(jobs) / wall
        base = base or rate
        print(f"workers {workers}: {wall:6.2f} s  {rate:5.2f} reviews/s  ratio to 1 worker {rate / base:.2f}"
              + (f"  ({failed} failed)" if failed else ""))
        failures += failed
    if failures:
        raise SystemExit(f"{failures} reviews failed: the figures above do not measure working reviews")


if __name__ == "__main__":
    main()
