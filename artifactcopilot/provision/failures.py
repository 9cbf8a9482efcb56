"""What to install after a run fails: missing modules, commands not found, notebook tooling. Pure helpers."""
from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Sequence

from .context import apt_script, pip_script, relative
from .declared import declared_by
from .era import Era, era_pip_script
from .model import VENV, EnvPlan, ProvisionStep
from .pyversions import fmt, parse_minor
from .tables import normalize, series_below, table, tool_entry, wheel_ceiling

_MISSING = re.compile(r"(?:ModuleNotFoundError|ImportError): No module named ['\"]?([A-Za-z_][\w.]*)['\"]?")
_FILE_NOT_FOUND = re.compile(r"FileNotFoundError: \[Errno 2\] No such file or directory: ['‘\"]([\w.+-]+)['’\"]\s*$",
                             re.MULTILINE)
_NOT_FOUND = [
    re.compile(r"^(?:.*?: )?(?:line \d+: )?([\w.+-]+): command not found\s*$", re.MULTILINE),
    re.compile(r"^(?:/bin/)?(?:ba|da|z)?sh: \d+: ([\w.+-]+): not found\s*$", re.MULTILINE),
    re.compile(r"^[\w./-]+: \d+: ([\w.+-]+): not found\s*$", re.MULTILINE),  # dash names the script: run.sh: 2: X
    re.compile(r"^/usr/bin/env: ['‘\"]?([\w.+-]+)['’\"]?: No such file or directory\s*$", re.MULTILINE),
    re.compile(r"^(?:env|exec|make|xargs|nohup|timeout|time): ['‘\"]?([\w.+-]+)['’\"]?: "
               r"(?:No such file or directory|not found|Command not found)\s*$", re.MULTILINE),
    re.compile(r"^(?:/usr)?(?:/bin/)?(?:ba|z)?sh: (?:line \d+: )?([\w.+-]+): No such file or directory\s*$",
               re.MULTILINE),
    re.compile(r"because ([\w.+-]+) could not be found", re.MULTILINE),  # matplotlib: latex, dvipng, ghostscript
    _FILE_NOT_FOUND,
    re.compile(r"^which: no ([\w.+-]+) in \(", re.MULTILINE),  # a script's `which` check (RPM-style which)
    re.compile(r"(?:could not|cannot|can't|unable to) find (?:the )?(?:program |executable |command |binary )?"
               r"['‘\"`]?([\w.+-]+)['’\"`]? (?:in|on) (?:your |the )?\$?PATH", re.MULTILINE | re.IGNORECASE),
    re.compile(r"['‘\"`]?([\w.+-]+)['’\"`]? (?:is )?not (?:found|installed) (?:in|on) (?:your |the )?\$?PATH",
               re.MULTILINE | re.IGNORECASE),
]
PYTHON_NAMES = re.compile(r"^(python|pip)(3(\.\d+)?)?$")
NO_LOOKUP = frozenset({"docker", "docker-compose", "podman", "singularity", "apptainer", "sudo", "nvidia-smi", "nvcc",
                       "conda", "mamba", "micromamba", "module", "srun", "sbatch", "qsub"})
"""Programs a sandboxed review cannot use even when a package ships them: container engines, GPU drivers, cluster
schedulers, sudo; they are not looked up in Debian."""


def program_not_found(output: str) -> str | None:
    """A program the shell, `which` or a subprocess call could not find — not a data file a script could not open
    (a bare FileNotFoundError name counts only when subprocess raised it)."""
    if not isinstance(output, str):
        return None
    name = command_not_found(output)
    if name is None or name in NO_LOOKUP or PYTHON_NAMES.match(name):
        return None
    from_file = any(m.group(1) == name for m in _FILE_NOT_FOUND.finditer(output))
    shell = any(m.group(1) == name for p in _NOT_FOUND if p is not _FILE_NOT_FOUND for m in p.finditer(output))
    return name if shell or from_file and "_execute_child" in output else None


def missing_module(output: str) -> str | None:
    """Top-level module of the last `ModuleNotFoundError`/`ImportError: No module named X` in `output`."""
    if not isinstance(output, str):
        return None
    hits = _MISSING.findall(output)
    return hits[-1].split(".")[0] if hits else None


def module_to_distribution(module: str) -> str:
    """PyPI distribution that provides an import name (sklearn -> scikit-learn); the name itself otherwise."""
    top = (module or "").split(".")[0].strip()
    mapping = table("modules")
    if top in mapping:
        return mapping[top]
    lowered = {k.lower(): v for k, v in mapping.items()}
    return lowered.get(top.lower(), top)


def command_not_found(output: str) -> str | None:
    """The bare program a shell could not find ("X: command not found", "/usr/bin/env: 'python': No such ...")."""
    if not isinstance(output, str):
        return None
    for pattern in _NOT_FOUND:
        for match in pattern.finditer(output):
            name = match.group(1)
            if "/" not in name and not name.startswith(".") and name not in ("bash", "sh", "line"):
                return name
    return None


