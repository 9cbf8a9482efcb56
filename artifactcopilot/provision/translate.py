"""Documented install commands translated to the review's virtual environment.

pip runs as the venv's `python -m pip`; the artifact's own published package is replaced by its local code;
virtualenv/venv/activate lines are replaced by the review's venv; apt lines need a container; installer
scripts that fetch Miniconda are replaced by the environment file they would have used.
"""
from __future__ import annotations

import posixpath
import re

from packaging.requirements import InvalidRequirement, Requirement

from . import aptsteps, managers
from .commands import CONDA_INSTALLER, Command, parse
from .context import Context, absorb_requirements, activated, add, join, pip_script, prefix, relative, src
from .docfiles import renames_in, with_renames
from .makefile import recipes
from .model import VENV, VENV_PYTHON, InstallStep
from .pyversions import parse_minor
from .requirements import excluded_reason
from .tables import normalize, renamed

DROP_FLAGS = ("--user", "--break-system-packages", "--system", "--quiet-user")
ARG_FLAGS = ("-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--trusted-host", "--only-binary",
             "--no-binary", "-t", "--target", "--prefix", "--root", "--src", "--platform", "--python-version")
NOT_DEPENDENCIES = {"pip", "setuptools", "wheel"}
RENAMED = "uses the current PyPI name"
"""How a fix that only replaces a retired PyPI name begins (an added dependency, I1, not a changed command)."""
TOOLING = {"poetry", "pipx", "uv", "pipenv", "virtualenv", "pyenv", "conda", "mamba", "hatch", "pdm", "tox", "nox"}


def translate(ctx: Context, step: InstallStep) -> None:
    """Add the provisioning steps for one documented install step (notes for the parts replaced)."""
    cwd = step.cwd or "."
    inner = step.inner or step.cmd
    for cmd in parse(inner):
        env = {**(step.env or {}), **cmd.env}
        if cmd.kind == "cd":
            target = join(cwd, cmd.argv[0]) if cmd.argv[0] not in ("~", "-") else "."
            if ctx.is_dir(target):
                cwd = target
            else:
                ctx.note(f"`{cmd.text}` ({src(step)}) names a folder the artifact does not have")
            continue
        handler = HANDLERS.get(cmd.kind, other)
        handler(ctx, cmd, cwd, env, step)


def pip_install(ctx: Context, cmd: Command, cwd: str, env: dict, step: InstallStep | None) -> None:
    args, own, targets, deps = [], False, 0, False
    fixes: list[str] = []
    preludes: list[str] = []
    argv, i = _without_commas(cmd.argv, fixes), 0
    while i < len(argv):
        word = argv[i]
        if word in DROP_FLAGS:
            fixes.append(f"drops {word} (the review installs into its own virtual environment)")
        elif (flag := _file_flag(argv, i)) is not None:
            name, path, used = flag
            i += used
            if (found := _requirement_file(ctx, path, cwd, name in ("-r", "--requirement"), step, fixes,
                                           preludes)) is not None:
                args += [name, found]
                targets, deps = targets + 1, deps or name in ("-r", "--requirement")
        elif word in ARG_FLAGS and i + 1 < len(argv):
            args += [word, argv[i + 1]]
            i += 1
        elif word.startswith("-"):
            args.append(word)
        elif (target := _target(ctx, word, cwd, step, fixes))[0]:
            args.append(target[0])
            targets, own = targets + 1, own or target[1]
            deps = deps or normalize(re.split(r"[\s=<>!~;@\[]", word)[0]) not in NOT_DEPENDENCIES
        i += 1
    if not targets:
        if cmd.argv:
            ctx.note(f"`{cmd.text}` ({src(step)}) installs nothing the review needs; skipped")
        return
    purpose = f"documented `{cmd.text}`" + (f"; {'; '.join(fixes)}" if fixes else "")
    for fix in fixes:
        ctx.note(f"`{cmd.text}` ({src(step)}) {fix}")
    action = "run" if not fixes else "install" if all(f.startswith(RENAMED) for f in fixes) else "command_fix"
    add(ctx, "\n".join([*preludes, pip_script(args, cwd, env)]), purpose, "project" if own and targets == 1 else "pip",
        documented=True, action=action, source=src(step))
    for name, local in ctx.published:  # the artifact's own code stands in only when the release cannot be had
        add(ctx, f"{VENV_PYTHON} -m pip show {name} >/dev/null 2>&1 || {pip_script([local], cwd, env)}",
            f"the documentation installs the published package {name} from PyPI, and the review evaluates that "
            f"release; the artifact's own code ({local}) is installed instead only if the release cannot be",
            "project", documented=False, action="install", source=src(step), required=False)
    ctx.published.clear()
    ctx.deps_installed = ctx.deps_installed or deps


