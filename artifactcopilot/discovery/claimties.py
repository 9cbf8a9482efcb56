"""Documented ties of claims to experiments to commands: an artifact appendix's "(C1) … (E1) … command" read as a
mapping of the command to the claim and to the paper objects the claim names.

Artifact appendices list the paper's claims ("(C1): …", "Claim 1", "Main Result 1: … corresponds to Section 4.1
and Figure 4") and the experiments that support them ("(E1): … supports C1", "#### Experiment 1: …") with the
commands to run. Each definition runs from its line to the next definition or heading; it names paper objects
(Table 3, Figure 4) and other claims or experiments. A command inside an experiment's definition is tied to that
experiment's objects, to the claims it names (or that name it) and to their objects; a command inside a claim's
definition is tied to that claim and its objects. The ties are added to the step's mentions ("Claim 1",
"Table 3"), so the run of that command is credited to them (agents/heuristic/claimsmap.py).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import text as tx
from .model import Step

KEY = re.compile(r"\b(claims?|main results?|key results?|results?|experiments?|exp\.)\s*#?\s*(\d{1,2})\b"
                 r"|[(\[]\s*([CE])\s*(\d{1,2})\s*[)\]]"
                 r"|\b(?:claims?|experiments?)\s+((?:[CE]\d{1,2}(?:\s*(?:,|and|&|-|–)\s*)?)+)", re.IGNORECASE)
BARE = re.compile(r"\b([CE])(\d{1,2})\b")
DEFINITION = re.compile(r"^\s*(?:#{1,6}\s*|[-*+]\s+)?(?:\*\*|__)?\s*(?:[(\[]\s*([CE])\s*(\d{1,2})\s*[)\]]"
                        r"|([CE])(\d{1,2})(?=\s*[:.\-–)])"
                        r"|(claim|main result|key result|result|experiment)\s*#?\s*(\d{1,2})"
                        r"(?=\s*(?:\*\*|__)?\s*[:.\-–(]|\s*$))", re.IGNORECASE)
HEADING = re.compile(r"^\s*(#{1,6})\s+\S")


@dataclass
class Definition:
    key: str
    """"Claim 1" or "Experiment 1"."""
    source: str
    first: int
    last: int
    refs: list[str] = field(default_factory=list)
    names: set[str] = field(default_factory=set)
    """Other claims and experiments its text names."""


def _key(kind: str, number: str) -> str:
    kind = kind.lower()
    return f"{'Experiment' if kind.startswith(('e', 'exp')) else 'Claim'} {int(number)}"


def keys_in(text: str) -> set[str]:
    """The claims and experiments a text names ("supports C1 and C2", "Main Result 1", "(E2)")."""
    out: set[str] = set()
    for m in KEY.finditer(text):
        if m.group(1):
            out.add(_key(m.group(1), m.group(2)))
        elif m.group(3):
            out.add(_key(m.group(3), m.group(4)))
        else:
            out |= {_key(k, n) for k, n in BARE.findall(m.group(5))}
    return out


def _definition(line: str) -> str | None:
    m = DEFINITION.match(line)
    if not m:
        return None
    kind, number = next((m.group(i), m.group(i + 1)) for i in (1, 3, 5) if m.group(i))
    return _key(kind, number)


def definitions(path: str, text: str) -> list[Definition]:
    """The claim and experiment definitions of one document, each with its line span, refs and names."""
    lines = text.splitlines()
    out: list[Definition] = []
    ends_at = 7  # a definition that is a heading of level L ends at the next heading of level <= L; else at any
    for n, line in enumerate(lines, 1):
        heading = HEADING.match(line)
        key = _definition(line)
        if out and out[-1].last == 0 and (key or heading and len(heading.group(1)) <= ends_at):
            out[-1].last = n - 1
        if key:
            ends_at = len(heading.group(1)) if heading else 7
            out.append(Definition(key, path, n, 0))
    if out and out[-1].last == 0:
        out[-1].last = len(lines)
    for d in out:
        body = "\n".join(lines[d.first - 1:d.last])
        d.refs = tx.refs(body)
        d.names = keys_in(body) - {d.key}
    return out


def _ties(d: Definition, by_key: dict[str, list[Definition]]) -> list[str]:
    """A definition's claims and paper objects: its own, those of the claims it names, and of those naming it."""
    claims = {d.key} if d.key.startswith("Claim") else set()
    claims |= {k for k in d.names if k.startswith("Claim")}
    claims |= {o.key for defs in by_key.values() for o in defs if o.key.startswith("Claim") and d.key in o.names}
    refs = list(d.refs)
    for claim in sorted(claims):
        for other in by_key.get(claim, []):
            refs = tx.merge(refs, other.refs)
    return sorted(claims) + refs


def tie_claims(steps: list[Step], docs: list[tuple[str, str]]) -> None:
    """Add to each step the claims and paper objects its claim or experiment definition ties it to."""
    defs = [d for path, text in docs for d in definitions(path, text)]
    if not defs:
        return
    by_key: dict[str, list[Definition]] = {}
    for d in defs:
        by_key.setdefault(d.key, []).append(d)
    for step in steps:
        for source in [step.source, *step.sources]:
            path, _, line = source.rpartition(":")
            if not line.isdigit():
                continue
            inside = [d for d in defs if d.source == path and d.first <= int(line) <= d.last]
            for d in inside[-1:]:
                step.mentions = tx.merge(step.mentions, _ties(d, by_key))
