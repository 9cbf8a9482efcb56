"""The route: the documentation read once as a plan — the paper objects it ties to commands, where each runs, what
must happen first, what it costs and how it is made smaller — ranked the way a committee member with minutes runs it.
D1 records it, D3 runs it, D4 credits what it produced and the report shows it.

    from artifactcopilot.route import plan_route
    route = plan_route(discovery, paper_objects, read=lambda rel: text_of(rel), files=file_list)
    for leg in route.legs: print(leg.rank, leg.cmd, leg.cwd, leg.objects, leg.cost_text, leg.why)
"""
from __future__ import annotations

from .model import Leg, Prerequisite, Route
from .plan import plan_route

__all__ = ["Leg", "Prerequisite", "Route", "plan_route"]