def _without_commas(argv: list[str], fixes: list[str]) -> list[str]:
    """`pip install numpy, scipy` lists names the way prose does; pip reads `numpy,` as an invalid requirement."""
    if not any(w.endswith(",") and "://" not in w for w in argv):
        return argv
    fixes.append("drops the commas between the package names (pip rejects `name,` as an invalid requirement)")
    return [part for w in argv for part in ([w] if "://" in w else w.split(",")) if part]


def _file_flag(argv: list[str], i: int) -> tuple[str, str, int] | None:
    """(flag, path, extra words consumed) for -r/-c in any spelling ("-r x", "-rx", "--requirement=x")."""
    word = argv[i]
    if word in ("-r", "--requirement", "-c", "--constraint"):
        return (word, argv[i + 1], 1) if i + 1 < len(argv) else None
    if match := re.match(r"^(-r|-c|--requirement=|--constraint=)(\S+)$", word):
        return match.group(1).rstrip("="), match.group(2), 0
    return None


def _requirement_file(ctx: Context, path: str, cwd: str, install: bool, step: InstallStep | None,
                      fixes: list[str], preludes: list[str]) -> str | None:
    """The requirement file as the command should name it (fixed when it lives elsewhere, or a copy with retired
    PyPI names replaced, written by a prelude); None when missing."""
    rel = join(cwd, path)
    if not ctx.exists(rel):
        same = [f for f in ctx.files if posixpath.basename(f) == posixpath.basename(path) and not excluded_reason(f)]
        if len(same) == 1:
            fixes.append(f"uses {same[0]} (the documented {path} does not exist where the command runs)")
            rel, path = same[0], relative(same[0], cwd)
        else:
            ctx.note(f"`{path}` named by {src(step) or 'the documentation'} does not exist in the artifact")
            return None
    if install:
        if rel not in ctx.requirement_files:
            ctx.requirement_files.append(rel)
        ctx.dependency_source = ctx.dependency_source or rel
        absorb_requirements(ctx, rel)
        if fixed := with_renames(ctx, rel):
            preludes.append(fixed[0])
            fixes += [f"{RENAMED} {new} for {old} (in {rel}: a retired or wrong PyPI name)"
                      for old, new in renames_in(ctx, rel)]
            return fixed[1]
    return path


def _target(ctx: Context, word: str, cwd: str, step: InstallStep | None, fixes: list[str]) -> tuple[str | None, bool]:
    """A pip positional argument, with the artifact's own published package replaced by its local code."""
    project = ctx.project
    if word.startswith((".", "/", "file:")):
        if join(cwd, word) == project.dir:
            ctx.project_installed = True
            return word, True
        return word, False
    if "://" in word:
        name = _vcs_name(word)
        if not name:
            return word, False
    else:
        try:
            name = Requirement(word).name
        except InvalidRequirement:
            return word, False
    if normalize(name) in TOOLING:
        fixes.append(f"skips {name} (the review does not need it to install the artifact)")
        return None, False
    own = normalize(name) == normalize(project.name or "\0") or name in project.packages
    if not own and (new := renamed(name)):
        fixes.append(f"{RENAMED} {new} for {name} (a retired or wrong PyPI name)")
        ctx.names.append(new)
        return new + word[len(name):], False
    if not own:
        ctx.names.append(name)
        if pin := re.fullmatch(r"[A-Za-z0-9][\w.\-]*(?:\[[^\]]*\])?==(\d+(?:\.\d+)+)", word):
            ctx.pins.append((name, pin.group(1), src(step) or "documentation"))  # the interpreter choice reads it
        return word, False
    if not project.installable:
        ctx.note(f"`{word}` is the artifact's own package, but the artifact has no setup.py or pyproject build "
                 "to install it from; the published package is installed as documented")
        return word, False
    ctx.project_installed = True
    local = relative(project.dir, cwd)
    if "://" not in word:  # a release on PyPI, which the review can reach: installed as documented
        ctx.published.append((name, local))
        return word, False
    fixes.append(f"installs the artifact's own code ({local}) instead of {word}: the same repository, whose host "
                 "the review cannot reach")
    return local, True


