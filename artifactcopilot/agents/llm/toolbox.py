"""LangChain tools for the LLM agent: thin wrappers around the same PhaseTools the heuristic uses.

Only the tools in the phase skill's Tool Scope are built, each described as `tools.TOOLS` describes it;
a tool a skill names that this toolbox lacks fails loudly. Results are compact JSON; artifact
content inside them is wrapped in <artifact-data> so the prompt can treat it as data. Long text
is cut with a pointer to the evidence file that holds all of it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Any

from langchain_core.tools import StructuredTool

from ...errors import ToolScopeError
from ...interventions import ACTION_KINDS, Action
from ...models import EvidenceLevel, PhasePacket
from ...rubric import Rubric, default_rubric
from ...sandbox.commandlog import parse_log
from ...skills import Skill
from ...tables.render import obfuscate
from ...tools import TOOLS, CommandResult, PhaseTools
from ...verifier.namespace import phase_packet_model
from ..heuristic.gate import NOT_MATERIAL
from .judging import judge_comparison
from .moretools import MoreTools

DATA_OPEN, DATA_CLOSE = "<artifact-data>", "</artifact-data>"
# Kinds only tools may write: a model-authored note must never pass for a run, a comparison or a log.
TOOL_KINDS = {
    "acquisition",
    "readme",
    "command",
    "command-record",
    "setup",
    "probe",
    "transfer",
    "provenance",
    "comparison",
    "error",
    "docs",
    "location",
}
DOC_FILE = re.compile(r"(^|/)(readme|install|usage|getting[-_]started|docs?/)[^/]*$", re.IGNORECASE)


def data(text: str) -> str:
    """Artifact text as inert data; a closing tag inside it cannot end the block early."""
    return f"{DATA_OPEN}\n{text.replace(DATA_CLOSE, '</artifact-data >')}\n{DATA_CLOSE}"


def _norm(cmd: str) -> str:
    return " ".join(cmd.split())


class LLMToolbox(MoreTools):
    """The tools of one phase attempt, and the packet once submitted."""

    def __init__(self, tools: PhaseTools, skill: Skill, output_chars: int = 4000, rubric: Rubric | None = None):
        self.tools, self.skill, self.phase, self.limit = tools, skill, skill.phase, output_chars
        self.rubric = rubric or default_rubric()
        self.submitted: PhasePacket | None = None
        self._docs: str | None = None

    # ---- helpers ---------------------------------------------------------------------------
    def cut(self, text: str, pointer: str) -> str:
        if len(text) <= self.limit:
            return text
        return text[: self.limit] + f"\n[... {len(text) - self.limit} more characters cut; full text in {pointer}]"

    @staticmethod
    def out(**fields: Any) -> str:
        return json.dumps(fields, ensure_ascii=False, default=str)

    def documented(self, command: str) -> bool:
        """A command counts as documented when each of its steps appears in the artifact's docs."""
        if self._docs is None:
            docs = [f for f in self.tools.list_files() if DOC_FILE.search(f)][:20]
            self._docs = _norm("\n".join(self.tools.read_file(f, 1_000_000) or "" for f in docs))
        steps = [s for s in re.split(r"&&|;|\n", command) if s.strip() and not s.strip().startswith("cd ")]
        # each step as a whole: `true` is not documented by a README that says "returns true"
        return bool(steps) and all(
            re.search(rf"(?<![\w./-]){re.escape(_norm(s))}(?![\w./-])", self._docs) for s in steps
        )

    def _command(self, res: CommandResult) -> str:
        rec, ev = res.record, res.evidence
        return self.out(
            evidence=ev.id,
            exit_code=rec.exit_code,
            timed_out=rec.timed_out,
            duration_s=rec.duration_s,
            files_created=rec.files_created[:30],
            files_modified=rec.files_modified[:30],
            figures_shown=rec.figures_shown[:20],
            intervention=(f"{res.intervention.id} ({res.intervention.level.value})" if res.intervention else None),
            stdout=data(self.cut(rec.stdout, ev.path)),
            stderr=data(self.cut(rec.stderr, ev.path)),
        )

    def _action(self, command: str) -> Action:
        return Action("run", command, documented=self.documented(command))

    # ---- gate --------------------------------------------------------------------------------
    def acquire_artifact(self) -> str:
        acq, ev = self.tools.acquire_artifact()
        return self.out(
            ok=acq.ok, kind=acq.kind, file_count=len(acq.files), files=acq.files[:150], error=acq.error, evidence=ev.id
        )

    def list_files(self, prefix: str = "") -> str:
        files = [f for f in self.tools.list_files() if f.startswith(prefix)]
        return self.out(count=len(files), files=files[:300], cut=len(files) > 300)

    def locate_entry(self) -> str:
        entry = self.tools.locate_entry()
        text = (self.tools.read_file(entry) or "") if entry else ""
        ev = self.tools.store.add_json(
            self.phase,
            "entry",
            "entry-location",
            {"entry": entry, "bytes": len(text)},
            f"entry document {entry}" if entry else "no entry document found",
            EvidenceLevel.E1,
        )
        return self.out(entry=entry, readable=bool(text.strip()), evidence=ev.id)

    def paper_terms(self) -> str:
        files = self.tools.list_files()
        material = [f for f in files if not NOT_MATERIAL.search(f) and not f.lower().endswith(".pdf")]
        texts = [self.tools.read_file(f, 200_000) or "" for f in files[:400]]
        relation = self.tools.paper_terms("\n".join(texts + files))
        relation.update({"material_files": material[:200], "material_count": len(material)})
        ev = self.tools.store.add_json(
            self.phase,
            "relation",
            "paper-relation",
            relation,
            f"{relation['shared_count']} shared terms; {len(material)} material files",
            EvidenceLevel.E1,
        )
        return self.out(
            shared_count=relation["shared_count"],
            shared_terms=relation["shared_terms"][:40],
            material_count=len(material),
            material_files=material[:40],
            evidence=ev.id,
        )

    # ---- reading -----------------------------------------------------------------------------
    def read_file(self, path: str, from_runs: bool = False, offset: int = 0) -> str:
        reader = self.tools.read_output if from_runs else self.tools.read_file
        text = reader(path)
        if text is None:
            return self.out(error=f"{path}: no such file in the {'run copy' if from_runs else 'artifact'}")
        part = text[max(0, offset) :]
        return self.out(
            path=path,
            chars=len(text),
            offset=offset,
            text=data(self.cut(part, f"{path} (call read_file again with offset={offset + self.limit})")),
        )

    def grep(self, pattern: str) -> str:
        try:
            hits = self.tools.grep(pattern)
        except re.error as exc:
            return self.out(error=f"bad regular expression: {exc}")
        lines = [f"{rel}:{n}: {line}" for rel, n, line in hits[:100]]
        return self.out(count=len(hits), hits=data("\n".join(lines)), cut=len(hits) > 100)

    def parse_readme(self, path: str) -> str:
        analysis, ev = self.tools.parse_readme(path)
        commands = [{"cmd": c.cmd, "kind": c.kind, "section": c.section} for c in analysis.commands[:40]]
        return self.out(
            evidence=ev.id,
            words=analysis.words,
            signals=analysis.signals,
            paper_refs=analysis.paper_refs,
            env_vars=analysis.env_vars,
            long_run_warning=analysis.long_run_warning,
            reuse_sections=analysis.reuse_sections,
            commands=data(json.dumps(commands, ensure_ascii=False)),
        )

    def detect_environment(self) -> str:
        deps, heads, ev = self.tools.detect_environment()
        return self.out(
            evidence=ev.id, dependency_files=deps, contents=data(self.cut(json.dumps(heads, indent=1), ev.path))
        )

    # ---- commands ----------------------------------------------------------------------------
    def run_setup(self, command: str, purpose: str) -> str:
        return self._command(self.tools.run_setup(command, self._action(command), purpose))

    def probe(self, command: str, purpose: str) -> str:
        return self._command(self.tools.probe(command, purpose))

    def run_workflow(self, command: str, purpose: str) -> str:
        return self._command(self.tools.run_workflow(command, self._action(command), purpose))

    def run_transfer(self, command: str, purpose: str) -> str:
        return self._command(self.tools.run_transfer(command, self._action(command), purpose))

    def build_image(self, dockerfile: str, purpose: str) -> str:
        res = self.tools.build_image(dockerfile, self._action(f"docker build -f {dockerfile} ."), purpose)
        if res is None:
            return self.out(error="this sandbox has no container engine: set up the environment with run_setup instead")
        return self._command(res)

    def verify_provenance(self, command: str, withheld_file: str) -> str:
        rec, out, ev = self.tools.verify_provenance(command, withheld_file)
        return self.out(evidence=ev.id, exit_code=rec.exit_code, stdout=data(self.cut(out, ev.path)))

    def record_intervention(self, kind: str, action: str, purpose: str, target: str | None = None) -> str:
        if kind not in ACTION_KINDS:
            return self.out(error=f"unknown kind '{kind}'; use one of {', '.join(sorted(ACTION_KINDS))}")
        entry = self.tools.record_intervention(Action(kind, action, target=target), purpose)
        return self.out(intervention=entry.id, level=entry.level.value, rule=entry.rule)

    # ---- claims ------------------------------------------------------------------------------
    def paper_tables(self) -> str:
        # the paper's numbers stay hidden ("?" per digit): the model maps tables, the comparison tool checks values
        tables = [
            {"index": i, "label": t.label, "caption": t.caption[:120], "header": o.header, "rows": o.rows[:8]}
            for i, (t, o) in enumerate((t, obfuscate(t)) for t in self.tools.paper_tables())
        ]
        return self.out(count=len(tables), tables=data(self.cut(json.dumps(tables, ensure_ascii=False), "the paper")))

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

    # ---- evidence and packet -----------------------------------------------------------------
    def record_evidence(self, kind: str, name: str, content: str, summary: str = "") -> str:
        if kind in TOOL_KINDS:
            return self.out(error=f"kind '{kind}' is written by tools only; record your finding as another kind")
        ev = self.tools.record_evidence(kind, PurePosixPath(name).name or "note", content, summary)
        return self.out(evidence=ev.id, kind=kind)

    def submit_packet(self, **packet: Any) -> str:
        # whether the agent failed, and who stood in for it, is the review's to record, never the model's
        self.submitted = PhasePacket.model_validate({**packet, "phase": self.phase, "agent_failure": None,
                                                     "reviewed_by": None})
        return self.out(received=True)

    # ---- LangChain ---------------------------------------------------------------------------
    def langchain_tools(self) -> list[StructuredTool]:
        built = []
        for name in self.skill.tool_scope:
            func: Callable | None = getattr(self, name, None)
            if func is None:  # a skill names a tool this agent cannot use: fail loudly, never drop it
                raise ToolScopeError(f"the LLM toolbox has no tool '{name}' named by skill {self.phase}")
            if name == "submit_packet":  # the schema names the phase's items and facts; the checker enforces it
                schema = phase_packet_model(self.phase, self.rubric).model_json_schema()
                built.append(
                    StructuredTool.from_function(
                        func=func, name=name, args_schema=schema, description=TOOLS[name].description
                    )
                )
            else:
                built.append(StructuredTool.from_function(func=func, name=name, description=TOOLS[name].description))
        return built
