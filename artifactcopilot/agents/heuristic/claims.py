"""D4: map the runs' outputs to the paper's tables and claims and to what the documentation says they produce;
detect copied results by provenance.

Only output this review produced counts. A paper table carries a claim when it reports results (a data-set
description table matched while the results table mismatches is not the main result). When a file that already
existed in the artifact also holds the matching table, the workflow is rerun in a fresh copy without that file:
if the table no longer comes out, the "result" was copied, not computed. Beyond tables, the run's documented
output, documented figures and the paper's stated numbers each count as evidence of their own.
"""
from __future__ import annotations

from typing import Any

from ...claims.roles import main_results_table
from ...models import EvidenceLevel, Flag, PhasePacket
from ...repro.judges import MethodVerdict, RunEvidence, judge_method
from ...repro.provenance import RunProvenance
from ...repro.reader.trace import one_line
from ...rules import supported_score
from ...sandbox.commandlog import parse_log
from ...tables import Comparison, Table
from ...tools import PhaseTools
from ..base import PhaseContext, cited, item
from .claimsmap import Mapping, map_runs
from .claimsources import Checks, beyond_tables, run_sources
from .common import Deadline
from .dataset import dataset_notes
from .regenerated import with_regenerated


def stdout_of(log: str) -> str:
    """The stdout part of a persisted command log."""
    return parse_log(log).stdout


def method_verdict(tools: PhaseTools, run: dict, table: Table, sources: list[tuple[str, str]], provenance: list[dict],
                   prov_evs: list[str], deadline: Deadline) -> MethodVerdict:
    """The method judge on the run that reproduced a table, reruns bounded by the phase's time budget."""
    script = run["script"] if run.get("cwd", ".") in ("", ".") else f"cd {run['cwd']} && {run['script']}"

    def rerun(withheld: str) -> list[tuple[str, str]] | None:
        if deadline.left() < 10:
            return None  # over budget: not verified, which is never taken as evidence of copying
        rec, out, pev = tools.verify_provenance(script, withheld, env=run.get("env"))
        prov_evs.append(pev.id)
        again = tools.compare_table(table, out) if out else None
        provenance.append({"table": table.label or "table", "withheld": withheld, "evidence": pev.id,
                           "still_reproduced": rec.exit_code == 0 and again is not None and again.success})
        return None if rec.timed_out else [("stdout", out)]

    produced = (run.get("files_created") or []) + (run.get("files_modified") or [])
    prov = RunProvenance(method="snapshot", exit_code=0, wall_s=run.get("duration_s") or 0.0, written=produced)
    return judge_method(script, tools.root, table, RunEvidence(None, sources, prov), rerun, files=tools.list_files())


def inconsistency_flags(inconsistencies: list[dict]) -> list[Flag]:
    """One flag per table whose output differs from the paper in some cells (paper value, artifact value, kind)."""
    by_table: dict[str, list[dict]] = {}
    for inc in inconsistencies:
        by_table.setdefault(inc["table"], []).append(inc)
    return [Flag(severity="low", code="paper-artifact-inconsistency", phase="D4",
                 message=f"{label}: {len(cells)} cells differ — " + "; ".join(
                     f"{c['row']} / {c['column']}: paper {c['paper']}, artifact {c['artifact']} ({c['kind']})"
                     for c in cells[:8])
                 + (" …" if len(cells) > 8 else ""))
            for label, cells in by_table.items()]


def _best_tables(tools: PhaseTools, runs: list[dict]) -> dict[str, tuple[dict, str, Comparison, list]]:
    """For each paper table, the run and output source that reproduce most of its cells."""
    best: dict[str, tuple[dict, str, Comparison, list]] = {}
    for run in runs:
        sources = run_sources(tools, run)
        for table in tools.paper_tables():
            label = table.label or "table"
            for name, text in sources:
                comp = tools.compare_table(table, text)
                if comp and comp.total and (label not in best or comp.matched > best[label][2].matched):
                    best[label] = (run, name, comp, sources)
    return best


