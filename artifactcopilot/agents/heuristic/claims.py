"""D4: map the run's outputs to the paper's tables and claims; detect copied results by provenance.

Only output this review produced counts. When a file that already existed in the artifact also
holds the matching table, the workflow is rerun in a fresh copy without that file: if the table
no longer comes out, the "result" was copied, not computed.
"""
from __future__ import annotations

import re
import time

from ...models import EvidenceLevel, Flag, PhasePacket
from ...repro.judges import MethodVerdict, RunEvidence, judge_method
from ...repro.provenance import RunProvenance
from ...tables import Comparison, Table, parse_number
from ...rules import supported_score
from ...sandbox.commandlog import parse_log
from ..base import PhaseContext, cited, item
from ...tools import PhaseTools

TEXT_OUTPUT = (".txt", ".csv", ".tsv", ".md", ".json", ".log", ".tex", ".out", ".dat", ".yaml", ".yml", ".html")
D4_BUDGET_S = 600.0  # provenance reruns of D4 stop here; an unverified file is not evidence of copying
NUMBER = re.compile(r"[-−]?\d[\d,]*\.?\d*(?:[eE][-+]?\d+)?%?")


def stdout_of(log: str) -> str:
    """The stdout part of a persisted command log."""
    return parse_log(log).stdout


def output_sources(tools: PhaseTools, run: dict) -> list[tuple[str, str]]:
    sources = [(f"stdout of `{run['cmd']}`", stdout_of(tools.store.read(run["evidence"])))]
    for rel in (run.get("files_created") or []) + (run.get("files_modified") or []):
        if rel.lower().endswith(TEXT_OUTPUT):
            text = tools.read_output(rel, 1_000_000)
            if text:
                sources.append((rel, text))
    return sources


def paper_numbers(tools: PhaseTools) -> list[str]:
    """Printed numbers of the paper's tables and claims that carry information (not 1, 2, 2024)."""
    out = []
    for table in tools.paper_tables():
        for r, c in table.numeric_cells():
            out.append(table.rows[r][c])
    for claim in tools.paper.claims:
        out += [n for n in NUMBER.findall(claim) if "." in n or "%" in n]
    return [n for n in dict.fromkeys(out) if (p := parse_number(n)) and (p.decimals > 0 or abs(p.value) >= 10)]


def _numbers_found(expected: list[str], text: str) -> list[str]:
    produced = {n for n in NUMBER.findall(text)}
    found = []
    for e in expected:
        pe = parse_number(e)
        for p in produced:
            pp = parse_number(p)
            if pe and pp and pp.decimals >= pe.decimals and round(pp.value, pe.decimals) == round(pe.value, pe.decimals):
                found.append(e)
                break
    return found


def method_verdict(tools: PhaseTools, run: dict, table: Table, sources: list[tuple[str, str]], provenance: list[dict],
                   prov_evs: list[str], deadline: float) -> MethodVerdict:
    """The method judge on D3's workflow for a table its output reproduced, reruns bounded by the D4 budget."""
    def rerun(withheld: str) -> list[tuple[str, str]] | None:
        if time.monotonic() > deadline:
            return None  # over budget: not verified, which is never taken as evidence of copying
        rec, out, pev = tools.verify_provenance(run["script"], withheld, env=run.get("env"))
        prov_evs.append(pev.id)
        again = tools.compare_table(table, out) if out else None
        provenance.append({"table": table.label or "table", "withheld": withheld, "evidence": pev.id,
                           "still_reproduced": rec.exit_code == 0 and again is not None and again.success})
        return None if rec.timed_out else [("stdout", out)]

    produced = (run.get("files_created") or []) + (run.get("files_modified") or [])
    prov = RunProvenance(method="snapshot", exit_code=0, wall_s=run.get("duration_s") or 0.0, written=produced)
    return judge_method(run["script"], tools.root, table, RunEvidence(None, sources, prov), rerun, files=tools.list_files())


def inconsistency_flags(inconsistencies: list[dict]) -> list[Flag]:
    """One flag per table whose output differs from the paper in some cells (paper value, artifact value, kind)."""
    by_table: dict[str, list[dict]] = {}
    for inc in inconsistencies:
        by_table.setdefault(inc["table"], []).append(inc)
    return [Flag(severity="low", code="paper-artifact-inconsistency", phase="D4",
                 message=f"{label}: {len(cells)} cells differ — " + "; ".join(
                     f"{c['row']} / {c['column']}: paper {c['paper']}, artifact {c['artifact']} ({c['kind']})" for c in cells[:8])
                 + (" …" if len(cells) > 8 else ""))
            for label, cells in by_table.items()]


