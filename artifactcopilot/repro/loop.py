"""The reproduction loop: find how the artifact produces a paper table, write repro.sh, judge it.

Offline, the documented command for the table ("To reproduce Table 2, run ...") becomes the
script; each candidate is submitted to the judges until one passes. With a chat model, an agent
(agent.py, on the LLM path's one tool loop) explores the artifact with a bash tool, the format tool
and submit. Either way the expected table stays with the judges: the loop and the model only see
its obfuscated form.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..config import MAX_COST_USD, MAX_STEPS, TIMEOUT_S
from ..discovery import DirectoryView, Step, discover
from ..discovery.document import block_script, doc_of
from ..llm.settings import LLMSettings
from ..sandbox.base import Sandbox
from ..tables import Table, obfuscate
from .formatter import format_table
from .judges import RunEvidence, Verdict, artifact_files, judge_submission

Log = Callable[[str], None]
MAX_CANDIDATES = 4
REPRO_SECTION = re.compile(r"reproduc|replicat|experiment|evaluat|result|paper|table", re.IGNORECASE)
INLINE_RUN = re.compile(r"(?:reproduce|regenerate|obtain|get)\s+(?:the\s+)?(?:results?\s+(?:of|in)\s+)?{label}\b"
                        r"[^`\n]{{0,80}}?`([^`\n]+)`",
                        re.IGNORECASE)


@dataclass
class ReproConfig:
    """Limits and settings of one reproduction."""

    timeout_s: float = TIMEOUT_S
    """Time limit of one run of a submitted script (and of one bash tool call)."""
    max_steps: int = MAX_STEPS
    """Model calls an agent may make (Artisan: 30)."""
    max_cost_usd: float = MAX_COST_USD
    """Spend limit of an agent in USD (Artisan: $1), priced by the LLM settings' price table."""
    cache_dir: Path | None = None
    """Where format-tool answers of a model are cached by input hash."""
    llm: LLMSettings | None = None
    """Endpoint, prices, retries and wall-clock limit of the agent (None: from the environment, as a review's)."""


@dataclass
class ReproResult:
    """What a reproduction produced: the accepted (or best) script and its verdict."""

    label: str
    script: str | None = None
    verdict: Verdict | None = None
    formatted: Table | None = None
    attempts: list[tuple[str, Verdict]] = field(default_factory=list)
    steps: int = 0
    cost_usd: float = 0.0
    mode: str = "heuristic"
    transcript: list[dict] = field(default_factory=list)
    """The agent's transcript lines (prompts, responses, tool calls), as a review's transcripts hold them."""
    stopped: str = ""
    """Why the agent stopped: accepted, step limit, cost limit, wall-clock limit, model unavailable."""

    @property
    def passed(self) -> bool:
        return bool(self.verdict and self.verdict.category == "success")


def _norm_label(label: str) -> str:
    label = label.strip()
    return f"Table {label}" if re.fullmatch(r"[A-Z]?\d+[a-z]?|[IVXL]+", label) else label


def find_table(tables: list[Table], label: str) -> Table | None:
    want = _norm_label(label).casefold()
    return next((t for t in tables
                 if (t.label or "").casefold() == want or (t.ref or "").casefold() == label.casefold()), None)


def documented_scripts(artifact: Path, label: str) -> list[tuple[str, str]]:
    """(script, where documented) for the table, best first: command blocks naming it, then prose, then results
    sections. The commands are those documentation discovery finds, in every document it reads."""
    view = DirectoryView(artifact)
    view.files = artifact_files(artifact)
    found = discover(view)
    label = _norm_label(label)
    blocks: dict[int, list[Step]] = {}
    for step in found.steps:
        if step.documented and step.kind in ("workflow", "plot") and not step.reuse:
            blocks.setdefault(step.block or -step.order, []).append(step)  # block 0: a step of its own
    out: list[tuple[str, str]] = []

    def add(script: str, where: str) -> None:
        if script and script not in [s for s, _ in out]:
            out.append((script, where))

    def where(block: list[Step]) -> str:
        return f"{doc_of(block[0].source)}, section '{block[0].section}'"

    for block in blocks.values():
        if any(label in s.mentions for s in block):
            add(block_script(block), where(block))
    for doc in found.docs:
        text = "" if doc.path.startswith("paper:") else view.read(doc.path, 6_000_000) or ""
        for m in re.finditer(INLINE_RUN.pattern.format(label=re.escape(label)), text, re.IGNORECASE):
            add(m.group(1).strip(), f"{doc.path}: \"{m.group(0)[:80]}\"")
    for block in blocks.values():
        if REPRO_SECTION.search(block[0].section):
            add(block_script(block), where(block))
    return out[:MAX_CANDIDATES]


def script_text(body: str, label: str, where: str) -> str:
    return (f"#!/usr/bin/env bash\n# Reproduces {label} of the paper, as documented in {where}.\n"
            f"# Run from the artifact's root folder.\nset -euo pipefail\n{body}\n")


def outputs_text(run: RunEvidence | None) -> str:
    return "\n\n".join(text for _, text in run.outputs) if run else ""


def heuristic_loop(artifact: Path, expected: Table, sandbox: Sandbox, config: ReproConfig,
                   log: Log = print) -> ReproResult:
    label = expected.label or "the table"
    result = ReproResult(label=label)
    candidates = documented_scripts(artifact, label)
    if not candidates:
        log(f"no command documented for {label} in the README")
    best_run: RunEvidence | None = None
    for body, where in candidates:
        script = script_text(body, label, where)
        log(f"submitting the command documented in {where}:\n{body}")
        verdict, run = judge_submission(script, artifact, expected, sandbox, config.timeout_s)
        result.attempts.append((script, verdict))
        log(f"verdict: {verdict.category}" + (f" ({verdict.method})" if verdict.method else "") +
            f", {verdict.matched}/{verdict.total} cells\n{verdict.feedback}")
        better = result.verdict is None or verdict.category == "success" or verdict.matched > result.verdict.matched
        if better:
            result.script, result.verdict, best_run = script, verdict, run
        if verdict.category == "success":
            break
    result.steps = len(result.attempts)
    if best_run is not None:
        result.formatted = format_table(obfuscate(expected), outputs_text(best_run))
    return result


def reproduce(artifact: Path, expected: Table, sandbox: Sandbox, model=None, config: ReproConfig | None = None,
              log: Log = print) -> ReproResult:
    """Reproduce `expected` (a paper table) with the artifact: agent loop with a model, heuristic without."""
    config = config or ReproConfig()
    if model is None:
        return heuristic_loop(artifact, expected, sandbox, config, log)
    from .agent import agent_loop

    return agent_loop(artifact, expected, sandbox, model, config, log)
