"""D2: plan the environment the documentation describes, set it up in the sandbox, probe it.

The plan (artifactcopilot/provision) gives one virtual environment per review with the interpreter the
artifact asks for (or the nearest, flagged), the documented installs translated to it, lock files replayed
with pip; each step runs with network on and is logged as documented (I0) or as an intervention. Probes then
check the interpreter, the declared packages and the documented entry scripts.
"""
from __future__ import annotations

import re
import shlex

from ... import shell as sh
from ...discovery import Step
from ...interventions import Action
from ...models import EvidenceLevel, Flag, PhasePacket
from ...provision import VENV, EnvPlan
from ...provision.metadata import read_project
from ...rules import supported_score
from ...tools import PhaseTools
from ..base import PhaseContext, cited, item
from .common import Deadline, steps_of
from .dataset import data_artifact_files, load_probe
from .envprobe import import_problems, probe_imports
from .envsetup import Provisioner
from .fixes import outcome_of, valid_output
from .runsteps import command_of

ISOLATION = re.compile(r"(^|/)(Dockerfile[^/]*|environment[^/]*\.ya?ml|conda[^/]*\.ya?ml|poetry\.lock|Pipfile\.lock|"
                       r"uv\.lock|renv\.lock|package-lock\.json|requirements[^/]*\.txt)$", re.I)
PINNED = re.compile(r"(poetry|uv|Pipfile)\.lock$|package-lock\.json$|renv\.lock$", re.I)
ENTRY = re.compile(r"\.(py|sh|R|r|jl|ipynb|pl|rb|js)$")


def run_env(ctx: PhaseContext, tools: PhaseTools) -> PhasePacket:
    d1 = ctx.packets["D1"]
    steps = steps_of(d1)
    tools.documented_workflow.update(s.cmd for s in steps if s.kind in ("workflow", "plot", "test"))
    deadline = Deadline.for_phase("D2", tools.options.budget_s)
    plan, plan_ev = tools.plan_environment(_discovery_view(d1), d1.facts.get("packages", []))
    built = _container_build(tools, steps, deadline)
    venv_step = next((s for s in plan.steps if s.kind == "venv" and f"-m venv {VENV}" in s.script), None)
    if not [s for s in plan.steps if s.kind != "venv"]:  # nothing to install: the system Python runs the artifact
        plan.steps = []
    switched = _suite(tools, plan) if built is None or not built["ok"] else None
    setup = _provision(tools, plan, deadline) if built is None or not built["ok"] else _as_built(built)
    if built is not None and not built["ok"]:  # the documented container failed; the plan's environment stands in
        setup["evidence"].insert(0, built["evidence"])
        setup["failed"].insert(0, f"the artifact's {built['dockerfile']} {built['note']} ({built['evidence']})")
    if switched is not None:
        setup["evidence"].insert(0, switched.evidence.id)
        if switched.record.ok:
            setup["replay"].insert(0, {"suite": plan.python.interpreter})
        else:
            setup["failed"].append(f"the {plan.python.interpreter} base image could not be used "
                                   f"({switched.evidence.id})")
    setup["venv_step"] = venv_step.to_dict() if venv_step else None
    probes = _probe(tools, plan, steps, deadline)
    data = data_artifact_files(tools, steps, d1.facts.get("docs") or [])
    if data and deadline.timeout(60) is not None:  # a data set's environment is a standard reader that loads it
        check, ev_id = load_probe(tools, data, d1.facts.get("docs") or [])
        probes["evidence"].append(ev_id)
        if check.documented:  # a data set its documentation describes: loading it is its environment's test
            probes["entries"][f"load {', '.join(data[:3])}"] = check.loaded
            probes["problems"] += check.problems
            probes["data"] = "; ".join(check.schema[:3])
    return _packet(ctx, tools, d1, plan, plan_ev.id, setup, probes)


class _discovery_view:
    """What plan_environment reads of D1's discovery (its committed facts)."""

    def __init__(self, d1: PhasePacket):
        self.steps = steps_of(d1)
        self.python_versions = d1.facts.get("python_versions", [])
        self.system_tools = d1.facts.get("system_tools", [])
        self.docs = list(d1.facts.get("docs", []))


