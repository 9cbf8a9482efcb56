"""Mechanical fixes a human reviewer would try when a documented command fails (I1/I2 only).

Each diagnosis returns what to run first (a setup step: install a missing module or the project's console
script, unpack a shipped archive, create an output folder) and/or the new command and environment, with the
Action to classify and a purpose; the caller logs the intervention before running. Nothing here edits the
artifact's files, so nothing here can be I4.
"""
from __future__ import annotations

import posixpath
import re
import shlex
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from ... import shell as sh
from ...interventions import Action
from ...models import CommandRecord
from ...provision import (
    NOT_PACKAGED,
    EnvPlan,
    command_not_found,
    fix_for_missing_command,
    fix_for_missing_module,
    missing_module,
    module_to_distribution,
    program_not_found,
)
from ...provision.context import apt_script, pip_script
from ...provision.runtimes import matlab_command, octave_script, r_debian
from ...provision.tables import table
from ...sandbox.networds import wants_network
from ...sandbox.outcome import RunOutcome, judge_record
from ...tools import CommandResult
from .olderrelease import older_series_script, removed_in_library

CANT_OPEN = re.compile(r"can't open file '([^']+)'|No such file or directory: '([^']+)'|"
                       r"([^\s:]+): No such file or directory")
NOT_FOUND_CMD = re.compile(r"(?:^|\s)(python|pip): (?:command )?not found")
WRITE_MISSING = re.compile(r"(?:FileNotFoundError|No such file or directory)[^\n]*?['\"]([^'\"]+)['\"]")
ARCHIVES = (".gz", ".zip", ".tar.gz", ".tgz", ".tar", ".xz", ".bz2", ".tar.xz")
# What code written for NumPy 1 says under NumPy 2 (NEP 50 integer overflow, names removed in 2.0, extensions built
# against 1.x): the run needs the NumPy its authors had.
NUMPY2 = re.compile(r"OverflowError: Python integer -?\d+ out of bounds for u?int\d+|"
                    r"module 'numpy' has no attribute '(?:float_|complex_|NaN|NINF|PINF|Inf|infty|unicode_|string_|"
                    r"bool8|object0|int0|uint0|float96|cfloat|longfloat|singlecomplex|product|cumproduct|alltrue|"
                    r"sometrue|in1d|row_stack|trapz|asfarray|find_common_type|round_|msort)'|"
                    r"compiled using NumPy 1\.x cannot be run in\s+NumPy 2|_ARRAY_API not found|"
                    r"numpy\.core\.multiarray failed to import")
# A package that bundles a size-limited licence with each release (a solver on PyPI) refuses to start once that
# release's licence date has passed: `gurobipy._exception.GurobiError: License expired 2026-11-23`.
OCTAVE_UNDEFINED = re.compile(r"'(\w+)' undefined")
R_MISSING = re.compile(r"there is no package called ['‘’\"]([\w.]+)['‘’\"]")
EXPIRED = re.compile(r"(?m)^(?P<module>[A-Za-z_]\w*)(?:\.\w+)*\.\w*(?:Error|Exception): [^\n]*\blicen[cs]e (?:has )?"
                     r"expired\b[^\n]*", re.IGNORECASE)


@dataclass
class Fix:
    script: str
    """The command to run again (unchanged when only a setup step is needed)."""
    action: Action
    purpose: str
    env: dict[str, str]
    setup: str | None = None
    """A step to run before retrying (network on when `network`)."""
    network: bool = False
    replay: list[dict] = field(default_factory=list)
    program: str = ""
    """The missing program the setup step installs (to name it when it cannot be had)."""
    rerun_network: bool = False
    """Run the command again with network (a run that downloads at run time failed without it)."""

    def blocker(self, setup: CommandRecord, evidence: str) -> str:
        """What a failed setup step means for the run, in words for the report."""
        if self.program and setup.exit_code == NOT_PACKAGED:
            return (f"`{self.program}` cannot be had here: no Debian package ships it (apt-file over the mirror's "
                    f"Contents index, {evidence})")
        what = f"`{self.program}`" if self.program else "what the run needs"
        return f"{what} could not be installed ({'timed out' if setup.timed_out else f'exit {setup.exit_code}'}, " \
               f"{evidence})"


