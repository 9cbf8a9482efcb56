"""poetry / pipenv / uv / conda steps replayed with pip from their lock and environment files.

The review has no poetry, pipenv, uv or conda: it installs exactly what their lock files pin into its own
virtual environment, then the project itself with `--no-deps`.
"""
from __future__ import annotations

import posixpath
import re

import tomllib

from . import locks
from .commands import Command
from .conda import CondaEnv, add_conda_package, parse_environment
from .context import Context, absorb_requirements, add, join, lock_script, pip_script, relative, src
from .metadata import Project, read_project
from .model import InstallStep
from .tables import normalize


def _values(argv: list[str], *flags: str) -> list[str]:
    out = []
    for i, word in enumerate(argv):
        if word in flags and i + 1 < len(argv):
            out += re.split(r"[\s,]+", argv[i + 1])
        elif any(word.startswith(f + "=") for f in flags):
            out += re.split(r"[\s,]+", word.split("=", 1)[1])
    return [v for v in out if v]


def _positional(argv: list[str], with_values: tuple[str, ...] = ()) -> list[str]:
    out, skip = [], False
    for word in argv:
        if skip:
            skip = False
        elif word in with_values:
            skip = True
        elif not word.startswith("-"):
            out.append(word)
    return out


def _project_folder(ctx: Context, cwd: str, marker: str) -> str:
    """The folder a tool run in `cwd` works on: cwd or the nearest parent with `marker` (pyproject.toml)."""
    folder = cwd
    while True:
        if ctx.exists(join(folder, marker)):
            return folder
        if folder in ("", "."):
            return cwd
        folder = posixpath.dirname(folder) or "."


def _project(ctx: Context, folder: str) -> Project:
    return ctx.project if folder == ctx.project.dir else read_project(ctx.files, ctx.read, folder)


def _pyproject_data(ctx: Context, folder: str) -> dict:
    try:
        return tomllib.loads(ctx.read(join(folder, "pyproject.toml")) or "")
    except (tomllib.TOMLDecodeError, UnicodeError):
        return {}


def install_locked(ctx: Context, result: locks.Locked, path: str, purpose: str, *, documented: bool,
                   action: str, step: InstallStep | None) -> bool:
    for note in result.notes:
        ctx.note(note)
    if not result.ok:
        return False
    if result.lines:
        add(ctx, lock_script(result.lines, path), f"{purpose} ({len(result.lines)} packages)", "lock",
            documented=documented, action=action, source=src(step) or path)
    if result.remote:
        ctx.note(f"{path}: dependencies fetched from git/URLs need network access to their hosts (GitHub): "
                 + ", ".join(result.remote))
    ctx.remote += result.remote
    ctx.pins += [(n, v, path) for n, v in result.pins]
    ctx.names += [re.split(r"[\s=<>!~;@\[]", line)[0] for line in result.lines]
    ctx.deps_installed = True
    ctx.dependency_source = ctx.dependency_source or path
    return True


def install_project(ctx: Context, project: Project, *, no_deps: bool, documented: bool, action: str,
                    step: InstallStep | None, why: str) -> None:
    if not project.installable:
        ctx.note(f"{project.dir}: no setup.py or [build-system] in pyproject.toml, so the project itself is not "
                 "installed (its code runs from the source tree)")
        return
    if ctx.project_installed and project.dir == ctx.project.dir:
        return
    args = ["--no-deps", relative(project.dir, ".")] if no_deps else [relative(project.dir, ".")]
    if args[-1] == "./.":
        args[-1] = "."
    add(ctx, pip_script(args), f"install the artifact's own project{' ' + project.name if project.name else ''} "
        f"({why})", "project", documented=documented, action=action, source=src(step))
    ctx.project_installed = ctx.project_installed or project.dir == ctx.project.dir
    ctx.deps_installed = ctx.deps_installed or not no_deps


def install_declared(ctx: Context, project: Project, *, documented: bool, action: str, step: InstallStep | None,
                     label: str) -> None:
    """No lock file: the project (pip resolves its declared ranges) or, if not installable, its dependency list."""
    if project.installable:
        install_project(ctx, project, no_deps=False, documented=documented, action=action, step=step,
                        why=f"no {label}: pip resolves the dependency ranges the project declares")
    elif project.dependencies:
        result = locks.Locked(lines=list(project.dependencies))
        install_locked(ctx, result, join(project.dir, "pyproject.toml"), f"dependencies declared in "
                       f"{join(project.dir, 'pyproject.toml')} (no {label})", documented=documented, action=action,
                       step=step)


