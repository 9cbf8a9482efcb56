"""Agent loop for table reproduction (Artisan Algorithm 1) over any tool-calling LangChain chat model.

Tools: `bash` in a working copy of the artifact, `format_table` (the format tool) and `submit`
(both judges on a fresh copy). The prompt and every tool result carry only the obfuscated table
and judge feedback, which reveals no more than the cells already reproduced. The conversation runs
in the one tool loop of the LLM path (llm/loop.py) with its settings, prices, retries and transcript;
the format tool's and the method judge's model calls go through the same caller.
"""

from __future__ import annotations

from pathlib import Path

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.tools import StructuredTool

from ..llm.calls import ModelCaller
from ..llm.loop import ToolLoop
from ..llm.settings import LLMSettings, settings_from_env
from ..llm.transcript import Transcript
from ..sandbox.base import Sandbox
from ..tables import Table, obfuscate, render_markdown
from .formatter import format_table
from .judges import judge_submission
from .loop import Log, ReproConfig, ReproResult, outputs_text

PROMPT = Path(__file__).parent / "prompts" / "agent.md"
MAX_TOOL_OUTPUT = 10_000
STOPPED = {
    "done": "accepted",
    "steps": "step limit",
    "cost": "cost limit",
    "wall": "wall-clock limit",
    "unavailable": "model unavailable",
    "refused": "refused by the model endpoint",
    "context": "does not fit the model's context window",
}


def _clip(text: str) -> str:
    return (
        text
        if len(text) <= MAX_TOOL_OUTPUT
        else f"[... {len(text) - MAX_TOOL_OUTPUT} characters cut ...]\n" + text[-MAX_TOOL_OUTPUT:]
    )


def llm_settings(model, config: ReproConfig) -> LLMSettings:
    """The reproduction's one settings object: the given one (or the environment's for this model), with
    the reproduction's step and cost limits."""
    name = getattr(model, "model_name", None) or getattr(model, "model", None)
    base = config.llm or settings_from_env(name if isinstance(name, str) else None)
    return base.model_copy(update={"max_steps": config.max_steps, "max_cost_usd": config.max_cost_usd})


def agent_loop(
    artifact: Path, expected: Table, sandbox: Sandbox, model, config: ReproConfig, log: Log = print
) -> ReproResult:
    label = expected.label or "the table"
    result = ReproResult(label=label, mode="agent")
    settings = llm_settings(model, config)
    caller, transcript = ModelCaller(settings), Transcript(None, "repro")
    # the format tool and the method judge call the model through the same caller
    bench = _Bench(artifact, expected, sandbox, config, caller.counted(model, transcript), result, log)
    prompt = PROMPT.read_text(encoding="utf-8").format(
        label=label, table=render_markdown(bench.hidden), max_steps=settings.max_steps
    )
    messages: list[BaseMessage] = [
        SystemMessage(prompt),
        HumanMessage(f"Reproduce {label}. Start by reading the README."),
    ]
    loop = ToolLoop(
        model,
        caller,
        bench.tools(),
        final="submit",
        max_steps=settings.max_steps,
        scope="reproduction",
        nudge="Use a tool. When the script is ready, call submit with it.",
    )
    try:
        outcome = loop.run(messages, transcript, done=lambda: result.passed)
    finally:
        bench.close()
    result.steps, result.cost_usd, result.transcript = outcome.steps, caller.meter.usd, transcript.records
    result.stopped = STOPPED[outcome.stop] + (f" ({outcome.error})" if outcome.error else "")
    log(f"agent finished after {result.steps} steps (${result.cost_usd:.4f}): {result.stopped}")
    return result


class _Bench:
    """The agent's tools over one working copy of the artifact; submissions are judged on fresh copies."""

    def __init__(
        self,
        artifact: Path,
        expected: Table,
        sandbox: Sandbox,
        config: ReproConfig,
        model,
        result: ReproResult,
        log: Log,
    ):
        self.artifact, self.expected, self.sandbox, self.config = artifact, expected, sandbox, config
        self.model, self.result, self.log = model, result, log
        self.hidden = obfuscate(expected)
        self.work = sandbox.start(artifact)

    def tools(self) -> list[StructuredTool]:
        return [
            StructuredTool.from_function(self.bash, name="bash"),
            StructuredTool.from_function(self.format_tool, name="format_table"),
            StructuredTool.from_function(self.submit, name="submit"),
        ]

    def close(self) -> None:
        self.work.close()

    def bash(self, command: str) -> str:
        """Run a shell command in the artifact folder; returns exit status, stdout and stderr."""
        res = self.work.run(command, timeout=self.config.timeout_s)
        rec = res.record
        status = "timed out" if rec.timed_out else f"exit {rec.exit_code}"
        out, err = res.stdout_full.decode("utf-8", "replace"), res.stderr_full.decode("utf-8", "replace")
        return _clip(f"[{status}]\n{out}\n{err}")

    def format_tool(self, outputs: str) -> str:
        """Fill the hidden table with the values found in `outputs` (execution output text)."""
        return render_markdown(format_table(self.hidden, outputs, self.model, self.config.cache_dir))

    def submit(self, script: str) -> str:
        """Submit the bash reproduction script; it is judged on a fresh copy of the artifact."""
        verdict, run = judge_submission(
            script, self.artifact, self.expected, self.sandbox, self.config.timeout_s, model=self.model
        )
        result = self.result
        result.attempts.append((script, verdict))
        if result.verdict is None or verdict.category == "success" or verdict.matched >= result.verdict.matched:
            result.script, result.verdict = script, verdict
            result.formatted = format_table(self.hidden, outputs_text(run))
        self.log(f"submission {len(result.attempts)}: {verdict.category}, {verdict.matched}/{verdict.total} cells")
        return f"{verdict.category}: {verdict.feedback}"