def outcome_of(run: CommandResult | CommandRecord) -> RunOutcome:
    """The judgement of a run's output (sandbox/outcome.py): recorded when the run was made, else read from the
    record's output heads."""
    if isinstance(run, CommandResult):
        return run.outcome or judge_record(run.record)
    return judge_record(run)


def valid_output(run: CommandResult | CommandRecord) -> bool:
    """RW3: exit 0 within the budget and output that shows the work was done (no traceback, no missing program,
    no failure for most items, no empty/NaN/all-zero result files, not only a usage text)."""
    return outcome_of(run).valid


def diagnose(rec: CommandRecord, script: str, files: list[str], env_vars: dict[str, str], env: dict[str, str],
             plan: EnvPlan | None = None, cwd: str = ".") -> Fix | None:
    """The first mechanical fix that explains the failure, or None."""
    if rec.timed_out:
        return None  # a hang is the artifact's problem, not a path or a variable
    text = rec.stderr + "\n" + rec.stdout
    for check in (_missing_module, _octave, _r_package, _missing_command, _python3, _numpy2, _older_release,
                  _expired_licence, _documented_env, _archive, _output_folder, _moved_path):
        fix = check(text, script, files, env_vars, env, plan, cwd)
        if fix is not None:
            return fix
    return _runtime_network(rec, text, script, env)


def _runtime_network(rec: CommandRecord, text: str, script: str, env: dict[str, str]) -> Fix | None:
    """A run without network whose output shows a program that could not reach it (it downloads at run time): the
    same command once more with network, as a reviewer would let it fetch (I1)."""
    if rec.network or not wants_network(text):
        return None
    line = next((ln.strip() for ln in reversed(text.splitlines()) if wants_network(ln)), "")
    return Fix(script, Action("network", script),
               f"network for a run that downloads at run time (without it: “{line[:160]}”)", env, rerun_network=True)


def _missing_module(text, script, files, env_vars, env, plan, cwd) -> Fix | None:
    module = missing_module(text)
    step = fix_for_missing_module(module, plan, files) if module and plan is not None else None
    if step is None:
        return None
    return Fix(script, Action("install", step.script), step.purpose, env, setup=step.script, network=True)


def _missing_command(text, script, files, env_vars, env, plan, cwd) -> Fix | None:
    name = command_not_found(text)
    step = fix_for_missing_command(name, plan, lookup=program_not_found(text) == name) \
        if name and plan is not None else None
    if step is None:
        return None
    return Fix(script, Action(step.action if step.action != "run" else "install", step.script), step.purpose, env,
               setup=step.script, network=step.network, program=name or "")


def _octave(text, script, files, env_vars, env, plan, cwd) -> Fix | None:
    """MATLAB code with no MATLAB here: the documented command under GNU Octave, with the Octave Forge packages its
    toolbox calls need (Debian octave-*, `pkg load` added): a compatibility change (I3), stated."""
    if plan is None or not plan.container:
        return None
    asked = matlab_command(script)
    undefined = [f for f in OCTAVE_UNDEFINED.findall(text) if script.lstrip().startswith("octave")]
    needed = dict(plan.octave)
    for name in undefined:
        package = next((p for p, funcs in table("octave").items() if name in funcs), None)
        if package:
            needed.setdefault(package, []).append(name)
    if asked is None and not (undefined and needed):
        return None
    packages = sorted(needed)
    code = asked[0] if asked else _octave_code(script)
    if code is None:
        return None
    fixed = octave_script(code, packages)
    if fixed == script.strip():
        return None
    calls = "; ".join(f"octave-{p} for {', '.join(sorted(set(f))[:4])}" for p, f in sorted(needed.items()))
    why = (f"MATLAB is not available here: the documented `{asked[1]}` runs under GNU Octave" if asked
           else f"Octave does not define {', '.join(undefined[:3])} without its Octave Forge package")
    return Fix(fixed, Action("command_fix", fixed), f"{why} (Debian octave{'; ' + calls if calls else ''}"
               f"{'; `pkg load ' + ', '.join(packages) + '` added' if packages else ''}) — a compatibility change of "
               "how the code is run, not of the code", env,
               setup=apt_script(["octave", *[f"octave-{p}" for p in packages]]), network=True, program="octave")