def _suite(tools: PhaseTools, plan: EnvPlan):
    """A container sandbox switches to the Debian suite whose Python the plan chose, before the venv is made."""
    if plan.python is None or not plan.container or "suites" not in tools.ctx.sandbox.capabilities:
        return None
    action = Action("version" if plan.python.drift else "run", f"use the Python {plan.python.chosen} of Debian "
                    f"{plan.python.interpreter}", documented=not plan.python.drift)
    return tools.use_suite(plan.python.interpreter, action,
                           "; ".join(plan.python.reasons) or "the interpreter the artifact asks for")


def _container_build(tools: PhaseTools, steps: list[Step], deadline: Deadline) -> dict | None:
    """The artifact's own container (a Dockerfile it ships), where the sandbox can build one: when it builds,
    the artifact runs in it; when it does not, the plan's environment is set up instead."""
    files = set(tools.list_files())
    documented = next((s for s in steps if s.kind == "install"
                       and re.match(r"(sudo\s+)?docker(-compose)?\s+build", s.inner)), None)
    dockerfile = _dockerfile_of(documented.inner, documented.cwd, files) if documented else None
    dockerfile = dockerfile or ("Dockerfile" if "Dockerfile" in files else None)
    timeout = deadline.timeout(tools.options.timeout_s)
    if dockerfile is None or timeout is None or "build_image" not in tools.ctx.sandbox.capabilities:
        return None
    cmd = documented.cmd if documented else "docker build ."
    res = tools.build_image(dockerfile, Action("run", cmd, documented=documented is not None),
                            "the artifact's own container")
    if res is None:
        return None
    return {"ok": res.record.ok, "evidence": res.evidence.id, "dockerfile": dockerfile,
            "note": "built" if res.record.ok else ("timed out" if res.record.timed_out else "did not build")}


def _as_built(built: dict) -> dict:
    return {"evidence": [built["evidence"]], "failed": [], "skipped": [], "venv": False, "limited": [], "era": [],
            "retries": [], "replay": [{"build": built["dockerfile"]}], "container": built["dockerfile"]}


def _dockerfile_of(cmd: str, cwd: str, files: set[str]) -> str | None:
    """The Dockerfile a documented `docker build` uses (`-f`, else CONTEXT/Dockerfile), if the artifact has it."""
    try:
        tokens = sh.split(cmd)
    except ValueError:
        return None
    named, context = None, "."
    args = tokens[tokens.index("build") + 1:] if "build" in tokens else []
    i = 0
    while i < len(args):
        if args[i] in ("-f", "--file") and i + 1 < len(args):
            named, i = args[i + 1], i + 2
            continue
        if args[i].startswith("-"):
            i += 2 if args[i] in ("-t", "--tag", "--build-arg", "--target", "--platform") else 1
            continue
        context, i = args[i], i + 1
    base = "" if cwd in ("", ".") else cwd.rstrip("/") + "/"
    rel = (base + (named or f"{context.rstrip('/')}/Dockerfile")).replace("/./", "/").removeprefix("./")
    return rel if rel in files else None


def _provision(tools: PhaseTools, plan: EnvPlan, deadline: Deadline) -> dict:
    """Run the plan's steps in order (envsetup.py); a failed required step is recorded and the rest still run."""
    return Provisioner(tools, plan, deadline).run()


