"""The two judges of a reproduction script (Artisan §2.5), with execution where Artisan had none.

Output judge: run the script in a fresh sandbox on a clean copy of the artifact; static error,
runtime error, mismatched results or success. Mismatch feedback reveals only the cells already
reproduced. Method judge (method.py): full reproduction, last-mile (from checked-in results),
copied results or undetermined, from the script's data flow *and* the run's provenance: a
checked-in file holding the table is a copy source only if the run read it without regenerating it
or a rerun without it no longer yields the table. Only full and last-mile are accepted. The judges
hold the expected table; callers only ever see feedback.
"""
from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from ..models import CommandRecord
from ..sandbox.base import Sandbox, Session
from ..tables import CellResult, Comparison, Table, best_match, obfuscate, render_markdown, reveal
from .method import Method, MethodVerdict, judge_method
from .provenance import TRACE_DIR, RunProvenance, traced_run
from .static import TEXT_SUFFIXES, readable_text

SCRIPT_DIR = ".repro"
MAX_OUTPUT_FILE = 2_000_000
TRACEBACK = re.compile(r"Traceback \(most recent call last\)|^\w*(Error|Exception): |Segmentation fault|core dumped",
                       re.MULTILINE)
Category = Literal["static_error", "runtime_error", "mismatch", "success"]


class OutputVerdict(BaseModel):
    """Output judge result."""

    category: Category
    matched: int = 0
    total: int = 0
    source: str | None = Field(
        None, description="Where the best-matching table was found: stdout or a file the run wrote.")
    feedback: str = Field(
        "", description="What the submitter may see: errors, or the table with only reproduced cells revealed.")
    cells: list[CellResult] = Field(
        default_factory=list, description="Cell-by-cell comparison (holds expected values: judge-side only).")
    exit_code: int | None = None
    duration_s: float = 0.0


@dataclass
class RunEvidence:
    """One judged run: its outputs (stdout and files it wrote) and provenance."""

    record: CommandRecord | None
    outputs: list[tuple[str, str]]
    provenance: RunProvenance
    files: list[str] = field(default_factory=list)


def artifact_files(root: Path, limit: int = 5000) -> list[str]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        skip = (".git", "__pycache__", SCRIPT_DIR, TRACE_DIR, ".sandbox-home")
        dirnames[:] = sorted(d for d in dirnames if d not in skip)
        for name in sorted(filenames):
            out.append((Path(dirpath) / name).relative_to(root).as_posix())
            if len(out) >= limit:
                return out
    return out


def static_error(script: str) -> str | None:
    """Why the script cannot run at all, or None. Parsing only: nothing is executed on the host."""
    if not script.strip():
        return "the script is missing or empty"
    first = script.splitlines()[0]
    if first.startswith("#!") and "python" in first:
        try:
            compile(script, "repro.sh", "exec")
        except SyntaxError as exc:
            return f"syntax error: {exc.msg} (line {exc.lineno})"
        return None
    if first.startswith("#!") and not re.search(r"\b(ba)?sh\b", first):
        return None  # another interpreter: let the run tell
    proc = subprocess.run(["bash", "-n"], input=script.encode(), capture_output=True, timeout=30, check=False)
    return f"syntax error: {proc.stderr.decode('utf-8', 'replace').strip()[-500:]}" if proc.returncode else None


def _outputs(session: Session, stdout: str, rec: CommandRecord) -> list[tuple[str, str]]:
    found = [("stdout", stdout)]
    for rel in rec.files_created + rec.files_modified:
        if rel.startswith((SCRIPT_DIR + "/", TRACE_DIR)) or not rel.lower().endswith(TEXT_SUFFIXES):
            continue
        path = session.root / rel
        if path.is_file() and path.stat().st_size <= MAX_OUTPUT_FILE:
            found.append((rel, readable_text(path)))
    return found


def execute(script: str, artifact: Path, sandbox: Sandbox, timeout: float = 1800.0, env: dict[str, str] | None = None,
            withheld: str | None = None, trace: bool | None = None) -> RunEvidence:
    """Run `script` in a fresh copy of the artifact (optionally without `withheld`), with provenance.

    trace: use strace (True), snapshots only (False) or strace when the sandbox has it (None)."""
    session = sandbox.start(artifact)
    try:
        if withheld:
            target = session.root / withheld
            if target.is_file() or target.is_symlink():
                target.unlink()
        (session.root / SCRIPT_DIR).mkdir(exist_ok=True)
        path = session.root / SCRIPT_DIR / "repro.sh"
        path.write_text(script if script.endswith("\n") else script + "\n", encoding="utf-8")
        path.chmod(0o755)
        first = script.splitlines()[0] if script.strip() else ""
        own = first.startswith("#!") and not re.search(r"\b(ba)?sh\b", first)
        cmd = f"./{SCRIPT_DIR}/repro.sh" if own else f"bash {SCRIPT_DIR}/repro.sh"
        result, prov = traced_run(session, cmd, timeout=timeout, env=env, use_strace=trace)
        prov.read_first = [p for p in prov.read_first if not p.startswith(SCRIPT_DIR + "/")]
        prov.written = [p for p in prov.written if not p.startswith(SCRIPT_DIR + "/")]
        stdout = result.stdout_full.decode("utf-8", "replace")
        stderr = result.stderr_full.decode("utf-8", "replace")
        result.record.stdout, result.record.stderr = stdout[-20000:], stderr[-4000:]
        return RunEvidence(result.record, _outputs(session, stdout, result.record), prov)
    finally:
        session.close()


