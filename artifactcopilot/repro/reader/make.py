"""Makefiles: the recipes of the requested targets (and of the targets they depend on), as shell commands.

A careful tokenizer, not a make: rules `target: prerequisites`, recipe lines (tab-indented),
`VAR = value` / `:=` / `?=` / `+=` assignments, `$(VAR)`/`${VAR}` and the automatic variables
`$@`, `$<`, `$^`. Conditionals and functions are left as written (their text still names files).
"""
from __future__ import annotations

import re

from .context import Context
from .shell import read_shell

RULE = re.compile(r"^([^\s:=#][^:=#]*?)\s*::?\s*(?!=)(.*)$")
ASSIGN = re.compile(r"^(?:export\s+|override\s+)?([A-Za-z_][\w.-]*)\s*(\?=|:=|::=|\+=|=|!=)\s*(.*)$")
MAX_RULES = 200


def parse(text: str) -> tuple[dict[str, tuple[list[str], list[str]]], list[str], dict[str, str]]:
    """(rules: target -> (prerequisites, recipe lines), targets in order, variables)."""
    rules: dict[str, tuple[list[str], list[str]]] = {}
    order: list[str] = []
    variables: dict[str, str] = {}
    current: list[str] = []
    lines = text.replace("\\\n", " ").split("\n")
    for line in lines:
        if line.startswith("\t"):
            for t in current:
                rules[t][1].append(line.strip())
            continue
        stripped = line.split("#", 1)[0].rstrip() if not line.lstrip().startswith("\t") else line
        if not stripped.strip():
            continue
        m = ASSIGN.match(stripped.strip())
        if m and not RULE.match(stripped.strip()) or (m and m.group(2) in (":=", "::=", "?=", "+=", "!=")):
            name, op, value = m.groups()
            if op == "+=":
                variables[name] = (variables.get(name, "") + " " + value).strip()
            elif op != "?=" or name not in variables:
                variables[name] = value
            current = []
            continue
        m = RULE.match(stripped.strip())
        if m and len(rules) < MAX_RULES:
            targets = m.group(1).split()
            prereq, _, inline = m.group(2).partition(";")
            current = [t for t in targets if not t.startswith(".")]
            for t in current:
                rules.setdefault(t, ([], []))
                rules[t][0].extend(prereq.split())
                if inline.strip():
                    rules[t][1].append(inline.strip())
                if t not in order:
                    order.append(t)
            continue
        current = []
    return rules, order, variables


def _expand(text: str, variables: dict[str, str], target: str, prereqs: list[str], depth: int = 0) -> str:
    def sub(m: re.Match) -> str:
        name = m.group(1) or m.group(2) or m.group(3)
        if name == "@":
            return target
        if name == "<":
            return prereqs[0] if prereqs else ""
        if name in ("^", "+"):
            return " ".join(prereqs)
        if name in variables and depth < 5:
            return _expand(variables[name], variables, target, prereqs, depth + 1)
        return "*" if re.fullmatch(r"[\w.-]+", name or "") else m.group(0)
    text = re.sub(r"\$\(([\w.-]+)\)|\$\{([\w.-]+)\}|\$([@<^+])", sub, text)
    return text.replace("$$", "$")


def read_makefile(ctx: Context, text: str, targets: list[str], cwd: str = "", line: int = 0) -> None:
    rules, order, variables = parse(text)
    wanted = targets or order[:1]
    done: set[str] = set()

    def build(target: str, depth: int) -> None:
        if target in done or depth > 12 or target not in rules:
            return
        done.add(target)
        prereqs, recipe = rules[target]
        expanded = [_expand(p, variables, target, prereqs) for p in prereqs]
        for p in expanded:
            for one in p.split():
                build(one, depth + 1)
        for cmd in recipe:
            cmd = _expand(cmd.lstrip("@-+ "), variables, target, expanded)
            if cmd.strip():
                read_shell(ctx, cmd, cwd, line)

    for t in wanted:
        build(t, 0)
    if not any(t in rules for t in wanted):
        ctx.reading.notes.append(f"the Makefile has no rule for {' '.join(wanted) or 'its default target'}")
