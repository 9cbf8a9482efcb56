"""One review end to end: load the paper, set up the run directory, run the graph, write reports."""
from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from langgraph.checkpoint.sqlite import SqliteSaver

from .acquire.paper import load_paper, paper_title
from .agents.heuristic import HeuristicAgent
from .config import MAX_ATTEMPTS, MAX_COST_USD, MAX_STEPS, REVIEW_BUDGET_S, TIMEOUT_S
from .errors import CopilotError, UsageError
from .evidence import EvidenceStore
from .fileio import sha256_file
from .flaglog import FlagLog
from .graph import Progress, Runtime, build_graph
from .models import Flag, Report
from .report import build_report, write_reports
from .resume import ALREADY_COMPLETE, clean_previous_scratch, fresh_input, note_scratch, prepare_resume
from .rubric import default_rubric
from .sandbox.base import Limits
from .sandbox.reaper import reap
from .sandbox.registry import SandboxOptions, open_sandbox
from .skills import default_skills
from .tools import ReviewContext, ReviewOptions
from .verifier.checker import PacketChecker


@dataclass(frozen=True)
class ReviewRequest:
    """What the caller asks for. Read only: results come back in the report and the run directory."""

    paper: Path
    artifact: str
    out: Path
    agent: str = "auto"
    """auto, llm or heuristic."""
    sandbox: str = "auto"
    """A backend of sandbox/registry.py, or auto."""
    timeout_s: float = TIMEOUT_S
    """Per-command limit for artifact commands."""
    resume: bool = False
    max_attempts: int = MAX_ATTEMPTS
    model: str | None = None
    """LLM model name (default from OPENAI_MODEL or the LLM settings)."""
    max_steps: int = MAX_STEPS
    """Step limit per phase for an LLM agent."""
    max_cost: float = MAX_COST_USD
    """Cost limit per review in USD for an LLM agent."""
    cache_dir: Path | None = None
    """Download cache for remote artifacts (default: the user cache dir)."""
    image: str | None = None
    """Base container image for the Docker sandbox."""
    scratch: Path | None = None
    """Where artifact copies live while commands run (default: a new temporary folder, never inside the run
    directory)."""
    max_minutes: float | None = None
    """Wall-clock budget of the review's agent and artifact commands, shared out per phase
    (default: REVIEW_BUDGET_S)."""
    force: bool = False
    """Replace the review already in `out` (refused unless `out` is a run directory)."""
    context_tokens: int | None = None
    """The LLM's context window in tokens (default: what the endpoint reports, or COPILOT_LLM_CONTEXT_TOKENS)."""
    offline: bool = False
    """No network for any step (documented downloads, installs, run-time fetches, linked repositories); a remote
    artifact only from the download cache. The report says the review was offline."""


