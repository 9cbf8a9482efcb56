"""The console side of `copilot review`: usage checks that run before any heavy import, plain help text,
the progress view, the lines printed when a review ends and the command that resumes an interrupted one.

Only light modules are imported here at module level (typer, the errors): `copilot review --timeout -5` must
answer within a moment, before the review machinery (LangGraph, LangChain, pydantic models) is loaded.
"""
from __future__ import annotations

import json
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import typer
from rich.console import Console
from typer.core import TyperCommand, TyperGroup

from .errors import CopilotError, UsageError

AGENTS = ("auto", "llm", "heuristic")
_ARG_TYPE = re.compile(r"^(\s+)(\[?)([a-z][a-z0-9_-]*)(\]?)( <[^>]+>)(\s*)(.*)$")
_USAGE_PIECE = re.compile(r"\{([a-z][a-z0-9_-]*)\}|\[([a-z][a-z0-9_-]*)\]")
err = Console(stderr=True, highlight=False)


def fail(exc: BaseException, log_hint: str = "") -> typer.Exit:
    """The error as the user sees it: one line (a multi-line message, e.g. a manifest's problems, keeps its
    lines and puts the hint last), and the exit code its kind has."""
    if isinstance(exc, CopilotError):
        message = str(exc)
        if "\n" in message:
            sys.stderr.write(f"error: {message}\n" + (f"{exc.hint}\n" if exc.hint else ""))
        else:
            sys.stderr.write(f"error: {message}{f' — {exc.hint}' if exc.hint else ''}\n")  # scripts grep this line
        return typer.Exit(exc.exit_code)
    sys.stderr.write(f"internal error: {type(exc).__name__}: {exc}{log_hint}\n")
    return typer.Exit(1)


class HelpCommand(TyperCommand):
    """Help without placeholders: arguments as PAPER / [ARTIFACT], no '<str>'-style type tags."""

    def collect_usage_pieces(self, ctx) -> list[str]:
        return [_plain_usage(piece) for piece in super().collect_usage_pieces(ctx)]

    def get_help(self, ctx) -> str:
        return plain_help(super().get_help(ctx))


class HelpGroup(TyperGroup):
    """The command list with each command's whole first sentence (wrapped, never cut off with '...')."""

    def format_commands(self, ctx, formatter) -> None:
        rows = [(name, cmd.get_short_help_str(limit=300)) for name in self.list_commands(ctx)
                if (cmd := self.get_command(ctx, name)) is not None and not cmd.hidden]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def _plain_usage(piece: str) -> str:
    return _USAGE_PIECE.sub(lambda m: m.group(1).upper() if m.group(1) else f"[{m.group(2).upper()}]", piece)


def plain_help(text: str) -> str:
    """Rewrite the Arguments section ('  paper <path>   The paper') as '  PAPER          The paper', keeping columns."""
    out, in_args = [], False
    for line in text.split("\n"):
        if line.strip().endswith(":") and not line.startswith(" "):
            in_args = line.strip() == "Arguments:"
        elif line.startswith("Usage:"):
            line = _plain_usage(line)
        m = _ARG_TYPE.match(line) if in_args else None
        if m:
            indent, lb, name, rb, typ, pad, rest = m.groups()
            head = f"{lb}{name.upper()}{rb}"
            width = len(lb + name + rb + typ + pad)
            line = f"{indent}{head.ljust(width - 1)} {rest}".rstrip() if rest else f"{indent}{head}"
        out.append(line)
    return "\n".join(out)


@dataclass
class ReviewArgs:
    """The options of one `copilot review` as given on the command line."""

    paper: Path
    artifact: str | None
    out: Path | None
    agent: str = "auto"
    sandbox: str = "auto"
    timeout: float = 1800.0
    max_steps: int = 30
    max_cost: float = 1.0
    max_minutes: float | None = None
    resume: bool = False
    force: bool = False
    model: str | None = None
    cache_dir: Path | None = None
    image: str | None = None
    context_tokens: int | None = None
    offline: bool = False


