"""`copilot repro PAPER ARTIFACT --table LABEL`: an Artisan-style reproduction script and its verdict."""
from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Annotated

import typer

from ..errors import CopilotError, UsageError


def _default_out(artifact: str, label: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", f"{Path(artifact.rstrip('/')).name}-{label}").strip("-")[:50] or "repro"
    return Path("reports") / f"repro-{slug}-{time.strftime('%Y%m%d-%H%M%S')}"


def _sandbox(name: str, timeout: float):
    """The same choice as `copilot review` (sandbox/registry.py)."""
    from ..sandbox.base import Limits
    from ..sandbox.registry import SandboxOptions, open_sandbox

    return open_sandbox(name, SandboxOptions(limits=Limits(timeout_s=timeout)))[0]


def _model(agent: str, model: str | None):
    if agent == "heuristic" or (agent == "auto" and not model):
        return None
    if agent not in ("auto", "llm"):
        raise UsageError(f"unknown agent '{agent}'", "use auto, llm or heuristic")
    if not model:
        raise UsageError("--agent llm needs --model", "name a model served at OPENAI_BASE_URL")
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(model=model, temperature=0)


def run_repro(paper: Path, artifact: str, table: str, out: Path, timeout: float, agent: str, model: str | None,
              max_steps: int, max_cost: float, sandbox: str) -> dict:
    from ..acquire.download import acquire
    from ..acquire.paper import load_paper
    from ..repro.loop import ReproConfig, find_table, reproduce
    from ..tables import render_markdown

    doc = load_paper(paper)
    expected = find_table(doc.tables, table)
    if expected is None:
        labels = ", ".join(t.label for t in doc.tables if t.label) or "none"
        raise UsageError(f"the paper has no table '{table}'", f"tables found: {labels}")
    if not expected.numeric_cells():
        raise UsageError(f"{expected.label} has no numeric cells to reproduce")
    out.mkdir(parents=True, exist_ok=True)
    (out / "logs").mkdir(exist_ok=True)
    acq = acquire(artifact, out / "acquired")
    if not acq.ok or acq.root is None:
        raise CopilotError(f"artifact could not be acquired: {acq.error}",
                           "pass a local folder, archive or file:// URL")
    log_path = out / "logs" / "repro.log"
    with log_path.open("a", encoding="utf-8") as log_file:
        def log(msg: str) -> None:
            log_file.write(f"[{time.strftime('%H:%M:%S')}] {msg}\n")
            log_file.flush()

        config = ReproConfig(timeout_s=timeout, max_steps=max_steps, max_cost_usd=max_cost, cache_dir=out / "cache")
        box = _sandbox(sandbox, timeout)
        try:
            result = reproduce(acq.root, expected, box, _model(agent, model), config, log)
        finally:
            box.close()  # scratch copies; the attempts are in logs/
    for n, (script, judged) in enumerate(result.attempts, 1):
        (out / "logs" / f"attempt-{n:02d}.sh").write_text(script, encoding="utf-8")
        (out / "logs" / f"attempt-{n:02d}.json").write_text(json.dumps(judged.public(), indent=2), encoding="utf-8")
    if result.transcript:
        (out / "logs" / "transcript.jsonl").write_text("".join(json.dumps(m) + "\n" for m in result.transcript),
                                                       encoding="utf-8")
    if result.script:
        (out / "repro.sh").write_text(result.script, encoding="utf-8")
        (out / "repro.sh").chmod(0o755)
    if result.formatted is not None:
        (out / "table.md").write_text(render_markdown(result.formatted) + "\n", encoding="utf-8")
    v = result.verdict
    verdict = {"table": expected.label, "category": v.category if v else "static_error",
               "method": v.method if v else None,
               "matched": v.matched if v else 0, "total": v.total if v else len(expected.numeric_cells()),
               "feedback": v.feedback if v else "no reproduction script: no command for this table was found",
               "mode": result.mode, "steps": result.steps, "cost_usd": round(result.cost_usd, 4),
               "attempts": len(result.attempts), "detail": v.public() if v else None}
    (out / "verdict.json").write_text(json.dumps(verdict, indent=2) + "\n", encoding="utf-8")
    return verdict


REPRO_EPILOG = """Examples:

\b
  copilot repro paper.md ./artifact --table "Table 2"
  copilot repro paper.pdf artifact.zip --table 3 --out reports/t3 --sandbox docker
  copilot repro paper.md ./artifact --table 2 --agent llm --model qwen2.5-coder

Writes repro.sh (the script), table.md (the table it produced), verdict.json and logs/ into --out. The verdict
is one of success, mismatch, runtime_error, static_error; a success also names the method: full reproduction,
last-mile reproduction or copied results. The expected values never reach the script or an agent: it sees the
table with every digit replaced by '?'."""


def register(app: typer.Typer) -> None:
    from ..console import HelpCommand

    @app.command(cls=HelpCommand, epilog=REPRO_EPILOG,
                 short_help="Write and judge a script that reproduces a paper table.")
    def repro(
        paper: Annotated[Path, typer.Argument(help="The paper: PDF, Markdown, LaTeX or text.")],
        artifact: Annotated[str, typer.Argument(help="The artifact: local folder, archive, or file:// URL.")],
        table: Annotated[str, typer.Option("--table", metavar="LABEL",
                                           help="Paper table to reproduce, e.g. 'Table 2' or '2'.")],
        out: Annotated[Path | None, typer.Option("--out", metavar="DIR", show_default=False,
                                                 help="Output folder (default: "
                                                      "reports/repro-<artifact>-<time>).")] = None,
        timeout: Annotated[float, typer.Option(metavar="SECONDS",
                                               help="Time limit for one run of the script.")] = 1800.0,
        agent: Annotated[str, typer.Option(metavar="auto|llm|heuristic",
                                           help="Who writes the script (auto: heuristic unless --model is "
                                                "given).")] = "auto",
        model: Annotated[str | None, typer.Option(metavar="NAME", help="LLM model name (OpenAI-compatible endpoint "
                                                                      "from OPENAI_BASE_URL).")] = None,
        max_steps: Annotated[int, typer.Option("--max-steps", metavar="N", help="Step limit of an LLM agent.")] = 30,
        max_cost: Annotated[float, typer.Option("--max-cost", metavar="USD", help="Cost limit of an LLM agent.")] = 1.0,
        sandbox: Annotated[str, typer.Option(metavar="auto|docker|local", help="Where the script runs.")] = "auto",
    ) -> None:
        """Write a script that reproduces a paper table with the artifact, and judge it on its output and its
        method (full reproduction, last-mile, copied results)."""
        from ..console import fail

        if timeout <= 0 or max_steps <= 0 or max_cost < 0:
            raise fail(UsageError("--timeout and --max-steps must be positive, --max-cost not negative"))
        out = out or _default_out(artifact, table)
        try:
            verdict = run_repro(paper, artifact, table, out, timeout, agent, model, max_steps, max_cost, sandbox)
        except KeyboardInterrupt:
            raise typer.Exit(130) from None
        except Exception as exc:  # noqa: BLE001 - one line at the CLI boundary
            raise fail(exc, f" (details in {out}/logs/repro.log)") from None
        method = (f" ({verdict['method'].replace('_', '-')} reproduction)"
                  if verdict["method"] and verdict["category"] == "success" else "")
        typer.echo(f"{verdict['table']}: {verdict['category']}{method}, {verdict['matched']}/{verdict['total']} cells")
        typer.echo(f"verdict: {out / 'verdict.json'}"
                   + (f"  script: {out / 'repro.sh'}" if (out / "repro.sh").exists() else ""))
