"""D5: find the documented way to use the artifact anew and validate it with a transfer case, run twice.

The transfer case comes from what the documentation offers for new use, in this order: a command it gives in a
reuse section ("Using your own data", "Customizing"); the documented command on a new input built from the
artifact's own example input (a subset of it, for a documented input format); a library API example, run as a
short script that imports the artifact. It must give valid output on a functional base (D3 at WA or above).
"""
from __future__ import annotations

import json
import shlex
from pathlib import PurePosixPath

from ... import shell as sh
from ...claims.newinput import NewInput, new_input, python_package
from ...interventions import Action
from ...models import EvidenceLevel, InterventionLevel, PhasePacket, Score
from ...rules import supported_score
from ...tools import PhaseTools
from ..base import PhaseContext, cited, item
from .common import Deadline, plan_of, steps_of
from .decide import normalized
from .fixes import valid_output
from .reuseparams import parameter_case, write_copy
from .reusesiblings import sibling_case
from .run import attempt
from .runsteps import Attempt, command_of

DATA_SUFFIXES = (".json", ".jsonl", ".csv", ".tsv", ".txt", ".dat", ".log", ".xml", ".cnf", ".dimacs")
TRANSFER_DIR = ".copilot/transfer"


def _new_input_cases(tools: PhaseTools, runs: list[dict]) -> list[dict]:
    """The documented command on a new input: the example input file it reads (a new file of its form is written,
    else a subset of it is taken), or the folder of Python code it analyses (a new small package is written)."""
    files = tools.list_files()
    known, cases = set(files), []
    for run in runs:
        try:
            words = sh.split(run["script"])
        except ValueError:
            continue
        for i, word in enumerate(words):
            rel = word if run["cwd"] in ("", ".") else f"{run['cwd'].rstrip('/')}/{word}"
            rel = rel.removeprefix("./").rstrip("/")
            if i == 0 or word.startswith("-"):
                continue
            if rel in known and rel.lower().endswith(DATA_SUFFIXES):
                text = tools.read_file(rel, 5_000_000) or ""
                lines = [ln for ln in text.splitlines() if ln.strip()]
                fresh = new_input(rel, text, TRANSFER_DIR)
                if fresh is not None or (len(lines) >= 2 and _records(rel, lines)):
                    cases.append({"run": run, "index": i, "input": rel, "lines": len(lines), "new": fresh})
            elif rel and any(f.startswith(f"{rel}/") and f.endswith(".py") for f in files):
                cases.append({"run": run, "index": i, "input": rel, "lines": 0,
                              "new": python_package(rel, f"{TRANSFER_DIR}/package")})
    return sorted(cases, key=lambda c: c["new"] is None)


def _records(rel: str, lines: list[str]) -> bool:
    """Whether a file is a list of records a subset of which is still a valid input (CSV rows, JSON lines, text
    lines) — not one document (a JSON object or config spread over lines)."""
    if rel.lower().endswith((".json", ".jsonl")):
        try:
            return all(isinstance(json.loads(ln), (dict, list)) for ln in lines[:20])
        except ValueError:
            return False
    return not rel.lower().endswith(".xml")


