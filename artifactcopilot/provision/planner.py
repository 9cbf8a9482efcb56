"""plan_environment: the steps a careful reviewer runs to set up an artifact's environment.

Pure: it reads the artifact through `read`, never runs, downloads or writes anything. Steps come in order:
the review's virtual environment with the chosen interpreter, system packages the build needs (container),
the documented install steps translated to that environment, then — when the docs give no install step — the
requirement file nearest the workflow (or a lock/environment file), the project itself and the packages the
docs name in prose, and finally the system tools the docs require.
"""
from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Callable, Iterable

import tomllib

from . import managers
from .choose import choose_python
from .commands import Command
from .context import Context, absorb_requirements, add, apt_script, pip_script
from .docfiles import prefer_named, renames_in, with_renames
from .era import Era
from .failures import module_to_distribution
from .installs import installs_and_era
from .metadata import read_project
from .model import PIP, VENV, VENV_PYTHON, EnvPlan, InstallStep, ProvisionStep, PythonChoice
from .pyversions import fmt, parse_minor, parse_spec
from .relax import relax_old_pins
from .requirements import REQ_FILE, excluded_reason, select_requirement_files
from .runtimes import runtime_steps
from .system import build_needs, plan_tools
from .tables import WHEEL_ONLY, normalize, tool_entry, wheel_ceiling
from .translate import translate


def _safe(read: Callable[[str], str | None]) -> Callable[[str], str | None]:
    def reader(rel: str) -> str | None:
        try:
            text = read(rel)
        except (OSError, UnicodeError, ValueError):
            return None
        return text if isinstance(text, str) else None
    return reader


def plan_environment(files: list[str], read: Callable[[str], str | None], documented: list[InstallStep],
                     interpreters: dict[str, str], *, container: bool, workflow_entries: Iterable[str] = (),
                     doc_python: Iterable[str] = (), doc_tools: Iterable[str] = (),
                     doc_packages: Iterable[str] = (), era: tuple[str, str] | None = None,
                     date: Era | None = None, doc_files: Iterable[str] = (), doc_texts: Iterable[str] = ()) -> EnvPlan:
    """Plan the environment; bad input (unreadable or corrupt files) becomes notes, never an exception.

    `era`: (version, why) of the Python contemporary with the artifact, preferred when nothing the artifact
    says decides (old code often breaks on newer standard libraries). `date`: the artifact's date, as of which
    the install steps resolve what the artifact leaves open (provision/era.py). `doc_files`: requirement files
    the documentation names (installed whatever else it says: provision/docfiles.py); `doc_texts`: the documents'
    text (a Java version they name: provision/runtimes.py)."""
    files = [f for f in files or [] if isinstance(f, str)]
    reader = _safe(read)
    ctx = Context(files=files, read=reader, container=container, project=read_project(files, reader))
    for note in ctx.project.notes:
        ctx.note(note)
    _python_requests(ctx, list(doc_python))
    if era:
        ctx.preferences.append((era[0], era[1], 5))
    for step in documented or []:
        try:
            translate(ctx, step)
        except Exception as exc:  # noqa: BLE001 - one unreadable step must not lose the rest of the plan
            ctx.note(f"documented step {getattr(step, 'cmd', step)!r} could not be planned ({type(exc).__name__})")
    prefer_named(ctx, [f for f in doc_files if isinstance(f, str)])
    documented_install = ctx.deps_installed or ctx.project_installed
    skipped = _fallbacks(ctx, list(workflow_entries), documented_install)
    _doc_packages(ctx, list(doc_packages), documented_install)
    if not (ctx.deps_installed or ctx.project_installed or any(s.kind in ("pip", "lock") for s in ctx.steps)):
        ctx.note("no dependency is declared or documented: the environment has only the standard library until a "
                 "run reports a missing module")
    tools = plan_tools(list(doc_tools))
    ceilings = [(c, f"{n}=={v} ({src})") for n, v, src in ctx.pins if (c := wheel_ceiling(n, v))]
    suite_ok = (lambda suite: all(suite in suites for _, suites in tools.suites)) if container and tools.suites \
        else None
    offered = {str(k): str(v) for k, v in interpreters.items()} if isinstance(interpreters, dict) else {}
    choice, notes = choose_python(offered, ctx.requests, ctx.preferences, ceilings, suite_ok=suite_ok)
    for note in notes:
        ctx.note(note)
    if choice:
        relax_old_pins(ctx, choice.chosen, list(offered))
    steps = [_venv_step(choice, container)] if choice else []
    steps += _system_steps(ctx, choice, tools, ceilings)
    plan = EnvPlan(python=choice, steps=steps + ctx.steps, container=container, project_name=ctx.project.name,
                   project_dir=ctx.project.dir if ctx.project.installable else None,
                   console_scripts=dict(ctx.project.console_scripts))
    plan.steps += _tool_steps(ctx, tools, choice)
    plan.requirement_files = list(dict.fromkeys(ctx.requirement_files))
    plan.skipped_requirement_files = _skipped(ctx, skipped)
    plan.apt_packages = list(dict.fromkeys(p for s in plan.steps if s.kind == "apt" or "apt-get install" in s.script
                                           for p in _apt_names(s.script))) if container else []
    plan.blockers = _wheel_blockers(ctx, choice, offered)
    installs_and_era(ctx, plan, date)
    runtime_steps(ctx, plan, [t for t in doc_texts or [] if isinstance(t, str)],
                  [t for t in doc_tools or [] if isinstance(t, str)])
    plan.notes = ctx.notes
    return plan