def fix_for_missing_command(name: str, plan: EnvPlan, lookup: bool = False) -> ProvisionStep | None:
    """A step that provides `name`: the project (a declared console script), the venv's python/pip (PATH),
    a pythonX.Y alias to the venv's interpreter, a pip tool, or a Debian package in a container (from the tools table,
    else — with `lookup`, for a name `program_not_found` gave — the package apt-file finds in the Contents index)."""
    if not name or not isinstance(name, str):
        return None
    if name in plan.console_scripts and plan.project_dir:
        return ProvisionStep(script=pip_script([_local(plan.project_dir)]),
                             purpose=f"`{name}` is a console script the project declares "
                             f"({plan.console_scripts[name]}); install the project so it exists in {VENV}/bin",
                             kind="project", network=True, documented=False, action="install",
                             env=dict(plan.activate))
    if PYTHON_NAMES.match(name):
        return _python_command(name, plan)
    entry = tool_entry(name)
    if entry and entry.get("pip"):
        return ProvisionStep(script=pip_script([entry["pip"]]), purpose=f"`{name}` comes from the PyPI package "
                             f"{entry['pip']}", kind="pip", network=True, documented=False, action="install",
                             env=dict(plan.activate))
    if entry and entry.get("apt") and plan.container:
        suites = entry.get("suites")
        if suites and plan.python and plan.python.interpreter not in suites:
            return None
        return ProvisionStep(script=apt_script(entry["apt"]), purpose=f"`{name}` comes from the Debian "
                             f"package(s) {', '.join(entry['apt'])}", kind="apt", network=True, documented=False,
                             action="install", required=False)
    if lookup and plan.container and PROGRAM_NAME.fullmatch(name) and name not in NO_LOOKUP:
        return ProvisionStep(script=apt_file_script(name), purpose=f"`{name}` is not installed: install the Debian "
                             "package that ships it (found with apt-file in the mirror's Contents index)", kind="apt",
                             network=True, documented=False, action="install", required=False)
    return None


PROGRAM_NAME = re.compile(r"[A-Za-z0-9][\w+-]{0,60}(?:\.\d+)*")
"""A program's name (tmux, g++-12, python3.8), not a file's (engines.txt): only those are looked up in Debian."""
NOT_PACKAGED = 3
"""Exit status of `apt_file_script` when no Debian package of the suite ships the program."""


def apt_file_script(name: str) -> str:
    """Find the Debian package that ships the program `name` (apt-file over the mirror's Contents index: a file
    `bin/NAME` or `sbin/NAME`) and install it; exit NOT_PACKAGED, saying so, when no package ships it."""
    q, pattern = shlex.quote(name), shlex.quote(f"^/(usr/)?s?bin/{re.escape(name)}$")
    return (
        "export DEBIAN_FRONTEND=noninteractive; command -v apt-file >/dev/null || "
        "{ apt-get update -qq && apt-get install -y -qq --no-install-recommends apt-file >/dev/null; } || exit 1\n"
        "ls /var/lib/apt/lists/*Contents* >/dev/null 2>&1 || apt-file update >/dev/null || exit 1\n"
        f"pkgs=$(apt-file search -x {pattern} | cut -d: -f1 | sort -u)\n"
        f"pkg=$(printf '%s\\n' \"$pkgs\" | grep -xF {q} || printf '%s\\n' \"$pkgs\" | grep -v -- '-dbg$' | head -n 1)\n"
        f"if [ -z \"$pkg\" ]; then echo {shlex.quote(f'{name}: no Debian package of this suite ships it')} >&2; "
        f"exit {NOT_PACKAGED}; fi\n"
        f"echo {shlex.quote(f'{name} is shipped by the Debian package')} \"$pkg\"\n"
        "apt-get install -y --no-install-recommends \"$pkg\""
    )


def _python_command(name: str, plan: EnvPlan) -> ProvisionStep | None:
    if plan.python is None:
        return None
    base = "python" if name.startswith("python") else "pip"
    wanted = name[len(base):].lstrip("3").lstrip(".")
    if wanted and wanted != plan.python.chosen.split(".", 1)[1]:
        script = f"ln -sf {base}3 {VENV}/bin/{shlex.quote(name)}"
        return ProvisionStep(script=script, purpose=f"`{name}` is not available; it runs the virtual environment's "
                             f"Python {plan.python.chosen} instead", kind="venv", network=False, documented=False,
                             action="version", env=dict(plan.activate))
    script = f"test -x {VENV}/bin/{base}3 && ln -sf {base}3 {VENV}/bin/{shlex.quote(name)}"
    return ProvisionStep(script=script, purpose=f"`{name}` runs from the review's virtual environment ({VENV}/bin "
                         "first on PATH)", kind="venv", network=False, documented=False, action="command_fix",
                         env=dict(plan.activate))


