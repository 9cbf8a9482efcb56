"""LangChain tools for the LLM agent: thin wrappers around the same PhaseTools the heuristic uses.

Only the tools in the phase skill's Tool Scope are built, each described as `tools.TOOLS` describes it, plus the
context tools every phase has (contexttools.py); a tool a skill names that this toolbox lacks fails loudly. Tools
are bound with a short description and bare argument types (schemas.py); `explain` gives the rest.
Results are compact JSON; artifact content inside them is wrapped in <artifact-data> so the prompt can treat it
as data. What grows with the artifact — file text, listings, command output — comes a page at a time, sized to
what is left of the model's window (the `pager`), with where the next page starts or the evidence that holds
all of it. Commands get at most what is left of the phase's share of the review's time.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Any

from langchain_core.tools import StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from ...errors import ToolScopeError
from ...interventions import ACTION_KINDS, Action
from ...llm.clock import Deadline, OutOfTime
from ...llm.paging import Pager
from ...models import EvidenceLevel, PhasePacket
from ...rubric import Rubric, default_rubric
from ...skills import Skill
from ...tools import TOOLS, CommandResult, PhaseTools
from ..heuristic.gate import NOT_MATERIAL
from .claimtools import ClaimTools
from .contexttools import CONTEXT_TOOLS, ContextTools
from .inert import DATA_CLOSE, DATA_OPEN, data
from .moretools import MoreTools
from .schemas import packet_parameters

__all__ = ["DATA_CLOSE", "DATA_OPEN", "LLMToolbox", "data"]
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
OUT_OF_TIME = "out of time: this phase's share of the review's time is used up; submit the packet with what you have"


def _norm(cmd: str) -> str:
    return " ".join(cmd.split())


class LLMToolbox(MoreTools, ClaimTools, ContextTools):
    """The tools of one phase attempt, and the packet once submitted."""

    def __init__(self, tools: PhaseTools, skill: Skill, pager: Pager | None = None, rubric: Rubric | None = None,
                 packets: dict[str, PhasePacket] | None = None, deadline: Deadline | None = None):
        self.tools, self.skill, self.phase = tools, skill, skill.phase
        self.pager = pager or Pager(None)
        self.rubric = rubric or default_rubric()
        self.packets = dict(packets or {})
        """Committed packets of earlier phases (what `read_evidence` reads by phase)."""
        self.deadline = deadline or Deadline()
        self.submitted: PhasePacket | None = None
        self._docs: str | None = None
        self._built: list[StructuredTool] = []

    # ---- helpers ---------------------------------------------------------------------------
    def fit(self, text: str, part: float, pointer: str) -> str:
        """`text` cut to `part` of the next result's share, with a pointer to where all of it is."""
        page, after = self.pager.page(text, 0, part)
        return page if after is None else page + f"\n[... {len(text) - after} more characters; all of it in {pointer}]"

    def _timeout(self) -> float | None:
        """A command's time limit: what is left of the phase's share, at most the review's per-command limit."""
        return self.deadline.timeout(self.tools.options.timeout_s)

    @staticmethod
    def _wrap(text: str) -> str:
        return data(text)

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
        where = f"evidence {ev.id} (read_evidence pages through the whole log)"
        out_part, err_part = (0.45, 0.3) if rec.stdout.strip() and rec.stderr.strip() else (0.75, 0.75)
        return self.out(
            evidence=ev.id,
            exit_code=rec.exit_code,
            timed_out=rec.timed_out,
            duration_s=rec.duration_s,
            files_created=rec.files_created[:20],
            files_modified=rec.files_modified[:20],
            figures_shown=rec.figures_shown[:10],
            intervention=(f"{res.intervention.id} ({res.intervention.level.value})" if res.intervention else None),
            stdout=data(self.fit(rec.stdout, out_part, where)) if rec.stdout else "",
            stderr=data(self._tail(rec.stderr, err_part, where)) if rec.stderr else "",
        )

    def _tail(self, text: str, part: float, pointer: str) -> str:
        """The end of `text` (where an error says what went wrong) cut to `part` of the share."""
        page, after = self.pager.page(text[::-1], 0, part)
        return page[::-1] if after is None else f"[... {len(text) - after} characters before; all in {pointer}]\n" \
            + page[::-1]

    def _action(self, command: str) -> Action:
        return Action("run", command, documented=self.documented(command))

    def _run(self, run: Callable[[float | None], CommandResult | None], none: str = "") -> str:
        """A command tool's result, within what is left of the phase's time."""
        try:
            timeout = self._timeout()
        except OutOfTime:
            return self.out(error=OUT_OF_TIME)
        res = run(timeout)
        return self.out(error=none) if res is None else self._command(res)

    # ---- gate --------------------------------------------------------------------------------
    def acquire_artifact(self) -> str:
        acq, ev = self.tools.acquire_artifact()
        files = self.pager.items(acq.files, 0.7)
        return self.out(ok=acq.ok, kind=acq.kind, file_count=len(acq.files), files=files, error=acq.error,
                        evidence=ev.id, **({"more_files": "list_files with offset"} if len(files) < len(acq.files)
                                           else {}))

    def list_files(self, prefix: str = "", offset: int = 0) -> str:
        files = [f for f in self.tools.list_files() if f.startswith(prefix)]
        offset = max(0, offset)
        shown = self.pager.items(files[offset:], 0.9)
        after = offset + len(shown)
        return self.out(count=len(files), offset=offset, files=shown,
                        **({"next_offset": after} if after < len(files) else {}))

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
        return self.out(entry=entry, readable=bool(text.strip()), chars=len(text), evidence=ev.id)

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
            shared_terms=self.pager.items(relation["shared_terms"][:40], 0.3),
            material_count=len(material),
            material_files=self.pager.items(material[:40], 0.4),
            evidence=ev.id,
        )

    # ---- reading -----------------------------------------------------------------------------
    def read_file(self, path: str, from_runs: bool = False, offset: int = 0) -> str:
        reader = self.tools.read_output if from_runs else self.tools.read_file
        text = reader(path)
        if text is None:
            return self.out(error=f"{path}: no such file in the {'run copy' if from_runs else 'artifact'}")
        page, after = self.pager.page(text, offset)
        more = {"next_offset": after, "hint": "call read_file again with offset=next_offset for the next page"} \
            if after is not None else {}
        return self.out(path=path, chars=len(text), offset=offset, **more, text=data(page))

    def grep(self, pattern: str, offset: int = 0) -> str:
        try:
            hits = self.tools.grep(pattern)
        except re.error as exc:
            return self.out(error=f"bad regular expression: {exc}")
        lines = [f"{rel}:{n}: {line}" for rel, n, line in hits[:500]]
        offset = max(0, offset)
        shown = self.pager.items(lines[offset:], 0.9)
        after = offset + len(shown)
        return self.out(count=len(hits), offset=offset, hits=data("\n".join(shown)),
                        **({"next_offset": after} if after < len(lines) else {}))

    def parse_readme(self, path: str) -> str:
        analysis, ev = self.tools.parse_readme(path)
        commands = [{"cmd": c.cmd, "kind": c.kind, "section": c.section} for c in analysis.commands[:40]]
        shown = self.pager.items(commands, 0.5)
        return self.out(
            evidence=ev.id,
            words=analysis.words,
            signals=analysis.signals,
            paper_refs=analysis.paper_refs[:10],
            env_vars=dict(list(analysis.env_vars.items())[:10]),
            long_run_warning=analysis.long_run_warning,
            reuse_sections=analysis.reuse_sections[:6],
            command_count=len(analysis.commands),
            commands=data(json.dumps(shown, ensure_ascii=False)),
            **({"more": f"all commands in evidence {ev.id} (read_evidence)"} if len(shown) < len(commands) else {}),
            **({"notes": analysis.notes[:3]} if analysis.notes else {}),
        )

    def detect_environment(self) -> str:
        deps, heads, ev = self.tools.detect_environment()
        return self.out(evidence=ev.id, dependency_files=deps[:20],
                        contents=data(self.fit(json.dumps(heads, indent=1), 0.8, f"evidence {ev.id}")))

    # ---- commands ----------------------------------------------------------------------------
    def run_setup(self, command: str, purpose: str) -> str:
        return self._run(lambda t: self.tools.run_setup(command, self._action(command), purpose, timeout=t))

    def probe(self, command: str, purpose: str) -> str:
        return self._run(lambda t: self.tools.probe(command, purpose, timeout=t or 120))

    def run_workflow(self, command: str, purpose: str) -> str:
        return self._run(lambda t: self.tools.run_workflow(command, self._action(command), purpose, timeout=t))

    def run_transfer(self, command: str, purpose: str) -> str:
        return self._run(lambda t: self.tools.run_transfer(command, self._action(command), purpose, timeout=t))

    def build_image(self, dockerfile: str, purpose: str) -> str:
        return self._run(lambda t: self.tools.build_image(dockerfile, self._action(f"docker build -f {dockerfile} ."),
                                                          purpose, timeout=t),
                         "this sandbox has no container engine: set up the environment with run_setup instead")

    def verify_provenance(self, command: str, withheld_file: str) -> str:
        try:
            timeout = self._timeout()
        except OutOfTime:
            return self.out(error=OUT_OF_TIME)
        rec, out, ev = self.tools.verify_provenance(command, withheld_file, timeout=timeout)
        return self.out(evidence=ev.id, exit_code=rec.exit_code,
                        stdout=data(self.fit(out, 0.8, f"evidence {ev.id} (read_evidence)")))

    def record_intervention(self, kind: str, action: str, purpose: str, target: str | None = None) -> str:
        if kind not in ACTION_KINDS:
            return self.out(error=f"unknown kind '{kind}'; use one of {', '.join(sorted(ACTION_KINDS))}")
        entry = self.tools.record_intervention(Action(kind, action, target=target), purpose)
        return self.out(intervention=entry.id, level=entry.level.value, rule=entry.rule)

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
        """The phase's tools (its Tool Scope, then the context tools), each described in a sentence."""
        built = []
        for name in [*self.skill.tool_scope, *(t for t in CONTEXT_TOOLS if t not in self.skill.tool_scope)]:
            func: Callable | None = getattr(self, name, None)
            if func is None:  # a skill names a tool this agent cannot use: fail loudly, never drop it
                raise ToolScopeError(f"the LLM toolbox has no tool '{name}' named by skill {self.phase}")
            description = TOOLS[name].description
            if name == "submit_packet":  # the schema names the phase's items and facts; the checker enforces it
                built.append(StructuredTool.from_function(func=func, name=name, description=description,
                                                          args_schema=packet_parameters(self.phase, self.rubric)))
            else:
                built.append(StructuredTool.from_function(func=func, name=name, description=description))
        self._built = built
        return built

    def _described(self) -> dict[str, dict]:
        """Each tool's full description and argument schema, as `explain` gives them."""
        return {t.name: convert_to_openai_tool(t)["function"] for t in self._built}
