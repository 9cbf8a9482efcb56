"""D5's transfer on a new configuration: a parameter the documentation calls tunable ("parameter(s): c", "x0 (starting
point)") that the script of a valid run sets at its top level is given another value in a copy of the script beside
it (the artifact's file is unchanged), and the documented command runs the copy. The case is validated only when the
copy gives valid output that differs from the documented run's: a parameter that changes nothing shows no transfer.
A value that sets how much work a run does (rounds, epochs, trials) is a reduction, never a transfer.
"""
from __future__ import annotations

import ast
import base64
import posixpath
import re
import shlex

from ... import shell as sh
from ...discovery.reduce import KNOB
from ...interventions import Action
from ...tools import PhaseTools

TRANSFER_SUFFIX = "_transfer"


def _assignments(source: str) -> dict[str, tuple[float | int, int, int]]:
    """Top-level numeric constants: name -> (value, line, column of the literal)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value
            if isinstance(value, ast.Constant) and isinstance(value.value, (int, float)) \
                    and not isinstance(value.value, bool):
                out[node.targets[0].id] = (value.value, value.lineno, value.col_offset)
    return out


def new_value(value: float | int) -> float | int:
    """Another value of a parameter, of its type: twice it, or 1 for a zero."""
    if isinstance(value, int):
        return value * 2 if value else 1
    return round(value * 2, 6) if value else 0.5


def parameter_case(tools: PhaseTools, runs: list[dict], parameters: list[str],
                   reduced: set[str]) -> dict | None:
    """The first valid run whose Python driver sets a documented parameter: the command on a copy of the driver with
    that parameter changed ({"script", "setup", "what", "run", "copy"}), or None."""
    names = [p for p in parameters if not KNOB.match(p) and p not in reduced]
    for run in runs:
        try:
            words = sh.split(run["script"])
        except ValueError:
            continue
        index = next((i for i, w in enumerate(words[1:], 1) if w.endswith(".py")), None)
        if not words or not re.fullmatch(r"(\S*/)?python[\d.]*", words[0]) or index is None:
            continue
        rel = posixpath.normpath(posixpath.join(run.get("cwd") or ".", words[index]))
        source = tools.read_output(rel, 2_000_000) or tools.read_file(rel, 2_000_000) or ""
        found = _assignments(source)
        name = next((n for n in names if n in found), None)
        if name is None:
            continue
        value, line, column = found[name]
        changed = _rewrite(source, line, column, new_value(value))
        if changed is None:
            continue
        copy = f"{posixpath.splitext(rel)[0]}{TRANSFER_SUFFIX}.py"
        encoded = base64.b64encode(changed.encode("utf-8")).decode("ascii")
        words[index] = f"{posixpath.splitext(words[index])[0]}{TRANSFER_SUFFIX}.py"
        return {"script": shlex.join(words), "copy": copy, "run": run,
                "setup": f"printf %s {encoded} | base64 -d > {shlex.quote(copy)}",
                "what": f"the documented parameter {name} set to {new_value(value)} instead of {value} (in the copy "
                        f"{copy}; the artifact's file is unchanged)"}
    return None


def _rewrite(source: str, line: int, column: int, value: float | int) -> str | None:
    lines = source.splitlines(keepends=True)
    row = lines[line - 1].encode("utf-8")
    literal = re.match(rb"[-+]?[\d.eE_+]+", row[column:])
    if literal is None:
        return None
    lines[line - 1] = (row[:column] + repr(value).encode() + row[column + literal.end():]).decode("utf-8")
    return "".join(lines)


def write_copy(tools: PhaseTools, case: dict) -> bool:
    res = tools.run_setup(case["setup"], Action("evaluate", f"write {case['copy']}: {case['what']}"),
                          f"a new configuration for the transfer case: {case['what']}", network=False, timeout=60)
    return res.record.ok
