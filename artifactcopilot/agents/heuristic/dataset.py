"""A data artifact's workflow (claims/datasets.py): D2 loads its tables, D3 checks the documented schema and
recomputes what the paper states from the rows, D4 credits (or holds against the paper) what was recomputed.

An artifact is a data artifact here when its documentation gives no command, notebook or test to run and it ships
CSV/TSV files whose columns the documentation describes (at least half of one file's). The loading program runs in
the sandbox like any command (tools/running.py), standard library only; the review's analysis is its own step (an
`evaluate` action, I0), never the artifact's documented command.
"""
from __future__ import annotations

import json
import shlex

from ...claims.dataload import LOADER
from ...claims.datasets import (
    DATA_TOLERANCE_TEXT,
    DataCheck,
    check_schema,
    data_files,
    described_tables,
    documented_columns,
    recompute,
    statements,
)
from ...interventions import Action
from ...models import ChecklistItem, EvidenceLevel, PhasePacket
from ...sandbox.commandlog import parse_log
from ...tools import PhaseTools
from ..base import item
from .fixes import valid_output

PURPOSE = ("the artifact is a documented data set: load its tables with a standard CSV reader, check the documented "
           "schema and recompute what the paper states from the rows (ArtifactGuide RW2: an analysis)")


def data_artifact_files(tools: PhaseTools, steps: list, docs: list[str]) -> list[str]:
    """The data files to load when the artifact documents no command, notebook or test to run and ships tables its
    documentation describes column by column (claims/datasets.py); else []."""
    runnable = [s for s in steps if getattr(s, "kind", None) in ("workflow", "plot", "test")
                or isinstance(s, dict) and s.get("kind") in ("workflow", "plot", "test")]
    files = [] if runnable else data_files(tools.list_files())
    if not files:
        return []
    described = described_tables(files, {f: tools.read_file(f, 65536) or "" for f in files}, _documented(tools, docs))
    return files if described else []


def _script(files: list[str]) -> str:
    return f"python3 - {' '.join(shlex.quote(f) for f in files)} <<'PY'\n{LOADER}PY"


def _loaded(tools: PhaseTools, ev_id: str) -> list[dict]:
    """The loading program's JSON, from the whole persisted log (a command record keeps only its output's head)."""
    stdout = parse_log(tools.store.read(ev_id)).stdout
    try:
        found = json.loads(stdout.strip().splitlines()[-1]) if stdout.strip() else []
    except (ValueError, IndexError):
        return []
    return [f for f in found if isinstance(f, dict)] if isinstance(found, list) else []


def _documented(tools: PhaseTools, docs: list[str]) -> set[str]:
    return documented_columns([tools.read_file(d, 500_000) or "" for d in docs if not str(d).startswith("paper:")])


def load_probe(tools: PhaseTools, files: list[str], docs: list[str]) -> tuple[DataCheck, str]:
    """D2: do the data files load, and does the documentation describe their columns (E1)."""
    res = tools.probe(_script(files), "do the data set's tables load with a standard CSV reader")
    check = check_schema(_loaded(tools, res.evidence.id), _documented(tools, docs))
    if not check.files:
        check.problems.append(f"the loading program gave no result ({res.evidence.id})")
    return check, res.evidence.id


def data_workflow(tools: PhaseTools, d1: PhasePacket, timeout: float) -> tuple[dict, list[str], EvidenceLevel] | None:
    """D3: the review's analysis of a data artifact: (the run fact for D4; the evidence ids; the evidence level: E2
    when a statement of the paper was recomputed from the rows, else E1), or None when the artifact is no data set
    its documentation describes."""
    files = data_artifact_files(tools, d1.facts.get("steps") or [], d1.facts.get("docs") or [])
    if not files:
        return None
    script = _script(files)
    res = tools.run_workflow(script, Action("evaluate", f"load and analyse {', '.join(files[:4])}"), PURPOSE,
                             timeout=timeout)
    check = check_schema(_loaded(tools, res.evidence.id), _documented(tools, d1.facts.get("docs") or []))
    if not check.documented:  # only a data set its documentation describes is read as one
        return None
    paper = tools.ctx.paper
    recompute(check, statements(paper.text, paper.tables))
    level = EvidenceLevel.E2 if valid_output(res) and check.loaded and check.checks else EvidenceLevel.E1
    record = {"files": files, "purpose": PURPOSE, **check.to_dict()}
    ev = tools.record_evidence("analysis", "dataset-check", record,
                               f"{len(check.files)} data files loaded; {len(check.held)} paper statements hold, "
                               f"{len(check.broken)} do not", level)
    run = {"script": script, "cmd": f"load and analyse {', '.join(files[:3])}", "cwd": ".", "env": {},
           "kind": "analysis", "section": "data description", "mentions": [], "quick": False, "reduced": None,
           "step_order": 0, "source": (d1.facts.get("docs") or ["the documentation"])[0], "documented": False,
           "notebook": None, "executed": None, "evidence": res.evidence.id, "files_created": [],
           "files_modified": [], "figures_shown": [], "figure_evidence": [], "duration_s": res.record.duration_s,
           "dataset": record, "dataset_evidence": ev.id}
    return run, [res.evidence.id, ev.id], level


def data_checklist(data: tuple, sel_id: str, rw5: ChecklistItem, facts: dict) -> tuple[list, EvidenceLevel, str]:
    """D3 of a data artifact: the review's analysis (agents/heuristic/dataset.py) is the representative workflow
    when it recomputed what the paper states (E2); a load and schema check alone is static material (E1)."""
    run, evidence, level = data
    record = run["dataset"]
    held, off = dataset_notes(record)
    recomputed = level == EvidenceLevel.E2
    loaded = not record["problems"] and bool(record["files"])
    facts.update(runs=[run] if recomputed else [], run=run if recomputed else None, dataset=record)
    checklist = [
        item("RW1", True, [sel_id, *evidence],
             f"the documentation describes the data files' columns ({run['source']}): loading them and recomputing "
             "what the paper states is the data set's workflow"),
        item("RW2", recomputed, evidence, "an analysis recomputing the paper's statements from the rows" if recomputed
             else "a load and schema check only: nothing the paper states could be recomputed from the data"),
        item("RW3", loaded, evidence, "; ".join(record["schema"][:2]) if loaded else "; ".join(record["problems"][:2])),
        item("RW4", recomputed, evidence, held or off or "no statement of the paper names a value or column of it"),
        rw5, item("D3.stable", None, evidence, "a deterministic read of the files: not repeated"),
    ]
    summary = (f"A data artifact: {len(record['files'])} tables loaded; "
               + (f"{record['held']} of the paper's statements recomputed from the rows hold, "
                  f"{record['not_held']} do not." if recomputed
                  else "its schema was checked (E1); nothing the paper states could be recomputed."))
    return checklist, level, summary


def dataset_notes(record: dict) -> tuple[str, str]:
    """(what was recomputed, what does not hold) in a checklist note's words."""
    held = [c for c in record.get("checks") or [] if c["verdict"] == "holds"]
    broken = [c for c in record.get("checks") or [] if c["verdict"] != "holds"]
    said = "; ".join(f"paper {c['statement']} ({c['where'][:60]}) = {c['recomputed']}" for c in held[:3])
    off = "; ".join(f"paper {c['statement']} ({c['where'][:60]}) but {c['recomputed']}" for c in broken[:3])
    return said, off


__all__ = ["DATA_TOLERANCE_TEXT", "data_artifact_files", "data_checklist", "data_workflow", "dataset_notes",
           "load_probe"]
