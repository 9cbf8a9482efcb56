"""D2: detect the declared environment, run documented setup, probe for an evaluable state."""
from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import PurePosixPath

from ...interventions import Action
from ...models import EvidenceLevel, PhasePacket
from ...readme import SETUP_CMD, DocCommand
from ...rules import supported_score
from ..base import PhaseContext, cited, item
from ...tools import PhaseTools
from .fixes import relocation

IMPORT_ALIASES = {"scikit-learn": "sklearn", "pyyaml": "yaml", "pillow": "PIL", "beautifulsoup4": "bs4",
                  "opencv-python": "cv2", "python-dateutil": "dateutil", "protobuf": "google.protobuf"}
ENTRY_FILE = re.compile(r"\.(py|sh|R|r|jl|ipynb|pl|rb|js|jar)$")
REQ_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
ISOLATION = re.compile(r"(^|/)(Dockerfile[^/]*|environment[^/]*\.ya?ml|conda[^/]*\.ya?ml|poetry\.lock|Pipfile\.lock|uv\.lock|renv\.lock|package-lock\.json)$", re.I)


def requirements(tools: PhaseTools, files: list[str]) -> list[str]:
    reqs: list[str] = []
    for rel in files:
        name = rel.rsplit("/", 1)[-1].lower()
        text = tools.read_file(rel, 200_000) or ""
        if name.startswith("requirements") and name.endswith(".txt"):
            reqs += [ln.split("#")[0].strip() for ln in text.splitlines() if ln.split("#")[0].strip() and not ln.strip().startswith("-")]
        elif name == "pyproject.toml":
            try:
                reqs += list(tomllib.loads(text).get("project", {}).get("dependencies", []))
            except tomllib.TOMLDecodeError:
                pass
    return reqs


def import_name(req: str) -> str | None:
    match = REQ_NAME.match(req)
    if not match:
        return None
    name = match.group(1).lower()
    return IMPORT_ALIASES.get(name, name.replace("-", "_"))


def entry_files(cmd: DocCommand) -> list[str]:
    """Relative file paths a documented command invokes (scripts, notebooks), for a static probe."""
    try:
        tokens = shlex.split(cmd.cmd)
    except ValueError:
        tokens = cmd.cmd.split()
    return [t for t in tokens if ENTRY_FILE.search(t) and not t.startswith(("/", "-", "$"))]


def dockerfile_of(cmd: str, files: list[str]) -> str | None:
    """The Dockerfile a documented `docker build` uses (`-f`, else CONTEXT/Dockerfile), if the artifact has it."""
    try:
        tokens = shlex.split(cmd)
    except ValueError:
        return None
    if "build" not in tokens:
        return None
    args = tokens[tokens.index("build") + 1:]
    named, context, i = None, ".", 0
    while i < len(args):
        if args[i] in ("-f", "--file") and i + 1 < len(args):
            named, i = args[i + 1], i + 2
            continue
        if args[i].startswith("--file="):
            named = args[i].split("=", 1)[1]
        elif args[i].startswith("-"):
            i += 2 if args[i] in ("-t", "--tag", "--build-arg", "--target", "--platform") else 1
            continue
        else:
            context = args[i]
        i += 1
    path = PurePosixPath(named) if named else PurePosixPath(context) / "Dockerfile"
    rel = path.as_posix().removeprefix("./")
    return rel if rel in files else None


def probe_entries(tools: PhaseTools, workflow: list[DocCommand]) -> tuple[bool, dict[str, str], list[str]]:
    """Do the documented workflow commands' entry files exist? Returns (resolves, relocations, missing).

    A command with no file token (e.g. `make test`) cannot be checked statically and counts as resolving.
    An entry found under another path resolves through a relocation (an I2 path fix).
    """
    files = tools.list_files()
    relocations, missing, any_resolves = {}, [], False
    for cmd in workflow:
        prefix_dir = next((ln.split(None, 1)[1] for ln in cmd.prefix if ln.startswith("cd ")), "")
        entries = entry_files(cmd)
        ok = True
        for entry in entries:
            rel = (PurePosixPath(prefix_dir) / entry).as_posix() if prefix_dir else entry
            if rel.lstrip("./") in files:
                continue
            hits = sorted((f for f in files if PurePosixPath(f).name == PurePosixPath(entry).name), key=lambda f: f.count("/"))
            if hits:
                relocations[entry] = hits[0]
            else:
                missing.append(entry)
                ok = False
        any_resolves = any_resolves or ok
    return any_resolves, relocations, missing


