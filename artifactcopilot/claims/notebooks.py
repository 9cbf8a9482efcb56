"""A notebook's stored outputs, and a re-executed notebook compared with them cell by cell.

Cells are aligned by position, robust to cells added or removed (their sources are matched); a cell
whose source was edited in place stays paired with the original. Text outputs compare like
documented output (numbers at printed precision, run-dependent tokens left out), figures compare by
presence only, and every error of the executed run is listed with its cell's first source line.
"""
from __future__ import annotations

from difflib import SequenceMatcher

from pydantic import Field

from ._base import Record, Verdict, clip
from .expected import match_expected_output
from .nbread import CellError, NotebookCell, NotebookOutputs, read_notebook

MAX_LISTED = 20


class CellDifference(Record):
    index: int = Field(description="Position of the cell in the stored notebook.")
    source_head: str = ""
    details: list[str] = Field(default_factory=list)


class CellFailure(Record):
    index: int = Field(description="Position of the cell in the executed notebook.")
    source_head: str = ""
    ename: str = ""
    evalue: str = ""


class NotebookComparison(Record):
    verdict: Verdict
    cells_compared: int = Field(0, description="Stored cells with outputs that were compared.")
    cells_matched: int = 0
    cells_differing: list[CellDifference] = Field(default_factory=list)
    errors: list[CellFailure] = Field(default_factory=list, description="Errors raised in the executed run.")
    figures_stored: int = Field(0, description="Compared cells whose stored outputs show a figure.")
    figures_regenerated: int = Field(0, description="Of those, cells that show a figure again.")
    cells_edited: int = Field(0, description="Compared cells whose source differs between the two notebooks.")
    figures_displayed: int = Field(0, description="Cells of the executed notebook that show a figure, when it ran "
                                                  "without an error (stored outputs or not).")
    reason: str = ""


def stored_outputs(nb_text: str) -> NotebookOutputs:
    """Per code cell: text outputs, figures present (by kind), errors. Corrupt input yields `error`, never raises."""
    return read_notebook(nb_text)


def _pairs(stored: list[NotebookCell], executed: list[NotebookCell]):
    """(stored cell, executed cell or None, source edited) for every stored cell."""
    sm = SequenceMatcher(None, [c.source_key for c in stored], [c.source_key for c in executed], autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        for k in range(i2 - i1):
            if tag == "equal":
                yield stored[i1 + k], executed[j1 + k], False
            elif tag == "replace" and k < j2 - j1:
                yield stored[i1 + k], executed[j1 + k], True
            else:
                yield stored[i1 + k], None, False


def _compare_cell(s: NotebookCell, e: NotebookCell | None) -> tuple[list[str], bool, bool]:
    """(differences, figure stored, figure regenerated) for a stored cell with outputs."""
    if e is None:
        return ["cell not present in the executed notebook"], bool(s.images), False
    diffs: list[str] = []
    stored_text = s.text if s.text.strip() else ("" if s.errors or s.images else s.stderr)
    if stored_text.strip():
        produced = e.text if s.text.strip() else e.stderr
        r = match_expected_output(stored_text, produced)
        if r.verdict == "not_established" and r.lines_total and not produced.strip():
            diffs.append("text: no text output in the executed run")
        elif r.verdict not in ("match", "not_established"):
            detail = f"text: {r.reason}"
            if r.missing:
                detail += f"; first missing: {r.missing[0]!r}"
            diffs.append(detail)
    if s.images and not e.images:
        diffs.append(f"figure ({', '.join(dict.fromkeys(s.images))}) not regenerated")
    stored_errors = {x.ename for x in s.errors}
    for err in e.errors:
        if err.ename not in stored_errors:
            diffs.append(f"error: {err.ename}: {clip(err.evalue, 120)}")
    if s.errors and not e.errors:
        diffs.append(f"stored run raised {s.errors[0].ename} here, this run did not")
    return list(dict.fromkeys(diffs)), bool(s.images), bool(s.images and e.images)


def _failures(executed: NotebookOutputs) -> list[CellFailure]:
    return [CellFailure(index=c.index, source_head=c.source_head, ename=err.ename, evalue=err.evalue)
            for c in executed.cells for err in c.errors]


def compare_notebook_runs(stored_nb: str, executed_nb: str) -> NotebookComparison:
    """Compare a re-executed notebook with the outputs stored in the original; never raises."""
    stored, executed = read_notebook(stored_nb), read_notebook(executed_nb)
    if stored.error:
        return NotebookComparison(verdict="not_established", reason=f"stored notebook: {stored.error}")
    if executed.error:
        return NotebookComparison(verdict="not_established", reason=f"executed notebook: {executed.error}")
    shown = 0 if any(c.errors for c in executed.cells) else sum(1 for c in executed.cells if c.images)
    if not stored.cells_with_outputs:
        why = f"nothing stored to compare with: none of the {stored.code_cells} code cells has stored outputs"
        return NotebookComparison(verdict="not_established", figures_displayed=shown,
                                  reason=why + (f"; the run showed {shown} figures" if shown else ""))
    if not executed.cells_with_outputs:
        return NotebookComparison(verdict="not_established", reason="the executed notebook holds no outputs "
                                  "(it was not executed, or its outputs were not saved)")
    try:
        return _compare(stored, executed).model_copy(update={"figures_displayed": shown})
    except Exception as exc:  # noqa: BLE001 - a comparison failure is a result, not a crash
        return NotebookComparison(verdict="not_established", reason=f"comparison failed: {type(exc).__name__}: {exc}")


def _compare(stored: NotebookOutputs, executed: NotebookOutputs) -> NotebookComparison:
    res = NotebookComparison(verdict="not_established", errors=_failures(executed))
    known: set[tuple[int, str]] = set()  # errors the stored run raised in the same cell: reproduced, not new
    for s, e, edited in _pairs(stored.cells, executed.cells):
        if e is not None:
            known |= {(e.index, x.ename) for x in s.errors}
        if not s.has_outputs:
            continue
        res.cells_compared += 1
        res.cells_edited += edited
        diffs, fig, regen = _compare_cell(s, e)
        res.figures_stored += fig
        res.figures_regenerated += regen
        if not diffs:
            res.cells_matched += 1
        elif len(res.cells_differing) < MAX_LISTED:
            res.cells_differing.append(CellDifference(index=s.index, source_head=s.source_head, details=diffs))
    new_errors = [f for f in res.errors if (f.index, f.ename) not in known]
    if res.cells_matched == res.cells_compared and not new_errors:
        res.verdict = "match"
    else:
        res.verdict = "partial" if res.cells_matched else "mismatch"
    res.reason = _reason(res)
    return res


def _reason(res: NotebookComparison) -> str:
    parts = [f"{res.cells_matched}/{res.cells_compared} cells with stored outputs reproduced"]
    if res.figures_stored:
        parts.append(f"{res.figures_regenerated}/{res.figures_stored} figures regenerated")
    if res.cells_edited:
        parts.append(f"{res.cells_edited} cells edited before the run")
    if res.errors:
        first = res.errors[0]
        parts.append(f"{len(res.errors)} errors, first in cell {first.index} ({first.source_head!r}): "
                     f"{first.ename}: {clip(first.evalue, 80)}")
    return "; ".join(parts)


__all__ = ["CellDifference", "CellError", "CellFailure", "NotebookCell", "NotebookComparison", "NotebookOutputs",
           "compare_notebook_runs", "stored_outputs"]
