"""The method judge: full reproduction, last-mile (from checked-in results), copied results, or undetermined.

The verdict starts from what was shown, never from "full". Evidence, strongest first:
1. Hard evidence of copying: the expected table's numbers written (or base64/hex-encoded) in the
   script or the artifact programs it runs; the paper read (any PDF tool or library, the run
   starting pdftotext); a checked-in file holding the table (text, notebook outputs, or binary:
   .pkl .npy .npz .xlsx .db ...) that the run read without regenerating it, or without which a rerun
   no longer yields the table. Hard evidence of copying always wins.
2. The static reader's data flow (reader/): outputs that show stored results as they are are a
   copy unless the run shows it wrote those files itself (Artisan Fig. 10); outputs computed from
   stored intermediate results are last-mile; outputs of the experiment's programs are full.
3. The run's provenance: with strace, the checked-in results it read first decide last-mile vs
   full; a run that failed shows nothing. Without a run and without a readable flow: undetermined.
4. A model's opinion (optional) can only lower trust: its "copy" or "undetermined" turns an
   accepted verdict into undetermined, its "last_mile" turns full into last-mile; it never accepts
   a copy and never raises a verdict.
Only full and last-mile are accepted.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from ..tables import Table, parse_tables
from .copies import Rerun, copy_sources, holds
from .opinion import apply_opinion, llm_opinion, parse_opinion
from .provenance import RunProvenance
from .reader.paths import holds_results
from .reader.trace import FlowTrace
from .signals import Signal
from .static import CODE_SUFFIXES, StaticFindings, analyze_script, contains_table

if TYPE_CHECKING:
    from .judges import RunEvidence

__all__ = ["Method", "MethodVerdict", "Rerun", "Signal", "judge_method", "llm_opinion", "parse_opinion",
           "produced_table"]

Method = Literal["full", "last_mile", "copy", "undetermined"]
Confidence = Literal["high", "medium", "low"]
README = re.compile(r"(^|/)readme[^/]*$", re.IGNORECASE)
PAPER_PROGRAMS = {"pdftotext", "pdf2txt", "pdf2txt.py", "pdftohtml", "mutool", "pdfplumber", "tika", "pdfgrep",
                  "ps2ascii"}
TRUST: dict[Method, int] = {"copy": 0, "undetermined": 1, "last_mile": 2, "full": 3}


class MethodVerdict(BaseModel):
    """Method judge result."""

    method: Method
    accepted: bool = False
    confidence: Confidence = "low"
    reasons: list[str] = Field(default_factory=list)
    signals: list[Signal] = Field(
        default_factory=list, description="Evidence used: static reading, provenance, reruns, model.")
    static: StaticFindings = Field(default_factory=StaticFindings)
    provenance: RunProvenance | None = None
    copy_sources: list[str] = Field(default_factory=list, description="Checked-in files the table was copied from.")
    regenerated: list[str] = Field(
        default_factory=list, description="Checked-in files holding the table that the run itself regenerated.")
    llm_opinion: str | None = Field(None, description="The model's classification (it can only lower trust).")
    llm_reason: str | None = Field(None, description="Why the model says so, in its words.")
    executed: bool = Field(False, description="The verdict used a run of the script.")
    flow: list[FlowTrace] = Field(default_factory=list, description="The flows that decided the verdict: value -> "
                                  "commands -> source, with line numbers (from the script's reading, or the run).")


def produced_table(outputs: list[tuple[str, str]]) -> Table | None:
    """Without an expected table, the run's own largest numeric table is what the method must explain."""
    tables = [t for _, text in outputs for t in parse_tables(text)]
    tables = [t for t in tables if len(t.numeric_cells()) >= 2]
    return max(tables, key=lambda t: len(t.numeric_cells())) if tables else None


