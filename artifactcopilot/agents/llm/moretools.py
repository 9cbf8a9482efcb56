"""The LLM agent's tools for what the offline reviewer also uses on real artifacts: documentation discovery,
environment planning, notebooks, suite images and the claim checks beyond paper tables.

A mixin of `LLMToolbox` (toolbox.py): each method wraps the same `PhaseTools` call the heuristic agent makes and
answers compact JSON; artifact text stays inside <artifact-data> blocks.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ...discovery import Discovery, discover
from ...interventions import Action
from ...provision import EnvPlan, notebook_tooling
from ...sandbox.commandlog import parse_log
from ..heuristic.common import action_for

if TYPE_CHECKING:
    from ...tools import CommandResult, PhaseTools


class MoreTools:
    """Mixed into LLMToolbox: expects `tools`, `out`, `_command`, `_action` from it."""

    tools: PhaseTools
    if TYPE_CHECKING:  # defined by LLMToolbox
        @staticmethod
        def out(**fields: Any) -> str: ...
        def _command(self, res: CommandResult) -> str: ...
        def _action(self, command: str) -> Action: ...

    _found: Discovery | None = None
    _plan: EnvPlan | None = None

    @staticmethod
    def _wrap(text: str) -> str:
        from .toolbox import data  # the toolbox's inert-data wrapper (it imports this mixin)

        return data(text)

    def _discovery(self) -> Discovery:
        if self._found is None:
            self._found = discover(self.tools.artifact_view(), self.tools.paper.text)
        return self._found

    def discover_docs(self) -> str:
        found, ev = self.tools.discover_docs()
        self._found = found
        steps = [{"order": s.order, "kind": s.kind, "cwd": s.cwd, "cmd": s.cmd, "source": s.source,
                  "mentions": s.mentions, "quick": s.quick, "long": s.long, "runnable": s.runnable,
                  "notebook": s.notebook, "reuse": s.reuse}
                 for s in found.steps[:60]]
        return self.out(evidence=ev.id, docs=[d.path for d in found.docs],
                        requested_badges=found.requested_badges.badges if found.requested_badges else None,
                        env_vars={v.name: v.values for v in found.env_vars},
                        notebooks=[{"path": n.path, "stored_outputs": n.stored_outputs, "documented": n.documented}
                                   for n in found.notebooks[:30]],
                        expected_outputs=[{"step_order": e.step_order, "source": e.source}
                                          for e in found.expected_outputs],
                        documented_outputs=[d.to_dict() for d in found.documented_outputs[:30]],
                        steps=self._wrap(json.dumps(steps, ensure_ascii=False)))

    def plan_environment(self) -> str:
        plan, ev = self.tools.plan_environment(self._discovery())
        self._plan = plan
        return self.out(evidence=ev.id, python=plan.python.to_dict() if plan.python else None, notes=plan.notes[:20],
                        steps=[{"script": s.script, "purpose": s.purpose, "network": s.network, "kind": s.kind,
                                "documented": s.documented} for s in plan.steps],
                        hint="run each step with run_setup, in order; switch suites with use_suite first when offered")

    def use_suite(self, suite: str, purpose: str) -> str:
        res = self.tools.use_suite(suite, Action("version", f"use the Python of Debian {suite}"), purpose)
        if res is None:
            return self.out(error="this sandbox offers no other Debian suites: keep its Python")
        return self._command(res)

    def run_notebook(self, notebook: str, purpose: str) -> str:
        plan = self._plan or EnvPlan(python=None)
        for step in notebook_tooling(plan):  # nbclient and ipykernel in the review's venv, once
            self.tools.run_setup(step.script, action_for(step), step.purpose, network=True, timeout=600)
        res, executed = self.tools.run_notebook(notebook, self._action(f"jupyter nbconvert --execute {notebook}"),
                                                purpose)
        return json.dumps({**json.loads(self._command(res)), "executed": executed}, ensure_ascii=False)

    def _stdout(self, evidence_id: str) -> str | None:
        rec = self.tools.store.get(evidence_id)
        return (parse_log(self.tools.store.read(evidence_id)).stdout if rec and rec.kind in ("command", "transfer")
                else None)

    def check_expected_output(self, step_order: int, evidence_id: str) -> str:
        expected = next((e for e in self._discovery().expected_outputs if e.step_order == step_order), None)
        produced = self._stdout(evidence_id)
        if expected is None or produced is None:
            return self.out(error="no documented output for that step, or the evidence id is not a command log")
        match, ev = self.tools.check_expected_output(str(step_order), expected.text, produced, expected.source)
        return self.out(evidence=ev.id, verdict=match.verdict, lines=f"{match.lines_matched}/{match.lines_total}")

    def compare_notebook(self, notebook: str, executed: str) -> str:
        result, ev = self.tools.compare_notebook(notebook, self.tools.read_file(notebook, 20_000_000) or "",
                                                 self.tools.read_output(executed, 20_000_000) or "")
        return self.out(evidence=ev.id, verdict=result.verdict, reason=result.reason)

    def check_documented_outputs(self, evidence_ids: list[str]) -> str:
        written: list[str] = []
        for ev_id in evidence_ids:
            if (rec := self.tools.store.get(ev_id)) and rec.kind in ("command", "transfer"):
                log = parse_log(self.tools.store.read(ev_id))
                written += log.created + log.modified
        documented = [(d.path, d.mentions) for d in self._discovery().documented_outputs]
        results, ev = self.tools.check_documented_outputs(documented, written)
        if ev is None:
            return self.out(error="the documentation names no output files, or nothing ran yet")
        return self.out(evidence=ev.id, results=[{"path": r.documented, "verdict": r.verdict} for r in results[:20]])

    def find_paper_numbers(self, evidence_id: str) -> str:
        produced = self._stdout(evidence_id)
        if produced is None:
            return self.out(error=f"'{evidence_id}' is not a command log")
        stated, found, ev = self.tools.find_paper_numbers(produced)
        return self.out(evidence=ev.id, stated=len(stated), found=[m.claim.text for m in found])
