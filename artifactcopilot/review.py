"""One review end to end: load the paper, set up the run directory, run the graph, write reports."""
from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from .acquire.paper import load_paper
from .agents.heuristic import HeuristicAgent
from .agents.tools import ReviewOptions, Tools
from .checker import PacketChecker
from .errors import UsageError
from .evidence import EvidenceStore, sha256_file
from .graph import Progress, Runtime, build_graph
from .models import Flag, Report
from .report import build_report, write_reports
from .rubric import default_rubric
from .sandbox.base import Limits
from .sandbox.local import LocalSandbox
from .skills import default_skills


@dataclass
class ReviewRequest:
    paper: Path
    artifact: str
    out: Path
    agent: str = "auto"
    """auto, llm or heuristic."""
    sandbox: str = "auto"
    """auto, docker or local."""
    timeout_s: float = 1800.0
    """Per-command limit for artifact commands."""
    resume: bool = False
    max_attempts: int = 3
    flags: list[Flag] = field(default_factory=list)


def resolve_agent(name: str):
    if name in ("auto", "heuristic"):
        return HeuristicAgent()
    raise UsageError("the LLM review agent is not available in this version", "use --agent heuristic (the default)")


def resolve_sandbox(name: str, scratch: Path, timeout_s: float, flags: list[Flag]):
    if name == "docker":
        raise UsageError("the Docker sandbox is not available in this version", "use --sandbox local")
    if name not in ("auto", "local"):
        raise UsageError(f"unknown sandbox '{name}'", "use auto, docker or local")
    sandbox = LocalSandbox(scratch, Limits(timeout_s=timeout_s))
    flags.append(Flag(severity="info", code="weaker-isolation", message=sandbox.isolation_note))
    return sandbox


def run_review(req: ReviewRequest, agent=None, sandbox=None, progress: Progress | None = None) -> tuple[Report, dict[str, Path]]:
    started = time.monotonic()
    paper = load_paper(req.paper)  # PaperError (exit 2) before anything is written
    store = EvidenceStore(req.out)
    meta = store.init_run(str(req.paper), req.artifact, req.resume, {"paper_sha256": sha256_file(req.paper) if req.paper.is_file() else None})
    rubric, skills = default_rubric(), default_skills()
    agent = agent or resolve_agent(req.agent)
    scratch = store.root / "sandbox"
    sandbox = sandbox or resolve_sandbox(req.sandbox, scratch, req.timeout_s, req.flags)
    tools = Tools(store=store, paper=paper, source=req.artifact, sandbox=sandbox,
                  options=ReviewOptions(timeout_s=req.timeout_s, max_attempts=req.max_attempts))
    phase_times: dict[str, float] = {}
    phase_started: dict[str, float] = {}

    def on_progress(phase: str, event: str, detail: str) -> None:
        if event == "start":
            phase_started.setdefault(phase, time.monotonic())
        elif event == "committed":
            phase_times[phase] = round(time.monotonic() - phase_started[phase], 3)
        store.log(f"{phase} {event} {detail}")
        if progress:
            progress(phase, event, detail)

    def report_fn() -> dict:
        flags = list(req.flags)
        flags += [Flag(severity="low", code="link-not-followed", message=s) for s in (tools.acquisition.skipped if tools.acquisition else [])][:20]
        timing = {"total_s": round(time.monotonic() - started, 3), "commands_s": round(tools.command_seconds, 3),
                  **{f"{k}_s": v for k, v in phase_times.items()}}
        report = build_report(store, rubric, meta, agent=agent.name, sandbox=getattr(sandbox, "name", "custom"),
                              timing=timing, extra_flags=flags)
        write_reports(report, store.root, rubric)
        return report.model_dump(mode="json")

    rt = Runtime(agent=agent, tools=tools, store=store, checker=PacketChecker(store, rubric), skills=skills,
                 rubric=rubric, report=report_fn, max_attempts=req.max_attempts, progress=on_progress)
    graph = build_graph(rt)
    try:
        final = graph.invoke({"paper": str(req.paper), "artifact": req.artifact}, {"recursion_limit": 200})
    finally:
        tools.close()
        shutil.rmtree(scratch, ignore_errors=True)
    report = Report.model_validate(final["report"])
    return report, {"json": store.root / "report.json", "md": store.root / "report.md", "html": store.root / "report.html"}