def _probe(tools: PhaseTools, plan: EnvPlan, steps: list[Step], deadline: Deadline) -> dict:
    """Is the environment evaluable: interpreter, declared packages, console scripts, documented entry files."""
    out: dict = {"evidence": [], "problems": [], "entries": {}, "missing": []}
    python = f"{VENV}/bin/python" if tools.ctx.venv_ready else "python3"
    if deadline.timeout(60) is None:
        out["problems"].append("no time left to probe the environment")
        return out
    res = tools.probe(f"{python} --version", "is the Python interpreter usable")
    out["evidence"].append(res.evidence.id)
    if not valid_output(res):
        out["problems"].append(f"{python} does not run ({outcome_of(res).line(res.record.exit_code)})")
    out["imports"] = probe_imports(tools, plan)
    if out["imports"]["evidence"]:
        out["evidence"].append(out["imports"]["evidence"])
    out["problems"] += import_problems(out["imports"])
    scripts = sorted(plan.console_scripts)
    if scripts and tools.ctx.venv_ready:
        res = tools.probe(" ; ".join(f"command -v {shlex.quote(s)} >/dev/null && echo '{s} ok' || echo '{s} MISSING'"
                                     for s in scripts), "are the project's console scripts installed")
        out["evidence"].append(res.evidence.id)
        out["problems"] += [f"console script {ln.split()[0]} missing" for ln in res.record.stdout.splitlines()
                            if ln.endswith("MISSING")]
    files, missing_scripts = (set(tools.list_files()),
                              {p.split()[-1] for p in out["problems"] if p.startswith("console script")})
    for step in steps:
        if step.kind not in ("workflow", "plot", "test"):
            continue
        tokens = [t for t in step.inner.split() if ENTRY.search(t) and not t.startswith(("-", "$", "/"))]
        rels = [t.removeprefix("./") if step.cwd in ("", ".") else f"{step.cwd.rstrip('/')}/{t.removeprefix('./')}"
                for t in tokens]
        program = step.inner.split()[0] if step.inner.split() else ""
        out["entries"][step.cmd] = all(r in files for r in rels) and program not in missing_scripts
        script, action, purpose, _ = command_of(step)
        if action.kind == "path_fix" and out["entries"][step.cmd]:  # resolves only where it really is: logged now (I2)
            tools.record_intervention(action, f"reaching an evaluable state needs it: {purpose}")
        out["missing"] += [r for r in rels if r not in files and r not in out["missing"]]
    return out


def _packet(ctx, tools: PhaseTools, d1: PhasePacket, plan: EnvPlan, plan_id: str, setup: dict,
            probes: dict) -> PhasePacket:
    deps = d1.facts.get("dependency_files", [])
    declared = bool(deps or any(s.kind != "venv" for s in plan.steps) or
                    (setup_item := d1.item("D1.setup")) is not None and setup_item.status == "satisfied")
    installs = [s for s in plan.steps if s.kind != "venv"]
    third_party = _third_party(tools, plan)
    self_contained = not third_party and not [s for s in installs if s.kind not in ("project",)]
    entries = probes["entries"]
    resolves = any(entries.values())
    evaluable = (not probes["problems"] and resolves
                 and (setup["venv"] or bool(setup.get("container")) or not plan.steps))
    isolation = [f for f in deps if ISOLATION.search(f)]
    pinned = not third_party or any(PINNED.search(f) for f in deps) or all("==" in r or "@" in r for r in third_party)
    missing_entries = probes.get("missing", [])
    imported = probes.get("imports") or {}
    eval_note = (("the data set's tables load with a standard CSV reader: " + probes["data"] if probes.get("data")
                  else _importable(imported)) if evaluable else
                 "; ".join(probes["problems"] + (["no documented workflow command resolves" + (
                     f"; missing: {', '.join(missing_entries[:5])}" if missing_entries else " (none documented)")]
                     if not resolves else []) + setup["limited"][:2] + setup["failed"][:3])
                 or "the environment could not be set up")
    failed = setup["failed"] + setup["skipped"]
    checklist = [
        item("D2.declared", declared, [plan_id, *d1.evidence[:1]],
             "dependency files or documented setup" if declared else "no environment declared"),
        item("D2.setup_ok", None if setup["limited"] and not failed and not plan.blockers else
             not failed and not plan.blockers, setup["evidence"] or [plan_id],
             ("not established: " if setup["limited"] and not failed and not plan.blockers else "")
             + "; ".join(plan.blockers + setup["limited"] + failed)[:400]
             or f"{len(plan.steps)} setup steps completed"),
        item("D2.evaluable", evaluable, probes["evidence"] + [plan_id], eval_note),
        item("D2.pinned", pinned, [plan_id], "no third-party dependency" if not third_party else
             ("versions locked or pinned" if pinned else f"{len([r for r in third_party if '==' not in r])} of "
                                                          f"{len(third_party)} dependencies unpinned")),
        item("D2.isolated", bool(isolation) or self_contained, [plan_id],
             f"isolation files: {', '.join(isolation)}" if isolation else
             ("self-contained (standard library only)" if self_contained
              else "no container, lock or environment file")),
    ]
    level = EvidenceLevel.E2 if (setup["evidence"] or probes["evidence"]) and evaluable else EvidenceLevel.E1
    score, _ = supported_score("D2", checklist, level, tools.store.interventions(), ctx.rubric)
    python = plan.python
    flags = ([Flag(severity="medium", code="interpreter-drift", phase="D2", message=python.drift)]
             if python and python.drift else [])
    flags += [Flag(severity="medium", code="review-limit", phase="D2", message=f"not the artifact's failure: {n}"[:300])
              for n in setup["limited"]]
    facts = {"env": dict(d1.facts.get("env_vars", {})), "replay": setup["replay"], "venv": setup["venv"],
             "venv_step": setup.get("venv_step"),
             "plan": {"python": python.to_dict() if python else None, "console_scripts": plan.console_scripts,
                      "project_name": plan.project_name, "project_dir": plan.project_dir, "container": plan.container,
                      "declared": plan.declared, "era": plan.era, "octave": plan.octave},
             "notes": plan.notes, "blockers": plan.blockers, "era_applied": setup["era"],
             "review_limits": setup["limited"], "retries": setup["retries"], "imports": imported}
    return PhasePacket(phase="D2", score=score, checklist=checklist, evidence=cited(checklist, plan_id),
                       evidence_level=level, facts=facts, summary=_summary(plan, setup, evaluable, len(installs)),
                       flags=flags, interventions=[i.id for i in tools.store.interventions() if i.phase == "D2"])


