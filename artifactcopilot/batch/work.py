"""One unit of batch work: run a review in a private temporary folder and hand back the whole run
directory as tar bytes, so the driver never depends on a disk it shares with the worker."""
from __future__ import annotations

import io
import os
import socket
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Job:
    """One review to run: artifact `id`, repetition `run` (1-based) and where it lands in the batch folder."""

    id: str
    run: int
    key: str
    """Folder of this review relative to the batch directory: '<id>' or '<id>/run-<k>'."""
    paper: str
    artifact: str
    agent: str = "auto"
    sandbox: str = "auto"
    """auto, docker or local, as for `copilot review`."""
    timeout_s: float = 1800.0
    max_cost: float = 1.0
    offline: bool = False
    """No network for any step of the review (`copilot review --offline`)."""


def failure(kind: str, message: str, **extra) -> dict:
    """An outcome for a review that did not complete (timeout, worker-lost, error)."""
    return {"status": "failed", "kind": kind, "message": message[:2000], **extra}


def pack(folder: Path) -> bytes:
    """The folder as an uncompressed tar (evidence is small text; compression costs more than it saves)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        tar.add(folder, arcname=".")  # links are stored as links, never followed
    return buffer.getvalue()


def _safe_member(member: tarfile.TarInfo, dest: str):
    if member.issym() or member.islnk():
        return None  # a run directory needs no links; an artifact's stray link must not reach the batch folder
    try:
        return tarfile.data_filter(member, dest)
    except tarfile.FilterError:
        return None


def unpack(data: bytes, dest: Path, keep_links: bool = False) -> None:
    """Extract tar bytes into dest; with keep_links (artifact inputs) links stay, so the sandbox can judge them."""
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tar:
        tar.extractall(dest, filter="tar" if keep_links else _safe_member)


def summarise(report) -> dict:
    """What the batch needs from a report without reading report.json again."""
    severities: dict[str, int] = {}
    for flag in report.flags:
        severities[flag.severity] = severities.get(flag.severity, 0) + 1
    return {
        "status": "ok", "badge": report.badge, "reproduced": bool(report.badges.get("reproduced")),
        "dimensions": {d: (r.score.value if r.score else None) for d, r in report.dimensions.items()},
        "confidence": report.confidence, "flags": severities,
        "flag_codes": sorted({f.code for f in report.flags if f.severity in ("high", "medium")}),
        "cost_usd": report.cost.usd, "llm_calls": report.cost.llm_calls, "tokens": report.cost.tokens,
        "review_status": report.status,
        "agent_failed": {f.phase: f.reason for f in report.agent_failures if not f.fallback},
        "agent_fallback": [f.phase for f in report.agent_failures if f.fallback],
        "badges_not_established": list(report.badges_not_established),
    }


def run_job(job: Job, paper: str | None = None, artifact: str | None = None) -> dict:
    """Run the review of `job` (optionally on other local copies of its inputs); never raises."""
    from ..review import ReviewRequest, run_review

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="copilot-batch-") as tmp:
        out = Path(tmp) / f"{job.id}-run{job.run}"  # the folder name also names the review's container
        try:
            report, _ = run_review(ReviewRequest(paper=Path(paper or job.paper), artifact=artifact or job.artifact,
                                                 out=out, agent=job.agent, sandbox=job.sandbox, timeout_s=job.timeout_s,
                                                 max_cost=job.max_cost, offline=job.offline))
            outcome = summarise(report)
        except Exception as exc:  # noqa: BLE001 - one broken review must never stop the batch
            outcome = failure("error", f"{type(exc).__name__}: {exc}")
        outcome.update(time_s=round(time.monotonic() - started, 3), host=socket.gethostname(), pid=os.getpid())
        archive = pack(out) if out.is_dir() else b""
    return {"outcome": outcome, "archive": archive}


def pack_inputs(paper: str, artifact: str) -> bytes | None:
    """Paper and (local) artifact as tar bytes, for workers on machines that cannot see the driver's disk."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        tar.add(paper, arcname=f"paper/{Path(paper).name}")
        if "://" not in artifact and os.path.lexists(artifact):
            tar.add(artifact, arcname=f"artifact/{Path(artifact).name}")
    return buffer.getvalue()


def run_job_with_inputs(job: Job, inputs: bytes | None) -> dict:
    """run_job, unpacking shipped inputs first when this machine cannot see the driver's paths."""
    if inputs is None or (Path(job.paper).is_file() and ("://" in job.artifact or os.path.lexists(job.artifact))):
        return run_job(job)
    with tempfile.TemporaryDirectory(prefix="copilot-inputs-") as tmp:
        unpack(inputs, Path(tmp), keep_links=True)
        paper = str(Path(tmp) / "paper" / Path(job.paper).name)
        artifact = job.artifact if "://" in job.artifact else str(Path(tmp) / "artifact" / Path(job.artifact).name)
        return run_job(job, paper=paper, artifact=artifact)
