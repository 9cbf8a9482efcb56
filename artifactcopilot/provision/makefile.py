"""The recipe lines `make [targets]` would run, read from a Makefile without running make.

Enough of make for install targets: simple variable assignments (=, :=, ?=, +=) expanded in targets and
recipes, the default goal (first target), prerequisites followed recursively. Conditionals keep every branch.
"""
from __future__ import annotations

import re

_ASSIGN = re.compile(r"^\s*(?:export\s+|override\s+)?([A-Za-z_][\w.-]*)\s*(\?=|:=|::=|\+=|=)\s*(.*)$")
_RULE = re.compile(r"^([^\s:=#][^:=#]*?)\s*::?(?!=)\s*([^=]*)$")
_REF = re.compile(r"\$\(([\w.-]+)\)|\$\{([\w.-]+)\}")


def _expand(text: str, variables: dict[str, str], depth: int = 0) -> str:
    if depth > 8:
        return text
    out = _REF.sub(lambda m: variables.get(m.group(1) or m.group(2), m.group(0)), text)
    return _expand(out, variables, depth + 1) if out != text and _REF.search(out) else out


def recipes(text: str, goals: list[str]) -> list[str]:
    """Recipe lines (expanded) for `goals` (the default goal when empty) and their prerequisites, in order."""
    variables: dict[str, str] = {}
    rules: dict[str, tuple[list[str], list[str]]] = {}
    order: list[str] = []
    current: list[str] | None = None
    for raw in text.replace("\\\n", " ").splitlines():
        if raw.startswith("\t") and current is not None:
            current.append(raw.strip())
            continue
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        if match := _ASSIGN.match(line):
            name, op, value = match.groups()
            variables[name] = (variables.get(name, "") + " " + value).strip() if op == "+=" else \
                variables.get(name, value) if op == "?=" else value.strip()
            current = None
        elif match := _RULE.match(line):
            current = []
            prereqs = _expand(match.group(2), variables).split()
            for target in _expand(match.group(1), variables).split():
                if target.startswith("."):
                    continue
                rules[target] = (prereqs, current)
                order.append(target)
        else:
            current = None
    wanted = goals or order[:1]
    seen: set[str] = set()
    out: list[str] = []

    def visit(target: str) -> None:
        if target in seen or target not in rules:
            return
        seen.add(target)
        prereqs, lines = rules[target]
        for prereq in prereqs:
            visit(prereq)
        out.extend(e for line in lines if (e := _expand(line, variables).lstrip("@-+ ")))

    for goal in wanted:
        visit(goal)
    return out
