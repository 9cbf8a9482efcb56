"""`copilot judge table|method`: the reproduction judges on their own, with exit codes like `diff`.

table:  0 the produced output reproduces the expected table, 1 it does not, 2 could not judge.
method: 0 accepted (full or last-mile), 1 not accepted (copy, undetermined), 2 could not judge.
A readable verdict by default; `--json` prints the verdict as JSON. `--model` (or OPENAI_BASE_URL /
OPENAI_API_KEY in the environment) adds a model's opinion to the method judge, which can only
lower trust in the verdict.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from ..errors import UsageError

judge_app = typer.Typer(no_args_is_help=True, rich_markup_mode=None, add_completion=False,
                        help="Judge a produced table or a reproduction script; "
                        "exit 0 match/accepted, 1 not, 2 could not judge.")


def _read(path: Path, what: str) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"{what} {path} cannot be read: {exc.strerror or exc}", f"pass the {what} file") from None
    if b"\0" in data[:8192] and path.suffix.lower() not in (".ipynb",):
        raise UsageError(f"{what} {path} is not a text file", f"pass the {what} as text")
    return data.decode("utf-8", errors="replace")


def _expected(path: Path, label: str | None):
    """The expected table: from a paper (by label) or a file holding the table."""
    from ..acquire.paper import load_paper
    from ..repro.loop import find_table
    from ..tables import parse_tables

    if not path.exists():
        raise UsageError(f"expected table {path} does not exist", "pass a table file or a paper with --table")
    if path.suffix.lower() in (".pdf", ".tex") or path.is_dir():
        tables = load_paper(path).tables
    else:
        tables = parse_tables(_read(path, "expected table"))
    table = find_table(tables, label) if label else next((t for t in tables if t.numeric_cells()), None)
    if table is None or not table.numeric_cells():
        raise UsageError(f"no table with numbers{' labelled ' + label if label else ''} in {path}",
                         "pass a Markdown/CSV/LaTeX table or a paper with --table")
    return table


def _emit(data: dict, as_json: bool, text: str) -> None:
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False) if as_json else text)


@judge_app.command("table")
def table_cmd(
    expected: Annotated[Path, typer.Argument(help="Expected table: a table file, or a paper with --table.")],
    produced: Annotated[Path, typer.Argument(help="Produced output: stdout log, results file, any text.")],
    table: Annotated[str | None, typer.Option("--table", help="Label of the expected table, e.g. 'Table 2'.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the verdict as JSON.")] = False,
) -> None:
    """Compare produced output with an expected table at the expected cells' printed precision."""
    from ..console import fail
    from ..tables import best_match, render_markdown, reveal

    try:
        exp = _expected(expected, table)
        comp = best_match(exp, _read(produced, "produced output"))
    except Exception as exc:  # noqa: BLE001
        raise fail(exc) from None
    total = comp.total if comp else len(exp.numeric_cells())
    success = bool(comp and comp.success)
    data = {"category": "success" if success else "mismatch", "table": exp.label,
            "matched": comp.matched if comp else 0, "total": total,
            "cells": [c.model_dump() for c in comp.cells] if comp else [],
            "feedback": "" if success else render_markdown(reveal(exp, comp)) if comp else "no matching table found"}
    label = exp.label or "the expected table"
    lines = [f"{'match' if success else 'mismatch'}: {data['matched']}/{total} cells of {label}"]
    if not success:
        wrong = [c for c in (comp.cells if comp else []) if not c.matched]
        lines += [f"  {c.row} / {c.column}: expected {c.expected}, "
                  f"produced {c.produced if c.produced is not None else '—'} ({c.kind})" for c in wrong[:20]]
        if len(wrong) > 20:
            lines.append(f"  … {len(wrong) - 20} more")
        if comp is None:
            lines.append("  no table with the expected rows and columns was found in the produced output")
    _emit(data, as_json, "\n".join(lines))
    raise typer.Exit(0 if success else 1)


