"""What an agent may see of a table: obfuscated, partially revealed, rendered as Markdown."""
from __future__ import annotations

import re
from collections.abc import Iterable

from .compare import CellResult, Comparison, norm_label
from .model import Table


def obfuscate(table: Table) -> Table:
    """Hide every digit of numeric cells, so an agent cannot copy the paper's numbers into its output."""
    out = table.model_copy(deep=True)
    for r, c in table.numeric_cells():
        out.rows[r][c] = re.sub(r"\d", "?", out.rows[r][c])
    return out


def hide_numbers(text: str, tables: list[Table]) -> str:
    """The text with every value of the tables' numeric cells obfuscated wherever it appears (tables and prose);
    values of one digit stay, so "Table 2" still reads as a label."""
    values = {t.rows[r][c].strip() for t in tables for r, c in t.numeric_cells()}
    for value in sorted((v for v in values if len(re.findall(r"\d", v)) >= 2), key=len, reverse=True):
        text = re.sub(rf"(?<![\w.]){re.escape(value)}(?![\w])", lambda m: re.sub(r"\d", "?", m.group()), text)
    return text


def reveal(expected: Table, comparison: Comparison) -> Table:
    """The obfuscated table with the cells already reproduced shown in clear."""
    out = obfuscate(expected)
    positions = expected.numeric_cells()
    if len(positions) == len(comparison.cells):  # cells were produced in numeric_cells() order
        pairs: Iterable[tuple[tuple[int, int], CellResult]] = zip(positions, comparison.cells)
    else:
        head = lambda c: norm_label(expected.header[c]) if c < len(expected.header) else ""  # noqa: E731
        pairs = ((p, cell) for cell in comparison.cells for p in positions
                 if expected.rows[p[0]][0] == cell.row and head(p[1]) == norm_label(cell.column))
    for (r, c), cell in pairs:
        if cell.matched and expected.rows[r][c] == cell.expected:
            out.rows[r][c] = expected.rows[r][c]
    return out


def render_markdown(table: Table) -> str:
    width = max([len(table.header)] + [len(r) for r in table.rows] + [1])
    esc = lambda s: str(s).replace("|", "\\|").replace("\n", " ")  # noqa: E731
    line = lambda r: "| " + " | ".join(esc(c) for c in list(r) + [""] * (width - len(r))) + " |"  # noqa: E731
    out = []
    if table.label or table.caption:
        out += [f"**{table.label}.** {table.caption}".strip() if table.label else table.caption, ""]
    out += [line(table.header), "|" + "---|" * width] + [line(r) for r in table.rows]
    return "\n".join(out)
