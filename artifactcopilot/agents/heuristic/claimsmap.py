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

from dataclasses import dataclass, field

from ...claims.mapping import TOLERANCE_TEXT, StructureMap, map_structure
from ...claims.paperobjects import paper_objects, tied_objects
from ...tools import PhaseTools
from .claimsources import FIGURE_FILES, run_sources


@dataclass
class Mapping:
    """What the runs map to, with a line per mapping for the report."""

    structure: list[StructureMap] = field(default_factory=list)
    named: list[dict] = field(default_factory=list)
    roles: dict[str, str] = field(default_factory=dict)

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
                "named": self.named, "contradictions": [m.table for m in self.contradictions]}


def _key(m: StructureMap) -> tuple:
    n = m.counts()
    rank = {"equal": 3, "close": 2, "differs": 1, "contradicts": 0}[m.verdict]
    return (m.labels, rank, n["equal"] + n["close"], -len(m.cells))


def structure_maps(tools: PhaseTools, runs: list[dict]) -> list[StructureMap]:
    """For each paper table, the run output that maps to it best (most labels, then the verdict most in agreement)."""
    best: dict[str, StructureMap] = {}
    for run in runs:
        reduced = bool(run.get("quick") or run.get("reduced"))
        for name, text in run_sources(tools, run):
            if not text:
                continue
            for table in tools.paper_tables():
                found = map_structure(table, text, name, reduced)
                label = table.label or "table"
                if found is not None and (label not in best or _key(found) > _key(best[label])):
                    best[label] = found
    return list(best.values())


def named_outputs(tools: PhaseTools, runs: list[dict]) -> list[dict]:
    """Valid runs of commands tied to a paper table (by the documentation or the program's name) that wrote a data
    file, and of commands tied to a research question that gave output. What a table-tied command only printed is
    held to the table by structure instead (printed text of other labels does not map)."""
    paper = tools.ctx.paper
    objects = paper_objects([t.label or "" for t in paper.tables], paper.figures, paper.text)
    out = []
    for run in runs:
        tied = [o for o in tied_objects(run.get("script") or run.get("cmd") or "", run.get("mentions") or [], objects)
                if o.startswith(("Table", "RQ"))]
        if not tied:
            continue
        written = [f for f in (run.get("files_created") or []) + (run.get("files_modified") or [])
                   if not f.lower().endswith(FIGURE_FILES + (".log",)) and not f.startswith(".copilot/")]
        sources = run_sources(tools, run)
        printed = bool(sources and sources[0][1].strip()) or bool(run.get("executed"))
        questions = [o for o in tied if o.startswith("RQ")]
        if not written and not (questions and printed):
            continue
        what = f"wrote {', '.join(written[:3])}" if written else "gave output"
        how = "documented beside it" if run.get("mentions") else "named after it"
        reduced = bool(run.get("quick") or run.get("reduced"))
        out.append({"command": run.get("cmd"), "objects": tied if written else questions, "written": written[:6],
                    "evidence": run.get("evidence"), "reduced": reduced,
                    "line": f"`{run.get('cmd')}` ({how}: {', '.join(tied if written else questions)}) ran validly "
                            f"and {what}" + (" (reduced run)" if reduced else "")})
    return out


def map_runs(tools: PhaseTools, runs: list[dict]) -> Mapping:
    maps = structure_maps(tools, runs)
    tables = {t.label or "table": t for t in tools.paper_tables()}
    roles = {m.table: tools.table_role(tables[m.table]).role for m in maps if m.table in tables}
    return Mapping(structure=maps, named=named_outputs(tools, runs), roles=roles)