def _octave_code(script: str) -> str | None:
    """The Octave code a documented `octave FILE.m` / `octave --eval CODE` runs."""
    try:
        words = sh.split(script.strip().splitlines()[-1])
    except ValueError:
        return None
    if "--eval" in words and words.index("--eval") + 1 < len(words):
        return re.sub(r"^(?:pkg load \w+;\s*)+", "", words[words.index("--eval") + 1])
    files_m = [w for w in words[1:] if w.endswith(".m")]
    return f"run('{files_m[0]}')" if files_m else None


def _r_package(text, script, files, env_vars, env, plan, cwd) -> Fix | None:
    """An R script that loads a library R does not have: its Debian package (r-cran-*), then the same command."""
    found = R_MISSING.search(text)
    if not found or plan is None or not plan.container:
        return None
    package = r_debian([found.group(1)])[0]
    return Fix(script, Action("install", apt_script([package])), f"the R script loads {found.group(1)}, which is not "
               f"installed: Debian's {package}", env, setup=apt_script([package]), network=True, program=package)


def _python3(text, script, files, env_vars, env, plan, cwd) -> Fix | None:
    missing = NOT_FOUND_CMD.search(text)
    if not missing:
        return None
    word = missing.group(1)
    fixed = re.sub(rf"(^|\s|;|&&){word}(\s)", rf"\1{word}3\2", script)
    return (Fix(fixed, Action("version", fixed), f"'{word}' is not on this system; use '{word}3'", env)
            if fixed != script else None)


def _numpy2(text, script, files, env_vars, env, plan, cwd) -> Fix | None:
    """Code written for NumPy 1 failing under NumPy 2: install the last NumPy 1 release and run it again (I1, a
    version choice; small numeric drift is possible)."""
    found = NUMPY2.search(text)
    if not found or plan is None:
        return None
    step = pip_script(["numpy<2"])
    return Fix(script, Action("version", step), f"the run fails under NumPy 2 (`{found.group(0)[:80]}`): install the "
               "last NumPy 1 release, which the code was written for", env, setup=step, network=True, program="numpy<2")


def _older_release(text, script, files, env_vars, env, plan, cwd) -> Fix | None:
    """A library raising about a name its installed release no longer has: its release series before (I1, a version
    choice; see olderrelease.py)."""
    found = removed_in_library(text, files) if plan is not None else None
    if found is None:
        return None
    dist, line = found
    step = older_series_script(dist)
    return Fix(script, Action("version", step), f"the run fails inside {dist} on a name its installed release no "
               f"longer has (`{line[:90]}`): install the {dist} release series before it", env, setup=step,
               network=True, program=f"{dist} (older series)")


def _expired_licence(text, script, files, env_vars, env, plan, cwd) -> Fix | None:
    """A pip package whose bundled licence has expired: its newest release carries a current one (I1, a version
    choice; the solver's results may differ between releases)."""
    found = EXPIRED.search(text)
    if not found or plan is None:
        return None
    dist = module_to_distribution(found.group("module"))
    step = pip_script(["--upgrade", dist])
    return Fix(script, Action("version", step), f"the licence bundled with the installed {dist} has expired "
               f"(`{found.group(0)[:90]}`): install its newest release, which carries a current one", env,
               setup=step, network=True, program=dist)


def _documented_env(text, script, files, env_vars, env, plan, cwd) -> Fix | None:
    for name, value in env_vars.items():
        if name not in env and re.search(rf"\b{name}\b", text):
            return Fix(script, Action("env", f"{name}={value}"),
                       f"the run needs {name}, which the documentation sets to {value}", {**env, name: value})
    return None