def _wheel_blockers(ctx: Context, choice: PythonChoice | None, offered: dict[str, str]) -> list[str]:
    """Pins of wheel-only distributions (tensorflow, torch) whose wheels stop below every interpreter on offer."""
    versions = sorted(v for k in offered if (v := parse_minor(k)))
    if choice is None or not versions:
        return []
    out = []
    for name, version, source in ctx.pins:
        ceiling = wheel_ceiling(name, version)
        if normalize(name) in WHEEL_ONLY and ceiling and ceiling < versions[0]:
            out.append(f"{name} {version} ({source}) needs Python {fmt(ceiling)} or older (PyPI has no wheel for a "
                       f"newer one and no source build); the interpreters here are "
                       f"{', '.join(fmt(v) for v in versions)}: it cannot be installed here")
    return list(dict.fromkeys(out))


def _python_requests(ctx: Context, doc_python: list[str]) -> None:
    ctx.requests += ctx.project.python_requests
    if ctx.exists(".python-version"):
        first = next((ln.strip() for ln in (ctx.read(".python-version") or "").splitlines() if ln.strip()), "")
        if parse_minor(first):
            ctx.preferences.append((first, ".python-version", 0))
    if ctx.exists("uv.lock") and isinstance(spec := _toml_value(ctx, "uv.lock", "requires-python"), str):
        ctx.requests.append((spec, "uv.lock requires-python"))
    if ctx.exists("Pipfile"):
        requires = _toml_value(ctx, "Pipfile", "requires")
        if isinstance(requires, dict):
            spec = requires.get("python_full_version") or requires.get("python_version")
            if isinstance(spec, str):
                ctx.requests.append((spec, "Pipfile [requires]"))
    for text in doc_python:
        _doc_python(ctx, str(text))
    for version in sorted(set(ctx.project.classifier_versions), key=lambda v: parse_minor(v) or (0, 0), reverse=True):
        ctx.preferences.append((version, "classifiers", 3))


def _doc_python(ctx: Context, text: str) -> None:
    version = parse_minor(text)
    if version and version[0] == 2:
        ctx.note(f"the documentation asks for Python {text.strip()}: Python 2 is a system tool (apt package python2,"
                 " Debian bullseye and older), not the review's virtual environment")
        return
    spec = parse_spec(text)
    if spec is None:
        return
    if spec.exact:
        ctx.preferences.append((f"{spec.exact[0]}.{spec.exact[1]}", f"documentation ({text.strip()})", 2))
    else:
        ctx.requests.append((spec.text, "documentation"))


