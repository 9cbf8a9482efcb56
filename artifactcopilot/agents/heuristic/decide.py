"""D3's verdict from the runs: the representative workflow (the best-ranked valid run that computes something), the
RW checklist with its evidence, stability by a second run, and what the runs covered.
"""
from __future__ import annotations

import re

from ...interventions import Action
from ...models import EvidenceLevel, PhasePacket
from ...rules import supported_score
from ...tools import PhaseTools
from ..base import cited, item
from .common import Deadline
from .dataset import data_checklist, data_workflow
from .fixes import outcome_of, valid_output
from .runsteps import Attempt, displayed_file, paper_objects_of, paper_ties

PAPER_SECTION = re.compile(r"reproduc|replicat|experiment|evaluat|result|paper|table|figure", re.I)
TIMING_LINE = re.compile(r"time|elapsed|seconds|took|duration|\d\d:\d\d:\d\d|it/s|s/it", re.I)


def normalized(text: str) -> str:
    return "\n".join(ln for ln in text.splitlines() if not TIMING_LINE.search(ln)).strip()


def _choose(tools: PhaseTools, attempts: list[Attempt]) -> tuple[Attempt | None, tuple | None]:
    """The best-ranked valid run that computes something, and the first that only displayed a checked-in file
    (attempt, file, provenance evidence), if any."""
    display = None
    for a in sorted((a for a in attempts if a.valid), key=lambda a: a.rank()):
        if a.executed:
            return a, display
        shown, prov = displayed_file(tools, a.runs[-1].record.stdout, a.script, a.env, a.folder)
        if shown is None:
            return a, display
        a.displayed = shown
        display = display or (a, shown, prov)
    return None, display


def decide(ctx, tools: PhaseTools, d1, steps, attempts, skipped, prepared, state, deadline) -> PhasePacket:
    chosen, display = _choose(tools, attempts)
    selection = {"prepared": prepared, "skipped": skipped, "edits": state.get("edits", []),
                 "attempts": [a.summary() for a in attempts], "chosen": chosen.step.cmd if chosen else None}
    runnable = [s for s in steps if s.kind in ("workflow", "plot", "test")]
    sel_ev = tools.record_evidence("selection", "workflow-selection", selection,
                                   f"{len(runnable)} documented workflow commands; "
                                   f"{len([a for a in attempts if a.runs])} run; "
                                   f"{len([a for a in attempts if a.valid])} gave valid output; "
                                   f"chosen: {selection['chosen'] or 'none'}",
                                   EvidenceLevel.E1)
    coverage = _coverage(d1, attempts, skipped, deadline)
    facts = {"runs": [a.fact() for a in attempts if a.valid and not a.displayed], "coverage": coverage,
             "replay": state["replay"], "run": None, "reach": state.get("reach")}
    all_runs = [r.evidence.id for a in attempts for r in a.runs]
    rw5 = item("RW5", bool(d1.facts.get("coverage_stated")) or bool(coverage["reduced"]), [sel_ev.id], coverage["text"])
    if not attempts and not runnable and (data := data_workflow(tools, d1, deadline.timeout(600) or 60)):
        checklist, level, summary = data_checklist(data, sel_ev.id, rw5, facts)
        return _packet(ctx, tools, checklist, level, facts, sel_ev.id, summary)
    if not attempts and not runnable:
        checklist = [item("RW1", False, [sel_ev.id], "no documented workflow command"), item("RW2", False, [sel_ev.id]),
                     item("RW3", False, [sel_ev.id]), item("RW4", False, [sel_ev.id]), rw5,
                     item("D3.stable", False, [sel_ev.id])]
        return _packet(ctx, tools, checklist, EvidenceLevel.E0, facts, sel_ev.id, "No documented workflow to run.")
    if chosen is None:
        return _failed(ctx, tools, attempts, display, sel_ev.id, rw5, facts, all_runs)
    last = chosen.runs[-1]
    stable, stable_ev = _stability(tools, chosen, deadline)
    step = chosen.step
    ties = [t for t in paper_ties(step, paper_objects_of(tools)) if t != "reproduction"]
    facts["run"] = chosen.fact()
    checklist = [
        item("RW1", True, [sel_ev.id],
             f"documented at {step.source}" + ("" if step.documented else " (author script)")),
        item("RW2", step.kind != "trivial", [last.evidence.id], step.cmd),
        item("RW3", not chosen.partial, [last.evidence.id],
             f"timed out after {last.record.duration_s:.0f}s (the review's limit); partial output kept from before "
             f"it: {', '.join(chosen.partial[:4])}" if chosen.partial else
             f"{outcome_of(last).line(0)}, {len(last.record.stdout)} chars of output, "
             f"{len(last.record.files_created)} files created"),
        item("RW4", bool(ties) or bool(PAPER_SECTION.search(step.section)), [sel_ev.id],
             f"tied to {', '.join(ties)}" if ties else f"section '{step.section}'"),
        rw5,
        item("D3.stable", stable, stable_ev or [last.evidence.id],
             "second run gave the same output" if stable else "not repeated or output differed"),
    ]
    fixes = " after mechanical fixes" if len(chosen.runs) > 1 else " as documented"
    others = len([a for a in attempts if a.valid]) - 1
    ran = (f"Ran `{step.cmd}` ({last.record.duration_s:.1f}s, cut by its time limit; partial output before it: "
           f"{', '.join(chosen.partial[:3])})" if chosen.partial else
           f"Ran `{step.cmd}` ({last.record.duration_s:.1f}s, exit 0)")
    summary = (f"{ran}{fixes}"
               + (f"; {others} more documented commands gave valid output" if others > 0 else "")
               + f". {coverage['text']}")
    return _packet(ctx, tools, checklist, EvidenceLevel.E2, facts, sel_ev.id, summary)


