"""D3: run what the documentation says to run, as a reviewer following it would, and judge the workflow.

Data preparation first (unpack, decompress), then the documented workflow, plot and test commands and
notebooks in documentation order — placeholders filled from the docs' own examples or the step reported as not
runnable, runner prefixes (`uv run`, `poetry run`) run in the review's environment, quick/reduced modes preferred
when the docs call the full run long — each within the phase's share of the time budget, with the mechanical
fixes a human would try. The representative workflow is the best-ranked command that produced valid output.
"""
from __future__ import annotations

from ...discovery import Step
from ...discovery.reduce import find_reduction
from ...interventions import Action
from ...models import PhasePacket
from ...provision import VENV, EnvPlan, ProvisionStep, notebook_tooling
from ...route.prereqs import own_file
from ...tools import PhaseTools
from ..base import PhaseContext
from .common import Deadline, action_for, plan_of, steps_of
from .decide import decide
from .fetch import fetch_stage
from .fixes import diagnose, outcome_of, valid_output
from .legs import (
    apply_edits,
    completed_cells,
    documented_reduction,
    in_route_order,
    over_budget,
    partial_files,
    route_of,
    with_services,
)
from .runsteps import (
    Attempt,
    candidates,
    command_of,
    done_so_far,
    not_runnable,
    paper_objects_of,
    paper_ties,
    reduce_run,
    write_inputs,
)

MAX_FIXES = 4
MAX_RUNS = 12


def attempt(tools: PhaseTools, runner, step: Step, script: str, action: Action, env: dict[str, str],
            env_vars: dict[str, str], purpose: str, plan: EnvPlan, deadline: Deadline, replay: list[dict],
            cwd: str | None = None, share: float | None = None, setup_only: bool = False,
            first: tuple[str, str] | None = None) -> Attempt:
    """Run a command, then up to MAX_FIXES mechanical fixes; every run and fix is logged. `share`: the most this
    command may take, so that one long command does not use up the time of the documented commands after it.
    `first`: (command, RW5 text) of the documentation's own smaller setting, run instead of the full command."""
    cwd = step.cwd if cwd is None else cwd
    limit = min(tools.options.timeout_s, share) if share else tools.options.timeout_s
    timeout = deadline.timeout(limit)
    if timeout is None:
        return Attempt(step, script, env, [], "not run: the phase's time budget was used up")
    # the workflow runner (D3) reduces long runs; a phase that may not run the workflow (D5's transfer runs) does not
    # ask for it, so its scope is never tripped
    workflow = getattr(runner, "__name__", "") == "run_workflow"
    script, res, reduced = _first_run(tools, runner, step, script, action, env, purpose, cwd, timeout, first, workflow)
    runs, blocker, tried = [res], None, set()
    for _ in range(MAX_FIXES):
        if valid_output(res) or (timeout := deadline.timeout(limit)) is None:
            break
        fix = diagnose(res.record, script, tools.list_files(), env_vars, env, plan, cwd)
        if fix is None or setup_only and not fix.setup or (fix.setup, fix.script, fix.purpose) in tried \
                or fix.rerun_network and (tools.options.offline or runner != tools.run_workflow):
            break  # nothing to try, or the same fix again (it changed nothing the first time)
        tried.add((fix.setup, fix.script, fix.purpose))
        if fix.setup:
            if VENV in fix.setup and not tools.ctx.venv_ready and not _ensure_venv(tools, replay):
                break
            # an install is not the command's run: it gets up to 10 minutes of the phase, not the command's share
            setup_timeout = deadline.timeout(min(tools.options.timeout_s, 600)) or timeout
            setup = tools.run_setup(fix.setup, fix.action, fix.purpose, network=fix.network,
                                    cwd="." if fix.network else cwd, timeout=setup_timeout)
            if not setup.record.ok:
                blocker = fix.blocker(setup.record, setup.evidence.id)
                break
            replay.append({"script": fix.setup, "network": fix.network, "cwd": "." if fix.network else cwd})
            action = Action("run", script, documented=action.documented) if action.kind == "run" else action
        else:
            action = fix.action
        script, env = fix.script, fix.env
        network = {"network": True} if fix.rerun_network else {}  # a run that downloads at run time: once with network
        res = runner(script, action, fix.purpose, env=env, cwd=cwd, timeout=timeout, **network)
        runs.append(res)
    cut = outcome_of(res)
    if reduced is None and res.record.timed_out and workflow \
            and (timeout := deadline.timeout(limit)) is not None:  # cut by the budget: run it smaller
        again = reduce_run(tools, runner, step, script, env, cwd, timeout, done_so_far(cut.progress))
        if again is not None:
            script, res, reduced = again
            runs.append(res)
    missing = outcome_of(res).missing_program
    if blocker is None and missing and not valid_output(res):
        blocker = f"`{missing}` is not installed, and no fix here could provide it"
    if blocker is None and reduced is not None and first is None and not valid_output(res) \
            and not res.record.timed_out:
        blocker = (f"the review's own reduction failed ({reduced}): a failure of the review's doing, not evidence "
                   "against the artifact")
    return Attempt(step, script, env, runs, cwd=cwd, blocker=blocker, reduced=reduced)