def _subset_script(rel: str, lines: int) -> tuple[str, str]:
    """A command that writes a new input (the first half of an example's records, header kept) and its path."""
    keep = max(1, lines // 2)
    target = f"{TRANSFER_DIR}/{PurePosixPath(rel).stem}-subset{PurePosixPath(rel).suffix}"
    return (f"mkdir -p {TRANSFER_DIR} && grep -v '^[[:space:]]*$' {shlex.quote(rel)} | head -n {keep} "
            f"> {shlex.quote(target)}", target)



def _write_script(fresh: NewInput) -> str:
    """A command that writes a new input's files."""
    parts = []
    for rel, text in fresh.files.items():
        folder = str(PurePosixPath(rel).parent)
        parts.append(f"mkdir -p {shlex.quote(folder)} && printf '%s' {shlex.quote(text)} > {shlex.quote(rel)}")
    return " && ".join(parts)


def _transfer(tools: PhaseTools, ctx: PhaseContext, runs: list[dict],
              deadline: Deadline) -> tuple[dict | None, list[str]]:
    """Try the transfer cases in order; the first that gives valid output is run again for repeatability."""
    d1 = ctx.packets["D1"]
    plan, env_vars, tried = plan_of(ctx.packets.get("D2")), dict(d1.facts.get("env_vars", {})), []
    reuse_steps = [s for s in steps_of(d1) if s.reuse and s.kind in ("workflow", "plot") and s.runnable
                   and s.cmd not in {r["cmd"] for r in runs}]
    for step in reuse_steps[:2]:
        script, action, why, cwd = command_of(step)
        att = attempt(tools, tools.run_transfer, step, script, action, dict(step.env), env_vars,
                      f"documented reuse case ({step.source})", plan, deadline, [], cwd)
        tried.append(att.outcome())
        if att.valid:
            return {"kind": "documented reuse command", "attempt": att, "input": None}, tried
    for case in _new_input_cases(tools, runs)[:2]:
        run, fresh = case["run"], case["new"]
        if fresh is not None:
            prepare, new_input, what = (_write_script(fresh), fresh.path,
                                        f"{fresh.form}, written for this review (the form of {case['input']})")
        else:
            (prepare, new_input), what = _subset_script(case["input"], case["lines"]), f"a subset of {case['input']}"
        tools.run_setup(prepare, Action("evaluate", prepare[:200]), f"a new input for the transfer case: {what}",
                        network=False, timeout=60)
        words = sh.split(run["script"])
        rel_new = (new_input if run["cwd"] in ("", ".")
                   else str(PurePosixPath(*[".."] * len(PurePosixPath(run["cwd"]).parts), new_input)))
        words[case["index"]] = rel_new
        script = shlex.join(words)
        step = _step_of(run)
        att = attempt(tools, tools.run_transfer, step, script, Action("run", run["cmd"], documented=True),
                      dict(run.get("env") or {}), env_vars,
                      f"the documented `{run['cmd']}` on a new input ({new_input}: {what})", plan, deadline, [])
        tried.append(att.outcome())
        if att.valid:
            return {"kind": "documented command on a new input", "attempt": att, "input": case["input"],
                    "new_input": {"path": new_input, "form": what}}, tried
    return _configuration(tools, ctx, runs, deadline, tried)


def _configuration(tools: PhaseTools, ctx: PhaseContext, runs: list[dict], deadline: Deadline,
                   tried: list[str]) -> tuple[dict | None, list[str]]:
    """The documented command with a documented parameter set to another value (reuseparams.py): validated when the
    output is valid and differs from the documented run's."""
    d1 = ctx.packets["D1"]
    reduced = {r.get("name") for leg in (d1.facts.get("route") or {}).get("legs", [])
               for r in leg.get("reductions", []) if r.get("name")}
    case = parameter_case(tools, runs, (d1.facts.get("reuse") or {}).get("parameters", []), reduced)
    if case is None or not write_copy(tools, case):
        return None, tried
    run = case["run"]
    att = attempt(tools, tools.run_transfer, _step_of(run), case["script"], Action("run", run["cmd"], documented=True),
                  dict(run.get("env") or {}), dict(d1.facts.get("env_vars", {})),
                  f"the documented `{run['cmd']}` on a new configuration ({case['what']})",
                  plan_of(ctx.packets.get("D2")), deadline, [], run.get("cwd") or ".")
    same = att.valid and normalized(att.runs[-1].record.stdout) == normalized(_stdout(tools, run.get("evidence")))
    tried.append(att.outcome() + ("; the output did not change: the parameter showed no effect" if same else ""))
    if att.valid and not same:
        return {"kind": "documented command on a new configuration", "attempt": att, "input": None,
                "new_input": {"path": case["copy"], "form": case["what"]}}, tried
    return None, tried


def _stdout(tools: PhaseTools, ev_id: str | None) -> str:
    """The standard output a command log holds."""
    try:
        text = tools.store.read(ev_id) if ev_id else ""
    except (KeyError, OSError):
        return ""
    return (text or "").partition("----- stdout -----\n")[2].partition("\n----- stderr -----")[0]


def _sibling(tools: PhaseTools, ctx: PhaseContext, runs: list[dict], deadline: Deadline) -> dict | None:
    """The documented command on the smallest other input the artifact ships beside the documented one, run twice.
    The authors' own inputs are not new input: this makes a transfer concrete, it never validates one."""
    case = sibling_case(tools, runs)
    if case is None:
        return None
    run = case["run"]
    words = sh.split(run["script"])
    base = "" if run.get("cwd", ".") in ("", ".") else run["cwd"].rstrip("/") + "/"
    words[case["index"]] = case["sibling"].removeprefix(base)
    script = shlex.join(words)
    att = attempt(tools, tools.run_transfer, _step_of(run), script, Action("run", run["cmd"], documented=True),
                  dict(run.get("env") or {}), dict(ctx.packets["D1"].facts.get("env_vars", {})),
                  f"the documented `{run['cmd']}` on another input it ships ({case['sibling']})",
                  plan_of(ctx.packets.get("D2")), deadline, [])
    repeatable, again = _repeat(tools, att, deadline) if att.valid else (False, [])
    return {"command": script, "input": case["input"], "sibling": case["sibling"], "siblings": case["count"],
            "valid": att.valid, "repeatable": repeatable, "outcome": att.outcome(),
            "evidence": [r.evidence.id for r in att.runs] + again}


def _shipped_note(shipped: dict | None) -> str:
    """What the documented command did on another input the artifact ships (never new input by itself)."""
    if not shipped:
        return ""
    if not shipped["valid"]:
        return f"`{shipped['command'][:100]}` (another shipped input) did not give valid output: {shipped['outcome']}"
    return (f"the documented command also ran on {shipped['sibling']}, another input the artifact ships beside "
            f"{shipped['input']} (`{shipped['command'][:100]}`, valid output"
            f"{', the same on a second run' if shipped['repeatable'] else ''}); the authors' own inputs are not new "
            "input, so a transfer to input the artifact has not seen is still to be shown")


def _step_of(run: dict):
    from ...discovery import Step

    return Step(cmd=run["cmd"], inner=run["script"], runner=None, kind=run.get("kind", "workflow"),
                source=run.get("source", ""), section=run.get("section", ""), cwd=run.get("cwd", "."))


def _repeat(tools: PhaseTools, att: Attempt, deadline: Deadline) -> tuple[bool, list[str]]:
    """The validated transfer case run again: whether it gives the same output, and the rerun's evidence."""
    last = att.runs[-1]
    timeout = deadline.timeout(tools.options.timeout_s)
    if timeout is None:
        return False, []
    again = tools.run_transfer(att.script, Action("run", att.step.cmd, documented=True),
                               f"repeat of transfer {last.evidence.id}", env=att.env, cwd=att.folder, timeout=timeout)
    repeatable = valid_output(again.record) and normalized(again.record.stdout) == normalized(last.record.stdout)
    return repeatable, [again.evidence.id]


def run_reuse(ctx: PhaseContext, tools: PhaseTools) -> PhasePacket:
    d1, d3 = ctx.packets["D1"], ctx.packets["D3"]
    base = d3.score is not None and d3.score >= Score.WA
    runs = [r for r in d3.facts.get("runs", []) if r.get("evidence") and not r.get("notebook")]
    hints = d1.facts.get("reuse") or {}
    sections = hints.get("sections", [])
    examples = [e for e in hints.get("api_examples", [])]
    formats = [f["title"] for f in hints.get("input_formats", [])]
    options = [o["flag"] for o in hints.get("unused_options", [])]
    entry = bool(sections or examples or formats or hints.get("config_files") or options)
    found = None
    tried: list[str] = []
    deadline = Deadline.for_phase("D5", tools.options.budget_s)
    if base:
        found, tried = _transfer(tools, ctx, runs, deadline)
    shipped = _sibling(tools, ctx, runs, deadline) if base and found is None else None
    validated = found is not None
    repeatable, repeat_ev = _repeat(tools, found["attempt"], deadline) if found else (False, [])
    transfer_ev = [r.evidence.id for r in found["attempt"].runs] + repeat_ev if found else []
    discovery = {"reuse_sections": sections, "api_examples": [e.get("source") for e in examples],
                 "input_formats": formats, "unused_options": options, "functional_base": base, "tried": tried,
                 "transfer": {"kind": found["kind"], "command": found["attempt"].script, "input": found["input"],
                              "new_input": found.get("new_input")}
                 if found else None, "shipped_input": shipped}
    ev = tools.record_evidence("reuse", "reuse-discovery", discovery,
                               f"reuse entry: {'yes' if entry else 'none'}; transfer validated: {validated}",
                               EvidenceLevel.E1)
    mine = [i for i in tools.store.interventions() if i.phase == "D5"]
    low = all(i.level <= InterventionLevel.I1 for i in mine)
    what = (f"{found['kind']}: `{found['attempt'].script[:120]}`"
            + (f" ({found['new_input']['form']})" if found.get("new_input") else "")) if found else ""
    checklist = [
        item("D5.functional_base", base, [ev.id, *d3.evidence[:1]],
             f"D3 scored {d3.score.value if d3.score else 'none'}"),
        item("D5.entry", entry, [ev.id, *d1.evidence[:1]], ", ".join(sections + formats + options[:3])
             or "no reuse section, input format, API example or option documented"),
        item("D5.transfer_info", bool(found) or bool(sections and examples) or bool(shipped and shipped["valid"]),
             [ev.id, *(shipped["evidence"] if shipped else [])], what or _shipped_note(shipped)
             or "no concrete transfer case documented or buildable from the docs"),
        item("D5.transfer_validated", validated, transfer_ev or [ev.id], f"{what} gave valid output" if validated else
             ("not attempted: no functional base" if not base
              else "no transfer case gave valid output: " + "; ".join(tried[:3]) if not shipped
              else "no transfer case on new input gave valid output" + "".join(
                  f"; {t}" for t in [*tried[:3], _shipped_note(shipped)] if t))),
        item("D5.low_intervention", low and validated, transfer_ev or [ev.id],
             "" if low else "transfer needed interventions above I1"),
        item("D5.repeatable", repeatable, transfer_ev or [ev.id],
             "the second run gave the same output" if repeatable else ""),
    ]
    level = EvidenceLevel.E2 if validated else EvidenceLevel.E1
    score, _ = supported_score("D5", checklist, level, tools.store.interventions(), ctx.rubric)
    summary = (f"Transfer case ({what}) ran with valid output." if validated else
               "No functional base for reuse." if not base else "No transfer case could be validated.")
    return PhasePacket(phase="D5", score=score, checklist=checklist, evidence=cited(checklist, ev.id),
                       evidence_level=level, facts={"transfer_validated": validated}, summary=summary,
                       interventions=[i.id for i in mine])
