"""`copilot batch`: review every artifact of a manifest, then measure agreement with human badges."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..errors import UsageError


def _engine(name: str, address: str, workers: int | None, review_limit_s: float, cpus: float):
    if name == "local":
        from ..batch.local_pool import LocalPool

        return LocalPool(workers or os.cpu_count() or 1, review_limit_s)
    if name == "ray":
        from ..batch.ray_engine import RayEngine

        return RayEngine(address, workers, review_limit_s, cpus_per_review=cpus)
    raise UsageError(f"unknown engine '{name}'", "use local or ray")


class _Progress:
    """A rich progress bar with ETA on a terminal; one plain line per finished review otherwise."""

    def __init__(self, total: int, skipped: int):
        from ..cli import err

        self.console, self.total, self.count = err, total, 0
        self.bar = None
        if err.is_terminal and total:
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                                       TimeRemainingColumn)

            self.bar = Progress(TextColumn("[bold]reviews"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                TextColumn("ETA"), TimeRemainingColumn(), TextColumn("{task.fields[last]}"),
                                console=err, transient=False)
            self.task = self.bar.add_task("batch", total=total, last=f"{skipped} already done" if skipped else "")

    def __enter__(self):
        if self.bar:
            self.bar.start()
        return self

    def __exit__(self, *exc):
        if self.bar:
            self.bar.stop()

    def done(self, job, outcome: dict) -> None:
        self.count += 1
        what = outcome["badge"] if outcome["status"] == "ok" else f"FAILED ({outcome.get('kind')})"
        label = job.key + f": {what} in {outcome.get('time_s', 0):.1f}s"
        if self.bar:
            self.bar.update(self.task, advance=1, last=label)
        else:
            sys.stderr.write(f"[{self.count}/{self.total}] {label}\n")
            sys.stderr.flush()


def batch(
    manifest: Annotated[Path, typer.Argument(help="CSV or JSON Lines: id,paper,artifact[,human_badge,human_D1..human_D5,timeout].")],
    out: Annotated[Path, typer.Option("--out", help="Batch directory: <id>/report.*, summary.json, summary.md, index.html.")],
    workers: Annotated[Optional[int], typer.Option(help="Reviews at a time (default: CPUs here, or the Ray cluster's CPUs).")] = None,
    engine: Annotated[str, typer.Option(help="local (process pool on this machine) or ray (a Ray cluster).")] = "local",
    address: Annotated[str, typer.Option(help="Ray cluster: auto, ray://host:port, host:port, or local for a private one.")] = "auto",
    repeat: Annotated[int, typer.Option(help="Runs per artifact; K > 1 adds the stability table.")] = 1,
    agent: Annotated[str, typer.Option(help="Review agent: auto, llm or heuristic.")] = "auto",
    sandbox: Annotated[str, typer.Option(help="Sandbox: auto, docker or local.")] = "auto",
    timeout: Annotated[float, typer.Option(help="Time limit for one artifact command, in seconds (a manifest 'timeout' wins).")] = 1800.0,
    review_timeout: Annotated[Optional[float], typer.Option("--review-timeout", help="Time limit for one whole review (default: 10 × --timeout).")] = None,
    max_cost: Annotated[Optional[float], typer.Option("--max-cost", help="Stop starting reviews once the batch has spent this many USD (earlier runs in --out count).")] = None,
    cpus_per_review: Annotated[float, typer.Option("--cpus-per-review", help="CPUs a Ray task declares.")] = 1.0,
    redo: Annotated[bool, typer.Option("--redo", help="Review again even what is already complete in --out.")] = False,
) -> None:
    """Review every artifact of MANIFEST and measure agreement with the human badges it gives."""
    from ..cli import fail

    try:
        code = _run(manifest, out, workers, engine, address, repeat, agent, sandbox, timeout, review_timeout, max_cost,
                    cpus_per_review, redo)
    except KeyboardInterrupt:
        sys.stderr.write(f"interrupted; completed reviews are kept in {out} — run the same command again to resume\n")
        raise typer.Exit(130) from None
    except Exception as exc:  # noqa: BLE001 - the CLI boundary turns everything into one line
        raise fail(exc) from None
    raise typer.Exit(code)


def _run(manifest, out, workers, engine_name, address, repeat, agent, sandbox, timeout, review_timeout, max_cost, cpus,
         redo) -> int:
    from ..batch.manifest import load_manifest
    from ..batch.runners import BatchDir, job_key, plan_jobs, run_jobs, spent_usd
    from ..batch.summary import build_summary, write_summary
    from ..evidence import atomic_write

    if (workers is not None and workers < 1) or repeat < 1 or timeout <= 0 or (max_cost is not None and max_cost < 0) \
            or (review_timeout is not None and review_timeout <= 0) or cpus <= 0:
        raise UsageError("--workers, --repeat, --timeout, --review-timeout and --cpus-per-review must be positive, --max-cost not negative")
    if agent not in ("auto", "llm", "heuristic"):
        raise UsageError(f"unknown agent '{agent}'", "use auto, llm or heuristic")
    if sandbox not in ("auto", "docker", "local"):
        raise UsageError(f"unknown sandbox '{sandbox}'", "use auto, docker or local")
    rows = load_manifest(manifest)
    batch_dir = BatchDir(out)
    batch_dir.open()
    try:
        jobs, skipped = plan_jobs(rows, batch_dir.root, repeat, agent, timeout, redo, sandbox)
        keep = {j.key for j in jobs}
        spent = spent_usd(batch_dir.root, [job_key(r.id, k, repeat) for r in rows for k in range(1, repeat + 1)
                                           if job_key(r.id, k, repeat) not in keep])
        atomic_write(batch_dir.root / "batch.json", json.dumps(
            {"manifest": str(Path(manifest).resolve()), "engine": engine_name, "address": address if engine_name == "ray" else None,
             "workers": workers, "repeat": repeat, "agent": agent, "sandbox": sandbox, "timeout": timeout, "max_cost": max_cost}, indent=2) + "\n")
        stopped = None
        result = None
        if jobs:
            limit = review_timeout or 10 * max(timeout, max((r.timeout or 0) for r in rows))
            engine = _engine(engine_name, address, workers, limit, cpus)
            try:
                with _Progress(len(jobs), skipped) as progress:
                    result = run_jobs(jobs, engine, batch_dir, max_cost=max_cost, spent=spent, on_done=progress.done)
            finally:
                engine.close()
            stopped = result.stopped
        summary = build_summary(rows, batch_dir.root, repeat, str(manifest), stopped=stopped)
        paths = write_summary(summary, batch_dir.root)
    finally:
        batch_dir.close()
    return _report(summary, paths, skipped, result, max_cost)


def _report(summary: dict, paths: dict, skipped: int, result, max_cost) -> int:
    from ..batch.summary_md import pct

    ran = len(result.done) if result else 0
    failed = summary["failures"]
    typer.echo(f"{summary['n']} artifacts: {summary['completed']} reviewed ({ran} now, {skipped} already done), "
               f"{len(failed)} failed review(s)")
    if summary["labelled"]:
        typer.echo(f"agreement with human badges: exact match {pct(summary['exact_match'])} over {summary['labelled']}, "
                   f"macro F1 {pct(summary['macro_f1'])}")
    typer.echo(f"summary: {paths['md']}  dashboard: {paths['html']}")
    if result and result.stopped == "max-cost":
        sys.stderr.write(f"stopped: cost limit ${max_cost:g} reached (${result.spent_usd:.4f} spent); "
                         f"{len(result.not_started)} review(s) not started — raise --max-cost and run again to continue\n")
        return 0
    if result and result.stopped == "interrupted":
        sys.stderr.write(f"interrupted: {len(summary['stopped']['not_started'])} review(s) still to run — "
                         "run the same command again to resume\n")
        return 130
    if failed:
        sys.stderr.write(f"{len(failed)} review(s) failed ({', '.join(sorted({f['kind'] for f in failed}))}); "
                         f"see {paths['md']} — run again to retry them\n")
        return 1
    return 0


def register(app: typer.Typer) -> None:
    app.command(name="batch")(batch)