def _first_run(tools: PhaseTools, runner, step: Step, script: str, action: Action, env: dict[str, str], purpose: str,
               cwd: str, timeout: float, first: tuple[str, str] | None, workflow: bool):
    """The command's first run: the documentation's own smaller setting when there is one, a reduced copy when the
    docs call the run long, else the command as documented. Returns (script run, its result, reduction or None)."""
    if first is not None:  # the documentation's own quick setting
        script, reduced = first
        return script, runner(script, Action("run", script, documented=True), f"{reduced} ({step.source})", env=env,
                              cwd=cwd, timeout=timeout), reduced
    if step.long and not step.quick and workflow:  # the docs call it long: reduce it first
        made = reduce_run(tools, runner, step, script, env, cwd, timeout)
        if made is not None:
            return made
    return script, runner(script, action, purpose, env=env, cwd=cwd, timeout=timeout), None


def _ensure_venv(tools: PhaseTools, replay: list[dict]) -> bool:
    """The review's virtual environment, created when a fix first needs it (D2 skips it when nothing is declared)."""
    d2 = tools.store.packets().get("D2")
    step = (d2.facts.get("venv_step") if d2 else None) or None
    if step is None:
        return False
    res = tools.run_setup(step["script"], action_for(ProvisionStep(**step)), step["purpose"], network=step["network"],
                          timeout=600)
    if res.record.ok:
        tools.ctx.venv_ready = True
        replay.append({"script": step["script"], "network": step["network"], "venv": True})
    return res.record.ok


def _prepare(tools: PhaseTools, steps: list[Step], deadline: Deadline, env_vars: dict,
             unpacked: frozenset[int] = frozenset()) -> list[dict]:
    """Documented data preparation (unpack, decompress) before any workflow command, in documentation order;
    `unpacked`: the steps the fetch stage already unpacked."""
    done = []
    for step in steps:
        if step.kind != "data" or not step.runnable or step.order in unpacked \
                or (timeout := deadline.timeout(tools.options.timeout_s)) is None:
            continue
        res = tools.run_workflow(step.inner, Action("run", step.cmd, documented=True),
                                 f"data preparation ({step.source})", env={**env_vars, **step.env}, cwd=step.cwd,
                                 timeout=timeout)
        done.append({"cmd": step.cmd, "source": step.source, "evidence": res.evidence.id, "ok": res.record.ok})
    return done


def _notebook_tooling(tools: PhaseTools, plan: EnvPlan, state: dict) -> bool:
    if state.get("notebooks") is None:
        ok = True
        for step in notebook_tooling(plan):
            res = tools.run_setup(step.script, action_for(step), step.purpose, network=step.network, timeout=600)
            ok = ok and res.record.ok
            if res.record.ok:
                state["replay"].append({"script": step.script, "network": step.network})
        state["notebooks"] = ok
    return bool(state["notebooks"])


def _run_step(tools: PhaseTools, step: Step, plan: EnvPlan, env_vars: dict, deadline: Deadline, state: dict,
              share: float | None = None, leg=None) -> Attempt:
    if step.notebook:
        if (not (tools.ctx.venv_ready or _ensure_venv(tools, state["replay"]))
                or not _notebook_tooling(tools, plan, state)):
            return Attempt(step, step.cmd, {}, [],
                           "not run: the notebook tooling (nbclient, ipykernel) could not be installed")
        executed: dict = {}

        def notebook(script, action, purpose, env=None, cwd=".", timeout=None):
            res, executed["path"] = tools.run_notebook(step.notebook, action, purpose, timeout=timeout)
            return res

        smaller = documented_reduction(tools, leg, step.cmd, share, step.notebook)
        att = attempt(tools, notebook, step, step.cmd, Action("run", step.cmd, documented=step.documented), {},
                      env_vars, f"notebook {step.notebook} ({step.source})", plan, deadline, state["replay"], None,
                      share, setup_only=True, first=smaller)
        att.executed = executed.get("path")
        if att.runs and att.runs[-1].record.timed_out and att.executed:
            att.partial = completed_cells(tools.read_output(att.executed, 20_000_000))
        return att
    write_inputs(tools, step)
    script, action, why, cwd = command_of(step)
    script, started = with_services(script, cwd, leg)
    if started:
        why += f"; {started}"
        action = Action("wait", script, documented=True)  # the documented start order, waited for (I2)
    env = dict(step.env)  # variables the docs set only in prose are a fix (I1), applied when the run asks for them
    att = attempt(tools, tools.run_workflow, step, script, action, env, env_vars, why, plan, deadline,
                  state["replay"], cwd, share, first=documented_reduction(tools, leg, script, share, own_file(step)))
    if att.runs and not valid_output(att.runs[-1]):
        att.partial = [f for f in partial_files(att.runs[-1]) if _nonempty(tools, f)]
    return att


