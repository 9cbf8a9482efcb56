"""`copilot batch`: review every artifact of a manifest, then measure agreement with human badges."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated

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
        from ..console import err

        self.console, self.total, self.count = err, total, 0
        self.bar = None
        if err.is_terminal and total:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

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


BATCH_EPILOG = """Manifest: CSV (a header line, then one row per artifact) or JSON Lines (one object per line).
Columns: id, paper, artifact; optional human_badge, human_D1..human_D5, timeout. Relative paper and artifact
paths are read from the manifest's folder, not from the current directory; an artifact can also be a URL,
DOI or file:// link. Lines starting with # are skipped.

Examples:

\b
  copilot batch venue.csv --out reports/venue
  copilot batch venue.jsonl --out reports/venue --workers 4 --sandbox docker
  copilot batch venue.csv --out reports/venue --engine ray --address ray://head:10001 --repeat 3

Run the same command again to resume: finished reviews are kept (--redo reviews them again).

Exit codes: 0 every review completed; 1 some review failed (listed in summary.md); 2 usage error
(e.g. a manifest problem, every problem listed with its line); 130 interrupted."""


def _check(manifest: Path, out: Path, workers, repeat, engine, agent, sandbox, timeout, review_timeout, max_cost,
           cpus) -> None:
    """Usage errors (exit 2), found before anything heavy is imported."""
    numbers = [("--workers", workers, 1), ("--repeat", repeat, 1)]
    for flag, value, low in numbers:
        if value is not None and value < low:
            raise UsageError(f"{flag} must be a positive whole number, not {value}")
    for flag, value in (("--timeout", timeout), ("--review-timeout", review_timeout), ("--cpus-per-review", cpus)):
        if value is not None and value <= 0:
            raise UsageError(f"{flag} must be a positive number, not {value:g}")
    if max_cost is not None and max_cost < 0:
        raise UsageError(f"--max-cost must not be negative, not {max_cost:g}")
    if engine not in ("local", "ray"):
        raise UsageError(f"unknown engine '{engine}'", "use local or ray")
    if agent not in ("auto", "llm", "heuristic"):
        raise UsageError(f"unknown agent '{agent}'", "use auto, llm or heuristic")
    if sandbox not in ("auto", "docker", "local"):
        raise UsageError(f"unknown sandbox '{sandbox}'", "use auto, docker or local")
    if not manifest.is_file():
        raise UsageError(f"manifest {manifest} not found", "give a CSV or JSON Lines file with id,paper,artifact")
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file, not a folder", "name a folder for the batch")


def batch(
    manifest: Annotated[Path, typer.Argument(help="CSV or JSON Lines manifest, one artifact per row (see below).")],
    out: Annotated[Path, typer.Option("--out", metavar="DIR", help="Batch folder: <id>/report.*, summary.json, "
                                                                   "summary.md, index.html (the dashboard).")],
    workers: Annotated[int | None, typer.Option(metavar="N", show_default=False, help="Reviews at a time (default: "
                                                "the CPUs here, or the Ray cluster's CPUs).")] = None,
    engine: Annotated[str, typer.Option(metavar="local|ray", help="A process pool on this machine, or a Ray "
                                                                  "cluster.")] = "local",
    address: Annotated[str, typer.Option(metavar="ADDR", help="Ray cluster: auto, ray://host:port, host:port, or "
                                                              "local for a private one.")] = "auto",
    repeat: Annotated[int, typer.Option(metavar="K", help="Runs per artifact; K > 1 adds the stability table.")] = 1,
    agent: Annotated[str, typer.Option(metavar="auto|llm|heuristic", help="Review agent.")] = "auto",
    sandbox: Annotated[str, typer.Option(metavar="auto|docker|local", help="Where artifact commands run.")] = "auto",
    timeout: Annotated[float, typer.Option(metavar="SECONDS", help="Time limit for one artifact command (a "
                                                                   "manifest 'timeout' wins).")] = 1800.0,
    review_timeout: Annotated[float | None, typer.Option("--review-timeout", metavar="SECONDS", show_default=False,
                                                         help="Time limit for one whole review (default: 10 × "
                                                              "--timeout).")] = None,
    max_cost: Annotated[float | None, typer.Option("--max-cost", metavar="USD", show_default=False,
                                                   help="Stop starting reviews once the batch has spent this much "
                                                        "(earlier runs in --out count).")] = None,
    cpus_per_review: Annotated[float, typer.Option("--cpus-per-review", metavar="N",
                                                   help="CPUs a Ray task declares.")] = 1.0,
    redo: Annotated[bool, typer.Option("--redo", help="Review again even what is already complete in --out.")] = False,
    offline: Annotated[bool, typer.Option("--offline", help="No network for any step of any review (as "
                                                            "`copilot review --offline`).")] = False,
) -> None:
    """Review every artifact of MANIFEST, then measure agreement with the human badges it gives."""
    from ..console import fail

    try:
        _check(manifest, out, workers, repeat, engine, agent, sandbox, timeout, review_timeout, max_cost,
               cpus_per_review)
        code = _run(manifest, out, workers, engine, address, repeat, agent, sandbox, timeout, review_timeout, max_cost,
                    cpus_per_review, redo, offline)
    except KeyboardInterrupt:
        sys.stderr.write(f"interrupted; completed reviews are kept in {out} — run the same command again to resume\n")
        raise typer.Exit(130) from None
    except Exception as exc:  # noqa: BLE001 - the CLI boundary turns everything into one line
        raise fail(exc) from None
    raise typer.Exit(code)


def _run(manifest, out, workers, engine_name, address, repeat, agent, sandbox, timeout, review_timeout, max_cost, cpus,
         redo, offline=False) -> int:
    from ..batch.manifest import load_manifest
    from ..batch.runners import BatchDir, job_key, plan_jobs, run_jobs, spent_usd
    from ..batch.summary import build_summary, write_summary
    from ..fileio import atomic_write

    rows = load_manifest(manifest)
    batch_dir = BatchDir(out)
    batch_dir.open()
    try:
        jobs, skipped = plan_jobs(rows, batch_dir.root, repeat, agent, timeout, redo, sandbox, offline)
        keep = {j.key for j in jobs}
        spent = spent_usd(batch_dir.root, [job_key(r.id, k, repeat) for r in rows for k in range(1, repeat + 1)
                                           if job_key(r.id, k, repeat) not in keep])
        atomic_write(batch_dir.root / "batch.json", json.dumps(
            {"manifest": str(Path(manifest).resolve()), "engine": engine_name,
             "address": address if engine_name == "ray" else None, "workers": workers, "repeat": repeat, "agent": agent,
             "sandbox": sandbox, "timeout": timeout, "max_cost": max_cost, "offline": offline}, indent=2) + "\n")
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
        typer.echo(f"agreement with human badges: exact match {pct(summary['exact_match'])} "
                   f"over {summary['labelled']}, "
                   f"macro F1 {pct(summary['macro_f1'])}")
    typer.echo(f"summary: {paths['md']}  dashboard: {paths['html']}")
    if result and result.stopped == "max-cost":
        sys.stderr.write(f"stopped: cost limit ${max_cost:g} reached (${result.spent_usd:.4f} spent); "
                         f"{len(result.not_started)} review(s) not started — "
                         "raise --max-cost and run again to continue\n")
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
    from ..console import HelpCommand

    app.command(name="batch", cls=HelpCommand, epilog=BATCH_EPILOG,
                short_help="Review every artifact of a manifest; measure agreement with human badges.")(batch)
