"""D1: documentation quality from the README analysis; extracts commands for later phases."""
from __future__ import annotations

from dataclasses import asdict

from ...models import EvidenceLevel, PhasePacket
from ...rules import supported_score
from ..base import PhaseContext, cited, item
from ...tools import PhaseTools

ITEMS = ("entry", "goal", "setup", "workflow", "io", "mapping", "structure", "dependencies", "resources", "limits")


def run_docs(ctx: PhaseContext, tools: PhaseTools) -> PhasePacket:
    entry = ctx.packets["gate"].facts.get("entry")
    analysis, ev = tools.parse_readme(entry)
    deps = tools.dependency_files()
    notes = {
        "entry": f"{entry}: {analysis.words} words" + (" (only the first MB was parsed)" if analysis.truncated else ""),
        "setup": f"{len(analysis.of_kind('setup'))} setup commands",
        "workflow": f"{len(analysis.of_kind('workflow'))} workflow commands",
        "mapping": f"mentions {', '.join(analysis.paper_refs)}" if analysis.paper_refs else "no paper table/figure named",
        "dependencies": f"dependency files: {', '.join(deps)}" if deps else "",
    }
    checklist = [item(f"D1.{name}", analysis.signals[name], [ev.id], notes.get(name, "")) for name in ITEMS]
    interventions = tools.store.interventions()
    score, _ = supported_score("D1", checklist, EvidenceLevel.E1, interventions, ctx.rubric)
    facts = {
        "entry": entry,
        "commands": [asdict(c) for c in analysis.commands],
        "env_vars": analysis.env_vars,
        "paper_refs": analysis.paper_refs,
        "long_run_warning": analysis.long_run_warning,
        "reuse_sections": analysis.reuse_sections,
        "dependency_files": deps,
        "coverage_stated": analysis.long_run_warning or any(c.quick for c in analysis.commands),
    }
    missing = [n for n in ITEMS if not analysis.signals[n]]
    summary = (f"README {entry} ({analysis.words} words): {len(analysis.commands)} commands found. "
               + (f"Missing: {', '.join(missing)}." if missing else "All documentation items present."))
    return PhasePacket(phase="D1", score=score, checklist=checklist, evidence=cited(checklist, ev.id),
                       evidence_level=EvidenceLevel.E1, facts=facts, summary=summary)