def judge_method(script: str, artifact: Path | None, target: Table | None = None, run: RunEvidence | None = None,
                 rerun: Rerun | None = None, files: list[str] | None = None, opinion: str | None = None, model=None,
                 name: str | None = None) -> MethodVerdict:
    """Classify how `script` obtains `target` (the expected table, or the run's own table when None).

    artifact: the artifact folder (None when the script comes alone); files: its relative paths (listed when None).
    run/rerun: the script's run and a rerun without one checked-in file. model: optional chat model for an opinion."""
    if files is None and artifact is not None and artifact.is_dir():
        from .judges import artifact_files

        files = artifact_files(artifact)
    root = artifact if files is not None else None
    if target is None and run is not None:
        target = produced_table(run.outputs)
    static = analyze_script(script, root, target, files, name)
    prov = run.provenance if run else None
    verdict = MethodVerdict(method="undetermined", static=static, provenance=prov, executed=run is not None)
    flow = static.flow
    verdict.signals.append(Signal(source="static", finding=flow.method, detail=f"{flow.confidence} confidence: "
                                  + "; ".join(flow.reasons[:3])))
    hard = _hard_copy(verdict, static, prov)
    if target is not None and root is not None:
        shown = run is not None and any(contains_table(target, text) for _, text in run.outputs)
        if run is not None and not shown:  # a run that did not yield the table proves nothing about where it is from
            verdict.reasons.append("the run did not produce the table")
        copy_sources(verdict, root, target, static, prov if shown else None, rerun if shown else None, files or [])
        if verdict.copy_sources:
            hard.append(f"the table comes from checked-in {', '.join(verdict.copy_sources[:3])}")
    if hard:
        _set(verdict, "copy", "high", hard)
    else:
        _computed(verdict, static, prov, target, root)
    apply_opinion(verdict, script, static, files, prov, opinion, model)
    if prov and prov.cpu_s is not None:
        verdict.reasons.append(f"{prov.cpu_s:.2f}s of CPU time in {len(prov.programs)} programs")
    verdict.accepted = verdict.method in ("full", "last_mile")
    verdict.flow = _deciding(verdict)
    return verdict


def _deciding(verdict: MethodVerdict) -> list[FlowTrace]:
    """The static flows when the reading decided; otherwise the evidence that did, as a flow of its own."""
    flows = [f for f in verdict.static.flow.flows if f.finding == verdict.method]
    if flows:
        return flows
    decisive = [s for s in verdict.signals if s.finding == verdict.method] or verdict.signals[-1:]
    value = "the run's output" if verdict.executed else "the script's output"
    sources = verdict.copy_sources or (verdict.provenance.read_first[:3] if verdict.provenance else [])
    return [FlowTrace(finding=verdict.method, value=value, through=[f"{s.source}: {s.detail}" for s in decisive],
                      source=", ".join(sources) or "not traced",
                      reason=verdict.reasons[0] if verdict.reasons else "nothing shows where the values come from")]


def _set(verdict: MethodVerdict, method: Method, confidence: Confidence, reasons: list[str]) -> None:
    verdict.method, verdict.confidence = method, confidence
    verdict.reasons = list(dict.fromkeys(verdict.reasons + reasons))


def _hard_copy(verdict: MethodVerdict, static: StaticFindings, prov: RunProvenance | None) -> list[str]:
    hard = []
    if static.hardcoded or static.encoded:
        encoded = f" ({', '.join(static.encoded)} encoded)" if static.encoded else ""
        hard.append("the table is written in the script" + encoded)
        verdict.signals.append(Signal(source="target", finding="copy", detail=hard[-1]))
    # a PDF text extractor that ran reads the paper, unless the script shows it reads a stored results document
    ran_paper_tool = bool(prov and PAPER_PROGRAMS & set(prov.programs)) and not static.documents
    if static.reads_paper or ran_paper_tool:
        hard.append("the script reads the paper: " + ", ".join(static.reads_paper or ["a PDF text extractor ran"]))
        verdict.signals.append(Signal(source="provenance" if ran_paper_tool and not static.reads_paper else "static",
                                      finding="copy", detail=hard[-1]))
    if static.flow.literal and static.flow.method == "copy":
        hard.append(next((r for r in static.flow.reasons if "written in the script" in r or "its own output" in r),
                         "a table written in the script"))
    return hard


