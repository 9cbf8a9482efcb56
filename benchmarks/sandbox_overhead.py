"""Sandbox overhead: one trivial command run bare and in every sandbox backend (local bubblewrap, Docker).

    python benchmarks/sandbox_overhead.py [--runs 30] [--image artifactcopilot/base:bookworm] [--smoke]

Prints medians in milliseconds and, because machines differ, ratios: each backend's per-command time
over a bare subprocess, docker over local, and the time to start a session (scratch copy plus, for
Docker, creating and starting the container) over one command in it. Backends are opened through the
sandbox registry, as a review opens them; one that cannot run here is reported as not measured.
`--smoke`: one run of each measurement (checks that the benchmark works, not a figure).
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from artifactcopilot.sandbox.base import Limits
from artifactcopilot.sandbox.registry import BACKENDS, SandboxOptions, backend

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "wordfreq" / "artifact"
CMD = "true"


def median_ms(fn: Callable[[], object], runs: int) -> float:
    fn()  # first use warms caches: not what a review pays per command
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


def measure(name: str, options: SandboxOptions, runs: int, start_runs: int) -> tuple[float, float] | str:
    """(per-command ms, session start ms) of one backend, or why it cannot run here."""
    chosen = backend(name)
    problem = chosen.check(options)
    if problem is not None:
        return problem
    sandbox = chosen.open(options)
    try:
        session = sandbox.start(EXAMPLE)
        try:
            def run() -> None:
                if session.run(CMD).record.exit_code != 0:
                    raise RuntimeError(f"`{CMD}` failed in the {name} sandbox")
            command = median_ms(run, runs)
        finally:
            session.close()
        start = median_ms(lambda: sandbox.start(EXAMPLE).close(), start_runs)
        print(f"  {sandbox.enforcement().describe()}")
    finally:
        sandbox.close()
    return command, start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--image", default=None)
    parser.add_argument("--smoke", action="store_true", help="one run of each measurement (a check, not a figure)")
    args = parser.parse_args()
    runs = 1 if args.smoke else args.runs
    start_runs = 1 if args.smoke else max(3, runs // 5)
    with tempfile.TemporaryDirectory() as tmp:
        options = SandboxOptions(limits=Limits(timeout_s=60), scratch=Path(tmp), image=args.image)
        bare = median_ms(lambda: subprocess.run(["bash", "-c", CMD], check=True), runs)
        print(f"bare subprocess      {bare:8.1f} ms")
        measured: dict[str, tuple[float, float]] = {}
        for name in BACKENDS:
            result = measure(name, options, runs, start_runs)
            if isinstance(result, str):
                print(f"{name}: not measured ({result})")
                continue
            measured[name] = result
            print(f"{name + ' command':<20} {result[0]:8.1f} ms")
            steps = "copy + create + start + close" if name == "docker" else "copy + close"
            print(f"{name + ' session start':<20} {result[1]:8.1f} ms   ({steps})")
    ratios = [f"{name}/bare {cmd / bare:.2f}" for name, (cmd, _) in measured.items()]
    ratios += [f"{name} start/{name} command {start / cmd:.2f}" for name, (cmd, start) in measured.items()]
    if "docker" in measured and "local" in measured:
        ratios.append(f"docker/local {measured['docker'][0] / measured['local'][0]:.2f}")
    print("ratios: " + ("  ".join(ratios) if ratios else "none (no sandbox backend can run here)"))


if __name__ == "__main__":
    main()
