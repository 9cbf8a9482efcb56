"""report.md sections read from evidence: the acquisition failure, reproduced results, D3's failing command,
the confidence findings, the cross-check outcomes and the table of contents.

Text from the artifact goes through `esc`/`code`/`fenced`, as everywhere in the report.
"""
from __future__ import annotations

import re

from ..claims.mapping import TOLERANCE_TEXT
from ..models import Report
from ..rubric import Rubric
from .acquisition import AcquisitionFailure
from .confidence import Confidence
from .mdtext import Links, code, esc, fenced, table
from .results import FailedRun, TableResult, safe_view

MAX_CELLS = 80
_VERDICT = {"match": "✓ match", "rounding": "✗ rounding differs", "different": "✗ different",
            "missing": "✗ not produced", "equal": "✓ equal", "close": "≈ close", "far": "✗ far off"}


def acquisition_block(failure: AcquisitionFailure | None, links: Links) -> list[str]:
    if failure is None:
        return []
    return [(f"> **✗ The artifact could not be acquired ({esc(failure.cause)}).** {esc(failure.reason)} "
            f"({links([failure.evidence])})"), ">", f"> **What to do:** {esc(failure.advice)}", ""]


def results_section(tables: list[TableResult], links: Links, gate_failed: bool,
                    failed: FailedRun | None = None) -> list[str]:
    out = ["## Reproduced results", ""]
    if not tables:
        if gate_failed:
            why = "The review stopped at the availability gate; nothing was run."
        elif failed is not None:
            why = (f"No run's output was compared with a paper table: the workflow command {code(failed.cmd)} ended "
                   f"with {esc(failed.status)} ({links([failed.evidence])}; its output is quoted under D3).")
        else:
            why = "No run's output was compared with a paper table (see D3 and D4 for what ran and what it printed)."
        return out + [why, ""]
    out += ["Each paper value beside the value the run produced: at the paper's printed precision for a table "
            "reproduced, else as D4 compared them, on one scale with the stated tolerance.", ""]
    for t in tables:
        if t.scale:
            out += _one_scale(t, links)
        else:
            out += [f"### {esc(t.label)}: {esc(t.verdict)}", "",
                    f"{t.matched} of {t.total} cells match" + (f", from {esc(t.source)}" if t.source else "")
                    + f" ({links([t.evidence])})." + (f" Method: {esc(t.why)}." if t.why else ""), ""]
            rows = [[esc(c.row), esc(c.column), code(c.expected, cell=True),
                     code(c.produced, cell=True) if c.produced is not None else "—",
                     _VERDICT.get(c.kind, esc(c.kind))] for c in t.cells[:MAX_CELLS]]
            out += table(["Row", "Column", "Paper", "Run", "Verdict"], rows)
        if len(t.cells) > MAX_CELLS:
            out += [f"… {len(t.cells) - MAX_CELLS} more cells in {links([t.evidence])}.", ""]
        if any(not c.matched for c in t.cells):
            hidden = [c for c in safe_view(t) if not c.matched][:12]
            out += ["Obfuscation-safe view (what an LLM agent or its transcript may hold: digits of paper values the "
                    "run did not reproduce are hidden): "
                    + "; ".join(f"{esc(c.row)} / {esc(c.column)} = {code(c.expected)}" for c in hidden) + ".", ""]
    return out


def _one_scale(t: TableResult, links: Links) -> list[str]:
    """A table D4 paired with an output: each cell on one scale, its signed difference and D4's word for it."""
    close = sum(c.kind == "close" for c in t.cells)
    far = sum(c.kind == "far" for c in t.cells)
    scale = "" if t.scale == "as printed" else f" ({esc(t.scale)})"
    head = (f"{len(t.cells)} cells compared on one scale{scale}" + (f", from {esc(t.source)}" if t.source else "")
            + f": {t.matched} equal at printed precision, {close} close, {far} far off"
            + (f"; {esc(t.note)}" if t.note else "") + f" ({links([t.evidence])}). Tolerance: {esc(TOLERANCE_TEXT)}.")
    rows = [[esc(c.row), esc(c.column), code(c.expected, cell=True), code(c.produced or "", cell=True),
             esc(c.difference), _VERDICT.get(c.kind, esc(c.kind))] for c in t.cells[:MAX_CELLS]]
    return [f"### {esc(t.label)}: {esc(t.verdict)}", "", head, ""] + table(
        ["Row", "Column", "Paper", "Run (on the paper's scale)", "Difference", "Verdict"], rows)