def _tables(tools: PhaseTools, runs: list[dict], deadline: Deadline, record: dict) -> dict:
    out: dict[str, Any] = {"reproduced": [], "descriptive": [], "copied": [], "inconsistencies": [], "methods": {},
                           "prov_evs": []}
    tables = {t.label or "table": t for t in tools.paper_tables()}
    main = main_results_table(list(tables.values()), tools.ctx.paper.text)
    out["main"] = main.to_dict() if main else None
    for label, (run, source, comp, sources) in _best_tables(tools, runs).items():
        table = tables[label]
        role = tools.table_role(table)
        entry = {"table": label, "role": role.role, "role_reason": role.reason, "source": source, "cmd": run["cmd"],
                 "main": bool(main and main.label == label),
                 "matched": comp.matched, "total": comp.total, "cells": [c.model_dump() for c in comp.cells]}
        if comp.success:
            verdict = method_verdict(tools, run, table, sources, record["provenance"], out["prov_evs"], deadline)
            entry["method"], entry["method_reasons"] = verdict.method, verdict.reasons
            entry["method_flow"] = one_line(verdict.flow[0]) if verdict.flow else ""
            out["methods"][label] = verdict.method.replace("_", "-")
            if verdict.method == "copy":
                entry["copied_from"] = ", ".join(verdict.copy_sources) or "the workflow script itself"
                out["copied"].append(label)
            elif verdict.accepted:
                out["descriptive" if role.role == "descriptive" else "reproduced"].append(label)
        elif comp.matched:
            out["inconsistencies"] += [{"table": label, "row": c.row, "column": c.column, "paper": c.expected,
                                        "artifact": c.produced, "kind": "rounding" if c.kind == "rounding" else "other"}
                                       for c in comp.cells if not c.matched and c.produced is not None]
        record["tables"].append(entry)
    usable = [e for e in record["tables"] if e["table"] not in out["copied"] and e.get("role") != "descriptive"]
    out["matched_cells"] = max((e["matched"] for e in usable), default=0)
    out["ratio"] = max((e["matched"] / e["total"] for e in usable if e["total"]), default=0.0)
    return out


def run_claims(ctx: PhaseContext, tools: PhaseTools) -> PhasePacket:
    d1, d3 = ctx.packets["D1"], ctx.packets["D3"]
    runs = [r for r in d3.facts.get("runs", []) if r.get("evidence")]
    if not runs:
        return _no_execution(ctx, tools, d3)
    deadline = Deadline.for_phase("D4", tools.options.budget_s)
    record: dict = {"tables": [], "provenance": []}
    tables = _tables(tools, runs, deadline, record)
    all_text = "\n".join(text for run in runs for _, text in run_sources(tools, run))
    checks = with_regenerated(tools, runs, beyond_tables(tools, d1.facts, runs, all_text))
    mapping = map_runs(tools, runs)
    for data in [r["dataset"] for r in runs if r.get("dataset")]:  # a data set's recomputed statements
        held, off = dataset_notes(data)
        mapping.named += [{"command": "the review's analysis of the data set", "objects": ["the paper's statements"],
                           "evidence": r.get("dataset_evidence"), "line": f"recomputed from the rows: {held}"}
                          for r in runs if r.get("dataset") is data and held and not data["contradicts"]]
        if data["contradicts"]:
            mapping.data_contradiction = (f"{data['not_held']} of the paper's statements do not hold in the data "
                                          f"({off}); {data['held']} hold")
    record.update({"mapping": mapping.record(), "examples_run": checks.examples,
                   "inconsistencies": tables["inconsistencies"], "descriptive_tables_matched": tables["descriptive"],
                   "main_results_table": tables["main"],
                   "documented_output": checks.documented_output, "figures": checks.figures,
                   "paper_numbers": {"stated": checks.numbers_stated,
                                     "found": [m["claim"]["text"] for m in checks.numbers_found]},
                   "described_outputs": checks.described, "tool_paper": checks.tool, "test_runs": checks.tests,
                   "tool_capability": checks.capability})
    reproduced, copied = tables["reproduced"], tables["copied"]
    level = EvidenceLevel.E3 if reproduced else EvidenceLevel.E2
    ev = tools.record_evidence("comparison", "claim-mapping", record,
                               f"tables reproduced: {', '.join(reproduced) or 'none'}; "
                               f"copied: {', '.join(copied) or 'none'}; "
                               f"{len(checks.documented_output)} documented outputs, {len(checks.figures)} figures, "
                               f"{len(checks.numbers_found)}/{checks.numbers_stated} stated numbers; "
                               f"{len(mapping.mapped)} mappings to paper objects, "
                               f"{len(mapping.contradictions)} contradictions", level)
    return _judged(ctx, tools, runs, tables, checks, mapping, ev.id, level)


