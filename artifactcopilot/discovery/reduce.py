"""Reduced runs: where a long experiment's driver lets a reviewer make it smaller, and the command that does.

When the documentation offers no reduced mode and the full run does not fit the budget, a reviewer looks at the
driver a documented command runs for the knob that sets how much work it does — the number of days simulated,
epochs, iterations, trials, runs, samples — and sets it to a smaller value: a command-line option (argparse
`add_argument("--days", type=int, default=365)`), else a top-level constant (`NUM_DAYS = 365`), whose reduced value
goes into a copy of the driver next to it (the artifact's own file is never rewritten). Pure: reads files only.
"""
from __future__ import annotations

import ast
import base64
import posixpath
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass

from .. import shell as sh
from ..shell import Loop, for_loop

# fmt: off
KNOB = re.compile(
    r"^(?:n|nb|num|number|max|total|n_?total)?[_-]?(?:of[_-])?"
    r"(days?|epochs?|iters?|iterations?|steps?|trials?|runs?|rounds?|episodes?|reps?|repeats?|repetitions?|"
    r"samples?|simulations?|sims?|generations?|experiments?|queries|instances?|games?|years?|months?|weeks?|"
    r"hours?|minutes?|seconds?|duration|ticks?|timesteps?|evals?|evaluations?)$"
    r"|^(?:n|nb|num|test|repeat|run|trial|sample)?[_-]?times$", re.I)
# fmt: on
"""Names of parameters that set how much work a run does (not how it is done: batch sizes, rates, seeds)."""
MIN_FULL = 4
"""A knob whose full value is smaller than this is not worth reducing."""
REDUCED_SUFFIX = "_reduced"


@dataclass
class Reduction:
    """A smaller run of a documented command: what changes and how the review runs it."""

    script: str
    """The command to run instead."""
    parameter: str
    full: int
    reduced: int
    where: str
    """'option --days of sim.py' or 'constant NUM_DAYS of sim.py'."""
    copy: str | None = None
    """For a constant: the reduced copy of the driver (artifact-relative) that `setup` writes."""
    setup: str | None = None

    @property
    def text(self) -> str:
        return f"RW5-reduced: {self.where} set to {self.reduced} instead of {self.full}" + (
            f" (in the copy {self.copy}; the artifact's file is unchanged)" if self.copy else "")


def _driver(words: list[str]) -> tuple[int, str] | None:
    """(index, path) of the Python file a command runs (`python sim.py ...`, `python3 -u sim.py`)."""
    if not words or not re.fullmatch(r"(\S*/)?python(\d(\.\d+)?)?", words[0]):
        return None
    for i, word in enumerate(words[1:], 1):
        if word.endswith(".py"):
            return i, word
        if not word.startswith("-") or word in ("-m", "-c"):
            return None
    return None


def _value(node: ast.expr | None) -> int | None:
    """A whole number written as a literal: 365, 1e6, int(1e6)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "int" and len(node.args) == 1:
        node = node.args[0]
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return int(node.value) if float(node.value).is_integer() and node.value >= 0 else None
    return None


def _top_level(tree: ast.Module) -> list[ast.stmt]:
    """The driver's top-level statements, with those under `if __name__ == "__main__":`."""
    out: list[ast.stmt] = []
    for node in tree.body:
        main = isinstance(node, ast.If) and "__main__" in ast.dump(node.test)
        out += node.body if main and isinstance(node, ast.If) else [node]
    return out


def _option(tree: ast.AST) -> tuple[str, int] | None:
    """An argparse option that sets the amount of work, with its default."""
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument"):
            continue
        flags = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        long_flag = next((f for f in flags if f.startswith("--")), None)
        default = next((_value(k.value) for k in node.keywords if k.arg == "default"), None)
        if long_flag and default is not None and default >= MIN_FULL and KNOB.match(long_flag[2:]):
            return long_flag, default
    return None


Knob = tuple[str, int, int, int]
"""(name, full value, line, column of the literal)."""


COMMENT_KNOB = re.compile(r"#.*\b(rounds?|iterations?|trials?|runs?|repetitions?|simulations?|epochs?|samples?|days?|"
                          r"steps?|episodes?|generations?)\b", re.I)
"""A trailing comment that says what a terse constant counts (`RD = 100000000  # rounds of simulation`)."""