def _nonempty(tools: PhaseTools, rel: str) -> bool:
    root = tools.ctx.session.root if tools.ctx.session else None
    try:
        return root is not None and (root / rel).stat().st_size > 0
    except OSError:
        return False


def run_workflow_phase(ctx: PhaseContext, tools: PhaseTools) -> PhasePacket:
    d1, d2 = ctx.packets["D1"], ctx.packets.get("D2")
    steps, env_vars = steps_of(d1), dict(d1.facts.get("env_vars", {}))
    plan, deadline = plan_of(d2), Deadline.for_phase("D3", tools.options.budget_s)
    state: dict = {"replay": []}
    state["reach"] = reach = fetch_stage(tools, steps, deadline, env_vars)  # documented downloads, clones, unpacks
    prepared = _prepare(tools, steps, deadline, env_vars, frozenset(u["order"] for u in reach["unpacked"] if u["ok"]))
    objects = paper_objects_of(tools)
    route = route_of(d1.facts)
    ordered, skipped = candidates(steps, "build_image" in tools.ctx.sandbox.capabilities, objects)
    ordered = in_route_order(ordered, route)
    state["edits"] = apply_edits(tools, route, set())
    attempts: list[Attempt] = []
    for n, step in enumerate(ordered):
        leg = route.leg(step.order)
        if len([a for a in attempts if a.runs]) >= MAX_RUNS:
            tied = "" if paper_ties(step, objects) else " (not tied to a paper table, figure or research question)"
            skipped.append(not_runnable(step, f"more than {MAX_RUNS} commands documented; not all were run{tied}"))
            continue
        if not step.documented and any(a.valid and a.step.documented for a in attempts):
            continue  # a Makefile target or driver script only when the documented workflow gave nothing
        reducible = find_reduction(step.inner, step.cwd, lambda rel: tools.read_file(rel, 2_000_000)) is not None
        if (costly := over_budget(leg, deadline.left(), reducible)) is not None:
            skipped.append(not_runnable(step, costly))
            continue
        attempts.append(_run_step(tools, step, plan, env_vars, deadline, state,
                                  _share(step, deadline, len(ordered) - n, leg), leg))
    attempts += _after_their_inputs(tools, attempts, objects, plan, env_vars, deadline, state)
    return decide(ctx, tools, d1, steps, attempts, skipped, prepared, state, deadline)


def _after_their_inputs(tools: PhaseTools, attempts: list[Attempt], objects: set[str], plan: EnvPlan, env_vars: dict,
                        deadline: Deadline, state: dict) -> list[Attempt]:
    """Paper-tied commands run first may need what a later documented command makes: each that failed is run once
    more after the others, when one of those ran validly after it."""
    again = []
    for n, att in enumerate(attempts):
        later = any(a.valid for a in attempts[n + 1:])
        if att.runs and not att.valid and later and paper_ties(att.step, objects) and deadline.left() > 30:
            retry = _run_step(tools, att.step, plan, env_vars, deadline, state, None)
            if retry.runs:
                again.append(retry)
    return again


def _share(step: Step, deadline: Deadline, remaining: int, leg=None) -> float | None:
    """The time one documented command gets: an even share of what is left (at least a minute), more when the docs
    say it takes longer; a long-running step (run last) gets whatever is left."""
    if step.long:
        return None
    even = max(60.0, deadline.left() / max(1, min(remaining, MAX_RUNS)))
    stated = leg.cost_s if leg is not None and leg.cost_s is not None else step.duration_hint_s
    return max(even, 1.5 * stated) if stated else even