def _toml_value(ctx: Context, path: str, key: str) -> object:
    try:
        return tomllib.loads(ctx.read(path) or "").get(key)
    except (tomllib.TOMLDecodeError, UnicodeError):
        ctx.note(f"{path} is not valid TOML; it is ignored")
        return None


def _fallbacks(ctx: Context, entries: list[str], documented_install: bool) -> list[tuple[str, str]]:
    """Undocumented installs when the docs give none: nearest requirement file or lock, then the project."""
    if documented_install:
        return []
    chosen, skipped = select_requirement_files(ctx.files, entries)
    for path in chosen:
        folder, _, name = path.rpartition("/")
        fixed = with_renames(ctx, path)
        script = f"{fixed[0]}\n{pip_script(['-r', fixed[1]], folder or '.')}" if fixed else \
            pip_script(["-r", name], folder or ".")
        add(ctx, script, f"install {path}: the requirement file "
            f"{'nearest to the workflow' if entries else 'at the top level'} (the docs give no install step)"
            + "".join(f"; uses the current PyPI name {new} for {old}" for old, new in renames_in(ctx, path)),
            "pip", documented=False, action="install", source=path)
        ctx.requirement_files.append(path)
        absorb_requirements(ctx, path)
        ctx.deps_installed = True
    if not chosen:
        _lock_fallback(ctx)
    if ctx.project.installable and not ctx.project_installed:
        managers.install_project(ctx, ctx.project, no_deps=ctx.deps_installed, documented=False, action="install",
                                 step=None, why="the artifact is a Python project; the docs give no install step")
    elif not ctx.deps_installed and ctx.project.dependencies:
        managers.install_declared(ctx, ctx.project, documented=False, action="install", step=None,
                                  label="documented install step")
    return skipped


def _lock_fallback(ctx: Context) -> None:
    options = [("uv.lock", managers.uv, "sync"), ("poetry.lock", managers.poetry, "install"),
               ("Pipfile.lock", managers.pipenv, "install"), ("Pipfile", managers.pipenv, "install")]
    for path, handler, sub in options:
        if ctx.exists(path):
            tool = {"uv.lock": "uv", "poetry.lock": "poetry"}.get(path, "pipenv")
            handler(ctx, Command(tool, [], text=f"{tool} {sub}", sub=sub), ".", {}, None, documented=False,
                    action="install")
            return
    for path in ("environment.yml", "environment.yaml"):
        if ctx.exists(path):
            managers.env_file_for(ctx, path, ".", None, documented=False, action="install")
            return


def _doc_packages(ctx: Context, names: list[str], documented_install: bool) -> None:
    names = [n.strip() for n in names if isinstance(n, str) and n.strip()]
    stdlib = [n for n in names if n.split(".")[0] in sys.stdlib_module_names]
    wanted = list(dict.fromkeys(module_to_distribution(n.split(".")[0]) if re.fullmatch(r"[A-Za-z_][\w.]*", n) else n
                                for n in names if n not in stdlib))
    have = {normalize(n) for n in ctx.names}
    missing = [n for n in wanted if normalize(n) not in have]
    if stdlib:
        ctx.note(f"the documentation lists {', '.join(stdlib)}: part of Python's standard library, nothing to install")
    if not missing:
        return
    if documented_install:
        ctx.note(f"the documentation also names {', '.join(missing)}, which the documented install does not cover")
        return
    add(ctx, pip_script(missing), f"packages the documentation names in prose: {', '.join(missing)}", "pip",
        documented=True, action="install", source="documentation")
    ctx.names += missing