def resolve_agent(req: ReviewRequest, progress: Progress | None = None):
    """(agent, flags): heuristic, or llm (auto picks llm when an OpenAI-compatible endpoint is configured). A busy
    model server is waited for, and `progress` hears it ('model' on the gate's row)."""
    if req.agent not in ("auto", "llm", "heuristic"):
        raise UsageError(f"unknown agent '{req.agent}'", "use auto, llm or heuristic")
    configured = bool(os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL"))
    if req.agent == "heuristic" or (req.agent == "auto" and not configured):
        return HeuristicAgent(), []
    from .agents.llm import build_llm_agent

    def waiting(message: str) -> None:
        if progress:
            progress("gate", "model", message)

    try:
        return build_llm_agent(req, on_wait=waiting)
    except CopilotError as exc:
        if req.agent == "llm":
            raise
        return HeuristicAgent(), [Flag(severity="medium", code="llm-unavailable",
                                       message=f"LLM agent unavailable ({exc}); "
                                               "reviewed with the offline heuristic agent")]


def resolve_sandbox(req: ReviewRequest, scratch: Path | None = None):
    """(sandbox, flags): the backend `req.sandbox` names (auto: the first usable), with what it enforces."""
    options = SandboxOptions(limits=Limits(timeout_s=req.timeout_s), scratch=scratch, image=req.image,
                             review=req.out.name)
    sandbox, passed_over = open_sandbox(req.sandbox, options)
    flags = [Flag(severity="info", code="sandbox-isolation", message=sandbox.enforcement().describe())]
    flags += [Flag(severity="info", code="sandbox-fallback", message=f"not used: {why}") for why in passed_over]
    return sandbox, flags


@dataclass
class _Clock:
    started: float = field(default_factory=time.monotonic)
    phase_started: dict[str, float] = field(default_factory=dict)
    phase_times: dict[str, float] = field(default_factory=dict)

    def event(self, phase: str, event: str) -> None:
        if event == "start":
            self.phase_started.setdefault(phase, time.monotonic())
        elif event == "committed":
            self.phase_times[phase] = round(time.monotonic() - self.phase_started.get(phase, time.monotonic()), 3)

    def timing(self, ctx: ReviewContext) -> dict[str, float]:
        return {"total_s": round(time.monotonic() - self.started, 3), "commands_s": round(ctx.command_seconds, 3),
                **{f"{k}_s": v for k, v in self.phase_times.items()}}


def run_review(req: ReviewRequest, agent=None, sandbox=None,
               progress: Progress | None = None) -> tuple[Report, dict[str, Path]]:
    """Review one artifact. SIGINT/SIGTERM at any moment stop it with ReviewInterrupted (exit 130/143) and, once
    the run directory exists, an incomplete report."""
    signals = _StopSignals()
    try:
        return _review(req, agent, sandbox, progress, signals)
    finally:
        signals.restore()


def _review(req: ReviewRequest, agent, sandbox, progress: Progress | None,
            signals: _StopSignals) -> tuple[Report, dict[str, Path]]:
    clock = _Clock()
    paper = load_paper(req.paper)  # PaperError (exit 2) before anything is written
    if req.force and not req.resume:
        _replace_run_dir(req.out)
    store = EvidenceStore(req.out)
    meta = store.init_run(str(req.paper), req.artifact, req.resume,
                          {"paper_sha256": sha256_file(req.paper) if req.paper.is_file() else None})
    title, title_note = paper_title(paper)  # the report's title; the path stays in its metadata
    meta = {**meta, "title": title, "title_note": title_note}
    rubric, skills, flags = default_rubric(), default_skills(), FlagLog(store.root / "flags.jsonl")
    if req.resume:
        clean_previous_scratch(store)
    if agent is None:
        agent, agent_flags = resolve_agent(req, progress)
        flags.extend(agent_flags)
    if sandbox is None:
        sandbox, sandbox_flags = resolve_sandbox(req, req.scratch)
        flags.extend(sandbox_flags)
    if req.offline and not req.resume:
        flags.add(Flag(severity="info", code="offline", message="reviewed offline (--offline): no step had network"))
    budget_s = req.max_minutes * 60 if req.max_minutes else REVIEW_BUDGET_S
    options = ReviewOptions(timeout_s=req.timeout_s, max_attempts=req.max_attempts, budget_s=budget_s,
                            offline=req.offline)
    ctx = ReviewContext(store=store, paper=paper, source=req.artifact, sandbox=sandbox, flags=flags, options=options,
                        cache_dir=req.cache_dir)
    scratch = getattr(sandbox, "scratch_root", None)
    note_scratch(store, scratch)

    def on_progress(phase: str, event: str, detail: str) -> None:
        if event == "start" and phase in rubric.registry.phase_ids and phase != rubric.registry.gate_phase:
            ctx.prestart()  # past the gate, the artifact is here: its sandbox session starts while the docs are read
        clock.event(phase, event)
        store.log(f"{phase} {event} {detail}")
        if progress:
            progress(phase, event, detail)

    def on_command(phase: str, event: str, detail: str) -> None:
        if event != "output":
            store.log(f"{phase} {event} {detail}")
        if progress:
            progress(phase, event, detail)

    ctx.progress = on_command

    closer = _SessionCloser(ctx)

    def report_fn(status: str = "complete", extra: Sequence[Flag] = ()) -> dict:
        closer.start()  # no command runs after this: the sandbox session closes while the report is written
        skipped = ctx.acquisition.skipped if ctx.acquisition else []
        link_flags = [Flag(severity="low", code="link-not-followed", message=s) for s in skipped][:20]
        note = getattr(sandbox, "network_note", None)
        report = build_report(store, rubric, meta, agent=agent.name, sandbox=getattr(sandbox, "name", "custom"),
                              status=status, timing=clock.timing(ctx),
                              extra_flags=flags.all() + link_flags + list(extra), cost=getattr(agent, "cost", None),
                              offline=req.offline, containment=note() if callable(note) else "")
        write_reports(report, store.root, rubric)
        return report.model_dump(mode="json")

    # An agent may bring a verifier (the LLM dialogue); offline the rule checks stand alone.
    checker = PacketChecker(store, rubric, verifier=getattr(agent, "verifier", None))
    rt = Runtime(agent=agent, tools=ctx, store=store, checker=checker, skills=skills,
                 rubric=rubric, report=report_fn, max_attempts=req.max_attempts, progress=on_progress)
    paths = {"json": store.root / "report.json", "md": store.root / "report.md", "html": store.root / "report.html"}
    conn = sqlite3.connect(store.root / "checkpoints.sqlite", check_same_thread=False)
    # WAL without an fsync per checkpoint: a killed process loses nothing; a power loss, at most the last checkpoints
    # (graph.py re-finds a phase whose commit landed without its checkpoint)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    graph = build_graph(rt, checkpointer=SqliteSaver(conn))
    config = {"configurable": {"thread_id": meta["run_id"]}, "recursion_limit": 200}
    try:
        signals.arm()  # a signal held during set-up stops the review here, with an incomplete report
        graph_input = prepare_resume(graph, config, store, ctx) if req.resume else fresh_input(req.paper, req.artifact)
        if graph_input is ALREADY_COMPLETE:
            return Report.model_validate_json(paths["json"].read_text(encoding="utf-8")), paths
        # "sync": each checkpoint is on disk before the next node starts, so a SIGKILL loses at most one node
        final = graph.invoke(graph_input, config, durability="sync")
    except (KeyboardInterrupt, Interrupted) as exc:
        signals.hold()  # a second signal must not cut the incomplete report short
        name = exc.signal_name if isinstance(exc, Interrupted) else "SIGINT"
        closer.join()
        ctx.close()
        committed = ", ".join(store.committed_phases()) or "none"
        report_fn("incomplete", [Flag(severity="high", code="interrupted",
                                      message=f"review interrupted by {name}; committed phases: {committed}")])
        raise ReviewInterrupted(name, store, req) from None
    finally:
        signals.hold()  # clean-up runs to the end; a signal that arrives now is raised after it
        closer.join()
        _cleanup(ctx, sandbox, scratch, store)
        conn.close()
    if signals.pending:  # arrived while the finished review cleaned up: the report is complete, the stop still honoured
        raise ReviewInterrupted(signals.pending, store, req, complete=True)
    return Report.model_validate(final["report"]), paths


def _replace_run_dir(out: Path) -> None:
    """--force: remove an earlier review in `out`, after checking it is one (run.json and evidence/)."""
    if not out.exists() or (out.is_dir() and not any(out.iterdir())):
        return
    if not (out.is_dir() and (out / "run.json").is_file() and (out / "evidence").is_dir()):
        raise UsageError(f"--force: {out} is not a review's run directory (no run.json and evidence/); "
                         "refusing to delete it", "name a new folder, or remove it yourself")
    shutil.rmtree(out)


class _SessionCloser:
    """Closes the review's sandbox session (for Docker: removes its container) in a thread, so that it overlaps
    with writing the report; `join` before anything else closes it. A failure is logged, as in `_cleanup`."""

    def __init__(self, ctx: ReviewContext):
        self.ctx = ctx
        self.thread: threading.Thread | None = None

    def start(self) -> None:
        if self.thread is None and self.ctx.session is not None:
            thread = self.thread = threading.Thread(target=self._close, name="close-session", daemon=True)
            thread.start()

    def _close(self) -> None:
        try:
            self.ctx.close()
        except Exception as exc:  # noqa: BLE001 - the review goes on; `_cleanup` and `copilot doctor --clean` sweep
            self.ctx.store.log(f"cleanup: {type(exc).__name__}: {exc}")

    def join(self) -> None:
        if self.thread is not None:
            self.thread.join()


def _cleanup(ctx: ReviewContext, sandbox, scratch: Path | None, store: EvidenceStore) -> None:
    """Close sessions and the sandbox and remove the scratch copies; a failure here never loses the review."""
    for step in (store.sync, ctx.close, getattr(sandbox, "close", None)):
        try:
            if step is not None:
                step()
        except Exception as exc:  # noqa: BLE001 - the report is written; leftovers are swept by `copilot doctor --clean`
            store.log(f"cleanup: {type(exc).__name__}: {exc}")
    if scratch is not None:
        reap(scratch)  # artifact processes that escaped their process group
        shutil.rmtree(scratch, ignore_errors=True)


class Interrupted(BaseException):
    """SIGTERM, raised like KeyboardInterrupt so no phase mistakes it for an artifact failure."""

    def __init__(self, signal_name: str):
        super().__init__(signal_name)
        self.signal_name = signal_name


class ReviewInterrupted(CopilotError):
    def __init__(self, signal_name: str, store: EvidenceStore, req: ReviewRequest, complete: bool = False):
        committed = ", ".join(store.committed_phases()) or "none"
        if complete:
            super().__init__(f"review interrupted ({signal_name}) after it completed; report in {store.root}")
        else:
            super().__init__(f"review interrupted ({signal_name}); committed phases: {committed}; "
                             f"incomplete report in {store.root}",
                             f"resume with: copilot review {req.paper} {req.artifact} --out {store.root} --resume")
        self.exit_code = 130 if signal_name == "SIGINT" else 143


_Handler = Callable[[int, FrameType | None], Any] | int | signal.Handlers | None
"""What signal.signal() takes and returns."""


class _StopSignals:
    """SIGINT and SIGTERM stop a review, whatever moment they arrive. Armed (the review runs), the first one raises
    Interrupted in the main thread; held (set-up before the review runs, the incomplete report, clean-up), a signal
    is kept in `pending` and raised by `arm()` or after clean-up, never lost. A SIGINT the caller ignores on purpose
    (a batch worker: the driver decides) stays ignored."""

    def __init__(self) -> None:
        self.pending: str | None = None
        self.armed = False
        self._previous: dict[int, _Handler] = {}
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in (signal.SIGINT, signal.SIGTERM):
            if sig == signal.SIGINT and signal.getsignal(sig) == signal.SIG_IGN:
                continue
            self._previous[sig] = signal.signal(sig, self._handle)

    def _handle(self, signum, frame) -> None:
        name = signal.Signals(signum).name
        self.pending = self.pending or name
        if self.armed:
            self.armed = False
            raise Interrupted(name)

    def arm(self) -> None:
        if self.pending:
            raise Interrupted(self.pending)
        self.armed = True

    def hold(self) -> None:
        self.armed = False

    def restore(self) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._previous.clear()
