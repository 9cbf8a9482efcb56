"""The route as the report shows it: every documented command D1 ranked, in the order D3 ran it, with what came of it
(valid, partial, failed, skipped with its documented cost, not run), the paper objects covered and not, what was
reduced and which prerequisites were done. Read from D1's route fact and D3's selection evidence; never raises."""
from __future__ import annotations

import json

from ..models import PhasePacket, Route, RouteEntry
from .mdtext import Links, code, esc, table
from .reading import Reader


def route_of(packets: dict[str, PhasePacket], read: Reader) -> Route:
    d1, d3 = packets.get("D1"), packets.get("D3")
    planned = (d1.facts.get("route") or {}) if d1 else {}
    legs = [leg for leg in planned.get("legs", []) if isinstance(leg, dict)]
    if not legs:
        return Route()
    selection = _selection(d3, read)
    attempts = {a.get("cmd"): a for a in selection.get("attempts", []) if isinstance(a, dict)}
    skipped = {s.get("cmd"): s for s in selection.get("skipped", []) if isinstance(s, dict)}
    entries, covered, reduced = [], [], []
    for leg in legs:
        cmd, att = leg.get("cmd", ""), attempts.get(leg.get("cmd", ""))
        entry = RouteEntry(rank=int(leg.get("rank") or 0), command=cmd, cwd=leg.get("cwd") or ".",
                           objects=list(leg.get("objects") or []), cost=leg.get("cost_text") or "",
                           status="not run", detail=_why_not_run(d3, skipped.get(cmd)))
        if att is not None and att.get("runs"):
            entry.status = "partial" if att.get("partial") and att.get("valid") else \
                "valid" if att.get("valid") else "failed"
            entry.detail = "; ".join(x for x in (att.get("reduced"), att.get("blocker"),
                                                 _partial(att.get("partial"))) if x)
            entry.evidence = list(att.get("runs") or [])
            entry.seconds = att.get("seconds")
            if att.get("reduced"):
                reduced.append(f"`{cmd}`: {att['reduced']}")
            if entry.status in ("valid", "partial"):
                covered += entry.objects
        elif skipped.get(cmd) is not None:
            entry.status = "skipped"
        entries.append(entry)
    entries.sort(key=lambda e: e.rank)
    named = list(dict.fromkeys([o for e in entries for o in e.objects] + list(planned.get("untied") or [])))
    covered = list(dict.fromkeys(covered))
    done = [f"{e.get('edit')} ({e.get('source')}): " + ("done" if e.get("ok") else e.get("note") or "failed")
            for e in selection.get("edits", []) if isinstance(e, dict)]
    return Route(entries=entries, covered=covered, not_covered=[o for o in named if o not in covered],
                 reduced=reduced, prerequisites=done)


def _selection(d3: PhasePacket | None, read: Reader) -> dict:
    if d3 is None:
        return {}
    for ev_id in d3.evidence:
        if "-selection" in ev_id:
            try:
                data = json.loads(read(ev_id) or "{}")
            except ValueError:
                return {}
            return data if isinstance(data, dict) else {}
    return {}


def _why_not_run(d3: PhasePacket | None, skip: dict | None) -> str:
    if skip is not None:
        return str(skip.get("why") or "")
    return "" if d3 is None else "not reached within the phase's time or run budget"


def _partial(partial) -> str:
    return f"partial output before the time limit: {', '.join(partial[:4])}" if partial else ""


def route_section(route: Route, links: Links) -> list[str]:
    """The report's Route section (nothing when the documentation gave no runnable command)."""
    if not route.entries:
        return []
    out = ["## Route", "", "The documented commands in the order the review ran them (cheapest paper-tied first), "
           "with their documented cost and what came of each.", ""]
    marks = {"valid": "✓ valid", "partial": "◐ partial", "failed": "✗ failed", "skipped": "– skipped",
             "not run": "– not run"}
    rows = [[str(e.rank), code(e.command, cell=True), esc(e.cwd), esc(", ".join(e.objects)) or "—",
             esc(e.cost) or "—", marks[e.status] + (f" ({e.seconds:g} s)" if e.seconds is not None else ""),
             esc(e.detail), links(e.evidence)] for e in route.entries]
    out += table(["#", "Command", "Folder", "Paper objects", "Documented cost", "Outcome", "Detail", "Evidence"], rows)
    out += [f"- **Covered:** {esc(', '.join(route.covered)) or 'no paper object'}",
            f"- **Not covered:** {esc(', '.join(route.not_covered)) or 'none'}"]
    out += [f"- **Reduced:** {esc(r)}" for r in route.reduced]
    out += [f"- **Done first:** {esc(p)}" for p in route.prerequisites]
    return out + [""]