def _best(expected: Table, outputs: list[tuple[str, str]]) -> tuple[str | None, Comparison | None]:
    best: tuple[str | None, Comparison | None] = (None, None)
    for name, text in outputs:
        comp = best_match(expected, text) if text.strip() else None
        if comp and (best[1] is None or (comp.matched, -len(name)) > (best[1].matched, -len(best[0] or ""))):
            best = (name, comp)
    return best


def judge_output(script: str, artifact: Path, expected: Table, sandbox: Sandbox, timeout: float = 1800.0,
                 env: dict[str, str] | None = None) -> tuple[OutputVerdict, RunEvidence | None]:
    problem = static_error(script)
    if problem:
        return OutputVerdict(category="static_error", feedback=problem), None
    run = execute(script, artifact, sandbox, timeout, env)
    rec = run.record
    if rec is None:  # execute() always keeps the run's record
        raise RuntimeError("the judged run left no command record")
    source, comp = _best(expected, run.outputs)
    base = {"exit_code": rec.exit_code, "duration_s": rec.duration_s, "matched": comp.matched if comp else 0,
            "total": comp.total if comp else len(expected.numeric_cells()), "source": source,
            "cells": comp.cells if comp else []}
    if rec.timed_out or rec.exit_code != 0 or (TRACEBACK.search(rec.stderr) and not (comp and comp.success)):
        why = "timed out" if rec.timed_out else f"exit {rec.exit_code}"
        feedback = f"the script failed ({why}):\n{rec.stderr[-2000:]}"
        return OutputVerdict(category="runtime_error", feedback=feedback, **base), run
    if comp and comp.success:
        return OutputVerdict(category="success", feedback=f"all {comp.total} cells match ({source})", **base), run
    shown = reveal(expected, comp) if comp else obfuscate(expected)
    note = (f"{comp.matched} of {comp.total} cells match; the reproduced ones are revealed, the others stay ?"
            if comp else "no table with the expected rows and columns was found in stdout or in the files the script "
                         "wrote")
    return OutputVerdict(category="mismatch", feedback=f"{note}\n\n{render_markdown(shown)}", **base), run


class Verdict(BaseModel):
    """Both judges on one submitted script: what verdict.json holds."""

    category: Literal["static_error", "runtime_error", "mismatch", "copied", "undetermined", "success"]
    method: Method | None = None
    matched: int = 0
    total: int = 0
    feedback: str = ""
    output: OutputVerdict
    method_verdict: MethodVerdict | None = None

    def public(self) -> dict:
        """The verdict without expected values in clear (cells stay judge-side)."""
        out = self.output.model_dump(exclude={"cells"})
        return {"category": self.category, "method": self.method, "matched": self.matched, "total": self.total,
                "feedback": self.feedback, "output": out,
                "method_detail": self.method_verdict.model_dump() if self.method_verdict else None}


def judge_submission(script: str, artifact: Path, expected: Table, sandbox: Sandbox, timeout: float = 1800.0,
                     env: dict[str, str] | None = None, model=None) -> tuple[Verdict, RunEvidence | None]:
    """Output judge, then (on success) the method judge with withheld-file reruns. Only full and last-mile pass.

    model: optional chat model; its opinion on the method can only lower trust (method.py)."""
    out, run = judge_output(script, artifact, expected, sandbox, timeout, env)
    verdict = Verdict(category=out.category, matched=out.matched, total=out.total, feedback=out.feedback, output=out)
    if out.category != "success" or run is None:
        return verdict, run

    def rerun(withheld: str) -> list[tuple[str, str]] | None:
        again = execute(script, artifact, sandbox, timeout, env, withheld=withheld)
        return again.outputs if again.record is not None and again.record.exit_code is not None else None

    files = artifact_files(artifact)
    mv = judge_method(script, artifact, expected, run, rerun, files=files, model=model)
    verdict.method, verdict.method_verdict = mv.method, mv
    if mv.method == "copy":
        verdict.category = "copied"
        verdict.feedback = ("rejected: copied results — " + "; ".join(mv.reasons) +
                            ". Find a way to compute the table from the artifact's code and data.")
    elif mv.method == "undetermined":
        verdict.category = "undetermined"
        verdict.feedback = ("not accepted: how the table is obtained could not be established — " +
                            "; ".join(mv.reasons) +
                            ". Make the script run the artifact's programs that compute the table.")
    else:
        verdict.feedback = f"accepted: {mv.method.replace('_', '-')} reproduction — " + "; ".join(mv.reasons)
    return verdict, run
