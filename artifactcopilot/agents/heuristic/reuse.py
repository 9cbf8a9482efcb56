"""D5: find a documented reuse path and validate it with a transfer run."""
from __future__ import annotations

from ...interventions import Action
from ...models import EvidenceLevel, InterventionLevel, PhasePacket, Score
from ...readme import DocCommand
from ...rules import supported_score
from ..base import PhaseContext, cited, item
from ...tools import PhaseTools
from .fixes import valid_output
from .run import _normalized, attempt

REUSE_DIRS = ("examples/", "example/", "configs/", "config/", "samples/")


def run_reuse(ctx: PhaseContext, tools: PhaseTools) -> PhasePacket:
    d1, d3 = ctx.packets["D1"], ctx.packets["D3"]
    base = d3.score is not None and d3.score >= Score.WA
    run = d3.facts.get("run") or {}
    commands = [DocCommand(**c) for c in d1.facts.get("commands", [])]
    reuse_cmds = [c for c in commands if c.kind == "reuse" and c.cmd != run.get("cmd")]
    dirs = sorted({f.split("/", 1)[0] + "/" for f in tools.list_files() if f.startswith(REUSE_DIRS)})
    sections = d1.facts.get("reuse_sections", [])
    discovery = {"reuse_sections": sections, "reuse_commands": [c.script() for c in reuse_cmds], "reuse_folders": dirs,
                 "functional_base": base}
    entry = bool(reuse_cmds or sections or dirs)
    runs, validated, repeatable, transfer_ev = [], False, False, []
    if base and reuse_cmds:
        cand = reuse_cmds[0]
        env = dict(run.get("env") or {})
        res, all_runs, script, used_env = attempt(tools, tools.run_transfer, cand, env, d1.facts.get("env_vars", {}), "transfer case")
        transfer_ev = [r.evidence.id for r in all_runs]
        validated = valid_output(res.record)
        if validated:
            again = tools.run_transfer(script, Action("run", cand.cmd, documented=True), f"repeat of transfer {res.evidence.id}", env=used_env)
            transfer_ev.append(again.evidence.id)
            repeatable = valid_output(again.record) and _normalized(again.record.stdout) == _normalized(res.record.stdout)
        runs = [{"cmd": cand.cmd, "valid": validated, "evidence": transfer_ev}]
    discovery["transfer_runs"] = runs
    ev = tools.record_evidence("reuse", "reuse-discovery", discovery,
                               f"reuse entry: {'yes' if entry else 'none'}; transfer validated: {validated}", EvidenceLevel.E1)
    mine = [i for i in tools.store.interventions() if i.phase == "D5"]
    low = all(i.level <= InterventionLevel.I1 for i in mine)
    checklist = [
        item("D5.functional_base", base, [ev.id, *d3.evidence[:1]], f"D3 scored {d3.score.value if d3.score else 'none'}"),
        item("D5.entry", entry, [ev.id, *d1.evidence[:1]], ", ".join(sections + dirs) or "no reuse section, examples or configs"),
        item("D5.transfer_info", bool(reuse_cmds), [ev.id], reuse_cmds[0].cmd if reuse_cmds else "no concrete transfer command documented"),
        item("D5.transfer_validated", validated, transfer_ev or [ev.id], "transfer run gave valid output" if validated else
             ("not attempted: no functional base" if not base else "not validated")),
        item("D5.low_intervention", low and bool(runs), transfer_ev or [ev.id], "" if low else "transfer needed interventions above I1"),
        item("D5.repeatable", repeatable, transfer_ev or [ev.id]),
    ]
    level = EvidenceLevel.E2 if validated else EvidenceLevel.E1
    score, _ = supported_score("D5", checklist, level, tools.store.interventions(), ctx.rubric)
    summary = (f"Transfer case `{reuse_cmds[0].cmd}` ran with valid output." if validated else
               "No functional base for reuse." if not base else "No transfer case could be validated.")
    return PhasePacket(phase="D5", score=score, checklist=checklist, evidence=cited(checklist, ev.id), evidence_level=level,
                       facts={"transfer_validated": validated}, summary=summary, interventions=[i.id for i in mine])
