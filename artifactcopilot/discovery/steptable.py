"""Steps documented as a Markdown table: a "Command" column whose cells hold the commands in inline code, in the
table's order (or the order its "Step" column numbers), and an optional "Output" column stating what each writes.

    | Step | Command                         | Output               |
    |------|---------------------------------|----------------------|
    | 1    | `python3 prepare.py`            | `data/clean.csv`     |
    | 2    | `python3 analyse.py`            | `results/table1.csv` |

A table without such a column (a mapping of outputs to paper tables, a list of requirements) holds no steps.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

COMMAND_HEAD = re.compile(r"^(commands?|cmd|command line|how to run|invocation|run(ning)?|script to run)$", re.I)
OUTPUT_HEAD = re.compile(r"^(outputs?|produces|result(s| files?)?|generates|writes|output files?|creates)$", re.I)
ORDER_HEAD = re.compile(r"^(steps?|#|no\.?|n(o|um)?\.?|order|stage|phase)$", re.I)
CODE = re.compile(r"`([^`\n]+)`")
PATH_WORD = re.compile(r"^[\w.\-/*{}]+\.[A-Za-z]\w{0,7}/?$|^[\w.\-]+/[\w.\-/]*$")


@dataclass
class TableStep:
    cmd: str
    row: str
    """The whole row's text (the words around the command: paper objects, what it is for)."""
    index: int
    """0-based row number (header excluded), for its line."""
    outputs: list[str] = field(default_factory=list)


def _head(cell: str) -> str:
    return cell.replace("`", "").replace("*", "").strip()


def _outputs(cell: str) -> list[str]:
    found = CODE.findall(cell) or [w.strip(",;") for w in cell.split()]
    return [w for w in (f.strip() for f in found) if PATH_WORD.match(w) and "://" not in w]


def table_steps(rows: list[list[str]]) -> list[TableStep]:
    """The commands a step table documents, in run order; [] for any other table."""
    if len(rows) < 2:
        return []
    head = [_head(c) for c in rows[0]]
    command = next((i for i, h in enumerate(head) if COMMAND_HEAD.match(h)), None)
    if command is None:
        return []
    output = next((i for i, h in enumerate(head) if OUTPUT_HEAD.match(h)), None)
    order = next((i for i, h in enumerate(head) if ORDER_HEAD.match(h)), None)
    body = [r for r in rows[1:] if len(r) > command]
    with_code = [r for r in body if CODE.search(r[command])]
    if not with_code or len(with_code) * 2 < len(body):
        return []
    steps = []
    for index, row in enumerate(body):
        outs = _outputs(row[output]) if output is not None and output < len(row) else []
        for cmd in CODE.findall(row[command]):
            steps.append(TableStep(cmd.strip(), " ".join(row), index, outs))
    if order is not None:
        numbers = [_number(r[order]) if order < len(r) else None for r in body]
        if all(n is not None for n in numbers):
            rank = {i: n for i, n in enumerate(numbers)}
            steps.sort(key=lambda s: (rank[s.index], s.index))
    return steps


def _number(cell: str) -> float | None:
    match = re.match(r"^\s*(?:step\s*)?(\d+(?:\.\d+)?)", _head(cell), re.I)
    return float(match.group(1)) if match else None
