"""D2's provisioning run: the plan's steps in order, as a committee member runs them.

- An install that resolves what the artifact leaves open as of its date (provision/era.py) falls back to the
  same install with today's releases when that fails; which applied is recorded.
- An isolated build that fails because `setup.py` imports a module the build environment lacks: the step that
  installs the artifact's requirements runs first when it comes later in the plan (the start order changed, I2),
  and once the environment has the module the build is retried without isolation (`--no-build-isolation`,
  a changed command, I2).
- A step stopped by a limit of the review (disk budget, exec, memory, processes, time) is the review's limit,
  recorded as such, never the artifact's failure; a step that fails on its own (a dependency that does not exist
  or does not build) is the artifact's, with pip's reason.
"""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from ...provision import VENV, EnvPlan, ProvisionStep, install_blocker, module_to_distribution
from ...provision.era import UV, install_lines, requirement_name
from ...provision.model import PIP, VENV_PYTHON
from ...provision.tables import normalize
from ...sandbox.tmpspace import review_limits
from ...tools import CommandResult, PhaseTools
from .common import Deadline, action_for

BUILD_MISSING = re.compile(r"No module named '([A-Za-z_][\w]*)")
BUILD_STAGE = re.compile(r"pip-build-env|Getting requirements to build|Preparing metadata|egg_info|"
                         r"subprocess-exited-with-error|Failed to build|build_wheel|get_requires_for_build")


def build_missing_module(output: str) -> str | None:
    """The module an isolated build could not import (setup.py imports a dependency), from pip's or uv's output."""
    if not BUILD_STAGE.search(output):
        return None
    hits = BUILD_MISSING.findall(output)
    return hits[-1] if hits else None


def without_isolation(step: ProvisionStep, module: str) -> ProvisionStep:
    """The same install built without isolation (the environment's own setuptools and `module`)."""
    def patch(script: str) -> str:
        script = script.replace(f"{PIP} install ", f"{PIP} install --no-build-isolation ")
        script = script.replace(f"{UV} pip install ", f"{UV} pip install --no-build-isolation ")
        return f"{PIP} install --quiet setuptools wheel\n{script}"

    fallback = without_isolation(step.fallback, module) if step.fallback else None
    return replace(step, script=patch(step.script), action="command_fix", documented=False, fallback=fallback,
                   purpose=f"{step.purpose}; built without isolation: its isolated build could not import `{module}`"
                           ", which the environment has (--no-build-isolation)")


class Provisioner:
    """Runs an EnvPlan's steps with the fallbacks and retries above; `done` is what D2's packet reads."""

    def __init__(self, tools: PhaseTools, plan: EnvPlan, deadline: Deadline):
        self.tools, self.plan, self.deadline = tools, plan, deadline
        self.done: dict[str, Any] = {"evidence": [], "failed": [], "skipped": [], "replay": [], "venv": False,
                                     "limited": [], "era": [], "retries": []}
        self.ran: set[int] = set()

    def run(self) -> dict[str, Any]:
        for index, step in enumerate(self.plan.steps):
            if index in self.ran:
                continue
            self.ran.add(index)
            res = self._step(step)
            if res is None:
                continue
            if not res.record.ok and step.required:
                res = self._retry(index, step, res) or res
            if not res.record.ok and step.required:
                self._failed(step, res)
        return self.done

    def _run(self, step: ProvisionStep) -> CommandResult | None:
        timeout = self.deadline.timeout(self.tools.options.timeout_s)
        if timeout is None:
            self.done["skipped"].append(f"{step.purpose} (the phase's time budget was used up)")
            return None
        res = self.tools.run_setup(step.script, action_for(step), step.purpose, env=step.env or None,
                                   network=step.network, timeout=timeout)
        self.done["evidence"].append(res.evidence.id)
        if res.record.ok:
            if step.kind == "venv" and f"-m venv {VENV}" in step.script:
                self.done["venv"] = True
                self.tools.ctx.venv_ready = True
            self.done["replay"].append({"script": step.script, "env": step.env, "network": step.network,
                                        **({"venv": True} if step.kind == "venv" and f"-m venv {VENV}" in step.script
                                           else {})})
        return res

    def _step(self, step: ProvisionStep) -> CommandResult | None:
        """Run a step; a dated install that fails gives way to its fallback (today's releases)."""
        res = self._run(step)
        if res is None or step.fallback is None:
            return res
        era = self.plan.era or {}
        if res.record.ok:
            self.done["era"].append(f"{step.fallback.purpose}: resolved as of {era.get('date')} ({res.evidence.id})")
            return res
        if review_limits(res.record.limits_hit):
            return res  # the review's own limit stopped it: today's releases would meet the same limit
        self.done["era"].append(f"{step.fallback.purpose}: resolution as of {era.get('date')} failed "
                                f"({_why(res)}, {res.evidence.id}); today's releases")
        return self._run(step.fallback) or res

    def _retry(self, index: int, step: ProvisionStep, res: CommandResult) -> CommandResult | None:
        """An isolated build that could not import a module: install the requirements first, then build without
        isolation once the environment has the module."""
        module = build_missing_module(_output(res))
        if module is None or step.kind not in ("pip", "project", "lock"):
            return None
        self._install_first(index, module)
        if not self._has(module):
            return None
        retry = without_isolation(step, module)
        self.done["retries"].append(f"{step.purpose}: retried without build isolation (`{module}`)")
        return self._step(retry)

    def _install_first(self, index: int, module: str) -> None:
        """A later step that installs the requirements declaring `module` runs now (start order changed, I2)."""
        wanted = normalize(module_to_distribution(module))
        for later, step in enumerate(self.plan.steps):
            if later <= index or later in self.ran or step.kind not in ("pip", "lock"):
                continue
            names = {normalize(n) for ln in install_lines((step.fallback or step).script, self.tools.read_file, _none)
                     if (n := requirement_name(ln))}
            if wanted in names or normalize(module) in names:
                self.ran.add(later)
                why = f"; run before the project's install, whose build imports `{module}` (install order changed)"
                fallback = replace(step.fallback, action="command_fix", documented=False,
                                   purpose=step.fallback.purpose + why) if step.fallback else None
                moved = replace(step, action="command_fix", documented=False, purpose=step.purpose + why,
                                fallback=fallback)
                self._step(moved)
                return

    def _has(self, module: str) -> bool:
        if not self.tools.ctx.venv_ready:
            return False
        res = self.tools.probe(f"{VENV_PYTHON} -c 'import {module}'", f"does the environment have `{module}`")
        self.done["evidence"].append(res.evidence.id)
        return res.record.ok

    def _failed(self, step: ProvisionStep, res: CommandResult) -> None:
        limits = review_limits(res.record.limits_hit)
        if limits:
            self.done["limited"].append(f"{step.purpose} was stopped by the review's limit: {'; '.join(limits)} "
                                        f"(see {res.evidence.id})")
            return
        self.done["failed"].append(f"{step.purpose} ({_why(res)}; see {res.evidence.id})")
        if (blocker := install_blocker(_output(res), self.plan)) and blocker not in self.plan.blockers:
            self.plan.blockers.append(blocker)  # pip says which interpreter it needs: the stated blocker


def _none(_: str) -> list[str]:
    return []


def _why(res: CommandResult) -> str:
    return "timed out" if res.record.timed_out else f"exit {res.record.exit_code}"


def _output(res: CommandResult) -> str:
    return f"{res.record.stdout}\n{res.record.stderr}"
