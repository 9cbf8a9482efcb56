"""The Table model and header detection shared by every parser."""
from __future__ import annotations

from functools import lru_cache

from pydantic import BaseModel, Field

from .numbers import parse_number


class Table(BaseModel):
    label: str | None = None
    caption: str = ""
    header: list[str] = Field(default_factory=list)
    rows: list[list[str]] = Field(default_factory=list, description="Each row's first cell is its label.")
    ref: str | None = Field(None, description="LaTeX \\label{} key, so paper text can resolve \\ref{}.")

    def numeric_cells(self) -> list[tuple[int, int]]:
        return [(r, c) for r, row in enumerate(self.rows) for c, cell in enumerate(row)
                if c > 0 and parse_number(cell) is not None]


@lru_cache(maxsize=1 << 16)
def is_number_cell(cell: str) -> bool:
    return parse_number(cell) is not None


def make_table(rows: list[list[str]], header: list[str] | None = None) -> Table:
    """Build a table, guessing the header row when none is given, padding rows to one width."""
    if header is None:
        header, rows = (rows[0], rows[1:]) if _looks_like_header(rows) else ([], rows)
    width = max([len(header)] + [len(r) for r in rows])
    pad = lambda r: [c.strip() for c in r] + [""] * (width - len(r))  # noqa: E731
    return Table(header=pad(header), rows=[pad(r) for r in rows])


def _looks_like_header(rows: list[list[str]]) -> bool:
    first = [parse_number(c) for c in rows[0][1:]]
    if not any(p is not None for p in first):
        return True
    # "Model 2019 2020" over "ResNet 0.91 0.92": integer years above decimals are labels.
    later = [parse_number(c) for r in rows[1:] for c in r[1:]]
    return (all(p is None or p.decimals == 0 for p in first)
            and any(p is not None and p.decimals > 0 for p in later))


def split_header(rows: list[list[str]]) -> Table:
    """LaTeX headers often span 2-3 rows (\\multicolumn groups); merge rows above the first numbers."""
    k = next((i for i, r in enumerate(rows) if any(is_number_cell(c) for c in r[1:])), 1)
    k = max(1, min(k, 3))
    width = max(len(r) for r in rows[:k])
    header = []
    for c in range(width):
        parts: list[str] = []
        for r in rows[:k]:
            if c < len(r) and r[c] and r[c] not in parts:
                parts.append(r[c])
        header.append(" ".join(parts))
    return make_table(rows[k:], header)


# ---- LaTeX