def _importable(imported: dict) -> str:
    checked = imported.get("checked", 0)
    head = (f"the documented install reached an importable state ({checked} declared packages import)"
            if checked else "interpreter and documented setup usable (no third-party package declared)")
    rest = f"; {imported['unchecked']} not checked in the probe's time" if imported.get("unchecked") else ""
    return f"{head}{rest}; documented entry scripts resolve"


def _summary(plan: EnvPlan, setup: dict, evaluable: bool, installs: int) -> str:
    python = plan.python
    era = plan.era or {}
    dated = [e for e in setup["era"] if "resolved as of" in e]
    today = [e for e in setup["era"] if "today's releases" in e]
    return (f"Environment {'reached an evaluable state' if evaluable else 'did not reach an evaluable state'}: "
            f"Python {python.chosen if python else '?'}" + (f" ({python.drift})" if python and python.drift else "")
            + f", {installs} install steps"
            + (f", {len(setup['failed'])} failed" if setup["failed"] else "")
            + (f", {len(setup['limited'])} stopped by the review's own limits (not the artifact's failure)"
               if setup["limited"] else "") + "."
            + (f" Open dependencies resolved as of {era.get('date')} ({era.get('source')}) in {len(dated)} step(s)"
               + (f"; today's releases in {len(today)} where that failed" if today else "") + "."
               if setup["era"] else "")
            + (f" Blocker: {'; '.join(plan.blockers)}." if plan.blockers else ""))


def _third_party(tools: PhaseTools, plan: EnvPlan) -> list[str]:
    """The third-party requirements the artifact declares (requirement files installed, the project's own list),
    plus packages installed because the docs name them."""
    lines = [ln.split("#")[0].strip() for f in plan.requirement_files
             for ln in (tools.read_file(f, 200_000) or "").splitlines()]
    reqs = [ln for ln in lines if ln and not ln.startswith("-")]
    project = read_project(tools.list_files(), lambda rel: tools.read_file(rel, 500_000))
    named = [s for s in plan.steps if s.kind == "pip" and not s.documented]
    return reqs + list(project.dependencies) + [s.script for s in named]
