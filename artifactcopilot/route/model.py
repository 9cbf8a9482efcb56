"""The route: the documentation read as a plan — which paper objects it ties to which commands, where each runs,
what must happen first, what it costs and how it can be made smaller — in the order a committee member runs it."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

from ..discovery.model import Prerequisite

__all__ = ["Leg", "Prerequisite", "Route"]


@dataclass
class Leg:
    """One documented command of the route, with what the documentation says of it."""

    step: int
    """The documented step's order (discovery's numbering)."""
    cmd: str
    cwd: str
    kind: str
    source: str
    objects: list[str] = field(default_factory=list)
    """Paper objects it produces (documented beside it, named by its program, or by the scripts it runs)."""
    cost_s: float | None = None
    """Its documented cost in seconds, None when the documentation states none."""
    cost_text: str = ""
    """Where the cost comes from, as written ("~1 sec (README.md:12)", "sum of 4 scripts it runs")."""
    quick: bool = False
    """The documentation offers it as the quick/reduced way (and no stated cost says otherwise)."""
    reductions: list[Prerequisite] = field(default_factory=list)
    """Documented ways to make it smaller: options to add (`--copies 1 --small`), a value to lower in a file."""
    prerequisites: list[Prerequisite] = field(default_factory=list)
    hosts: list[str] = field(default_factory=list)
    """Hosts beyond the package registries it needs (it clones or downloads at run time)."""
    runs: list[str] = field(default_factory=list)
    """Scripts of the artifact it runs (a driver script's sub-commands)."""
    rank: int = 0
    why: str = ""
    """Why it sits where it does in the order."""

    def cost_words(self) -> str:
        return f"documented cost {self.cost_text}" if self.cost_s is not None else "no documented cost"


@dataclass
class Route:
    legs: list[Leg] = field(default_factory=list)
    """The runnable documented commands in the order the review runs them."""
    objects: list[str] = field(default_factory=list)
    """Paper objects the documentation ties to commands."""
    untied: list[str] = field(default_factory=list)
    """Paper objects the documentation names that no command is tied to."""
    prerequisites: list[Prerequisite] = field(default_factory=list)
    """Every prerequisite the documentation states (each also on the legs it precedes)."""
    notes: list[str] = field(default_factory=list)

    def leg(self, step: int) -> Leg | None:
        return next((leg for leg in self.legs if leg.step == step), None)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict | None) -> Route:
        data = data or {}
        legs = [Leg(**{**leg, "prerequisites": [Prerequisite(**p) for p in leg.get("prerequisites", [])],
                       "reductions": [Prerequisite(**p) for p in leg.get("reductions", [])]})
                for leg in data.get("legs", [])]
        return cls(legs=legs, objects=list(data.get("objects", [])), untied=list(data.get("untied", [])),
                   prerequisites=[Prerequisite(**p) for p in data.get("prerequisites", [])],
                   notes=list(data.get("notes", [])))