def run_claims(ctx: PhaseContext, tools: PhaseTools) -> PhasePacket:
    d3 = ctx.packets["D3"]
    run = d3.facts.get("run")
    record: dict = {"tables": [], "numbers": {}, "provenance": []}
    if not run:
        return _no_execution(ctx, tools, d3)

    sources = output_sources(tools, run)
    best: dict[str, tuple[str, Comparison]] = {}
    for table in tools.paper_tables():
        for name, text in sources:
            comp = tools.compare_table(table, text)
            if comp and comp.total and (table.label not in best or comp.matched > best[table.label][1].matched):
                best[table.label or "table"] = (name, comp)
    reproduced, copied, inconsistencies, prov_evs = [], [], [], []
    methods: dict[str, str] = {}
    deadline = time.monotonic() + D4_BUDGET_S
    for label, (source, comp) in best.items():
        table = next(t for t in tools.paper_tables() if (t.label or "table") == label)
        entry = {"table": label, "source": source, "matched": comp.matched, "total": comp.total,
                 "cells": [c.model_dump() for c in comp.cells]}
        if comp.success:
            verdict = method_verdict(tools, run, table, sources, record["provenance"], prov_evs, deadline)
            entry["method"], entry["method_reasons"] = verdict.method, verdict.reasons
            methods[label] = verdict.method.replace("_", "-")
            if verdict.method == "copy":
                entry["copied_from"] = ", ".join(verdict.copy_sources) or "the workflow script itself"
            (copied if verdict.method == "copy" else reproduced).append(label)
        elif comp.matched:
            inconsistencies += [{"table": label, "row": c.row, "column": c.column, "paper": c.expected, "artifact": c.produced,
                                 "kind": "rounding" if c.kind == "rounding" else "other"}
                                for c in comp.cells if not c.matched and c.produced is not None]
        record["tables"].append(entry)
    usable = {k: v for k, v in best.items() if k not in copied}
    all_text = "\n".join(t for n, t in sources)
    expected_numbers = paper_numbers(tools)
    found = [] if copied and not usable else _numbers_found(expected_numbers, all_text)
    record["numbers"] = {"paper": len(expected_numbers), "found_in_output": found}
    record["inconsistencies"] = inconsistencies
    level = EvidenceLevel.E3 if reproduced else EvidenceLevel.E2
    ev = tools.record_evidence("comparison", "claim-mapping", record,
                               f"tables reproduced: {', '.join(reproduced) or 'none'}; copied: {', '.join(copied) or 'none'}; "
                               f"{len(found)}/{len(expected_numbers)} paper numbers found in output", level)
    matched_cells = max((c.matched for _, c in usable.values()), default=0)
    ratio = max((c.ratio for _, c in usable.values()), default=0.0)
    mapping = ratio >= 0.5 or matched_cells >= 3
    cites = [ev.id, run["evidence"], *prov_evs]
    checklist = [
        item("D4.executed", True, [run["evidence"]], f"output of `{run['cmd']}`"),
        item("D4.weak_mapping", matched_cells >= 1 or len(found) >= 2, [ev.id], f"{matched_cells} table cells, {len(found)} paper numbers in output"),
        item("D4.mapping", mapping, [ev.id], f"best table match {ratio:.0%}" if usable else "no paper table in output"),
        item("D4.main_result", bool(reproduced), cites, f"reproduced {', '.join(reproduced)}" if reproduced else
             (f"matching output copied from {', '.join(copied)}" if copied else "no paper table fully reproduced")),
        item("D4.traceable", mapping, cites, f"{run['cmd']} -> {', '.join(sorted({s for s, _ in usable.values()}))}" if mapping else ""),
    ]
    facts = {"table_reproduced": bool(reproduced), "copied_results": bool(copied) and not reproduced,
             "reproduced_tables": reproduced, "copied_tables": copied, "reproduction_evidence": cites,
             "inconsistencies": inconsistencies, "reproduction_methods": methods}
    summary = (f"Reproduced {', '.join(f'{t} ({methods[t]})' for t in reproduced)}." if reproduced else
               "Output matching the paper was copied from checked-in files." if copied else
               f"Best table match {ratio:.0%}; {len(found)} paper numbers found in the output.")
    if inconsistencies:
        summary += f" {len(inconsistencies)} table cells differ from the paper (see the paper-artifact-inconsistency flags)."
    return _packet(ctx, tools, checklist, level if mapping else EvidenceLevel.E2, facts, ev.id, summary,
                   inconsistency_flags(inconsistencies))


def _no_execution(ctx: PhaseContext, tools: PhaseTools, d3: PhasePacket) -> PhasePacket:
    """No E2 output. If D3 found a run that only displayed a checked-in file, say whether that file is a paper table."""
    displayed = d3.facts.get("displayed")
    copied = []
    if displayed:
        shown = stdout_of(tools.store.read(displayed["evidence"]))
        copied = [t.label or "table" for t in tools.paper_tables() if (c := tools.compare_table(t, shown)) and c.success]
    record = {"reason": "no reviewer-executed output at E2 (D3)", "displayed": displayed, "paper_tables_in_displayed_output": copied}
    ev = tools.record_evidence("comparison", "claim-mapping", record,
                               f"precomputed {', '.join(copied)} displayed from {displayed['file']}" if copied else
                               "nothing to compare: the workflow produced no valid output", EvidenceLevel.E1 if displayed else EvidenceLevel.E0)
    cites = [ev.id, displayed["evidence"]] if displayed else [ev.id]
    checklist = [item(f"D4.{n}", False, cites + d3.evidence[:1], "no E2 output from D3") for n in ("executed", "weak_mapping", "mapping", "main_result", "traceable")]
    facts = {"table_reproduced": False, "copied_results": bool(copied), "copied_tables": copied, "reproduction_evidence": cites}
    summary = (f"The output matching {', '.join(copied)} is the checked-in {displayed['file']}, not computed by the run." if copied
               else "No executed output to map to the paper.")
    return _packet(ctx, tools, checklist, EvidenceLevel.E1 if displayed else EvidenceLevel.E0, facts, ev.id, summary)


def _packet(ctx, tools, checklist, level, facts, ev_id, summary, flags: list[Flag] | None = None) -> PhasePacket:
    score, _ = supported_score("D4", checklist, level, tools.store.interventions(), ctx.rubric)
    return PhasePacket(phase="D4", score=score, checklist=checklist, evidence=cited(checklist, ev_id),
                       evidence_level=level, facts=facts, summary=summary, flags=flags or [])