def poetry(ctx: Context, cmd: Command, cwd: str, env: dict, step: InstallStep | None,
           documented: bool = True, action: str = "command_fix") -> None:
    if cmd.sub in ("add",):
        return _add_packages(ctx, cmd, cwd, step)
    if cmd.sub == "env" and cmd.argv[:1] == ["use"] and len(cmd.argv) > 1:
        ctx.preferences.append((cmd.argv[1], f"documented `{cmd.text}`", 1))
    if cmd.sub not in ("install", "sync"):
        return _skip_tool(ctx, cmd, step)
    folder = _project_folder(ctx, cwd, "pyproject.toml")
    project, lock = _project(ctx, folder), join(folder, "poetry.lock")
    groups = set(_values(cmd.argv, "--with", "--only")) - {"main"}
    extras = None if "--all-extras" in cmd.argv else set(_values(cmd.argv, "-E", "--extras"))
    if ctx.exists(lock):
        result = locks.poetry_lock(ctx.read(lock), _pyproject_data(ctx, folder), lock, groups, extras)
        done = install_locked(ctx, result, lock, f"`{cmd.text}` without poetry: the main-group packages pinned in "
                              f"{lock}, installed with pip", documented=documented, action=action, step=step)
        if not done:
            install_declared(ctx, project, documented=documented, action=action, step=step, label="readable lock")
        elif "--no-root" not in cmd.argv and project.package_mode:
            install_project(ctx, project, no_deps=True, documented=documented, action=action, step=step,
                            why="poetry installs the project itself after its locked dependencies")
    else:
        install_declared(ctx, project, documented=documented, action=action, step=step, label="poetry.lock")


def uv(ctx: Context, cmd: Command, cwd: str, env: dict, step: InstallStep | None,
       documented: bool = True, action: str = "command_fix") -> None:
    if cmd.python:
        ctx.preferences.append((cmd.python, f"documented `{cmd.text}`", 1))
    if cmd.sub == "add":
        return _add_packages(ctx, cmd, cwd, step)
    if cmd.sub != "sync":
        return _skip_tool(ctx, cmd, step)
    folder = _project_folder(ctx, cwd, "pyproject.toml")
    project, lock = _project(ctx, folder), join(folder, "uv.lock")
    argv = cmd.argv
    default_groups: set[str] = set() if {"--no-dev", "--no-default-groups"} & set(argv) else {"dev"}
    groups = None if "--all-groups" in argv else default_groups | set(_values(argv, "--group"))
    extras = None if "--all-extras" in argv else set(_values(argv, "--extra"))
    if ctx.exists(lock):
        result = locks.uv_lock(ctx.read(lock), lock, extras, groups)
        done = install_locked(ctx, result, lock, f"`{cmd.text}` without uv: the packages pinned in {lock}, "
                              "installed with pip", documented=documented, action=action, step=step)
        if not done:
            install_declared(ctx, project, documented=documented, action=action, step=step, label="readable lock")
        elif "--no-install-project" not in argv:
            if project.installable:
                install_project(ctx, project, no_deps=True, documented=documented, action=action, step=step,
                                why="uv installs the project itself after its locked dependencies")
            else:
                ctx.note(f"{join(folder, 'pyproject.toml')} has no [build-system]: a virtual project, which uv does "
                         "not install either; its code runs from the source tree")
    else:
        install_declared(ctx, project, documented=documented, action=action, step=step, label="uv.lock")


def pipenv(ctx: Context, cmd: Command, cwd: str, env: dict, step: InstallStep | None,
           documented: bool = True, action: str = "command_fix") -> None:
    if cmd.python:
        ctx.preferences.append((cmd.python, f"documented `{cmd.text}`", 1))
    if cmd.sub not in ("install", "sync"):
        return _skip_tool(ctx, cmd, step)
    if _positional(cmd.argv, ("--python",)):
        return _add_packages(ctx, cmd, cwd, step)
    folder = _project_folder(ctx, cwd, "Pipfile")
    dev = "--dev" in cmd.argv or "-d" in cmd.argv
    lock, pipfile = join(folder, "Pipfile.lock"), join(folder, "Pipfile")
    if ctx.exists(lock):
        result, path = locks.pipfile_lock(ctx.read(lock), lock, dev), lock
    elif ctx.exists(pipfile):
        result, path = locks.pipfile(ctx.read(pipfile), pipfile, dev), pipfile
    else:
        ctx.note(f"`{cmd.text}` ({src(step)}): no Pipfile or Pipfile.lock where it runs")
        return
    install_locked(ctx, result, path, f"`{cmd.text}` without pipenv: the packages of {path}, installed with pip",
                   documented=documented, action=action, step=step)