def _chat_model(name: str | None):
    """A chat model for the method judge's opinion when asked for (--model) or configured (OPENAI_*), else None."""
    if not name and not (os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_KEY")):
        return None
    from ..agents.llm import check_endpoint, make_chat_model
    from ..llm.settings import settings_from_env

    settings = settings_from_env(name)
    try:
        check_endpoint(settings)
    except Exception as exc:  # noqa: BLE001 - the judge works without an opinion
        sys.stderr.write(f"warning: no model opinion: {exc}\n")
        return None
    return make_chat_model(settings)


@judge_app.command("method")
def method_cmd(
    script: Annotated[Path, typer.Argument(help="The reproduction script (shell, Python, R, notebook or Makefile).")],
    artifact: Annotated[Path | None, typer.Option("--artifact", help="Artifact folder the script runs in.")] = None,
    run: Annotated[bool, typer.Option(
        "--run", help="Run the script in a sandbox copy and use its provenance.")] = False,
    expected: Annotated[Path | None, typer.Option(
        "--expected", help="Expected table file or paper (else: the run's own table).")] = None,
    table: Annotated[str | None, typer.Option("--table", help="Label of the expected table in --expected.")] = None,
    timeout: Annotated[float, typer.Option(help="Time limit of one run, in seconds.")] = 600.0,
    model: Annotated[str | None, typer.Option(
        "--model", help="Ask this model (OPENAI_BASE_URL) for an opinion.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the verdict as JSON.")] = False,
) -> None:
    """Classify a script as full reproduction, last-mile reproduction, copied results or undetermined."""
    from ..console import fail

    try:
        if run and artifact is None:
            raise UsageError("--run needs --artifact", "name the artifact folder the script belongs to")
        if artifact is not None and not artifact.is_dir():
            raise UsageError(f"artifact {artifact} is not a folder")
        text = _read(script, "script")
        if not text.strip():
            raise UsageError(f"script {script} is empty", "pass the reproduction script")
        target = _expected(expected, table) if expected else None
        data = _judge(text, script.name, artifact, target, run, timeout, _chat_model(model))
    except Exception as exc:  # noqa: BLE001
        raise fail(exc) from None
    _emit(data, as_json, _readable(data))
    raise typer.Exit(0 if data["accepted"] else 1)


def _judge(text: str, name: str, artifact: Path | None, target, run: bool, timeout: float, model) -> dict:
    from ..repro.judges import execute, judge_method, judge_output
    from ..sandbox.base import Limits
    from ..sandbox.local import LocalSandbox

    result: dict = {}
    run_in = artifact if run else None  # --run comes with --artifact (the caller checks)
    with tempfile.TemporaryDirectory(prefix="copilot-judge-") as scratch:
        sandbox = LocalSandbox(Path(scratch), Limits(timeout_s=timeout))
        evidence = None
        if run_in is not None and target is not None:
            out, evidence = judge_output(text, run_in, target, sandbox, timeout)
            result["output"] = out.model_dump(exclude={"cells"})
        elif run_in is not None:
            evidence = execute(text, run_in, sandbox, timeout)

        def rerun(withheld: str):
            if run_in is None:  # nothing ran: nothing to rerun
                return None
            again = execute(text, run_in, sandbox, timeout, withheld=withheld)
            return again.outputs if again.record and again.record.exit_code is not None else None

        verdict = judge_method(text, artifact, target, evidence, rerun if evidence else None, model=model, name=name)
    detail = verdict.model_dump(exclude={"reasons", "method", "accepted", "confidence", "signals", "flow"})
    return {"method": verdict.method, "accepted": verdict.accepted, "confidence": verdict.confidence,
            "signals": [s.model_dump() for s in verdict.signals], "reasons": verdict.reasons,
            "flow": [f.model_dump() for f in verdict.flow],
            "executed": evidence is not None, **result, "detail": detail}


def _readable(data: dict) -> str:
    method = data["method"].replace("_", "-")
    head = f"{method} ({'accepted' if data['accepted'] else 'not accepted'}, {data['confidence']} confidence)"
    lines = [head] + [f"  - {r}" for r in data["reasons"]]
    for f in data.get("flow", [])[:3]:
        lines.append(f"  flow: {f['value']} <- " + "".join(f"{t} <- " for t in f["through"]) + (f["source"] or "?"))
    used = "; ".join(f"{s['source']}: {s['finding']}" for s in data["signals"])
    lines.append(f"evidence: {used}" + ("" if data["executed"] else "; the script was not run"))
    if "output" in data:
        out = data["output"]
        lines.append(f"output judge: {out['category']}, {out['matched']}/{out['total']} cells")
    return "\n".join(lines)


def register(app: typer.Typer) -> None:
    app.add_typer(judge_app, name="judge")