def check_args(a: ReviewArgs) -> None:
    """Usage errors (exit 2), each naming what is wrong; light checks only, nothing heavy imported."""
    if a.timeout <= 0:
        raise UsageError(f"--timeout must be a positive number of seconds, not {a.timeout:g}")
    if a.max_steps <= 0:
        raise UsageError(f"--max-steps must be a positive number, not {a.max_steps}")
    if a.context_tokens is not None and a.context_tokens < 512:
        raise UsageError(f"--context-tokens must be at least 512, not {a.context_tokens}",
                         "give the context window the model server is started with, e.g. 4096")
    if a.max_cost < 0:
        raise UsageError(f"--max-cost must not be negative, not {a.max_cost:g}")
    if a.max_minutes is not None and a.max_minutes <= 0:
        raise UsageError(f"--max-minutes must be a positive number of minutes, not {a.max_minutes:g}")
    if a.agent not in AGENTS:
        raise UsageError(f"unknown agent '{a.agent}'", f"use {', '.join(AGENTS)}")
    if a.sandbox != "auto":
        from .sandbox.registry import BACKENDS

        if a.sandbox not in BACKENDS:
            raise UsageError(f"unknown sandbox '{a.sandbox}'", f"use auto, {', '.join(BACKENDS)}")
    if a.resume and a.force:
        raise UsageError("--resume and --force exclude each other",
                         "--resume continues the review in --out, --force replaces it")
    if not a.paper.exists():
        raise UsageError(f"paper {a.paper} not found", "pass the paper as a PDF, Markdown, LaTeX or text file")


def check_artifact(artifact: str) -> None:
    """A local artifact path that does not exist is a typo, not a review: exit 2 naming it.
    URLs, DOIs and file:// links are reviewed whatever happens to them (GC1 says why they failed)."""
    if "://" in artifact or urlparse(artifact).scheme in ("doi",):
        return
    path = Path(artifact).expanduser()
    try:
        if path.exists():
            return
    except (OSError, ValueError):
        pass
    from .acquire.hosts import is_remote

    if not is_remote(artifact):
        raise UsageError(f"artifact path {artifact} does not exist",
                         "pass an existing folder or archive, or a URL, DOI or file:// link")


def is_run_dir(path: Path) -> bool:
    """A folder a review wrote: it holds run.json (the run's identity) and the evidence folder."""
    return (path / "run.json").is_file() and (path / "evidence").is_dir()


def check_out(out: Path, resume: bool, force: bool) -> None:
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file, not a folder", "name a new folder for the run directory")
    if resume:
        if not (out / "run.json").is_file():
            raise UsageError(f"--resume: {out} holds no review to resume", "drop --resume to start one")
        return
    if not out.exists() or (out.is_dir() and not any(out.iterdir())):
        return
    if force:
        if not is_run_dir(out):
            raise UsageError(f"--force: {out} is not a review's run directory (no run.json and evidence/); "
                             "refusing to delete it", "name a new folder, or remove it yourself")
        return
    if (out / "run.json").is_file():
        raise UsageError(f"{out} already holds a review",
                         "pass --resume to continue it, --force to replace it, or choose another --out")


def resume_command(a: ReviewArgs, out: Path, used: dict | None = None) -> str:
    """The command that continues the review in `out` with every option that shapes it. `used` (report.json of
    the interrupted run) pins the sandbox and agent the run actually used, so a resume cannot mix backends."""
    used = used or {}
    sandbox = used["sandbox"] if used.get("sandbox") in ("docker", "local") else a.sandbox
    agent = used["agent"] if used.get("agent") in ("llm", "heuristic") else a.agent
    args = ["copilot", "review", str(a.paper), str(a.artifact), "--out", str(out), "--resume",
            "--sandbox", sandbox, "--agent", agent]
    optional = [("--model", a.model), ("--timeout", _num(a.timeout, 1800.0)), ("--max-steps", _num(a.max_steps, 30)),
                ("--max-cost", _num(a.max_cost, 1.0)), ("--max-minutes", _num(a.max_minutes, None)),
                ("--image", a.image), ("--cache-dir", a.cache_dir), ("--context-tokens", a.context_tokens)]
    args += [str(x) for flag, value in optional if value is not None for x in (flag, value)]
    args += ["--offline"] if a.offline else []
    return shlex.join(args)


def _num(value, default):
    if value is None or value == default:
        return None
    return f"{value:g}" if isinstance(value, float) else value


def read_report_json(out: Path) -> dict:
    try:
        data = json.loads((out / "report.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def gate_outcome(out: Path):
    """For the live view: whether the committed gate packet passed (None until it is readable)."""
    def read() -> bool | None:
        try:
            gate = json.loads((out / "packets" / "gate.json").read_text(encoding="utf-8")).get("gate")
        except (OSError, ValueError, AttributeError):
            return None
        return bool(gate) and all(gate.values()) if isinstance(gate, dict) else None

    return read


def gate_notes(out: Path) -> list[str]:
    """'GC2: no readable entry document' for each failed gate check of the committed gate packet."""
    try:
        packet = json.loads((out / "packets" / "gate.json").read_text(encoding="utf-8"))
        failed = [f"{c['item']}: {c.get('note') or 'not satisfied'}" for c in packet.get("checklist", [])
                  if isinstance(c, dict) and c.get("status") == "violated"]
    except (OSError, ValueError, AttributeError, KeyError, TypeError):
        return ["see the report"]
    return failed or ["see the report"]
