"""Agent loop for table reproduction (Artisan Algorithm 1) over any tool-calling LangChain chat model.

Tools: `bash` in a working copy of the artifact, `format_table` (the format tool) and `submit`
(both judges on a fresh copy). The prompt and every tool result carry only the obfuscated table
and judge feedback, which reveals no more than the cells already reproduced.
"""
from __future__ import annotations

import json
from pathlib import Path

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import StructuredTool

from ..sandbox.base import Sandbox
from .formatter import format_table
from .judges import judge_submission
from .loop import Log, ReproConfig, ReproResult, outputs_text
from ..tables import Table, obfuscate, render_markdown

PROMPT = Path(__file__).parent / "prompts" / "agent.md"
MAX_TOOL_OUTPUT = 10_000


def _clip(text: str) -> str:
    return text if len(text) <= MAX_TOOL_OUTPUT else f"[... {len(text) - MAX_TOOL_OUTPUT} characters cut ...]\n" + text[-MAX_TOOL_OUTPUT:]


def _spend(msg: AIMessage, config: ReproConfig) -> float:
    usage = getattr(msg, "usage_metadata", None) or {}
    return (usage.get("input_tokens", 0) * config.usd_per_1k_input + usage.get("output_tokens", 0) * config.usd_per_1k_output) / 1000


def _entry(msg: BaseMessage) -> dict:
    entry = {"role": msg.type, "content": msg.content if isinstance(msg.content, str) else json.dumps(msg.content)}
    if isinstance(msg, AIMessage) and msg.tool_calls:
        entry["tool_calls"] = [{"name": c["name"], "args": c["args"]} for c in msg.tool_calls]
    return entry


def agent_loop(artifact: Path, expected: Table, sandbox: Sandbox, model, config: ReproConfig, log: Log = print) -> ReproResult:
    label = expected.label or "the table"
    hidden = obfuscate(expected)
    result = ReproResult(label=label, mode="agent")
    work = sandbox.start(artifact)

    def bash(command: str) -> str:
        """Run a shell command in the artifact folder; returns exit status, stdout and stderr."""
        res = work.run(command, timeout=config.timeout_s)
        rec = res.record
        status = "timed out" if rec.timed_out else f"exit {rec.exit_code}"
        return _clip(f"[{status}]\n{res.stdout_full.decode('utf-8', 'replace')}\n{res.stderr_full.decode('utf-8', 'replace')}")

    def format_tool(outputs: str) -> str:
        """Fill the hidden table with the values found in `outputs` (execution output text)."""
        return render_markdown(format_table(hidden, outputs, model, config.cache_dir))

    def submit(script: str) -> str:
        """Submit the bash reproduction script; it is judged on a fresh copy of the artifact."""
        verdict, run = judge_submission(script, artifact, expected, sandbox, config.timeout_s, model=model)
        result.attempts.append((script, verdict))
        if result.verdict is None or verdict.category == "success" or verdict.matched >= result.verdict.matched:
            result.script, result.verdict = script, verdict
            result.formatted = format_table(hidden, outputs_text(run))
        log(f"submission {len(result.attempts)}: {verdict.category}, {verdict.matched}/{verdict.total} cells")
        return f"{verdict.category}: {verdict.feedback}"

    tools = {t.name: t for t in (StructuredTool.from_function(bash), StructuredTool.from_function(format_tool, name="format_table"),
                                 StructuredTool.from_function(submit))}
    bound = model.bind_tools(list(tools.values()))
    prompt = PROMPT.read_text(encoding="utf-8").format(label=label, table=render_markdown(hidden), max_steps=config.max_steps)
    messages: list[BaseMessage] = [SystemMessage(prompt), HumanMessage(f"Reproduce {label}. Start by reading the README.")]
    result.transcript += [_entry(m) for m in messages]
    try:
        while result.steps < config.max_steps and result.cost_usd < config.max_cost_usd and not result.passed:
            ai = bound.invoke(messages)
            result.steps += 1
            result.cost_usd += _spend(ai, config)
            messages.append(ai)
            result.transcript.append(_entry(ai))
            if not ai.tool_calls:
                nudge = HumanMessage("Use a tool. When the script is ready, call submit with it.")
                messages.append(nudge)
                result.transcript.append(_entry(nudge))
                continue
            for call in ai.tool_calls:
                tool = tools.get(call["name"])
                try:
                    output = tool.invoke(call["args"]) if tool else f"unknown tool {call['name']}; use {', '.join(tools)}"
                except Exception as exc:  # noqa: BLE001 - a bad tool call is feedback, not a crash
                    output = f"tool error: {type(exc).__name__}: {exc}"
                msg = ToolMessage(str(output), tool_call_id=call.get("id") or call["name"])
                messages.append(msg)
                result.transcript.append(_entry(msg))
                if result.passed:
                    break
    finally:
        work.close()
    stop = "accepted" if result.passed else ("step limit" if result.steps >= config.max_steps else
                                             "cost limit" if result.cost_usd >= config.max_cost_usd else "stopped")
    log(f"agent finished after {result.steps} steps (${result.cost_usd:.4f}): {stop}")
    return result
