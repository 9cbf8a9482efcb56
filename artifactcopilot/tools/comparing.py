"""Comparing tools: a run's output against what the paper and the documentation say it should be.

Each check records its result as `comparison` evidence (JSON) and returns it with the evidence record;
a check with nothing comparable says "not_established" with the reason, never a match.
"""
from __future__ import annotations

from ..claims import (
    DocumentedOutputResult,
    NotebookComparison,
    OutputMatch,
    TableRole,
    claim_numbers,
    compare_notebook_runs,
    find_claim_numbers,
    match_documented_outputs,
    match_expected_output,
    table_role,
)
from ..models import Evidence, EvidenceLevel
from ..tables import Comparison, Table, best_match
from .context import ReviewContext


class Comparing:
    def __init__(self, ctx: ReviewContext, phase: str):
        self.ctx, self.phase = ctx, phase

    def _record(self, name: str, data: dict, summary: str, level: EvidenceLevel) -> Evidence:
        return self.ctx.store.add_json(self.phase, "comparison", name, data, summary, level)

    def compare_table(self, expected: Table, text: str) -> Comparison | None:
        return best_match(expected, text)

    def table_role(self, table: Table) -> TableRole:
        """Whether a paper table carries results or describes inputs (data sets, subjects, sizes)."""
        return table_role(table, self.ctx.paper.text)

    def check_expected_output(self, label: str, expected: str, produced: str,
                              source: str) -> tuple[OutputMatch, Evidence]:
        """The output the documentation gives for a command against what the run printed."""
        match = match_expected_output(expected, produced)
        ev = self._record(f"expected-output-{label}", {"check": "documented expected output", "command": label,
                                                       "documented_at": source, **match.to_dict()},
                          f"documented output of `{label[:60]}` ({source}): {match.verdict}",
                          EvidenceLevel.E2 if match.verdict == "match" else EvidenceLevel.E1)
        return match, ev

    def compare_notebook(self, notebook: str, stored: str, executed: str) -> tuple[NotebookComparison, Evidence]:
        """A notebook's stored outputs against the outputs of the review's own execution."""
        result = compare_notebook_runs(stored, executed)
        ev = self._record(f"notebook-{notebook.rsplit('/', 1)[-1]}", {"check": "notebook outputs", "notebook": notebook,
                                                                      **result.to_dict()},
                          f"{notebook}: stored vs executed outputs: {result.verdict}",
                          EvidenceLevel.E2 if result.verdict == "match" else EvidenceLevel.E1)
        return result, ev

    def check_documented_outputs(self, documented: list[tuple[str, list[str]]], created: list[str]
                                 ) -> tuple[list[DocumentedOutputResult], Evidence | None]:
        """Files, folders or globs the documentation says the workflow produces, against what the runs wrote."""
        session = self.ctx.session
        if not documented or session is None:
            return [], None
        results = match_documented_outputs(documented, created, session.root)
        produced = [r for r in results if r.verdict == "produced"]
        ev = self._record("documented-outputs", {"check": "documented output files",
                                                 "results": [r.to_dict() for r in results]},
                          f"{len(produced)} of {len(results)} documented outputs produced by the runs",
                          EvidenceLevel.E2 if produced else EvidenceLevel.E1)
        return results, ev

    def find_paper_numbers(self, produced: str) -> tuple[list, list, Evidence]:
        """Numbers the paper states in its text (not its tables) that the run's output shows."""
        claims = claim_numbers(self.ctx.paper.text, list(self.ctx.paper.tables))
        found = [m for m in find_claim_numbers(claims, produced) if m.found] if claims else []
        ev = self._record("paper-numbers", {"check": "numbers stated in the paper",
                                            "stated": [c.to_dict() for c in claims],
                                            "found": [m.to_dict() for m in found]},
                          f"{len(found)} of {len(claims)} numbers stated in the paper appear in the output",
                          EvidenceLevel.E2 if found else EvidenceLevel.E1)
        return claims, found, ev
