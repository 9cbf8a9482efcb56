"""Documented system package installs (apt, and other platforms' package managers).

Python tooling packages (python3-pip, python3-venv, virtualenv) are replaced by the review's virtual
environment; Debian's python3-<module> packages install into the system Python, which the venv does not see,
so they become pip installs of the same module; everything else is an apt step — in a container only.
"""
from __future__ import annotations

import re

from .commands import Command
from .context import Context, add, apt_script, pip_script, src
from .failures import module_to_distribution
from .model import InstallStep
from .pyversions import parse_minor
from .tables import table

PYTHON_TOOLING = re.compile(r"^(python3?-(pip|venv|virtualenv|setuptools|wheel)|python-is-python3|pipx|virtualenv|"
                            r"python3(\.\d+)?(-venv|-distutils|-pip)?)$")
SYSTEM_PYTHON = re.compile(r"^python3(\.\d+)?-(dev|tk|all|minimal|full|gi|dbus|apt|lib2to3|examples|doc|dbg|"
                           r"distutils|gdbm|cairo|gi-cairo)$")
DEBIAN_MODULE = re.compile(r"^python3-([a-z0-9][a-z0-9.-]*)$")


def apt(ctx: Context, cmd: Command, cwd: str, env: dict, step: InstallStep | None) -> None:
    packages, tooling, modules = [], [], []
    for name in cmd.argv:
        if PYTHON_TOOLING.match(name):
            tooling.append(name)
            if (version := parse_minor(name)) and version[0] >= 3:
                ctx.preferences.append((f"{version[0]}.{version[1]}", f"documented `{cmd.text}`", 1))
        elif not SYSTEM_PYTHON.match(name) and (match := DEBIAN_MODULE.match(name)):
            modules.append(module_to_distribution(match.group(1)))
        elif re.fullmatch(r"[a-z0-9][a-z0-9+.-]+", name):
            packages.append(name)
    if tooling:
        ctx.note(f"`{cmd.text}` ({src(step)}): {', '.join(tooling)} not installed; the review's virtual "
                 "environment provides Python, pip and venv")
    if modules:
        add(ctx, pip_script(modules, cwd, env), f"documented `{cmd.text}`: the Debian Python modules installed with "
            f"pip into the virtual environment ({', '.join(modules)}), which does not see the system Python's",
            "pip", documented=True, action="command_fix", source=src(step))
        ctx.names += modules
        ctx.deps_installed = True
    if packages:
        _system(ctx, cmd, packages, step)


def _system(ctx: Context, cmd: Command, packages: list[str], step: InstallStep | None) -> None:
    if not ctx.container:
        ctx.note(f"`{cmd.text}` ({src(step)}) not possible in the local sandbox (no system package installs): "
                 f"{', '.join(packages)} missing unless the host has them")
        return
    add(ctx, apt_script(packages), f"documented `{cmd.text}` (as root, non-interactive)", "apt", documented=True,
        action="run", source=src(step), required=False)
    ctx.apt_documented += [p for p in packages if p not in ctx.apt_documented]


def other_pm(ctx: Context, cmd: Command, cwd: str, env: dict, step: InstallStep | None) -> None:
    """brew/yum/dnf/...: the same tools from Debian when the tool table knows them (container), else a note."""
    tools = table("tools")
    names = [w for w in cmd.argv[1:] if not w.startswith("-")] if cmd.argv[:1] == ["install"] else []
    mapped = [p for n in names for p in (tools.get(n.lower()) or {}).get("apt", [])]
    if ctx.container and names and all(tools.get(n.lower(), {}).get("apt") for n in names):
        add(ctx, apt_script(list(dict.fromkeys(mapped))), f"documented `{cmd.text}` is for another platform; the "
            "same tools from Debian", "apt", documented=True, action="command_fix", source=src(step), required=False)
        ctx.apt_documented += [p for p in mapped if p not in ctx.apt_documented]
        return
    ctx.note(f"`{cmd.text}` ({src(step)}) is for another platform ({cmd.sub}); not run")
