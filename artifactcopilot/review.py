"""One review end to end: load the paper, set up the run directory, run the graph, write reports."""
from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from langgraph.checkpoint.sqlite import SqliteSaver

from .acquire.paper import load_paper
from .agents.heuristic import HeuristicAgent
from .agents.tools import ReviewOptions, Tools
from .checker import PacketChecker
from .errors import CopilotError, UsageError
from .evidence import EvidenceStore, sha256_file
from .graph import Progress, Runtime, build_graph
from .models import Flag, PhasePacket, Report
from .report import build_report, write_reports
from .rubric import default_rubric
from .sandbox.base import Limits
from .sandbox.local import LocalSandbox
from .sandbox.reaper import reap
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
    """docker, local, or auto: Docker when its engine and image are there, else local with a weaker-isolation flag."""
    from .sandbox.docker import DockerSandbox
    from .sandbox.image import DEFAULT_IMAGE, EngineUnavailable, connect, image_present

    name, timeout_s, flags = req.sandbox, req.timeout_s, req.flags
    if name not in ("auto", "docker", "local"):
        raise UsageError(f"unknown sandbox '{name}'", "use auto, docker or local")
    limits, why_local = Limits(timeout_s=timeout_s), ""
    if name in ("auto", "docker"):
        image = req.image or DEFAULT_IMAGE
        try:
            client = connect()
            if image_present(client, image):
                return DockerSandbox(scratch, limits, image=image, flags=flags, client=client, review=req.out.name)
            raise EngineUnavailable(f"Docker image '{image}' not found", "run `copilot doctor --build-base` or pass --image")
        except EngineUnavailable as exc:
            if name == "docker":
                raise
            why_local = f"{exc}; "
    sandbox = LocalSandbox(scratch, limits, flags=flags)
    flags.append(Flag(severity="info", code="weaker-isolation", message=why_local + sandbox.isolation_note))
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
                  options=ReviewOptions(timeout_s=req.timeout_s, max_attempts=req.max_attempts), cache_dir=req.cache_dir)
    phase_times: dict[str, float] = {}
    phase_started: dict[str, float] = {}

    def on_progress(phase: str, event: str, detail: str) -> None:
        if event == "start":
            phase_started.setdefault(phase, time.monotonic())
        elif event == "committed":
            phase_times[phase] = round(time.monotonic() - phase_started.get(phase, time.monotonic()), 3)
        store.log(f"{phase} {event} {detail}")
        if progress:
            progress(phase, event, detail)

    def report_fn() -> dict:
        flags = list(req.flags)
        sandbox_flags = getattr(sandbox, "flags", None)  # limit hits a sandbox reports itself
        if sandbox_flags is not None and sandbox_flags is not req.flags:
            flags += [f for f in sandbox_flags if f not in flags]
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
    paths = {"json": store.root / "report.json", "md": store.root / "report.md", "html": store.root / "report.html"}
    conn = sqlite3.connect(store.root / "checkpoints.sqlite", check_same_thread=False)
    graph = build_graph(rt, checkpointer=SqliteSaver(conn))
    config = {"configurable": {"thread_id": meta["run_id"]}, "recursion_limit": 200}
    restore_sigterm = _raise_on_sigterm()
    try:
        graph_input = _prepare_resume(graph, config, store, tools, scratch) if req.resume else _fresh_input(req)
        if graph_input is _ALREADY_COMPLETE:
            return Report.model_validate_json(paths["json"].read_text(encoding="utf-8")), paths
        # "sync": each checkpoint is on disk before the next node starts, so a SIGKILL loses at most one node
        final = graph.invoke(graph_input, config, durability="sync")
    except (KeyboardInterrupt, Interrupted) as exc:
        name = exc.signal_name if isinstance(exc, Interrupted) else "SIGINT"
        tools.close()
        req.flags.append(Flag(severity="high", code="interrupted",
                              message=f"review interrupted by {name}; committed phases: {', '.join(store.committed_phases()) or 'none'}"))
        report = build_report(store, rubric, meta, agent=agent.name, sandbox=getattr(sandbox, "name", "custom"),
                              status="incomplete", extra_flags=req.flags, cost=getattr(agent, "cost", None),
                              timing={"total_s": round(time.monotonic() - started, 3), "commands_s": round(tools.command_seconds, 3)})
        write_reports(report, store.root, rubric)
        raise ReviewInterrupted(name, store, req) from None
    finally:
        restore_sigterm()
        tools.close()
        reap(scratch)  # artifact processes that escaped their process group
        shutil.rmtree(scratch, ignore_errors=True)
        conn.close()
    report = Report.model_validate(final["report"])
    return report, paths


_ALREADY_COMPLETE = object()


def _fresh_input(req: ReviewRequest) -> dict:
    return {"paper": str(req.paper), "artifact": req.artifact}


def _prepare_resume(graph, config: dict, store: EvidenceStore, tools: Tools, scratch: Path):
    """Check the run directory, drop the unfinished phase's evidence, and say where to continue."""
    store.check_run()  # RunDirTampered (exit 2) when a file was changed, added or cannot be read
    reap(scratch)  # processes a killed review left behind
    shutil.rmtree(scratch, ignore_errors=True)
    state = graph.get_state(config)
    if state.values and not state.next and (store.root / "report.json").exists():
        return _ALREADY_COMPLETE
    pending = PhasePacket.model_validate(state.values["pending"]) if state.values.get("pending") else None
    keep = set(pending.evidence) | {e for c in pending.checklist for e in c.evidence} if pending else set()
    discarded = store.discard_uncommitted(keep)
    store.log(f"resume: committed {', '.join(store.committed_phases()) or 'nothing'}; discarded {len(discarded)} uncommitted evidence files")
    if "gate" in store.committed_phases():
        tools.restore_acquisition()
    # With a checkpoint, invoke(None) continues from it; without one (killed before the first), start over.
    return None if state.values else _fresh_input_from_meta(store)


def _fresh_input_from_meta(store: EvidenceStore) -> dict:
    meta = json.loads((store.root / "run.json").read_text(encoding="utf-8"))
    return {"paper": meta["paper"], "artifact": meta["artifact"]}


class Interrupted(BaseException):
    """SIGTERM, raised like KeyboardInterrupt so no phase mistakes it for an artifact failure."""

    def __init__(self, signal_name: str):
        super().__init__(signal_name)
        self.signal_name = signal_name


class ReviewInterrupted(CopilotError):
    def __init__(self, signal_name: str, store: EvidenceStore, req: ReviewRequest):
        committed = ", ".join(store.committed_phases()) or "none"
        super().__init__(f"review interrupted ({signal_name}); committed phases: {committed}; incomplete report in {store.root}",
                         f"resume with: copilot review {req.paper} {req.artifact} --out {store.root} --resume")
        self.exit_code = 130 if signal_name == "SIGINT" else 143


def _raise_on_sigterm():
    """Turn SIGTERM into an exception in the main thread; returns the restorer."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def handler(signum, frame):
        raise Interrupted(signal.Signals(signum).name)

    previous = signal.signal(signal.SIGTERM, handler)
    return lambda: signal.signal(signal.SIGTERM, previous)
