"""The method judge: full reproduction, last-mile (from checked-in raw results) or copied results.

Evidence is combined from the script's text (static.py) and, when the script was run, its
provenance: a checked-in file holding the table is a copy source only if the run read it without
regenerating it first (strace), or a rerun without it no longer yields the table. Unlike an
LLM-only judge, a `cat` of a file the run itself generated is not mistaken for a copy (Artisan
Fig. 10). An LLM opinion may be recorded beside the verdict; it never overrides the evidence.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Literal

from pydantic import BaseModel, Field

from .provenance import RunProvenance
from .static import CODE_SUFFIXES, RESULTS_LIKE, TEXT_SUFFIXES, StaticFindings, analyze_script, contains_table, readable_text
from ..tables import Table, parse_tables

if TYPE_CHECKING:
    from .judges import RunEvidence

Method = Literal["full", "last_mile", "copy"]
README = re.compile(r"(^|/)readme[^/]*$", re.I)
OPINION_PROMPT = Path(__file__).parent / "prompts" / "method.md"


class MethodVerdict(BaseModel):
    """Method judge result."""

    method: Method
    reasons: list[str] = Field(default_factory=list)
    static: StaticFindings = Field(default_factory=StaticFindings)
    provenance: RunProvenance | None = None
    copy_sources: list[str] = Field(default_factory=list, description="Checked-in files the table was copied from.")
    regenerated: list[str] = Field(default_factory=list, description="Checked-in files holding the table that the run itself regenerated.")
    llm_opinion: str | None = Field(None, description="Optional LLM classification, recorded beside the evidence-based one.")



def produced_table(outputs: list[tuple[str, str]]) -> Table | None:
    """Without an expected table, the run's own largest numeric table is what the method must explain."""
    tables = [t for _, text in outputs for t in parse_tables(text)]
    tables = [t for t in tables if len(t.numeric_cells()) >= 2]
    return max(tables, key=lambda t: len(t.numeric_cells())) if tables else None


Rerun = Callable[[str], "list[tuple[str, str]] | None"]


def judge_method(script: str, artifact: Path, target: Table | None, run: RunEvidence | None = None,
                 rerun: Rerun | None = None, files: list[str] | None = None, opinion: str | None = None) -> MethodVerdict:
    """Classify how `script` obtains `target` (the expected table, or the run's own table when None)."""
    files = files if files is not None else _files(artifact)
    if target is None and run is not None:
        target = produced_table(run.outputs)
    static = analyze_script(script, artifact, target, files)
    prov = run.provenance if run else None
    verdict = MethodVerdict(method="full", static=static, provenance=prov, llm_opinion=opinion)
    if static.hardcoded or static.encoded:
        verdict.method = "copy"
        verdict.reasons.append("the table is written in the script" + (f" ({', '.join(static.encoded)} encoded)" if static.encoded else ""))
    ran_paper_tool = bool(prov and {"pdftotext", "pdf2txt", "pdf2txt.py"} & set(prov.programs))
    if static.reads_paper or ran_paper_tool:
        verdict.method = "copy"
        verdict.reasons.append("the script reads the paper: " + ", ".join(static.reads_paper or ["pdftotext ran"]))
    if target is not None:
        _copy_sources(verdict, artifact, target, static, prov, rerun, files)
    elif not prov and static.displayed:
        verdict.method = "copy"
        verdict.reasons.append(f"the script only displays checked-in files: {', '.join(static.displayed[:3])}")
    if verdict.method != "copy":
        inputs = prov.read_first if prov and prov.method == "strace" else static.referenced
        produced = set(verdict.regenerated) | set(prov.written if prov else static.written)
        raw = [f for f in inputs if RESULTS_LIKE.search(f) and not f.lower().endswith(CODE_SUFFIXES) and f not in produced]
        if raw:
            verdict.method = "last_mile"
            verdict.reasons.append(f"computed from checked-in results: {', '.join(raw[:4])}" + (" …" if len(raw) > 4 else ""))
        else:
            verdict.reasons.append("the table is computed by the run from the artifact's code and input data")
    if prov and prov.cpu_s is not None:
        verdict.reasons.append(f"{prov.cpu_s:.2f}s of CPU time in {len(prov.programs)} programs")
    return verdict


def _copy_sources(verdict: MethodVerdict, artifact: Path, target: Table, static: StaticFindings, prov: RunProvenance | None,
                  rerun: Rerun | None, files: list[str]) -> None:
    """Checked-in files holding the table that the run (or the script) took it from."""
    traced = bool(prov and prov.method == "strace" and prov.exit_code == 0)  # a failed run's trace is incomplete
    if traced:
        candidates = [f for f in files if f in prov.read_first or f in prov.written]
    elif prov is not None:  # ran without a trace: what the script names first, then every other file but READMEs
        candidates = static.referenced + [f for f in files if f not in static.referenced and not README.search(f)]
    else:
        candidates = static.referenced
    for rel in candidates[:400]:
        if rel.lower().endswith(CODE_SUFFIXES) or not rel.lower().endswith(TEXT_SUFFIXES):
            continue
        if rel.lower().endswith(".ipynb") and static.executes_notebook:
            continue
        if not contains_table(target, readable_text(artifact / rel, 300_000)):
            continue
        if traced and rel not in prov.read_first:
            verdict.regenerated.append(rel)  # written by this run before anything read it (Artisan Fig. 10)
            continue
        verified = False
        if rerun is not None and len(verdict.copy_sources) + len(verdict.regenerated) < 3:
            outputs = rerun(rel)  # None: the rerun could not be made (budget, infrastructure)
            if outputs is not None and any(contains_table(target, text) for _, text in outputs):
                verdict.regenerated.append(rel)
                verdict.reasons.append(f"a rerun without {rel} still produces the table")
                continue
            if outputs is not None:
                verified = True
                verdict.reasons.append(f"a rerun without {rel} no longer produces the table")
        if not (verified or rel in static.displayed or (traced and rel in prov.read_first)):
            continue  # no evidence that the run took the table from this file
        verdict.copy_sources.append(rel)
    if verdict.copy_sources:
        verdict.method = "copy"
        verdict.reasons.append(f"the table comes from checked-in {', '.join(verdict.copy_sources[:3])}")


def _files(root: Path) -> list[str]:
    from .judges import artifact_files

    return artifact_files(root)


def llm_opinion(model, script: str, static: StaticFindings) -> str | None:
    """Ask a chat model for its classification (recorded beside the evidence-based verdict)."""
    try:
        prompt = OPINION_PROMPT.read_text(encoding="utf-8").format(script=script[-20000:], findings=static.model_dump_json())
        answer = str(model.invoke(prompt).content).strip().lower()
    except Exception:  # noqa: BLE001 - an opinion is optional
        return None
    return next((m for m in ("copy", "last_mile", "last-mile", "full") if m in answer), answer[:80]).replace("-", "_")