def _judged(ctx, tools: PhaseTools, runs: list[dict], tables: dict, checks: Checks, found: Mapping, ev_id: str,
            level) -> PhasePacket:
    reproduced, copied, methods = tables["reproduced"], tables["copied"], tables["methods"]
    by_value = tables["ratio"] >= 0.5 or tables["matched_cells"] >= 3
    mapping = by_value or bool(found.mapped)
    contradicted = bool(found.contradictions) and not reproduced or bool(found.data_contradiction)
    numbers = len(checks.numbers_found)
    run_ids = [r["evidence"] for r in runs]
    cites = [ev_id, *run_ids[:5], *tables["prov_evs"]]
    beyond = [ev_id, *checks.evidence]
    weak = (tables["matched_cells"] >= 1 or numbers >= 1 or checks.partial or bool(checks.peripheral)
            or bool(checks.documented_output or checks.figures or checks.capability)
            or bool(found.structure or found.named or found.data_contradiction))
    checklist = [
        item("D4.executed", True, run_ids[:5],
             f"output of {len(runs)} runs: " + ", ".join(f"`{r['cmd']}`" for r in runs[:3])),
        item("D4.weak_mapping", weak, beyond, f"{tables['matched_cells']} table cells, {numbers} stated numbers, "
             f"{len(checks.documented_output)} documented outputs"
             + (f"; peripheral: {'; '.join(checks.peripheral[:2])}" if checks.peripheral else "")),
        item("D4.mapping", mapping, [ev_id], _mapping_note(tables, found)),
        item("D4.contradicted", contradicted, [ev_id], _contradiction_note(found, reproduced)),
        item("D4.documented_output", bool(checks.documented_output), beyond,
             "; ".join(checks.documented_output[:4]) or _no_documented_output(checks)),
        item("D4.figures", bool(checks.figures), beyond + [e for p in checks.plots for e in p["evidence"]],
             "; ".join(checks.figures[:4]) or "no documented figure regenerated"),
        item("D4.paper_numbers", numbers >= 1, beyond,
             f"{numbers} of {checks.numbers_stated} numbers the paper states found"),
        item("D4.tool_capability", bool(checks.capability) if checks.tool.get("tool") else None,
             beyond + [t["evidence"] for t in checks.tests], _capability_note(checks)),
        _main_item(tables, reproduced, copied, cites),
        item("D4.traceable", mapping or bool(checks.documented_output or checks.figures or checks.capability), cites,
             "command -> output -> paper or documentation object recorded"),
    ]
    facts = {"table_reproduced": bool(reproduced), "copied_results": bool(copied) and not reproduced,
             "reproduced_tables": reproduced, "copied_tables": copied, "reproduction_evidence": cites,
             "inconsistencies": tables["inconsistencies"], "reproduction_methods": methods,
             "descriptive_tables": tables["descriptive"]}
    summary = (f"Reproduced {', '.join(f'{t} ({methods[t]})' for t in reproduced)}." if reproduced else
               "Output matching the paper was copied from checked-in files." if copied else
               f"Best table match {tables['ratio']:.0%}.")
    summary += (f" Documentation checks: {len(checks.documented_output)} documented outputs reproduced, "
                f"{len(checks.figures)} documented figures regenerated; "
                f"{numbers} of {checks.numbers_stated} stated numbers found.")
    if tables["descriptive"]:
        summary += f" Matched only descriptive tables: {', '.join(tables['descriptive'])} (not the main result)."
    if tables["inconsistencies"]:
        summary += (f" {len(tables['inconsistencies'])} table cells differ from the paper "
                    "(see the paper-artifact-inconsistency flags).")
    if found.mapped and not reproduced:
        summary += f" Maps to the paper: {found.mapped[0]}" + (f" (and {len(found.mapped) - 1} more)."
                                                               if len(found.mapped) > 1 else ".")
    if contradicted:
        summary += " Contradicts the paper: " + "; ".join([m.describe(3) for m in found.contradictions[:2]]
                                                          + ([found.data_contradiction] if found.data_contradiction
                                                             else [])) + "."
    flags = inconsistency_flags(tables["inconsistencies"]) + structure_flags(found, tables)
    return _packet(ctx, tools, checklist, level, facts, ev_id, summary, flags)


def _mapping_note(tables: dict, found: Mapping) -> str:
    """Which paper objects the output maps to, how: equal numbers, labels and values compared, or by name."""
    parts = [f"best table match {tables['ratio']:.0%} of cells equal at printed precision"] if tables["ratio"] else []
    parts += found.mapped[:3]
    if not parts:
        why = [f"{m.table}: values contradict the paper" for m in found.contradictions]
        why += [f"only a descriptive table: {d}" for d in found.descriptive[:1]]
        why += [m.short() for m in found.unlike[:2]]
        return "; ".join(why) or ("no output table shares labels with a paper table, and no command tied to a paper "
                                  "table or research question gave output")
    return "; ".join(parts)


def _contradiction_note(found: Mapping, reproduced: list[str]) -> str:
    if found.data_contradiction:
        return found.data_contradiction
    if found.contradictions and reproduced:
        return (f"{', '.join(m.table for m in found.contradictions)} far off, but {', '.join(reproduced)} reproduced: "
                "not taken as a contradiction of the paper's results")
    if found.contradictions:
        return "; ".join(m.short() for m in found.contradictions[:2])
    closes = [m for m in found.structure if m.verdict in ("close", "equal", "differs")]
    unlike = (f"; not compared, another quantity: {', '.join(f'{m.table} ({m.comparable})' for m in found.unlike[:2])}"
              if found.unlike else "")
    return ("no mapped results table contradicts the paper (" + ", ".join(f"{m.table}: {m.verdict}" for m in closes)
            + ")" if closes else "no output maps to a paper results table, so nothing could contradict it") + unlike