def run_env(ctx: PhaseContext, tools: PhaseTools) -> PhasePacket:
    d1 = ctx.packets["D1"]
    commands = [DocCommand(**c) for c in d1.facts.get("commands", [])]
    tools.documented_workflow.update(c.cmd for c in commands if c.kind in ("workflow", "reuse"))
    dep_files = d1.facts.get("dependency_files", [])
    reqs = requirements(tools, dep_files)
    pinned_reqs = [r for r in reqs if "==" in r]
    isolation_files = [f for f in dep_files if ISOLATION.search(f)]
    setup_cmds = [c for c in commands if c.kind == "setup"]
    d1_setup = d1.item("D1.setup")
    detected = {"workflow_entries": {c.cmd: entry_files(c) for c in commands if c.kind == "workflow"},
                "dependency_files": dep_files, "requirements": reqs, "pinned": pinned_reqs,
                "isolation_files": isolation_files, "setup_commands": [c.script() for c in setup_cmds]}
    env_ev = tools.record_evidence("environment", "environment", detected,
                                   f"{len(dep_files)} dependency files, {len(reqs)} requirements, {len(setup_cmds)} setup commands",
                                   EvidenceLevel.E1)
    env = dict(d1.facts.get("env_vars", {}))
    setup_evs, setup_ok, notes, replay = [], True, [], []
    built = False
    for cmd in setup_cmds:
        if re.match(r"\s*(sudo\s+)?docker", cmd.cmd):
            dockerfile = dockerfile_of(cmd.cmd, tools.list_files())
            res = tools.build_image(dockerfile, Action("run", cmd.cmd, documented=True), "documented container build") if dockerfile else None
            if res is None:
                notes.append(f"'{cmd.cmd}' needs a container engine; not run in this sandbox")
                continue
            built = True
            setup_evs.append(res.evidence.id)
            if res.record.ok:
                replay.append({"build": dockerfile})
            else:
                setup_ok = False
                notes.append(f"'{cmd.cmd}' failed: the image did not build" + (" (timed out)" if res.record.timed_out else ""))
            continue
        needs_network = bool(SETUP_CMD.match(cmd.cmd))  # installs fetch packages; checks and builds stay offline
        res = tools.run_setup(cmd.script(), Action("run", cmd.cmd, documented=True), "documented setup step", env=env,
                              network=needs_network)
        setup_evs.append(res.evidence.id)
        if res.record.ok:
            replay.append({"script": cmd.script(), "env": env, "network": needs_network})
        else:
            setup_ok = False
            notes.append(f"'{cmd.cmd}' failed (exit {res.record.exit_code})")

    if not built and "Dockerfile" in tools.list_files():  # a declared container, even when the README does not say how to build it
        res = tools.build_image("Dockerfile", Action("run", "docker build .", documented=True), "build the declared container")
        if res is not None:
            setup_evs.append(res.evidence.id)
            if res.record.ok:
                replay.append({"build": "Dockerfile"})
            else:
                setup_ok = False
                notes.append("the artifact's Dockerfile did not build" + (" (timed out)" if res.record.timed_out else ""))

    probe_evs, evaluable = [], True
    uses_python = any(f.endswith((".py", ".ipynb")) for f in tools.list_files())
    if uses_python:
        res = tools.probe("python3 --version", "is a Python interpreter available")
        probe_evs.append(res.evidence.id)
        evaluable = res.record.ok
    modules = [m for m in (import_name(r) for r in reqs) if m]
    if modules and evaluable:
        script = "python3 - <<'PY'\nimport importlib.util\nfor m in %r:\n    print(m, 'ok' if importlib.util.find_spec(m) else 'MISSING')\nPY" % modules
        res = tools.probe(script, "do the declared Python dependencies import")
        probe_evs.append(res.evidence.id)
        missing = [ln.split()[0] for ln in res.record.stdout.splitlines() if ln.endswith("MISSING")]
        for mod in missing:  # the fix a human would try: install what is declared but absent (I1)
            req = next(r for r in reqs if import_name(r) == mod)
            fix = tools.run_setup(f"python3 -m pip install '{req}'", Action("install", f"pip install {req}"),
                                  f"declared dependency {req} is not importable", env=env)
            setup_evs.append(fix.evidence.id)
            if fix.record.ok:
                replay.append({"script": f"python3 -m pip install '{req}'", "env": env, "network": True})
        if missing:
            res = tools.probe(script, "re-check the declared dependencies")
            probe_evs.append(res.evidence.id)
            evaluable = not any(ln.endswith("MISSING") for ln in res.record.stdout.splitlines())
    workflow = [c for c in commands if c.kind == "workflow"]
    resolves, relocations, missing_entries = probe_entries(tools, workflow)
    for documented, actual in relocations.items():  # logged now: reaching an evaluable state needed it
        tools.record_intervention(Action("path_fix", relocation(documented, actual)),
                                  f"documented entry {documented} does not exist; the file is at {actual}", [env_ev.id])
    eval_notes = []
    if not resolves:
        evaluable = False
        eval_notes.append("no documented workflow entry resolves" + (f" (missing: {', '.join(missing_entries)})" if missing_entries else ""))
    no_third_party = not reqs
    declared = bool(dep_files or setup_cmds or (d1_setup and d1_setup.status == "satisfied"))
    installs = [c for c in setup_cmds if SETUP_CMD.match(c.cmd)]
    self_contained = no_third_party and not installs
    checklist = [
        item("D2.declared", declared, [env_ev.id, *d1.evidence[:1]], "dependency files or documented setup" if declared else "no environment declared"),
        item("D2.setup_ok", setup_ok, setup_evs or [env_ev.id], "; ".join(notes) or (f"{len(setup_cmds)} setup steps completed" if setup_cmds else "no setup step needed")),
        item("D2.evaluable", evaluable, probe_evs + [env_ev.id], "interpreter, declared dependencies and documented entry scripts resolve"
             + (f" (after relocating {', '.join(relocations)})" if relocations else "") if evaluable else "; ".join(eval_notes) or "dependencies or interpreter missing"),
        item("D2.pinned", no_third_party or len(pinned_reqs) == len(reqs) or bool(isolation_files), [env_ev.id],
             "no third-party dependency" if no_third_party else f"{len(pinned_reqs)}/{len(reqs)} requirements pinned"),
        item("D2.isolated", bool(isolation_files) or self_contained, [env_ev.id],
             f"isolation files: {', '.join(isolation_files)}" if isolation_files else ("self-contained (standard library only)" if self_contained else "no container or environment file")),
    ]
    level = EvidenceLevel.E2 if (setup_evs or probe_evs) and evaluable else EvidenceLevel.E1
    score, _ = supported_score("D2", checklist, level, tools.store.interventions(), ctx.rubric)
    summary = (f"Environment {'reached an evaluable state' if evaluable else 'did not reach an evaluable state'}; "
               f"{len(setup_cmds)} documented setup steps, {len(reqs)} declared requirements.")
    return PhasePacket(phase="D2", score=score, checklist=checklist, evidence=cited(checklist, env_ev.id),
                       evidence_level=level, facts={"env": env, "requirements": reqs, "replay": replay}, summary=summary,
                       interventions=[i.id for i in tools.store.interventions() if i.phase == "D2"])
