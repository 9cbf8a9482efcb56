"""New inputs of a documented form, written by the reviewer for a transfer case (D5).

Reuse is shown on input the artifact has never seen, built from what the documentation and the artifact's own
example say the input looks like — never the example itself:
- a code-analysis tool given a folder of Python code gets a small new package (modules that import and call each
  other, a class with a subclass, a deprecated-style call, a decorator);
- a data tool given a CSV/TSV gets a new table with the same columns, whose rows recombine the column values of
  the example so that no row of the example repeats;
- a tool reading JSON lines gets new records with the example's keys, values recombined across records;
- a SAT/CNF tool given a DIMACS file gets a new small satisfiable formula in that format.
Each builder returns {relative path: content} or None when the example is not of its form.
"""
from __future__ import annotations

import csv
import io
import json
import re
from pathlib import PurePosixPath

from ._base import Record

CNF_HEADER = re.compile(r"(?m)^p\s+cnf\s+(\d+)\s+(\d+)\s*$")


class NewInput(Record):
    """A new input: the form it follows, what it was built from, and its files (relative to the transfer folder)."""

    form: str
    built_from: str
    path: str
    files: dict[str, str]


PACKAGE = {
    "__init__.py": '"""A small package written for a transfer case."""\nfrom .shapes import Circle, Square\n\n'
                   '__all__ = ["Circle", "Square"]\n',
    "shapes.py": 'import math\nimport warnings\n\nfrom .util import clamp, logged\n\n\n'
                 'class Shape:\n    def area(self):\n        raise NotImplementedError\n\n\n'
                 'class Circle(Shape):\n    def __init__(self, r):\n        self.r = clamp(r, 0, 100)\n\n'
                 '    @logged\n    def area(self):\n        return math.pi * self.r ** 2\n\n\n'
                 'class Square(Shape):\n    def __init__(self, side):\n        self.side = clamp(side, 0, 100)\n\n'
                 '    @logged\n    def area(self):\n        return self.side * self.side\n\n'
                 '    def old_area(self):\n        warnings.warn("old_area is deprecated; use area", '
                 'DeprecationWarning)\n        return self.area()\n',
    "util.py": 'import functools\nimport os.path\n\n\ndef clamp(x, lo, hi):\n    return max(lo, min(hi, x))\n\n\n'
               'def logged(fn):\n    @functools.wraps(fn)\n    def inner(*args, **kwargs):\n'
               '        return fn(*args, **kwargs)\n    return inner\n\n\n'
               'def here():\n    return os.path.dirname(os.path.abspath(__file__))\n',
    "main.py": 'from .shapes import Circle, Square\nfrom .util import here\n\n\ndef total(shapes):\n'
               '    return sum(s.area() for s in shapes)\n\n\ndef main():\n'
               '    print(here(), total([Circle(1.5), Square(2)]))\n\n\nif __name__ == "__main__":\n    main()\n',
}


def python_package(example_dir: str, target: str) -> NewInput:
    """A small new Python package (a folder of modules) for a tool that analyses Python code."""
    files = {f"{target}/setup.py": 'from setuptools import setup\n\nsetup(name="transfer_pkg", version="0.1", '
                                   'packages=["transfer_pkg"])\n'}
    files.update({f"{target}/transfer_pkg/{name}": text for name, text in PACKAGE.items()})
    return NewInput(form="a Python package (folder of modules)", built_from=example_dir, path=target, files=files)


def _recombine(columns: list[list[str]], rows: int) -> list[list[str]]:
    """Rows whose k-th cell comes from row (i + k*shift) of column k: new combinations of the example's values."""
    n = len(columns[0])
    shift = max(1, n // 2 + 1) if n > 2 else 1
    return [[col[(i + k * shift) % n] for k, col in enumerate(columns)] for i in range(rows)]


def delimited(example: str, name: str, target: str) -> NewInput | None:
    """A new CSV/TSV with the example's header (its documented columns) and recombined rows."""
    delim = "\t" if name.lower().endswith(".tsv") or example.count("\t") > example.count(",") else ","
    rows = [r for r in csv.reader(io.StringIO(example), delimiter=delim) if any(c.strip() for c in r)]
    if len(rows) < 3 or len(rows[0]) < 2 or any(len(r) != len(rows[0]) for r in rows[1:50]):
        return None
    header, body = rows[0], rows[1:50]
    columns = [[r[k] for r in body] for k in range(len(header))]
    new = [r for r in _recombine(columns, min(len(body), 12)) if r not in body] or _recombine(columns, 1)
    out = io.StringIO()
    csv.writer(out, delimiter=delim, lineterminator="\n").writerows([header, *new])
    path = f"{target}/{PurePosixPath(name).stem}-new{PurePosixPath(name).suffix}"
    return NewInput(form=f"a {'TSV' if delim == chr(9) else 'CSV'} with the documented columns "
                    f"({', '.join(header[:6])}{' …' if len(header) > 6 else ''})",
                    built_from=name, path=path, files={path: out.getvalue()})


def json_lines(example: str, name: str, target: str) -> NewInput | None:
    """New JSON-lines records with the example's keys, each value taken from another record."""
    try:
        records = [json.loads(ln) for ln in example.splitlines()[:200] if ln.strip()]
    except ValueError:
        return None
    if len(records) < 3 or not all(isinstance(r, dict) and r for r in records):
        return None
    keys = list(records[0])
    if any(list(r) != keys for r in records):
        return None
    columns = [[json.dumps(r[k], sort_keys=True) for r in records] for k in keys]
    body = [[json.dumps(r[k], sort_keys=True) for k in keys] for r in records]
    new = [r for r in _recombine(columns, min(len(records), 12)) if r not in body] or _recombine(columns, 1)
    text = "".join(json.dumps({k: json.loads(v) for k, v in zip(keys, row)}) + "\n" for row in new)
    path = f"{target}/{PurePosixPath(name).stem}-new{PurePosixPath(name).suffix}"
    return NewInput(form=f"JSON lines with the documented keys ({', '.join(keys[:6])})", built_from=name,
                    path=path, files={path: text})


def dimacs(example: str, name: str, target: str) -> NewInput | None:
    """A new small satisfiable CNF formula in DIMACS format (every clause has a positive literal, so setting
    every variable true satisfies it)."""
    if not CNF_HEADER.search(example):
        return None
    variables = 8
    clauses = [[1, -2, 3], [2, -4], [-1, 4, 5], [3, -5, 6], [-3, 6, 7], [5, -7, 8], [-6, 8, 1], [4, -8, 2],
               [7, -1], [6, -2, -3]]
    text = f"c new formula written for a transfer case\np cnf {variables} {len(clauses)}\n" + \
        "".join(" ".join(map(str, c)) + " 0\n" for c in clauses)
    path = f"{target}/{PurePosixPath(name).stem}-new{PurePosixPath(name).suffix}"
    return NewInput(form="a CNF formula in DIMACS format", built_from=name, path=path, files={path: text})


def new_input(name: str, example: str, target: str) -> NewInput | None:
    """A new input of the example file's form, or None when its form is not one a new input can be written for."""
    lower = name.lower()
    if lower.endswith((".cnf", ".dimacs")) or CNF_HEADER.search(example[:20_000]):
        return dimacs(example, name, target)
    if lower.endswith((".jsonl", ".json", ".ndjson")):
        return json_lines(example, name, target)
    if lower.endswith((".csv", ".tsv")):
        return delimited(example, name, target)
    return None
