"""plan_route: the documented commands in the order a careful committee member runs them.

A reviewer with a few minutes covers as many paper objects as possible, cheapest first: a command the documentation
ties to a table, figure or research question and says takes a second runs before one that takes an hour; a driver
that runs every experiment costs what its experiments cost together, whatever its heading calls it; a command with
no stated cost sits between the cheap and the expensive ones (UNKNOWN_COST_S); one that covers only objects already
covered waits; one that needs a host this machine cannot reach (it clones or downloads at run time) comes after
every one that does not. Pure: reads the discovery, the paper's objects and the artifact's files.
"""
from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from ..claims.paperobjects import named_objects, tied_objects
from ..discovery import Discovery, DocCost, Step
from ..discovery.cwd import primary_file
from .drivers import driver_runs, hosts_of
from .model import Leg, Route
from .prereqs import attach

RUNNABLE = ("workflow", "plot", "test")
UNKNOWN_COST_S = 120.0
"""The cost assumed, for ordering only, of a command whose documentation states none."""
LONG_COST_S = 4 * 3600.0
"""The cost assumed, for ordering only, of a command the documentation calls long without a number ("hours")."""
QUICK_CEILING_S = 600.0
"""A command documented as taking longer than this is not quick, whatever its heading says."""
RESULTS_WORDS = re.compile(r"reproduc|replicat|main[ _-]?results?|paper[ _-]?results?", re.I)

Reader = Callable[[str], "str | None"]


def plan_route(found: Discovery, objects: set[str], read: Reader | None = None,
               files: list[str] | None = None) -> Route:
    """The route of an artifact's documentation: its runnable commands ranked, each with its objects, cost,
    prerequisites and the hosts it needs."""
    read = read or (lambda rel: None)
    listed = frozenset(files or [])
    legs = [_leg(step, found.costs, objects, read, listed) for step in found.steps
            if step.kind in RUNNABLE and not step.reuse]
    route = Route(legs=legs, prerequisites=list(found.prerequisites))
    attach(route, found.steps, read)
    _rank(route, {s.order: s for s in found.steps})
    tied = [o for leg in route.legs for o in leg.objects]
    route.objects = list(dict.fromkeys(tied))
    named = [o for c in found.costs for o in c.objects] + list(found.paper_refs)
    route.untied = [o for o in dict.fromkeys(named) if o.startswith(("Table", "Figure", "RQ")) and o not in tied
                    and (not objects or o in objects)]
    return route


def _leg(step: Step, costs: list[DocCost], objects: set[str], read: Reader, files: frozenset[str]) -> Leg:
    leg = Leg(step=step.order, cmd=step.cmd, cwd=step.cwd, kind=step.kind, source=step.source)
    leg.objects = tied_objects(step.inner or step.cmd, step.mentions, objects)
    leg.runs = driver_runs(step, read, files)
    for script in leg.runs:
        leg.objects += [o for o in named_objects(script) if (not objects or o in objects) and o not in leg.objects]
    _cost(leg, step, costs)
    leg.quick = step.quick and not (leg.cost_s is not None and leg.cost_s > QUICK_CEILING_S)
    if step.quick and not leg.quick:
        leg.why = f"called quick by its section, but the documentation states {leg.cost_text}"
    leg.hosts = hosts_of(step, read)
    return leg


def _cost(leg: Leg, step: Step, costs: list[DocCost]) -> None:
    """Its documented cost: a cost stated for its script, the sum of those of the scripts it runs, one stated for the
    paper objects it is tied to, or the duration stated beside the command."""
    script = primary_file(step.inner)
    own = _for_file(posixpath.normpath(posixpath.join(step.cwd, script)) if script else "", costs)
    if own is not None:
        leg.cost_s, leg.cost_text = own.seconds, f"{own.text} ({own.source})"
        return
    parts = [(s, _for_file(s, costs)) for s in leg.runs]
    known = [c for _, c in parts if c is not None]
    if known:
        total = sum(c.seconds for c in known)
        missing = len(parts) - len(known)
        leg.cost_s = total
        leg.cost_text = (f"at least {_words(total)}: the sum of the {len(known)} scripts it runs whose cost is stated"
                         + (f" ({missing} more without one)" if missing else ""))
        return
    by_object = [c for c in costs if not c.files and c.objects and set(c.objects) <= set(leg.objects)]
    if by_object and leg.objects:
        covered = {o for c in by_object for o in c.objects}
        if covered >= set(leg.objects):
            leg.cost_s = sum(c.seconds for c in by_object)
            leg.cost_text = "; ".join(f"{', '.join(c.objects)} {c.text} ({c.source})" for c in by_object)
            return
    if step.duration_hint_s is not None:
        leg.cost_s, leg.cost_text = step.duration_hint_s, f"{_words(step.duration_hint_s)} (stated beside it)"


def _for_file(path: str, costs: list[DocCost]) -> DocCost | None:
    if not path:
        return None
    same = [c for c in costs if path in c.files]
    if not same:
        base = posixpath.basename(path)
        same = [c for c in costs if any(posixpath.basename(f) == base for f in c.files)]
    return max(same, key=lambda c: c.seconds) if same else None


def _words(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:g} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _rank(route: Route, steps: dict[int, Step]) -> None:
    """Order the legs: offline before host-needing; paper-tied before the rest; required before optional; documented
    before implied; within each, cheapest first; a tied leg that covers nothing new after the tied legs that do."""
    def key(leg: Leg) -> tuple:
        step = steps.get(leg.step)
        tied = bool(leg.objects) or bool(RESULTS_WORDS.search(leg.cmd))
        cost = leg.cost_s if leg.cost_s is not None else (LONG_COST_S if step and step.long else UNKNOWN_COST_S)
        return (bool(leg.hosts), not tied, bool(step and step.optional), not (step is None or step.documented),
                cost, leg.step)

    ordered = sorted(route.legs, key=key)
    covered: set[str] = set()
    first: list[Leg] = []
    later: list[Leg] = []
    for leg in ordered:
        new = set(leg.objects) - covered
        if leg.objects and not new and (leg.cost_s or UNKNOWN_COST_S) > 60 and not leg.hosts:
            later.append(leg)
            leg.why = leg.why or f"covers only {', '.join(leg.objects[:4])}, already covered by cheaper commands"
        else:
            first.append(leg)
            covered |= new
    untied_at = next((i for i, leg in enumerate(first) if not leg.objects and not leg.hosts), len(first))
    route.legs = first[:untied_at] + later + first[untied_at:]
    for n, leg in enumerate(route.legs, 1):
        leg.rank = n
        if not leg.why:
            leg.why = _why(leg)


def _why(leg: Leg) -> str:
    if leg.hosts:
        return f"needs {', '.join(leg.hosts[:3])} (not reachable offline): after the commands that do not"
    tied = f"tied to {', '.join(leg.objects[:4])}" if leg.objects else "not tied to a paper object"
    return f"{tied}; {leg.cost_words()}"