def _constants(tree: ast.Module, lines: list[str] | None = None) -> list[Knob]:
    """Top-level (or main-block) constants that set the amount of work, else the literals the top level passes to a
    work-amount parameter of the driver's own function (`run_experiment(fn, eps, 100, 1000)` with `num_runs` fourth),
    else the counts of repetition loops: every place of the first kind found."""
    found: list[Knob] = []
    for node in _top_level(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name, value = node.targets[0].id, _value(node.value)
            said = lines is not None and len(lines) >= node.lineno and COMMENT_KNOB.search(lines[node.lineno - 1])
            if value is not None and value >= MIN_FULL and (KNOB.match(name) or said):
                found.append((name, value, node.value.lineno, node.value.col_offset))
    if found:
        return found
    params = {f.name: [a.arg for a in f.args.args] for f in tree.body if isinstance(f, ast.FunctionDef)}
    for node in _top_level(tree):
        if not isinstance(node, (ast.Assign, ast.Expr)):
            continue
        for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
            func = call.func.id if isinstance(call.func, ast.Name) else ""
            pairs = list(zip(params.get(func, []), call.args)) + [(k.arg or "", k.value) for k in call.keywords]
            found += [(f"{func}({param}=…)", value, arg.lineno, arg.col_offset) for param, arg in pairs
                      if (value := _value(arg)) is not None and value >= MIN_FULL and KNOB.match(param)]
    return found or _repetitions(tree)


def _repetitions(tree: ast.Module) -> list[Knob]:
    """Repetition loops, `for _ in range(1000):` (the loop variable unused by name): their counts."""
    found: list[Knob] = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.For) and isinstance(node.target, ast.Name) and node.target.id == "_"
                and isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Name)
                and node.iter.func.id == "range" and len(node.iter.args) == 1):
            value, arg = _value(node.iter.args[0]), node.iter.args[0]
            if value is not None and value >= 10 * MIN_FULL:
                found.append((f"repetitions `for _ in range({value})`", value, arg.lineno, arg.col_offset))
    return found


def _rewrite(source: str, knobs: list[Knob], done: tuple[int, int] | None) -> str | None:
    """The driver's text with every knob's literal set to its reduced value (None when a literal is not where the
    parser put it)."""
    text = source.splitlines(keepends=True)
    for _, full, line, column in sorted(knobs, key=lambda k: (k[2], k[3]), reverse=True):
        row = text[line - 1].encode("utf-8")  # ast columns count bytes
        literal = re.match(rb"int\([^()]*\)|[\d.eE+_]+", row[column:])
        if literal is None:
            return None
        text[line - 1] = (row[:column] + str(reduced_value(full, done)).encode()
                          + row[column + literal.end():]).decode("utf-8")
    return "".join(text)


def reduced_value(full: int, done: tuple[int, int] | None = None) -> int:
    """A tenth of the full amount (a hundredth from a thousand up), and no more than a third of what a cut run got
    through when its progress counted against this amount (`done` = (done, total), total == full)."""
    value = max(1, full // (100 if full >= 1000 else 10))
    return max(1, min(value, done[0] // 3)) if done and done[1] == full else value


def _with_option(words: list[str], flag: str, value: int) -> list[str]:
    out, i = [], 0
    while i < len(words):
        if words[i] == flag and i + 1 < len(words):
            i += 2
            continue
        if words[i].startswith(flag + "="):
            i += 1
            continue
        out.append(words[i])
        i += 1
    return out + [flag, str(value)]


def _fewer_items(script: str, loop: Loop, done: tuple[int, int] | None) -> Reduction | None:
    """A documented `for` loop over written items runs over fewer of them (the first ones), as written otherwise."""
    full = len(loop.items)
    if full < MIN_FULL:
        return None
    reduced = reduced_value(full, done)
    start, end = loop.span
    smaller = script[:start] + " ".join(shlex.quote(item) for item in loop.items[:reduced]) + script[end:]
    return Reduction(smaller, f"items of `for {loop.name} in …`", full, reduced,
                     f"the item count of the documented loop `for {loop.name} in …` (its first items kept)")


def find_reduction(script: str, cwd: str, read: Callable[[str], str | None], done: tuple[int, int] | None = None,
                   ) -> Reduction | None:
    """The reduced form of a command that runs a Python driver with a work-amount knob, or None."""
    loop = for_loop(script.strip())
    if loop is not None:
        return _fewer_items(script.strip(), loop, done)
    lines = script.strip().splitlines()
    if len(lines) != 1:
        return None
    try:
        words = sh.split(lines[0])
    except ValueError:
        return None
    found = _driver(words)
    if found is None:
        return None
    index, path = found
    rel = posixpath.normpath(posixpath.join(cwd, path)) if cwd not in ("", ".") else posixpath.normpath(path)
    source = read(rel)
    try:
        tree = ast.parse(source or "")
    except (SyntaxError, ValueError):
        return None
    option = _option(tree)
    if option:
        flag, full = option
        reduced = reduced_value(full, done)
        return Reduction(shlex.join(_with_option(words, flag, reduced)), flag, full, reduced,
                         f"option {flag} of {path}")
    knobs = _constants(tree, (source or "").splitlines()) if source is not None else []
    written = _rewrite(source or "", knobs, done) if knobs else None
    if not knobs or written is None:
        return None
    name, full = knobs[0][0], knobs[0][1]
    reduced = reduced_value(full, done)
    copy_rel = f"{posixpath.splitext(rel)[0]}{REDUCED_SUFFIX}.py"
    copy_arg = f"{posixpath.splitext(path)[0]}{REDUCED_SUFFIX}.py"
    encoded = base64.b64encode(written.encode("utf-8")).decode("ascii")
    setup = f"printf %s {encoded} | base64 -d > {shlex.quote(copy_rel)}"
    words[index] = copy_arg
    kind = "loop" if name.startswith("repetitions") else "argument" if "(" in name else "constant"
    places = f" (and {len(knobs) - 1} more place{'s' if len(knobs) > 2 else ''})" if len(knobs) > 1 else ""
    return Reduction(shlex.join(words), name, full, reduced, f"{kind} {name}{places} of {path}", copy_rel, setup)
