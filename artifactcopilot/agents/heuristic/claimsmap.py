"""D4's mapping of what ran to the paper's experiments (rubric WA), apart from equal numbers (A, Reproduced).

Three kinds of mapping, each with the paper object it names:
- by structure: an output table that shares labels with a paper table (`claims/mapping.py`), its values compared
  cell by cell against the paper's (equal, close, far, on one scale) and its orderings checked;
- by name: a valid run of a command the documentation or its program's name ties to a paper table or research
  question (`table2.py`, `rq1.sh`, a command under "Table 5") that wrote a data file or printed output;
- figures are D4.figures (`claimsources.plotted`), where a program's name now ties it to a paper figure too.
A mapped results table whose values contradict the paper's (far off, orderings broken, the run not reduced) is a
contradiction: D4 is WR whatever else the run produced.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...claims.labels import words
from ...claims.mapping import TOLERANCE_TEXT, StructureMap, agreement, map_each
from ...claims.paperobjects import paper_objects, tied_objects
from ...tables import Table
from ...tools import PhaseTools
from .claimsources import FIGURE_FILES, run_sources


@dataclass
class Mapping:
    """What the runs map to, with a line per mapping for the report."""

    structure: list[StructureMap] = field(default_factory=list)
    named: list[dict] = field(default_factory=list)
    roles: dict[str, str] = field(default_factory=dict)
    unlike: list[StructureMap] = field(default_factory=list)
    """Outputs that share labels with a paper table but hold another quantity (never compared)."""
    data_contradiction: str = ""
    """A data set whose recomputed counts do not hold against what the paper states (claims/datasets.py)."""

    @property
    def mapped(self) -> list[str]:
        """One line per mapping that holds (a contradiction is not a mapping that supports the paper)."""
        lines = [m.short() for m in self.structure
                 if m.verdict != "contradicts" and self.roles.get(m.table) != "descriptive"]
        return lines + [n["line"] for n in self.named]

    @property
    def contradictions(self) -> list[StructureMap]:
        """Mapped results tables whose values contradict the paper's."""
        return [m for m in self.structure if m.verdict == "contradicts" and self.roles.get(m.table) != "descriptive"]

    @property
    def descriptive(self) -> list[str]:
        return [m.describe(2) for m in self.structure if self.roles.get(m.table) == "descriptive"]

    def record(self) -> dict:
        return {"tolerance": TOLERANCE_TEXT, "structure": [m.to_dict() for m in self.structure],
                "named": self.named, "contradictions": [m.table for m in self.contradictions],
                "not_comparable": [m.to_dict() for m in self.unlike], "data_contradiction": self.data_contradiction}


def structure_maps(tools: PhaseTools, runs: list[dict]) -> tuple[list[StructureMap], list[StructureMap]]:
    """(paired, not comparable): each output table is held against the paper table it agrees with best (the same
    quantity first, then the verdict most in agreement, then the most labels), and each paper table against the
    output, among those held against it, that agrees with it best. Pairings of shared labels but another quantity
    are returned apart: they are never compared, and never contradict."""
    held: dict[tuple[str, int], StructureMap] = {}
    unlike: dict[str, StructureMap] = {}
    for run in runs:
        reduced = bool(run.get("quick") or run.get("reduced"))
        for name, text in run_sources(tools, run):
            if not text:
                continue
            for table in tools.paper_tables():
                for found in map_each(table, text, name, reduced):
                    if found.comparable:
                        unlike.setdefault(found.table, found)
                    key = (name, found.output)
                    if key not in held or agreement(found) > agreement(held[key]):
                        held[key] = found
    best: dict[str, StructureMap] = {}
    for found in held.values():
        if not found.comparable and (found.table not in best or agreement(found) > agreement(best[found.table])):
            best[found.table] = found
    return list(best.values()), [m for label, m in unlike.items() if label not in best]


MIN_NUMBERS = 3
NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?%?(?![\w.])")
TIED = ("Table", "RQ", "Claim")


