"""`copilot judge table|method`: the reproduction judges on their own, JSON verdicts on stdout."""
from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..errors import UsageError

judge_app = typer.Typer(no_args_is_help=True, rich_markup_mode=None, add_completion=False,
                        help="Judge a produced table or a reproduction script; prints a JSON verdict.")


def _read(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise UsageError(f"{what} {path} cannot be read: {exc.strerror or exc}", f"pass the {what} file") from None


def _expected(path: Path, label: str | None):
    """The expected table: from a paper (by label) or a file holding the table."""
    from ..acquire.paper import load_paper
    from ..repro.loop import find_table
    from ..tables import parse_tables

    if path.suffix.lower() in (".pdf", ".tex") or path.is_dir():
        tables = load_paper(path).tables
    else:
        tables = parse_tables(_read(path, "expected table"))
    table = find_table(tables, label) if label else next((t for t in tables if t.numeric_cells()), None)
    if table is None or not table.numeric_cells():
        raise UsageError(f"no table with numbers{' labelled ' + label if label else ''} in {path}",
                         "pass a Markdown/CSV/LaTeX table or a paper with --table")
    return table


def _print(data: dict) -> None:
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False))


@judge_app.command("table")
def table_cmd(
    expected: Annotated[Path, typer.Argument(help="Expected table: a table file, or a paper with --table.")],
    produced: Annotated[Path, typer.Argument(help="Produced output: stdout log, results file, any text.")],
    table: Annotated[Optional[str], typer.Option("--table", help="Label of the expected table, e.g. 'Table 2'.")] = None,
) -> None:
    """Compare produced output with an expected table at the expected cells' printed precision."""
    from ..cli import fail
    from ..tables import best_match, render_markdown, reveal

    try:
        exp = _expected(expected, table)
        comp = best_match(exp, _read(produced, "produced output"))
    except Exception as exc:  # noqa: BLE001
        raise fail(exc) from None
    total = comp.total if comp else len(exp.numeric_cells())
    success = bool(comp and comp.success)
    _print({"category": "success" if success else "mismatch", "table": exp.label, "matched": comp.matched if comp else 0,
            "total": total, "cells": [c.model_dump() for c in comp.cells] if comp else [],
            "feedback": "" if success else render_markdown(reveal(exp, comp)) if comp else "no matching table found"})


@judge_app.command("method")
def method_cmd(
    script: Annotated[Path, typer.Argument(help="The reproduction script (bash).")],
    artifact: Annotated[Optional[Path], typer.Option("--artifact", help="Artifact folder the script runs in.")] = None,
    run: Annotated[bool, typer.Option("--run", help="Run the script in a sandbox copy and use its provenance.")] = False,
    expected: Annotated[Optional[Path], typer.Option("--expected", help="Expected table file or paper (else: the run's own table).")] = None,
    table: Annotated[Optional[str], typer.Option("--table", help="Label of the expected table in --expected.")] = None,
    timeout: Annotated[float, typer.Option(help="Time limit of one run, in seconds.")] = 600.0,
) -> None:
    """Classify a script as full reproduction, last-mile reproduction or copied results."""
    from ..cli import fail
    from ..repro.judges import execute, judge_method, judge_output
    from ..sandbox.base import Limits
    from ..sandbox.local import LocalSandbox

    try:
        if run and artifact is None:
            raise UsageError("--run needs --artifact", "name the artifact folder the script belongs to")
        if artifact is not None and not artifact.is_dir():
            raise UsageError(f"artifact {artifact} is not a folder")
        text = _read(script, "script")
        target = _expected(expected, table) if expected else None
        result: dict = {}
        with tempfile.TemporaryDirectory(prefix="copilot-judge-") as scratch:
            sandbox = LocalSandbox(Path(scratch), Limits(timeout_s=timeout))
            evidence = None
            if run and target is not None:
                out, evidence = judge_output(text, artifact, target, sandbox, timeout)
                result["output"] = out.model_dump(exclude={"cells"})
            elif run:
                evidence = execute(text, artifact, sandbox, timeout)
            rerun = (lambda withheld: execute(text, artifact, sandbox, timeout, withheld=withheld).outputs) if evidence else None
            verdict = judge_method(text, artifact or Path("."), target, evidence, rerun, files=None if artifact else [])
    except Exception as exc:  # noqa: BLE001
        raise fail(exc) from None
    _print({"method": verdict.method, "accepted": verdict.method != "copy", "reasons": verdict.reasons,
            "executed": evidence is not None, **result, "detail": verdict.model_dump(exclude={"reasons", "method"})})


def register(app: typer.Typer) -> None:
    app.add_typer(judge_app, name="judge")
