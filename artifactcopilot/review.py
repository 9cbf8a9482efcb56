"""One review end to end: load the paper, set up the run directory, run the graph, write reports."""
from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from .acquire.paper import load_paper
from .agents.heuristic import HeuristicAgent
from .agents.tools import ReviewOptions, Tools
from .checker import PacketChecker
from .errors import CopilotError, UsageError
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
    model: str | None = None
    """LLM model name (default from OPENAI_MODEL or the LLM settings)."""
    max_steps: int = 30
    """Step limit per phase for an LLM agent."""
    max_cost: float = 1.0
    """Cost limit per review in USD for an LLM agent."""
    cache_dir: Path | None = None
    """Download cache for remote artifacts (default: the user cache dir)."""
    image: str | None = None
    """Base container image for the Docker sandbox."""
    flags: list[Flag] = field(default_factory=list)


def resolve_agent(req: ReviewRequest):
    """heuristic, or llm (auto picks llm when an OpenAI-compatible endpoint is configured)."""
    if req.agent not in ("auto", "llm", "heuristic"):
        raise UsageError(f"unknown agent '{req.agent}'", "use auto, llm or heuristic")
    configured = bool(os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL"))
    if req.agent == "heuristic" or (req.agent == "auto" and not configured):
        return HeuristicAgent()
    try:
        from .agents.llm import build_llm_agent
    except ModuleNotFoundError as exc:
        if exc.name != "artifactcopilot.agents.llm":
            raise
        if req.agent == "auto":
            return HeuristicAgent()
        raise UsageError("the LLM review agent is not available in this build", "use --agent heuristic") from None
    try:
        return build_llm_agent(req)
    except CopilotError as exc:
        if req.agent == "llm":
            raise
        req.flags.append(Flag(severity="medium", code="llm-unavailable",
                              message=f"LLM agent unavailable ({exc}); reviewed with the offline heuristic agent"))
        return HeuristicAgent()


def resolve_sandbox(req: ReviewRequest, scratch: Path):
    name, timeout_s, flags = req.sandbox, req.timeout_s, req.flags
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
    agent = agent or resolve_agent(req)
    scratch = store.root / "sandbox"
    sandbox = sandbox or resolve_sandbox(req, scratch)
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
                              timing=timing, extra_flags=flags, cost=getattr(agent, "cost", None))
        write_reports(report, store.root, rubric)
        return report.model_dump(mode="json")

    # An agent may bring a verifier (the LLM dialogue); offline the rule checks stand alone.
    checker = PacketChecker(store, rubric, verifier=getattr(agent, "verifier", None))
    rt = Runtime(agent=agent, tools=tools, store=store, checker=checker, skills=skills,
                 rubric=rubric, report=report_fn, max_attempts=req.max_attempts, progress=on_progress)
    graph = build_graph(rt)
    try:
        final = graph.invoke({"paper": str(req.paper), "artifact": req.artifact}, {"recursion_limit": 200})
    finally:
        tools.close()
        shutil.rmtree(scratch, ignore_errors=True)
    report = Report.model_validate(final["report"])
    return report, {"json": store.root / "report.json", "md": store.root / "report.md", "html": store.root / "report.html"}