def _vcs_name(url: str) -> str | None:
    """The distribution a VCS/URL requirement names (#egg=, `name @ url`, or the repository name)."""
    if egg := re.search(r"#egg=([\w.-]+)", url):
        return egg.group(1)
    if " @ " in url:
        return url.split(" @ ", 1)[0].strip()
    match = re.search(r"/([\w.-]+?)(?:\.git)?(?:@[^/]*)?/?$", url.split("#", 1)[0])
    return match.group(1) if match and re.match(r"^(git\+|hg\+|https?://(www\.)?(github|gitlab|bitbucket))", url) \
        else None


def setup_py(ctx: Context, cmd: Command, cwd: str, env: dict, step: InstallStep | None) -> None:
    if cmd.sub in ("install", "develop"):
        args = ["-e", "."] if cmd.sub == "develop" else ["."]
        add(ctx, pip_script(args, cwd, env), f"documented `{cmd.text}` run as `pip install {' '.join(args)}` (setup.py "
            "install/develop is deprecated and needs setuptools in the environment)", "project", documented=True,
            action="command_fix", source=src(step))
        ctx.project_installed = ctx.project_installed or join(cwd, ".") == ctx.project.dir
        ctx.deps_installed = True
        return
    script = f"{pip_script(['setuptools', 'wheel'])} && {prefix(cwd, env)}{VENV_PYTHON} setup.py {' '.join(cmd.argv)}"
    add(ctx, script.strip(), f"documented `{cmd.text}` with the venv's Python (setuptools added: recent venvs lack "
        "it)", "documented", documented=True, action="run", source=src(step))


def venv(ctx: Context, cmd: Command, cwd: str, env: dict, step: InstallStep | None) -> None:
    version = parse_minor(cmd.python or "")
    if version and version[0] >= 3:
        ctx.preferences.append((f"{version[0]}.{version[1]}", f"documented `{cmd.text}`", 1))
    ctx.note(f"`{cmd.text}` ({src(step)}) skipped: the review's own virtual environment ({VENV}) replaces it")


def activate(ctx: Context, cmd: Command, cwd: str, env: dict, step: InstallStep | None) -> None:
    ctx.note(f"`{cmd.text}` ({src(step)}) skipped: the review's virtual environment is active for every command")


def tooling(ctx: Context, cmd: Command, cwd: str, env: dict, step: InstallStep | None) -> None:
    ctx.note(f"`{cmd.text}` ({src(step)}) skipped: it installs packaging tooling; the review installs the "
             "declared dependencies with pip into its own virtual environment")


def conda_installer(ctx: Context, cmd: Command, cwd: str, env: dict, step: InstallStep | None) -> None:
    ctx.note(f"`{cmd.text}` ({src(step)}) downloads a conda installer: replaced by installing the conda "
             "environment file with pip")
    managers.env_file_for(ctx, None, cwd, step)


