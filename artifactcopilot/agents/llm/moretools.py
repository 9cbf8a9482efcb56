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
    from collections.abc import Callable

    from ...llm.clock import Deadline
    from ...llm.paging import Pager
    from ...tools import CommandResult, PhaseTools


class MoreTools:
    """Mixed into LLMToolbox: expects `tools`, `out`, `_command`, `_action` from it."""

    tools: PhaseTools
    pager: Pager
    deadline: Deadline
    if TYPE_CHECKING:  # defined by LLMToolbox
        @staticmethod
        def out(**fields: Any) -> str: ...
        @staticmethod
        def _wrap(text: str) -> str: ...
        def _command(self, res: CommandResult) -> str: ...
        def _action(self, command: str) -> Action: ...
        def _run(self, run: Callable[[float | None], CommandResult | None], none: str = "") -> str: ...

    _found: Discovery | None = None
    _plan: EnvPlan | None = None

    def _discovery(self) -> Discovery:
        if self._found is None:
            self._found = discover(self.tools.artifact_view(), self.tools.paper.text)
        return self._found

    def discover_docs(self) -> str:
        found, ev = self.tools.discover_docs()
        self._found = found
        route, _ = self.tools.plan_route(found)  # the route's order: cheapest paper-tied first
        legs = {leg.step: leg for leg in route.legs}
        ranked = sorted(found.steps, key=lambda s: (legs[s.order].rank if s.order in legs else 10**6, s.order))
        steps = [{"order": s.order, "kind": s.kind, "cwd": s.cwd, "cmd": s.cmd, "source": s.source,
                  "mentions": s.mentions, "quick": s.quick, "long": s.long, "runnable": s.runnable,
                  "notebook": s.notebook, "reuse": s.reuse,
                  **({"cost": legs[s.order].cost_text} if s.order in legs and legs[s.order].cost_text else {})}
                 for s in ranked[:60]]
        shown = self.pager.items(steps, 0.45)
        return self.out(evidence=ev.id, docs=[d.path for d in found.docs][:20],
                        requested_badges=found.requested_badges.badges if found.requested_badges else None,
                        env_vars={v.name: v.values for v in found.env_vars[:10]},
                        notebooks=self.pager.items([{"path": n.path, "stored_outputs": n.stored_outputs,
                                                     "documented": n.documented} for n in found.notebooks[:30]], 0.1),
                        expected_outputs=[{"step_order": e.step_order, "source": e.source}
                                          for e in found.expected_outputs][:20],
                        documented_outputs=self.pager.items([d.to_dict() for d in found.documented_outputs[:30]],
                                                            0.15),
                        step_count=len(found.steps),
                        steps=self._wrap(json.dumps(shown, ensure_ascii=False)),
                        **({"more": f"every step in evidence {ev.id} (read_evidence)"} if len(shown) < len(steps)
                           else {}))

    def plan_environment(self) -> str:
        plan, ev = self.tools.plan_environment(self._discovery())
        self._plan = plan
        steps = [{"script": s.script, "purpose": s.purpose, "network": s.network, "kind": s.kind,
                  "documented": s.documented} for s in plan.steps]
        return self.out(evidence=ev.id, python=plan.python.to_dict() if plan.python else None,
                        notes=self.pager.items(plan.notes[:20], 0.2), steps=self.pager.items(steps, 0.6),
                        step_count=len(steps),
                        hint="run each step with run_setup, in order; switch suites with use_suite first when offered")

    def use_suite(self, suite: str, purpose: str) -> str:
        return self._run(lambda _: self.tools.use_suite(suite, Action("version", f"use the Python of Debian {suite}"),
                                                        purpose),
                         "this sandbox offers no other Debian suites: keep its Python")

    def run_notebook(self, notebook: str, purpose: str) -> str:
        plan = self._plan or EnvPlan(python=None)
        executed: list[str] = []

        def run(timeout: float | None) -> CommandResult:
            for step in notebook_tooling(plan):  # nbclient and ipykernel in the review's venv, once
                self.tools.run_setup(step.script, action_for(step), step.purpose, network=True,
                                     timeout=min(600, timeout or 600))
            left = self.deadline.left()  # what the installs left of the phase's time
            timeout = timeout if left is None else max(1.0, min(timeout or left, left))
            res, copy = self.tools.run_notebook(notebook, self._action(f"jupyter nbconvert --execute {notebook}"),
                                                purpose, timeout=timeout)
            executed.append(copy)
            return res

        answer = json.loads(self._run(run))
        return json.dumps({**answer, "executed": executed[0]} if executed else answer, ensure_ascii=False)

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