def _wanted_paths(text: str) -> list[str]:
    return [g for m in CANT_OPEN.finditer(text) for g in m.groups() if g] + WRITE_MISSING.findall(text)


def _archive(text, script, files, env_vars, env, plan, cwd) -> Fix | None:
    """A file the run needs is shipped compressed next to where it is expected: unpack it (I1)."""
    for wanted in _wanted_paths(text):
        rel = _rel(wanted, cwd)
        packed = next((f for f in (rel + ext for ext in ARCHIVES) if f in files), None)
        if packed:
            unpack = _unpack_command(packed)
            return Fix(script, Action("prepare", unpack), f"{rel} is shipped compressed as {packed}; unpack it", env,
                       setup=unpack)
    return None


def _output_folder(text, script, files, env_vars, env, plan, cwd) -> Fix | None:
    """The run writes into a folder that does not exist: create it, as a reviewer would (I1)."""
    folders = {str(PurePosixPath(f).parent) for f in files}
    for wanted in WRITE_MISSING.findall(text):
        rel = _rel(wanted, cwd)
        parent = str(PurePosixPath(rel).parent)
        if (parent in ("", ".") or parent in folders or rel in files
                or wanted.startswith("/") and not wanted.startswith("/artifact")):
            continue
        if re.search(r"\.(csv|json|txt|pdf|png|svg|pkl|npy|log|tex|md|h5|xlsx?)$", rel, re.I):
            mkdir = f"mkdir -p {shlex.quote(parent)}"
            return Fix(script, Action("prepare", mkdir),
                       f"the run writes {rel} but its folder {parent}/ does not exist", env, setup=mkdir)
    return None


def _moved_path(text, script, files, env_vars, env, plan, cwd) -> Fix | None:
    for wanted in _wanted_paths(text):
        fixed = _fix_path(script, wanted, files, cwd)
        if fixed:
            token, actual, new_script = fixed
            return Fix(new_script, Action("path_fix", relocation(token, actual)),
                       f"'{wanted}' does not exist; the file is at {actual}", env)
    return None


def _rel(path: str, cwd: str) -> str:
    path = path.removeprefix("/artifact/").removeprefix("./")
    if cwd in ("", ".") or path.startswith("/"):
        return path
    parts = list(PurePosixPath(cwd).parts) + list(PurePosixPath(path).parts)
    out: list[str] = []
    for part in parts:
        if part == "..":
            if out:
                out.pop()
        elif part != ".":
            out.append(part)
    return "/".join(out)


def _unpack_command(packed: str) -> str:
    q = shlex.quote(packed)
    folder = shlex.quote(str(PurePosixPath(packed).parent))
    if packed.endswith(".zip"):
        return f"unzip -o -q {q} -d {folder}"
    if packed.endswith((".tar.gz", ".tgz", ".tar", ".tar.xz")):
        return f"tar -xf {q} -C {folder}"
    tool = {".gz": "gunzip", ".xz": "unxz", ".bz2": "bunzip2"}[PurePosixPath(packed).suffix]
    return f"{tool} -k -f {q}"


def relocation(documented: str, actual: str) -> str:
    """Canonical text of a path fix, so the same fix found in D2 and D3 is one ledger entry."""
    return f"use {actual} for documented {documented}"


def _fix_path(script: str, wanted: str, files: list[str], cwd: str = ".") -> tuple[str, str, str] | None:
    base = PurePosixPath(wanted).name
    hits = sorted((f for f in files if PurePosixPath(f).name == base), key=lambda f: (f.count("/"), f))
    if not hits or not base:
        return None
    if cwd not in ("", "."):
        hits = [posixpath.relpath(h, cwd) for h in hits]
    lines = script.splitlines()
    last = lines[-1]
    try:
        tokens = sh.split(last)
    except ValueError:
        return None
    for i, tok in enumerate(tokens):
        if PurePosixPath(tok).name == base and tok != hits[0]:
            tokens[i] = hits[0]
            return tok, hits[0], "\n".join(lines[:-1] + [shlex.join(tokens)])
    return None