def script(ctx: Context, cmd: Command, cwd: str, env: dict, step: InstallStep | None) -> None:
    if cmd.sub == "make":
        path, text = _make(ctx, cmd.argv, cwd)
    else:
        path = join(cwd, cmd.sub)
        text = ctx.read(path) if ctx.exists(path) else None
        for line in re.findall(r"(?:^|[;&|]\s*)make\b([^\n;&|]*)", text or "", re.MULTILINE):
            text = (text or "") + "\n" + (_make(ctx, line.split(), posixpath.dirname(path) or ".")[1] or "")
    if text is None:
        ctx.note(f"`{cmd.text}` ({src(step)}) runs {path}, which the artifact does not have; not run")
        return
    if CONDA_INSTALLER.search(text) or re.search(r"\b(conda|mamba)\s+(env\s+create|create|install)\b", text):
        ctx.note(f"`{cmd.text}` ({src(step)}) installs conda (Miniconda download) to build a conda environment: "
                 "replaced by installing the environment file with pip into the review's virtual environment")
        wanted = re.search(r"(?:-f|--file)[ =]+([\w./-]+\.ya?ml)", text)
        managers.env_file_for(ctx, wanted.group(1) if wanted else None, posixpath.dirname(path) or ".", step)
        return
    add(ctx, activated(f"{prefix(cwd, env)}{cmd.text}"), f"documented installer `{cmd.text}` run as written (with "
        "the review's virtual environment on PATH)", "documented", documented=True, action="run", source=src(step))
    if re.search(r"pip3? install|requirements[^ ]*\.txt|setup\.py|poetry install|uv sync", text):
        ctx.deps_installed = True


def _make(ctx: Context, argv: list[str], cwd: str) -> tuple[str, str | None]:
    """(Makefile path, the recipe lines `make ARGV` runs) — None when there is no Makefile."""
    folder, name, goals, i = cwd, None, [], 0
    while i < len(argv):
        word = argv[i]
        if word in ("-C", "--directory", "-f", "--file", "--makefile") and i + 1 < len(argv):
            if word in ("-C", "--directory"):
                folder = join(folder, argv[i + 1])
            else:
                name = argv[i + 1]
            i += 1
        elif not word.startswith("-") and "=" not in word:
            goals.append(word)
        i += 1
    candidates = [join(folder, name)] if name else [join(folder, n) for n in ("GNUmakefile", "makefile", "Makefile")]
    path = next((c for c in candidates if ctx.exists(c)), candidates[-1])
    text = ctx.read(path) if ctx.exists(path) else None
    return path, None if text is None else "\n".join(recipes(text, goals))


ENGINES = re.compile(r"^(sudo\s+)?(docker|docker-compose|podman|singularity|apptainer)\b")


def other(ctx: Context, cmd: Command, cwd: str, env: dict, step: InstallStep | None) -> None:
    if ENGINES.match(cmd.text):
        ctx.note(f"`{cmd.text}` ({src(step)}) needs a container engine inside the sandbox: not run (the review builds "
                 "the artifact's own Dockerfile itself where the sandbox can)")
        return
    if not re.match(r"[\w./~$-]", cmd.text) or re.fullmatch(r"\d+", cmd.text.split()[0]):
        ctx.note(f"`{cmd.text}` ({src(step)}) is not a command; ignored")
        return
    add(ctx, activated(f"{prefix(cwd, env)}{cmd.text}"), f"documented `{cmd.text}` run as written", "documented",
        documented=True, action="run", source=src(step), required=False)


def ignore(ctx: Context, cmd: Command, cwd: str, env: dict, step: InstallStep | None) -> None:
    if cmd.sub == "pip":
        ctx.note(f"`{cmd.text}` ({src(step)}) installs nothing; not part of the provisioning")


def unparsable(ctx: Context, cmd: Command, cwd: str, env: dict, step: InstallStep | None) -> None:
    ctx.note(f"`{cmd.text}` ({src(step)}) is not a valid shell command (unbalanced quotes); not run")


HANDLERS = {
    "pip": pip_install, "setup": setup_py, "venv": venv, "activate": activate, "tooling": tooling,
    "conda_installer": conda_installer, "script": script, "other": other, "ignore": ignore, "unparsable": unparsable,
    "apt": aptsteps.apt, "other_pm": aptsteps.other_pm,
    "poetry": managers.poetry, "pipenv": managers.pipenv, "uv": managers.uv, "conda": managers.conda,
}