def named_outputs(tools: PhaseTools, runs: list[dict]) -> list[dict]:
    """Valid runs of commands tied to a paper table, research question or claim whose output has substance. A tie
    the documentation states (a command under "Table 5", an appendix's claim -> experiment -> command, a notebook
    that "produces Table 1") is a mapping when the run wrote a data file or printed numbers (a notebook: its
    executed outputs); a tie by the program's name alone (`table2.py`) needs a written data file, or a research
    question and any output — what a name-tied command only printed is held to the table by structure instead.
    Where the paper has the table, its values are compared by structure all the same (a contradiction rules WA
    out, whatever the tie)."""
    paper = tools.ctx.paper
    objects = paper_objects([t.label or "" for t in paper.tables], paper.figures, paper.text)
    tables = {next(iter(paper_objects([t.label or ""], [], "")), t.label or ""): t for t in tools.paper_tables()}
    out = []
    for run in runs:
        command = run.get("script") or run.get("cmd") or ""
        documented = [o for o in tied_objects(command, run.get("mentions") or [], set()) if o.startswith(TIED)]
        tied = [o for o in tied_objects(command, run.get("mentions") or [], objects) if o.startswith(TIED)]
        if not tied:
            continue
        written = [f for f in (run.get("files_created") or []) + (run.get("files_modified") or [])
                   if not f.lower().endswith(FIGURE_FILES + (".log",)) and not f.startswith(".copilot/")]
        sources = run_sources(tools, run)
        printed = bool(sources and sources[0][1].strip()) or bool(run.get("executed"))
        printed_text = "\n".join(text for name, text in sources
                                 if name.startswith("stdout") or name == run.get("executed"))
        numbers = len(NUMBER.findall(printed_text))
        questions = [o for o in tied if o.startswith("RQ")]
        if written:
            objs, what = tied, f"wrote {', '.join(written[:3])}"
        elif documented and numbers >= MIN_NUMBERS and _speaks_of(documented, tables, printed_text):
            objs, what = documented, f"printed {numbers} numbers"
        elif questions and printed:
            objs, what = questions, "gave output"
        else:
            continue
        how = "documented beside it" if documented else "named after it"
        reduced = bool(run.get("quick") or run.get("reduced"))
        out.append({"command": run.get("cmd"), "objects": objs, "written": written[:6], "documented": bool(documented),
                    "evidence": run.get("evidence"), "reduced": reduced,
                    "line": f"`{run.get('cmd')}` ({how}: {', '.join(objs)}) ran validly and {what}"
                            + (" (reduced run)" if reduced else "")})
    return out


def _speaks_of(objects: list[str], tables: dict[str, Table], text: str) -> bool:
    """Whether printed output speaks of the paper tables it is tied to: it names one of a table's row labels and
    one of its column labels (`adult: laplace err 9.10`), or the tie names no table the paper has (a claim, a
    research question). Numbers under other labels (`Run Alpha Beta`) are not the tied table's."""
    tied = [tables[o] for o in objects if o in tables]
    if not tied:
        return True
    said = " " + " ".join(w for token in text.split()[:20000] for w in words(token)) + " "
    def named(labels: list[str]) -> bool:
        return any(f" {' '.join(found)} " in said for label in labels if (found := words(label)))
    return any(named([r[0] for r in t.rows if r]) and named(t.header[1:]) for t in tied)


def map_runs(tools: PhaseTools, runs: list[dict]) -> Mapping:
    maps, unlike = structure_maps(tools, runs)
    tables = {t.label or "table": t for t in tools.paper_tables()}
    roles = {m.table: tools.table_role(tables[m.table]).role for m in maps if m.table in tables}
    named = named_outputs(tools, runs)
    canon = {label: next(iter(paper_objects([label], [], "")), label) for label in tables}
    by_table = {canon.get(m.table, m.table): m for m in maps}
    tables = {canon[label]: t for label, t in tables.items()}
    for entry in named:
        notes = []
        for obj in [o for o in entry["objects"] if o.startswith("Table")]:
            if obj in by_table:
                notes.append(f"{obj} values compared: {by_table[obj].verdict}")
            elif obj in tables:
                notes.append(f"{obj} values not compared: no output table shares its labels and quantity")
            else:
                notes.append(f"the paper text read has no {obj} to compare values with")
        entry["values"] = notes
        if notes:
            entry["line"] += f" ({'; '.join(notes)})"
    return Mapping(structure=maps, named=named, roles=roles, unlike=unlike)