def _computed(verdict: MethodVerdict, static: StaticFindings, prov: RunProvenance | None, target: Table | None,
              root: Path | None) -> None:
    """No hard evidence of copying: the static flow, then the run's provenance, decide."""
    flow = static.flow
    static_label: Method | None = flow.method if flow.method != "undetermined" else None
    if flow.method == "copy":
        refuted = _refuted(verdict, flow.displayed, prov, target, root)
        if not refuted:
            confirmed = bool(prov and prov.method == "strace" and any(d in prov.read_first for d in flow.displayed))
            _set(verdict, "copy", "high" if confirmed else flow.confidence, flow.reasons)
            return
        verdict.reasons.append(f"{', '.join(refuted[:3])}: shown by the script, "
                               f"but {_why_refuted(verdict, refuted, prov)}")
        static_label = None
    run_label = _run_label(verdict, static, prov)
    if run_label and static_label and not (prov and prov.method == "strace"):
        least = min((run_label, static_label), key=TRUST.__getitem__)
        label: Method | None = least
    else:
        label = run_label or static_label
    if label is None:
        reasons = [r for r in flow.reasons if r] or ["nothing shows the experiment running"]
        _set(verdict, "undetermined", "low", (["nothing ran and the script's data flow does not show the experiment: "
                                               + "; ".join(reasons[:3])] if prov is None else reasons)
             + [_would_decide(root, prov)])
        return
    confidence: Confidence = (("high" if prov and prov.method == "strace" and prov.exit_code == 0 else "medium")
                              if run_label else flow.confidence)
    reasons = flow.reasons if label == static_label else []
    _set(verdict, label, confidence, reasons)


def _would_decide(root: Path | None, prov: RunProvenance | None) -> str:
    """What evidence would settle an undetermined method."""
    if prov is not None and prov.exit_code != 0:
        return "what would decide it: a run that completes, with the trace of the files it reads"
    if root is None:
        return ("what would decide it: the artifact (`--artifact DIR`), whose programs the script runs would then be "
                "read, or a run (`--run`) that traces what they read")
    if prov is None:
        return ("what would decide it: the code of what the script runs is not in the artifact; a run (`--run`) "
                "would trace what it reads and writes")
    return "what would decide it: a traced run (strace) of what the script runs, or its code in the artifact"


def _refuted(verdict: MethodVerdict, displayed: list[str], prov: RunProvenance | None, target: Table | None,
             root: Path | None) -> list[str]:
    """Displayed files the run shows it wrote itself, or that do not hold the table at all."""
    if not displayed:
        return []
    written = {w for w in prov.written if w not in prov.read_first} if prov and prov.exit_code == 0 else set()
    written |= set(verdict.regenerated)
    out = []
    for d in displayed:
        if d in written or (target is not None and root is not None and (root / d).is_file()
                            and not holds(target, root / d)):
            out.append(d)
    return out if len(out) == len(displayed) else []


def _why_refuted(verdict: MethodVerdict, refuted: list[str], prov: RunProvenance | None) -> str:
    if prov and all(d in prov.written or d in verdict.regenerated for d in refuted):
        return "the run wrote them itself before showing them"
    return "they do not hold the table"


def _run_label(verdict: MethodVerdict, static: StaticFindings, prov: RunProvenance | None) -> Method | None:
    if prov is None:
        return None
    if prov.exit_code != 0:
        verdict.reasons.append(f"the run failed (exit {prov.exit_code}): it does not show the method")
        verdict.signals.append(Signal(source="provenance", finding="none", detail="the run failed"))
        return None
    traced = prov.method == "strace"
    inputs = prov.read_first if traced else static.referenced + static.stored_inputs
    produced = set(verdict.regenerated) | set(prov.written)
    raw = [f for f in dict.fromkeys(inputs) if holds_results(f) and not f.lower().endswith(CODE_SUFFIXES)
           and f not in produced and not README.search(f)]
    if raw:
        reason = f"computed from checked-in results: {', '.join(raw[:4])}" + (" …" if len(raw) > 4 else "")
        verdict.signals.append(Signal(source="provenance", finding="last_mile", detail=f"{prov.method}: {reason}"))
        verdict.reasons.append(reason)
        return "last_mile"
    reason = "the run computed the table from the artifact's code and input data"
    if traced:
        reason += f" (it read no checked-in results; programs: {', '.join(prov.programs[:6]) or 'none'})"
    verdict.signals.append(Signal(source="provenance", finding="full", detail=f"{prov.method}: {reason}"))
    verdict.reasons.append(reason)
    return "full"

