"""Sandbox overhead: one trivial command run bare, in the local sandbox and via `docker exec`.

    python benchmarks/sandbox_overhead.py [--runs 30] [--image artifactcopilot/base:bookworm]

Prints medians in milliseconds and, because machines differ, ratios: local and docker per-command
time over a bare subprocess, docker over local, and the time to start a session (scratch copy plus,
for Docker, creating and starting the container) over one docker command.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from artifactcopilot.sandbox.local import LocalSandbox, SandboxLimits

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "wordfreq" / "artifact"
CMD = "true"


def median_ms(fn, runs: int) -> float:
    fn()  # first use warms caches: not what a review pays per command
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


def start_ms(sandbox, runs: int) -> float:
    def once():
        sandbox.start(EXAMPLE).close()
    return median_ms(once, max(3, runs // 5))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--image", default=None)
    args = parser.parse_args()
    limits = SandboxLimits(timeout_s=60)
    with tempfile.TemporaryDirectory() as tmp:
        bare = median_ms(lambda: subprocess.run(["bash", "-c", CMD], check=True), args.runs)
        local_sb = LocalSandbox(Path(tmp) / "local", limits)
        session = local_sb.start(EXAMPLE)
        local = median_ms(lambda: session.run(CMD), args.runs)
        session.close()
        local_start = start_ms(local_sb, args.runs)
        print(f"bare subprocess      {bare:8.1f} ms")
        print(f"local sandbox        {local:8.1f} ms   "
              f"(network ns {local_sb.netns}, read-only host {local_sb.mountns})")
        print(f"local session start  {local_start:8.1f} ms")
        try:
            from artifactcopilot.sandbox.docker import DockerSandbox
            docker_sb = DockerSandbox(Path(tmp) / "docker", limits, image=args.image)
        except Exception as exc:  # noqa: BLE001 - report and stop: no engine here
            print(f"docker: not measured ({exc})")
            print(f"ratios: local/bare {local / bare:.2f}")
            return
        session = docker_sb.start(EXAMPLE)
        docker = median_ms(lambda: session.run(CMD), args.runs)
        session.close()
        docker_start = start_ms(docker_sb, args.runs)
        print(f"docker exec          {docker:8.1f} ms")
        print(f"docker session start {docker_start:8.1f} ms   (copy + create + start + close)")
        print(f"ratios: local/bare {local / bare:.2f}  docker/bare {docker / bare:.2f}  "
              f"docker/local {docker / local:.2f}  "
              f"docker start/docker command {docker_start / docker:.2f}  "
              f"docker start/local start {docker_start / local_start:.2f}")


if __name__ == "__main__":
    main()
