"""The method judge behind the LLM agent's table comparisons.

Whatever the model says, a comparison that reproduces a paper table from a run's output is judged as the
heuristic reviewer judges it: the method judge reads the command the run executed (static reading of the
scripts it calls), looks at what the run wrote, and reruns it with a checked-in results file withheld when
that file could have been shown instead of computed. `table_reproduced` then needs an accepted method and a
copy is recorded as one; the model never decides either.
"""
from __future__ import annotations

from typing import Any

from ...repro.reader.trace import one_line
from ...sandbox.commandlog import parse_log
from ...tables import Table
from ...tools import PhaseTools
from ..heuristic.claims import method_verdict
from ..heuristic.claimsources import run_sources
from ..heuristic.common import Deadline

RUN_KINDS = ("command", "transfer")


def producing_run(tools: PhaseTools, source: str) -> dict | None:
    """The run behind a comparison source: the command evidence itself, or the run that wrote that file."""
    store = tools.store
    record = store.get(source)
    candidates = [record] if record is not None else [r for r in store.all() if r.kind in RUN_KINDS]
    for rec in candidates:
        if rec is None or rec.kind not in RUN_KINDS:
            continue
        log = parse_log(store.read(rec.id))
        if rec.id != source and source not in log.created + log.modified:
            continue
        if log.exit_code != 0 or not log.script:
            return None
        return {"evidence": rec.id, "cmd": log.script, "script": log.script, "cwd": log.cwd or ".",
                "duration_s": log.duration_s, "files_created": log.created, "files_modified": log.modified}
    return None


def judge_comparison(tools: PhaseTools, table: Table, source: str) -> dict[str, Any]:
    """Method-judge fields for a comparison record that reproduced `table` from `source`'s text.

    `method_accepted` is what grounding reads; without a run to judge, nothing is accepted."""
    run = producing_run(tools, source)
    if run is None:
        return {"method": "undetermined", "method_accepted": False,
                "method_reasons": ["no successful run of the artifact produced this output"]}
    provenance: list[dict] = []
    evidence: list[str] = []
    deadline = Deadline.for_phase("D4", tools.options.budget_s)
    verdict = method_verdict(tools, run, table, run_sources(tools, run), provenance, evidence, deadline)
    fields: dict[str, Any] = {"method": verdict.method,
                              "method_accepted": verdict.accepted and verdict.method != "copy",
                              "method_reasons": verdict.reasons[:6], "method_cmd": run["cmd"],
                              "method_flow": one_line(verdict.flow[0]) if verdict.flow else "",
                              "provenance": provenance, "provenance_evidence": evidence}
    if verdict.method == "copy":
        fields["copied_tables"] = [table.label or "table"]
        fields["copied_from"] = ", ".join(verdict.copy_sources) or "the workflow script itself"
    return fields
