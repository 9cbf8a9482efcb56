"""The Ray engine: one Ray task per review on an existing cluster (or a private local one).

Each task declares its CPUs, is retried by Ray when its worker process or node is lost, and returns
the review's run directory as tar bytes. Inputs travel through the object store too: a worker that
cannot see the driver's paths unpacks them into a temporary folder, so no shared disk is needed.
"""
from __future__ import annotations

import logging
import time
from typing import Any

from ..errors import CopilotError, UsageError
from .work import Job, failure, pack_inputs, run_job_with_inputs

TASK_RETRIES = 3


def _review_task(job: Job, inputs: list) -> dict:
    import ray

    # `inputs` is a list holding an object ref, so Ray does not fetch it unless this worker needs it.
    needs_copy = inputs and inputs[0] is not None and not _visible(job)
    return run_job_with_inputs(job, ray.get(inputs[0]) if needs_copy else None)


def _visible(job: Job) -> bool:
    import os
    from pathlib import Path

    return Path(job.paper).is_file() and ("://" in job.artifact or os.path.lexists(job.artifact))


def _probe(address: str, timeout_s: float = 5.0) -> None:
    """Fail fast when nothing listens at host:port (ray.init would retry for minutes)."""
    import socket

    target = address.split("://", 1)[-1]
    host, sep, port = target.rpartition(":")
    if not sep or not port.isdigit():
        return  # 'auto', 'local' or a form Ray resolves itself
    try:
        socket.create_connection((host or "127.0.0.1", int(port)), timeout=timeout_s).close()
    except OSError as exc:
        raise CopilotError(f"no Ray cluster answers at {address} ({exc.strerror or exc})",
                           "start one with `ray start --head`, or use --address local or --engine local") from None


class RayEngine:
    """Engine protocol: slots, submit(job), poll(timeout) -> [(job, result)], running(), close()."""

    name = "ray"

    def __init__(self, address: str, workers: int | None, review_limit_s: float, cpus_per_review: float = 1.0,
                 ship_inputs: str = "auto"):
        try:
            import ray
        except ModuleNotFoundError:
            raise UsageError("the Ray engine needs the 'ray' package", "pip install 'artifactcopilot[ray]'") from None
        self._ray = ray
        self.review_limit_s = review_limit_s
        kwargs: dict[str, Any] = dict(logging_level=logging.WARNING, log_to_driver=False, configure_logging=True)
        _probe(address)
        try:
            if address == "local":  # a private single-machine cluster for this run
                ray.init(address="local", num_cpus=workers or None, include_dashboard=False, **kwargs)
            else:
                ray.init(address=address, **kwargs)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise CopilotError(f"cannot connect to the Ray cluster at '{address}': {first[:200]}",
                               "start one with `ray start --head`, or use --address local or --engine local") from None
        cpus = ray.cluster_resources().get("CPU", 1.0)
        self.slots = max(1, workers or int(cpus // cpus_per_review) or 1)
        alive = [n for n in ray.nodes() if n.get("Alive")]
        self.ship_inputs = ship_inputs == "always" or (ship_inputs == "auto" and (len(alive) > 1 or address.startswith("ray://")))
        self._remote = ray.remote(num_cpus=cpus_per_review, max_retries=TASK_RETRIES,
                                  retry_exceptions=False)(_review_task)
        self._inflight: dict = {}

    def start(self) -> None:
        pass

    def running(self) -> int:
        return len(self._inflight)

    def submit(self, job: Job) -> None:
        inputs = [self._ray.put(pack_inputs(job.paper, job.artifact))] if self.ship_inputs else [None]
        ref = self._remote.remote(job, inputs)
        self._inflight[ref] = (job, time.monotonic())

    def poll(self, timeout: float) -> list[tuple[Job, dict]]:
        ray = self._ray
        done: list[tuple[Job, dict]] = []
        if not self._inflight:
            time.sleep(timeout)
            return done
        ready, _ = ray.wait(list(self._inflight), num_returns=len(self._inflight), timeout=timeout, fetch_local=True)
        for ref in ready:
            job, started = self._inflight.pop(ref)
            try:
                done.append((job, ray.get(ref)))
            except ray.exceptions.RayError as exc:
                lost = isinstance(exc, (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError))
                kind = "worker-lost" if lost else "error"
                message = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else type(exc).__name__
                done.append((job, {"outcome": failure(kind, f"{type(exc).__name__}: {message}",
                                                      time_s=round(time.monotonic() - started, 3)), "archive": b""}))
        now = time.monotonic()
        for ref, (job, started) in list(self._inflight.items()):
            if now - started > self.review_limit_s:
                ray.cancel(ref, force=True, recursive=True)
                del self._inflight[ref]
                stopped = failure("timeout", f"review exceeded {self.review_limit_s:g}s and was stopped",
                                  time_s=round(now - started, 3))
                done.append((job, {"outcome": stopped, "archive": b""}))
        return done

    def close(self) -> None:
        for ref in list(self._inflight):
            try:
                self._ray.cancel(ref, force=True)
            except Exception:  # noqa: BLE001 - best effort while shutting down
                pass
        self._inflight.clear()
        self._ray.shutdown()