def structure_flags(found: Mapping, tables: dict) -> list[Flag]:
    """One flag per mapped table whose values differ from the paper's, naming the cells (the value comparisons of
    `inconsistency_flags` already name theirs)."""
    named = {i["table"] for i in tables["inconsistencies"]}
    return [Flag(severity="medium" if m.verdict == "contradicts" else "low", code="paper-artifact-inconsistency",
                 phase="D4", message=m.describe(8)) for m in found.structure
            if m.table not in named and m.verdict != "equal" and found.roles.get(m.table) != "descriptive"]


def _main_item(tables: dict, reproduced: list[str], copied: list[str], cites: list[str]):
    """D4.main_result: a results table reproduced — the one the paper calls its main results, when it names one."""
    main = tables.get("main")
    if main and reproduced:
        done = main["label"] in reproduced
        return item("D4.main_result", done, cites, f"the paper's main results table is {main['label']} "
                    f"({main['reason']}); " + (f"reproduced {', '.join(reproduced)}" if done else
                                               f"reproduced only {', '.join(reproduced)}, not {main['label']}"))
    where = f" (the paper's main results table is {main['label']}: {main['reason']})" if main else ""
    return item("D4.main_result", bool(reproduced), cites, f"reproduced {', '.join(reproduced)}" if reproduced else
                (f"matching output copied from {', '.join(copied)}" if copied
                 else "no paper results table fully reproduced") + where)


def _no_documented_output(checks: Checks) -> str:
    """Why no documented output counts: the described outputs that were checked and how they fell short."""
    failed = [d["line"] for d in checks.described if d["verdict"] != "match"]
    return ("; ".join(failed[:2]) if failed else
            "the runs did not produce what the documentation says they should (or it says nothing comparable)")


def _capability_note(checks: Checks) -> str:
    """Why the tool's working counts (or does not) for the paper's claims."""
    reason = checks.tool.get("reason", "whether the paper presents a tool was not read")
    if checks.capability:
        return f"{'; '.join(checks.capability[:3])} — {reason}"
    if not checks.tool.get("tool"):
        return f"not a tool paper: {reason}"
    tests = "; ".join(f"`{t['command']}`: {t['verdict']} ({t['reason']})" for t in checks.tests[:2])
    return (f"{reason}; but no documented example gave its documented output"
            + (f" and no test suite passed ({tests})" if tests else " and no test suite was run"))


def _no_execution(ctx: PhaseContext, tools: PhaseTools, d3: PhasePacket) -> PhasePacket:
    """No E2 output. If D3 found a run that only displayed a checked-in file, say whether that file is a paper table."""
    displayed = d3.facts.get("displayed")
    copied = []
    if displayed:
        shown = stdout_of(tools.store.read(displayed["evidence"]))
        copied = [t.label or "table" for t in tools.paper_tables()
                  if (c := tools.compare_table(t, shown)) and c.success]
    record = {"reason": "no reviewer-executed output at E2 (D3)", "displayed": displayed,
              "paper_tables_in_displayed_output": copied}
    ev = tools.record_evidence("comparison", "claim-mapping", record,
                               f"precomputed {', '.join(copied)} displayed from {displayed['file']}"
                               if copied and displayed else "nothing to compare: the workflow produced no valid output",
                               EvidenceLevel.E1 if displayed else EvidenceLevel.E0)
    cites = [ev.id, displayed["evidence"]] if displayed else [ev.id]
    names = ("executed", "weak_mapping", "mapping", "contradicted", "documented_output", "figures", "paper_numbers",
             "tool_capability", "main_result", "traceable")
    checklist = [item(f"D4.{n}", False, cites + d3.evidence[:1], "no E2 output from D3") for n in names]
    facts = {"table_reproduced": False, "copied_results": bool(copied), "copied_tables": copied,
             "reproduction_evidence": cites}
    summary = (f"The output matching {', '.join(copied)} is the checked-in {displayed['file']}, not computed by "
               "the run." if copied and displayed else "No executed output to map to the paper.")
    return _packet(ctx, tools, checklist, EvidenceLevel.E1 if displayed else EvidenceLevel.E0, facts, ev.id, summary)


def _packet(ctx, tools, checklist, level, facts, ev_id, summary, flags: list[Flag] | None = None) -> PhasePacket:
    score, _ = supported_score("D4", checklist, level, tools.store.interventions(), ctx.rubric)
    return PhasePacket(phase="D4", score=score, checklist=checklist, evidence=cited(checklist, ev_id),
                       evidence_level=level, facts=facts, summary=summary, flags=flags or [])