def _venv_step(choice: PythonChoice, container: bool) -> ProvisionStep:
    command = f"python{choice.chosen}" if container else shlex.quote(choice.interpreter)
    create = f"{command} -m venv {VENV}"
    if container:  # Debian ships venv/ensurepip separately: install it only when creating the venv fails
        create = f"{create} 2>/dev/null || {{ rm -rf {VENV}; {apt_script(['python3-venv'])} && {create}; }}"
    script = f"test -x {VENV_PYTHON} || {create}"
    old = (parse_minor(choice.chosen) or (3, 99)) < (3, 10)
    if old:
        script += f"\n{PIP} install --upgrade pip"  # an old bundled pip predates PEP 660 and manylinux_2_28 wheels
    why = choice.drift or "; ".join(choice.reasons) or "default"
    return ProvisionStep(script=script, purpose=f"create the review's virtual environment with Python {choice.chosen} "
                         f"({why})", kind="venv", network=container or old, documented=choice.drift is None,
                         action="version" if choice.drift else "run", source=choice.source or "", required=True,
                         env={"VIRTUAL_ENV": VENV, "PATH": f"{VENV}/bin:$PATH"})


def _system_steps(ctx: Context, choice: PythonChoice | None, tools, ceilings) -> list[ProvisionStep]:
    chosen = parse_minor(choice.chosen) if choice else None
    over = bool(choice and choice.drift) or any(chosen and chosen > c for c, _ in ceilings)
    needs = build_needs(ctx.names, [r for r in ctx.remote if "git+" in r or ".git" in r], over) + ctx.apt_extra
    if not needs:
        return []
    packages = list(dict.fromkeys(p for p, _ in needs))
    if not ctx.container:
        ctx.note("system packages the install may need are not installable in the local sandbox: "
                 + ", ".join(f"{p} ({why})" for p, why in needs))
        return []
    whys = "; ".join(dict.fromkeys(why for _, why in needs))
    return [ProvisionStep(script=apt_script(packages), purpose=f"system packages the environment needs ({whys})",
                          kind="apt", network=True, documented=False, action="install", required=True)]


def _tool_steps(ctx: Context, tools, choice: PythonChoice | None) -> list[ProvisionStep]:
    steps: list[ProvisionStep] = []
    if tools.unknown:
        ctx.note(f"no package is known for the system tools {', '.join(tools.unknown)}; not installed")
    apt = [p for p in tools.apt if p not in ctx.apt_documented]
    for _tool, packages in tools.packages.items():
        if set(packages) & set(ctx.apt_documented):  # the docs already install this tool their own way
            apt = [p for p in apt if p not in packages]
    for tool, suites in tools.suites:
        suite = choice.interpreter if choice else ""
        if ctx.container and suite not in suites:
            ctx.note(f"{tool} is packaged only in Debian {', '.join(suites)}, not in {suite or 'this image'}; "
                     "not installed")
            apt = [p for p in apt if p not in (tool_entry(tool) or {}).get("apt", [])]
    if apt and ctx.container:
        steps.append(ProvisionStep(script=apt_script(apt), purpose="system tools the documentation requires: "
                                   + ", ".join(apt), kind="apt", network=True, documented=True, action="install",
                                   source="documentation", required=False))
    elif apt:
        ctx.note("system tools the documentation requires cannot be installed in the local sandbox: " + ", ".join(apt))
    if tools.pip:
        steps.append(ProvisionStep(script=pip_script(tools.pip), purpose="tools the documentation requires: "
                                   + ", ".join(tools.pip), kind="pip", network=True, documented=True, action="install",
                                   source="documentation", required=False))
    return steps


def _skipped(ctx: Context, from_fallback: list[tuple[str, str]]) -> list[tuple[str, str]]:
    reasons = dict(from_fallback)
    out = []
    for path in ctx.files:
        if not REQ_FILE.search(path) or path in ctx.requirement_files:
            continue
        why = reasons.get(path) or excluded_reason(path) or (
            f"the documented install uses {ctx.dependency_source}" if ctx.dependency_source else
            "not needed: the documented install does not use it")
        out.append((path, why))
    return out


def _apt_names(script: str) -> list[str]:
    out: list[str] = []
    for match in re.finditer(r"apt-get install -y --no-install-recommends ([^;&|}\n]+)", script):
        out += match.group(1).split()
    return out
