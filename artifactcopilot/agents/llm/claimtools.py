"""The LLM agent's claim tools over paper tables: list them (values hidden, a page at a time) and compare one with
a run's output, the method judge deciding how the output was produced.

A mixin of `LLMToolbox` (toolbox.py); results are compact JSON, table text inside <artifact-data> blocks.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ...models import EvidenceLevel
from ...sandbox.commandlog import parse_log
from ...tables.render import obfuscate
from .inert import data
from .judging import judge_comparison

if TYPE_CHECKING:
    from ...llm.paging import Pager
    from ...tools import PhaseTools


class ClaimTools:
    """Mixed into LLMToolbox: expects `tools`, `phase`, `pager`, `out` from it."""

    tools: PhaseTools
    phase: str
    pager: Pager
    if TYPE_CHECKING:  # defined by LLMToolbox
        @staticmethod
        def out(**fields: Any) -> str: ...

    def paper_tables(self, offset: int = 0) -> str:
        # the paper's numbers stay hidden ("?" per digit): the model maps tables, the comparison tool checks values
        tables = [
            {"index": i, "label": t.label, "caption": t.caption[:120], "header": o.header, "rows": o.rows[:8]}
            for i, (t, o) in enumerate((t, obfuscate(t)) for t in self.tools.paper_tables())
        ]
        offset = max(0, offset)
        shown = self.pager.items(tables[offset:], 0.9) or tables[offset:offset + 1]
        after = offset + len(shown)
        more = {"next_offset": after} if after < len(tables) else {}
        return self.out(count=len(tables), offset=offset, **more,
                        tables=data(json.dumps(shown, ensure_ascii=False)))

    def compare_table(self, table: str, source: str) -> str:
        tables = self.tools.paper_tables()
        expected = next((t for i, t in enumerate(tables) if table in (t.label, str(i))), None)
        if expected is None:
            return self.out(error=f"no paper table '{table}'; call paper_tables for labels")
        text, kind = self._source_text(source)
        if text is None:
            return self.out(error=f"'{source}' is neither a cited command evidence id nor a file")
        comp = self.tools.compare_table(expected, text)
        success = bool(comp and comp.success)
        record = {
            "table": expected.label,
            "source": source,
            "source_kind": kind,
            "matched": comp.matched if comp else 0,
            "total": comp.total if comp else 0,
            "success": success,
            "cells": [c.model_dump() for c in comp.cells] if comp else [],
        }
        if success and kind == "run-output":  # the method judge, not the model, says whether it was computed
            record |= judge_comparison(self.tools, expected, source)
        level = (
            EvidenceLevel.E3
            if success and kind == "run-output" and record.get("method_accepted")
            else EvidenceLevel.E2
            if kind == "run-output"
            else EvidenceLevel.E1
        )
        ev = self.tools.store.add_json(
            self.phase,
            "comparison",
            f"compare-{expected.label or table}",
            record,
            f"{expected.label}: {record['matched']}/{record['total']} cells from {source} ({kind})",
            level,
        )
        judged = {k: record[k] for k in ("method", "method_accepted", "copied_from") if k in record}
        return self.out(
            evidence=ev.id, matched=record["matched"], total=record["total"], success=success, source_kind=kind,
            **judged,
        )

    def _source_text(self, source: str) -> tuple[str | None, str]:
        store = self.tools.store
        rec = store.get(source)
        if rec is not None and rec.kind in ("command", "transfer", "provenance"):
            return parse_log(store.read(source)).stdout, "run-output"
        pre_existing = source in set(self.tools.list_files())
        text = self.tools.read_output(source)
        if text is not None and not pre_existing:
            return text, "run-output"
        return (self.tools.read_file(source) if pre_existing else None), "artifact-file"