def conda(ctx: Context, cmd: Command, cwd: str, env: dict, step: InstallStep | None) -> None:
    argv = cmd.argv
    if cmd.sub in ("env create", "env update") or cmd.sub == "create" and _values(argv, "-f", "--file"):
        files = _values(argv, "-f", "--file")
        return env_file_for(ctx, files[0] if files else None, cwd, step)
    if cmd.sub in ("create", "install"):
        env_ = CondaEnv()
        for spec in _positional(argv, ("-n", "--name", "-c", "--channel", "-p", "--prefix", "--file")):
            add_conda_package(env_, spec)
        for spec_file in _values(argv, "--file"):
            for line in (ctx.read(join(cwd, spec_file)) or "").splitlines():
                if line.strip() and not line.strip().startswith(("#", "@")):
                    add_conda_package(env_, line.strip())
        return _install_conda(ctx, env_, f"`{cmd.text}`", step)
    return _skip_tool(ctx, cmd, step)


def env_file_for(ctx: Context, named: str | None, cwd: str, step: InstallStep | None, *, documented: bool = True,
                 action: str = "command_fix") -> None:
    """Install a conda environment file: the one named, else environment.yml/.yaml where it runs or at the root."""
    candidates = [join(cwd, named)] if named else [join(d, f"environment.{e}") for d in (cwd, ".")
                                                    for e in ("yml", "yaml")]
    path = next((c for c in candidates if ctx.exists(c)), None)
    if path is None:
        ctx.note(f"{src(step) or 'the documentation'}: conda environment file {candidates[0]} not found")
        return
    if path in ctx.requirement_files:
        return  # already translated (an installer script and the README both create it)
    ctx.requirement_files.append(path)
    env_ = parse_environment(ctx.read(path), path)
    _install_conda(ctx, env_, path, step, documented=documented, action=action)


def _install_conda(ctx: Context, env_: CondaEnv, label: str, step: InstallStep | None, *, documented: bool = True,
                   action: str = "command_fix") -> None:
    for note in env_.notes:
        ctx.note(note)
    if env_.python:
        ctx.requests.append((env_.python, f"documented {label}" if label.startswith("`") else f"{label} python"))
    if env_.mapped:
        ctx.note(f"{label}: conda packages installed from PyPI by name: {', '.join(env_.mapped)}")
    if env_.unmapped:
        ctx.note(f"{label}: conda packages with no pip equivalent, not installed: {', '.join(env_.unmapped)}")
    extra_channels = [c for c in env_.channels if c not in ("defaults", "conda-forge")]
    if extra_channels:
        ctx.note(f"{label}: channels {', '.join(extra_channels)} are conda-only; their packages come from PyPI here")
    for pkg in env_.apt:
        if ctx.container:
            ctx.apt_extra.append((pkg, f"system tool from conda ({label})"))
        else:
            ctx.note(f"{label}: {pkg} (a system package) cannot be installed in the local sandbox")
    for line in env_.pip_lines:
        if (match := re.match(r"^(?:-r|--requirement)\s+(\S+)$", line)) and ctx.exists(match.group(1)):
            ctx.requirement_files.append(match.group(1))
            absorb_requirements(ctx, match.group(1))
    result = locks.Locked(lines=env_.lines, pins=env_.pins, ok=env_.ok)
    install_locked(ctx, result, "conda-packages" if label.startswith("`") else label,
                   f"conda environment {label} installed with pip (its pip: section "
                   "as written, conda packages by their PyPI names)", documented=documented, action=action, step=step)


def _add_packages(ctx: Context, cmd: Command, cwd: str, step: InstallStep | None) -> None:
    names = [re.sub(r"@[\^~]?", "==", w) if re.search(r"@[\^~]?\d", w) else w
             for w in _positional(cmd.argv, ("--group", "-G", "--python", "--source"))]
    names = [n for n in names if normalize(re.split(r"[=<>!~\[]", n)[0]) != normalize(ctx.project.name or "\0")]
    if not names:
        return
    add(ctx, pip_script(names, cwd), f"documented `{cmd.text}` as a pip install (adds packages, no lock update)",
        "pip", documented=True, action="command_fix", source=src(step), required=False)


def _skip_tool(ctx: Context, cmd: Command, step: InstallStep | None) -> None:
    ctx.note(f"`{cmd.text}` ({src(step)}) skipped: the review replays installs with pip in its own virtual "
             "environment and does not use this tool command")
