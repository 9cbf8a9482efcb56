"""One output table paired with one paper table (`mapping.py` does the pairing): the cells compared on one scale,
the orderings checked, the verdict, and how each is said in a checklist note and the report."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

from ..tables.numbers import parse_number

ORDERING_HOLDS = 0.75


@dataclass
class Cell:
    row: str
    column: str
    paper: str
    produced: str
    kind: str
    """equal | close | far"""
    gap: float
    """The difference on the comparison scale: points for rates, a fraction of the paper's value otherwise."""
    unit: str
    """points | relative"""
    scaled: float | None = None
    """The produced value on the comparison scale (x100 for fractions against the paper's percentages)."""
    signed: float = 0.0
    """The produced value minus the paper's, on the comparison scale (points, or a fraction of the paper's value)."""

    def on_scale(self, percent: bool) -> str:
        """The produced value as it is compared: `84.1%` for a fraction against the paper's percentage."""
        if self.scaled is None or not percent or "%" in self.produced:
            return self.produced
        return f"{self.scaled:.{max(1, _decimals(self.paper))}f}%"

    def difference(self) -> str:
        """The signed difference in the comparison's unit: `−3.2 points`, `+12%`."""
        if self.kind == "equal":
            return "equal at printed precision"
        sign = "−" if self.signed < 0 else "+"
        return f"{sign}{abs(self.signed):.1f} points" if self.unit == "points" else f"{sign}{abs(self.signed):.0%}"

    def describe(self) -> str:
        where = f"{self.row} / {self.column}"
        if self.kind == "equal":
            return f"{where}: {self.produced} = paper {self.paper}"
        gap = f"{self.gap:.1f} points" if self.unit == "points" else f"{self.gap:.0%}"
        return f"{where}: {self.produced} against paper {self.paper}, differs by {gap}"


@dataclass
class StructureMap:
    """How one output maps to one paper table."""

    table: str
    source: str
    rows: list[str]
    """Paper row labels found in the output (with the output's spelling after "=" where it differs)."""
    columns: list[str]
    cells: list[Cell] = field(default_factory=list)
    scale: str = "as printed"
    ordered_pairs: int = 0
    concordant: int = 0
    verdict: str = "differs"
    reduced: bool = False
    closest_row: str | None = None
    """For a one-row output: the paper row it was held against."""
    comparable: str = ""
    """Why the output does not hold the paper table's quantity ('' when it does): then no cell is judged."""
    output: int = 0
    """Which table of the source text (in reading order) this is."""
    kinds: list[str] = field(default_factory=list)
    """The quantity kinds the paper table states (time, count, rate, p-value, error, memory)."""
    percent: bool = False
    """The comparison is on the paper's percentage scale."""

    @property
    def labels(self) -> int:
        return len(self.rows) + len(self.columns)

    @property
    def ordering_holds(self) -> bool | None:
        return None if not self.ordered_pairs else self.concordant >= ORDERING_HOLDS * self.ordered_pairs

    def counts(self) -> dict[str, int]:
        return {k: sum(c.kind == k for c in self.cells) for k in ("equal", "close", "far")}

    def _unlike(self) -> str:
        labels = ", ".join((self.rows + self.columns)[:4]) + (" …" if self.labels > 4 else "")
        return (f"{self.source} shares labels with {self.table} ({labels}) but not its quantity: {self.comparable}; "
                "not compared")

    def describe(self, limit: int = 6) -> str:
        if self.comparable:
            return self._unlike()
        n = self.counts()
        order = ("" if self.ordering_holds is None else
                 f"; the paper's ordering {'holds' if self.ordering_holds else 'does not hold'} "
                 f"({self.concordant} of {self.ordered_pairs} ordered pairs)")
        scale = "" if self.scale == "as printed" else f" ({self.scale})"
        against = f", held against the paper's row {self.closest_row}" if self.closest_row else ""
        head = (f"{self.source} maps to {self.table}: labels {', '.join((self.rows + self.columns)[:8])}{against}; "
                f"{len(self.cells)} cells compared{scale}: {n['equal']} equal at printed precision, {n['close']} "
                f"close, {n['far']} far off{order}")
        if self.reduced:
            head += "; the run was reduced, so its values are not expected to equal the paper's"
        diffs = [c.describe() for c in self.cells if c.kind != "equal"][:limit]
        return head + (" — " + "; ".join(diffs) if diffs else "")

    def short(self) -> str:
        """The same in a checklist note's room: counts, ordering, and the largest difference."""
        if self.comparable:
            return self._unlike()
        n = self.counts()
        source = self.source if len(self.source) <= 60 else self.source[:57] + "…`"
        labels = ", ".join((self.rows + self.columns)[:4]) + (" …" if self.labels > 4 else "")
        text = (f"{source} maps to {self.table} ({labels}): {len(self.cells)} cells, {n['equal']} equal, "
                f"{n['close']} close, {n['far']} far")
        if self.ordering_holds is not None:
            text += f"; ordering {'holds' if self.ordering_holds else 'does not hold'} " \
                    f"({self.concordant}/{self.ordered_pairs})"
        if self.reduced:
            text += "; reduced run"
        if self.scale != "as printed":
            text += "; fractions against percentages" if "fractions against" in self.scale else "; percentages " \
                    "against fractions"
        worst = max((c for c in self.cells if c.kind != "equal"), key=lambda c: c.gap, default=None)
        return text + (f"; largest: {worst.describe()}" if worst else "")

    def to_dict(self) -> dict:
        cells = [{**asdict(c), "on_scale": c.on_scale(self.percent), "difference": c.difference()} for c in self.cells]
        return {**asdict(self), "cells": cells, "labels": self.labels, "short": self.short(),
                "ordering_holds": self.ordering_holds, "counts": self.counts(), "description": self.describe()}


def _decimals(text: str) -> int:
    found = parse_number(text)
    return found.decimals if found is not None else 2