def _failed(ctx, tools, attempts, display, sel_id, rw5, facts, all_runs) -> PhasePacket:
    if display is not None:
        display, shown, prov = display
        last = display.runs[-1]
        checklist = [item("RW1", True, [sel_id], f"documented at {display.step.source}"),
                     item("RW2", False, [last.evidence.id, sel_id, *prov],
                          f"the command only prints the pre-existing file {shown}"),
                     item("RW3", True, [last.evidence.id], "exit 0 with output"),
                     item("RW4", bool(display.step.mentions), [sel_id]), rw5,
                     item("D3.stable", False, [last.evidence.id], "not assessed: nothing was computed")]
        facts["displayed"] = {"file": shown, "evidence": last.evidence.id, "cmd": display.step.cmd}
        return _packet(ctx, tools, checklist, EvidenceLevel.E1, facts, sel_id,
                       f"`{display.step.cmd}` only prints {shown}, which is precomputed material (E1), "
                       "not an executed workflow.")
    outcomes = "; ".join(a.outcome(tools) for a in attempts[:6]) or "nothing could be run"
    first = attempts[0].step if attempts else None
    checklist = [item("RW1", bool(attempts), [sel_id],
                      f"documented: {first.cmd}" if first else "no runnable documented command"),
                 item("RW2", bool(attempts), [sel_id]),
                 item("RW3", False, all_runs or [sel_id], f"no documented command produced valid output: {outcomes}"),
                 item("RW4", bool(first and first.mentions), [sel_id]), rw5,
                 item("D3.stable", False, all_runs or [sel_id], "no successful run to repeat")]
    started = any(a.runs and outcome_of(a.runs[-1]).started for a in attempts)  # cut with progress: it ran (E1)
    ran = [a for a in attempts if a.runs]
    ours = [a for a in ran if a.blocker and a.blocker.startswith("the review's own reduction")]
    lead = ("Not established: only the review's own reductions of the documented commands ran, and they failed"
            if ran and len(ours) == len(ran) else "The documented workflow did not produce valid output")
    return _packet(ctx, tools, checklist, EvidenceLevel.E1 if started else EvidenceLevel.E0, facts, sel_id,
                   f"{lead}: {outcomes}.")


def _stability(tools: PhaseTools, chosen: Attempt, deadline: Deadline) -> tuple[bool, list[str]]:
    last = chosen.runs[-1]
    timeout = deadline.timeout(tools.options.timeout_s)
    if chosen.executed or last.record.duration_s > tools.options.stability_rerun_max_s or timeout is None \
            or last.record.duration_s * 1.5 > (deadline.left() or 0):
        return False, []
    again = tools.run_workflow(chosen.script, Action("run", chosen.step.cmd, documented=chosen.step.documented),
                               f"stability rerun of {last.evidence.id}", env=chosen.env, cwd=chosen.folder,
                               timeout=timeout)
    same = valid_output(again) and normalized(again.record.stdout) == normalized(last.record.stdout)
    return same, [again.evidence.id]


def _coverage(d1, attempts: list[Attempt], skipped: list[dict], deadline: Deadline) -> dict:
    valid = [a for a in attempts if a.valid]
    reduced = [a.reduced or a.step.cmd for a in attempts if a.step.quick or a.reduced and a.valid]
    started = [f"`{a.step.cmd}` started, cut at {o.progress}" for a in attempts if a.runs
               and (o := outcome_of(a.runs[-1])).started]
    out_of_time = [a.step.cmd for a in attempts if a.note and "time budget" in a.note] + \
                  [s["cmd"] for s in skipped if "time budget" in s.get("why", "")]
    text = f"{len(valid)} of {len(attempts)} documented commands run gave valid output"
    if reduced:
        text += f"; reduced mode: {', '.join(reduced[:3])}"
    if out_of_time:
        text += f"; not run for lack of time: {len(out_of_time)}"
    if started:
        text += "; " + "; ".join(started[:3]) + " by the time limit (E1)"
    if d1.facts.get("long_run_warning"):
        text += "; the documentation calls the full run long"
    return {"text": text, "reduced": reduced, "out_of_time": out_of_time}


def _packet(ctx, tools, checklist, level, facts, sel_id, summary) -> PhasePacket:
    mine = [i for i in tools.store.interventions() if i.phase == "D3"]
    score, _ = supported_score("D3", checklist, level, tools.store.interventions(), ctx.rubric)
    return PhasePacket(phase="D3", score=score, checklist=checklist, evidence=cited(checklist, sel_id),
                       evidence_level=level, facts=facts, summary=summary, interventions=[i.id for i in mine])
