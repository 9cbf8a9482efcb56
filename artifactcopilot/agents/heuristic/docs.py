"""D1: documentation quality across every document a reviewer opens; discovery feeds the later phases."""
from __future__ import annotations

from ...discovery import Discovery
from ...discovery.packages import documented_packages
from ...models import EvidenceLevel, PhasePacket
from ...rules import supported_score
from ...tools import PhaseTools
from ..base import PhaseContext, cited, item

ITEMS = ("entry", "goal", "setup", "workflow", "io", "mapping", "structure", "dependencies", "resources", "limits")
ROUTE_ITEMS = ("workflow", "mapping", "resources")
"""Items the route (commands tied to paper objects, their costs) bears on: its evidence is cited beside discovery's."""
BADGES = ("functional", "reusable", "reproduced")


def declined(found: Discovery) -> dict[str, bool]:
    """Badges the authors' badge application leaves out (an AE committee evaluates only what was requested);
    with no application found, nothing is declined."""
    asked = set(found.requested_badges.badges) if found.requested_badges else None
    if asked and asked & {"reusable", "reproduced"}:
        asked.add("functional")  # Reusable builds on Functional, and so does Results Reproduced in the rubric
    return {b: asked is not None and b not in asked for b in BADGES}


def run_docs(ctx: PhaseContext, tools: PhaseTools) -> PhasePacket:
    entry = ctx.packets["gate"].facts.get("entry")
    found, ev = tools.discover_docs()
    route, route_ev = tools.plan_route(found)
    signals = found.signals or {name: False for name in ITEMS}
    deps = tools.dependency_files()
    texts = [tools.read_file(d.path, 1_000_000) or "" for d in found.docs if not d.path.startswith("paper:")]
    packages = documented_packages(texts)
    commands = {k: len(found.steps_of(k)) for k in ("install", "data", "workflow", "plot", "test")}
    docs = ", ".join(d.path for d in found.docs[:6]) + (" …" if len(found.docs) > 6 else "")
    notes = {
        "entry": f"{entry}; documents read: {docs}",
        "setup": f"{commands['install']} install commands"
                 + (f"; packages named: {', '.join(packages)}" if packages else ""),
        "workflow": f"{commands['workflow'] + commands['plot']} workflow commands, {len(found.notebooks)} notebooks",
        "mapping": (f"mentions {', '.join(found.paper_refs[:8])}" if found.paper_refs
                    else "no paper table/figure named")
        + (f"; commands tied to {', '.join(route.objects[:8])}" if route.objects else ""),
        "dependencies": f"dependency files: {', '.join(deps)}" if deps else "",
    }
    checklist = [item(f"D1.{name}", bool(signals.get(name)), [ev.id] + ([route_ev.id] if name in ROUTE_ITEMS else []),
                      notes.get(name, "")) for name in ITEMS]
    score, _ = supported_score("D1", checklist, EvidenceLevel.E1, tools.store.interventions(), ctx.rubric)
    request = found.requested_badges
    facts = {
        "entry": entry, "docs": [d.path for d in found.docs], "steps": [s.to_dict() for s in found.steps],
        "notebooks": [n.to_dict() for n in found.notebooks],
        "expected_outputs": [e.to_dict() for e in found.expected_outputs],
        "documented_outputs": [d.to_dict() for d in found.documented_outputs],
        "env_vars": {v.name: v.values[0] for v in found.env_vars if v.values},
        "paper_refs": found.paper_refs, "long_run_warning": found.long_run_warning, "reuse": found.reuse.to_dict(),
        "python_versions": found.python_versions, "system_tools": found.system_tools, "packages": packages,
        "dependency_files": deps, "requested_badges": request.to_dict() if request else None,
        "route": route.to_dict(), "route_evidence": route_ev.id,
        "coverage_stated": found.long_run_warning or any(s.quick or s.duration_hint_s for s in found.steps)
        or bool(found.costs),
        **{f"declines_{b}": v for b, v in declined(found).items()},
    }
    missing = [n for n in ITEMS if not signals.get(n)]
    summary = (f"{len(found.docs)} documents read ({docs}): {len(found.steps)} commands, "
               f"{len(found.notebooks)} notebooks. "
               + (f"Missing: {', '.join(missing)}." if missing else "All documentation items present."))
    if request:
        summary += f" The authors apply for: {', '.join(request.badges)} ({request.source})."
    return PhasePacket(phase="D1", score=score, checklist=checklist, evidence=cited(checklist, ev.id),
                       evidence_level=EvidenceLevel.E1, facts=facts, summary=summary)