def fix_for_missing_module(module: str, plan: EnvPlan, files: Sequence[str] = ()) -> ProvisionStep | None:
    """pip install of the distribution behind `module`, unless the module is the artifact's own code (a path
    problem, not a missing package) or part of the standard library."""
    if not module or module in sys.stdlib_module_names:
        return None
    own = any(f in (f"{module}.py", f"{module}/__init__.py") or f.endswith((f"/{module}.py", f"/{module}/__init__.py"))
              for f in files)
    scripts = {normalize(v.split(":")[0].split(".")[0]) for v in plan.console_scripts.values()}
    if plan.project_dir and (normalize(module) in scripts or normalize(module) == normalize(plan.project_name or "")):
        return ProvisionStep(script=pip_script([_local(plan.project_dir)]), purpose=f"`{module}` is the project's "
                             "own package; install the project", kind="project", network=True, documented=False,
                             action="install", env=dict(plan.activate))
    if own:
        return None  # the artifact's own module: a working-directory/PYTHONPATH problem, not a missing package
    dist = module_to_distribution(module)
    where = declared_by(plan.declared, module, dist)
    era = Era.from_dict(plan.era)
    said = (f"declared by the artifact in {where}, but the documented install did not install it" if where
            else "not declared by any dependency file of the artifact")
    return ProvisionStep(script=era_pip_script(pip_script([dist]), era),
                         purpose=f"install {dist}, which provides the missing module `{module}` ({said})"
                         + (f"; resolved as of {era.iso}, the artifact's date ({era.source})" if era else ""),
                         kind="pip", network=True, documented=False, action="install", env=dict(plan.activate))


def notebook_tooling(plan: EnvPlan) -> list[ProvisionStep]:
    """nbclient + ipykernel in the review's venv (its own python3 kernel; nothing registered globally)."""
    check = f"{VENV}/bin/python -c 'import nbclient, ipykernel' 2>/dev/null"
    era = Era.from_dict(plan.era)
    return [ProvisionStep(script=era_pip_script(pip_script(["nbclient", "ipykernel"]), era, guard=check),
                          purpose="execute notebooks: nbclient and ipykernel in the review's virtual environment "
                          "(kernel found via the venv's prefix)" + (f", of the artifact's date {era.iso} like its own "
                                                                    "packages (today's releases if that fails)"
                                                                    if era else ""),
                          kind="pip", network=True, documented=False, action="install", required=True,
                          env=dict(plan.activate))]


def _local(project_dir: str) -> str:
    return "." if project_dir in ("", ".") else relative(project_dir, ".")


_NO_MATCH = re.compile(r"Could not find a version that satisfies the requirement ([A-Za-z0-9][\w.\-]*)\s*"
                       r"((?:[<>=!~]=?\s*[\w.*]+\s*,?\s*)*)(?:\(from (?!versions:)([\w.\-]+)[^)]*\))?")
_DIFFERENT = re.compile(r"Package '([\w.\-]+)' requires a different Python: ([\d.]+) not in '([^']+)'")
_IGNORED = re.compile(r"require a different python version: (.+)")


def install_blocker(output: str, plan: EnvPlan) -> str | None:
    """The interpreter a failed pip install needs, read from pip's output: a package whose releases all require
    another Python (`Requires-Python <3.8`), or an upper-bounded dependency (`tensorflow<2` from a documented
    package) whose allowed releases publish wheels only for older Pythons. None when pip says neither."""
    if not isinstance(output, str) or plan.python is None:
        return None
    used = plan.python.chosen
    if direct := _DIFFERENT.search(output):
        return (f"{direct.group(1)} needs Python {direct.group(3)} (its Requires-Python); the interpreter used is "
                f"{direct.group(2)}: it cannot be installed here")
    match = _NO_MATCH.search(output)
    if match is None:
        return None
    name, spec, parent = match.group(1), re.sub(r"\s+", "", match.group(2) or "").rstrip(","), match.group(3)
    what = f"{name}{spec}" + (f" (required by {parent})" if parent else "")
    if ignored := _IGNORED.search(output):
        wants = [w.strip() for w in re.findall(r"Requires-Python\s*([^;]+)", ignored.group(1))]
        if wants:  # pip lists the releases oldest first: the newest one's request is the nearest interpreter
            return (f"{what} needs Python {wants[-1]} (its newest release's Requires-Python): PyPI has no release of "
                    f"it for Python {used}, the interpreter used; it cannot be installed here")
    bound = re.search(r"<(=?)\s*([\d.]+)", spec)
    series = series_below(name, bound.group(2), bound.group(1) == "=") if bound else None
    ceiling = wheel_ceiling(name, series) if series else None
    if ceiling and (parse_minor(used) or (0, 0)) > ceiling:
        return (f"{what} needs Python {fmt(ceiling)} or older (its newest allowed series, {series}, publishes wheels "
                f"up to it); the interpreter used is {used}: it cannot be installed here")
    return None