def failed_run_block(failed: FailedRun | None, links: Links) -> list[str]:
    if failed is None:
        return []
    out = [f"**Failing command:** {code(failed.cmd)} → {esc(failed.status)} ({links([failed.evidence])})", ""]
    if failed.tail.strip():
        out += [f"Last lines of its {failed.stream}:", ""] + fenced(failed.tail) + [""]
    else:
        out += ["It wrote nothing to stdout or stderr.", ""]
    return out


def confidence_lines(report: Report, conf: Confidence | None) -> list[str]:
    out = [(f"**Confidence: {report.confidence:.2f}** — a cue for the reader, computed from the evidence: it starts "
           "at 1.00 and each finding below lowers it (floor 0.05). Flags and confidence never change a badge."), ""]
    if conf is None:
        return out
    if not conf.factors:
        return out + [("Nothing lowered it: every phase committed, workflow output backs the scores, no limit was "
                      "hit and the checker accepted every packet as first submitted."), ""]
    rows = [[esc(f.code), f"−{f.penalty:.2f}", esc(f.reason)] for f in conf.factors]
    return out + table(["Finding", "Lowers by", "What was found"], rows)


def crosscheck_section(report: Report, rubric: Rubric, links: Links) -> list[str]:
    """One row per cross-check: not triggered (its condition did not hold), passed (it fired and its
    requirement held) or warning (it fired, its requirement failed, a flag was raised)."""
    steps = [s for s in report.derivation if s.rule.startswith("crosscheck:")]
    if not steps:
        return []
    rows = []
    for cc in rubric.crosschecks:
        mine = [s for s in steps if s.rule == f"crosscheck:{cc.code}"]
        if not mine:
            continue
        when_texts = {c.text for c in cc.when}
        when = [s for s in mine if s.condition in when_texts]
        then = [s for s in mine if s.condition not in when_texts]
        if not all(s.result for s in when):
            outcome = "– not triggered"
        elif all(s.result for s in then):
            outcome = "✓ passed"
        else:
            outcome = "⚠ warning (fired)"
        observed = "; ".join(f"{s.condition.split()[0]} = {_value(s.value)}" for s in mine)
        rows.append([esc(cc.code), esc(cc.severity), esc(" and ".join(c.text for c in cc.when) or "always"),
                     esc(" and ".join(c.text for c in cc.then)), esc(observed), outcome,
                     links(sorted({e for s in mine for e in s.evidence}))])
    legend = ("A cross-check fires when its condition holds; it passes when its requirement then holds too, and "
              "raises a warning flag when it does not. A check whose condition did not hold was not triggered.")
    return ["### Cross-checks", "", legend, ""] + table(
        ["Check", "Severity", "Applies when", "Requires", "Observed", "Outcome", "Evidence"], rows)


def _value(value: object) -> str:
    if value is None:
        return "not established"
    return str(value).lower() if isinstance(value, bool) else str(value)


def contents(markdown_lines: list[str]) -> list[str]:
    """A table of contents over the level-2 headings, linking to the ids report.html gives them."""
    heads = [ln[3:].strip() for ln in markdown_lines if ln.startswith("## ")]
    items = [f"[{h}](#{slug(h)})" for h in heads]
    return ["**Contents:** " + " · ".join(items), ""] if items else []


def slug(text: str) -> str:
    """The id of a heading in report.html (and, for plain ASCII headings, on code hosts too)."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"
