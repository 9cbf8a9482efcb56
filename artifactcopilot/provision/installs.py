"""What a plan installs, what the artifact declares anywhere, and the installs resolved as of the artifact's date.

After the steps are planned: the distributions their installs name (probed for import once they ran: D2's
importable state), every distribution a dependency file of the artifact declares (so a missing module is said to
be declared or not), and each install that leaves versions open turned into a dated install with today's releases
as its fallback (provision/era.py).
"""
from __future__ import annotations

import datetime

from packaging.requirements import InvalidRequirement, Requirement

from .context import Context
from .declared import declared_distributions
from .era import COMPILED, Era, era_step, install_lines, open_requirements, requirement_name
from .metadata import read_project
from .model import EnvPlan
from .tables import normalize

NOT_IMPORTED = {"pip", "setuptools", "wheel"}
"""Installer tooling a plan may name: not probed as the artifact's packages."""


def installs_and_era(ctx: Context, plan: EnvPlan, date: Era | None) -> None:
    """What the install steps install (probed for import once they ran), what the artifact declares anywhere, and
    the installs that leave versions open resolved as of the artifact's date (today's releases as the fallback)."""
    def deps(folder: str) -> list[str]:
        return list(read_project(ctx.files, ctx.read, folder or ".").dependencies)

    plan.declared = declared_distributions(ctx.files, ctx.read)
    python = plan.python.chosen if plan.python else None
    names: list[str] = []
    for step in plan.steps:
        if step.kind in ("pip", "project", "lock"):
            names += [n for ln in install_lines(step.script, ctx.read, deps)
                      if (n := requirement_name(ln)) and applies(ln, python)]
        if step.kind == "project" and ctx.project.name:
            names.append(ctx.project.name)
    plan.installs = list(dict.fromkeys(n for n in names if normalize(n) not in NOT_IMPORTED))
    if date is None:
        return
    if date.date >= datetime.date.today():
        ctx.note(f"the artifact's date is {date.iso} ({date.source}): today's releases are its releases")
        return
    plan.era = date.to_dict()
    dated, younger = 0, python_younger(python, date)
    for i, step in enumerate(plan.steps):
        if step.kind in ("pip", "project", "lock") and (left := open_requirements(step.script, ctx.read, deps)):
            compiled = [n for n in left if normalize(n) in COMPILED]
            if younger and compiled:
                ctx.note(f"{step.purpose}: not resolved as of {date.iso} — Python {python} came out on {younger}, "
                         f"after that date, so no release of {', '.join(compiled[:3])} of that date has wheels for "
                         "it; today's releases")
                continue
            plan.steps[i] = era_step(step, date, left)
            dated += 1
    ctx.note(f"the artifact's date is {date.iso} ({date.source}): " + (
        f"{dated} install step(s) resolve what the artifact leaves open as of that date, with today's releases if "
        "that fails" if dated else "every install pins its versions; nothing is left open to resolve by date"))


def applies(line: str, python: str | None) -> bool:
    """The requirement is installed here: its environment marker holds on Linux with the chosen Python."""
    try:
        marker = Requirement(line.strip()).marker
    except InvalidRequirement:
        return False
    if marker is None:
        return True
    env = {"sys_platform": "linux", "platform_system": "Linux", "os_name": "posix"}
    if python:
        env.update({"python_version": python, "python_full_version": f"{python}.0"})
    try:
        return bool(marker.evaluate(env))
    except Exception:  # noqa: BLE001 - an unreadable marker: not probed
        return False


PYTHON_RELEASED = {"3.6": "2016-12-23", "3.7": "2018-06-27", "3.8": "2019-10-14", "3.9": "2020-10-05",
                   "3.10": "2021-10-04", "3.11": "2022-10-24", "3.12": "2023-10-02", "3.13": "2024-10-07",
                   "3.14": "2025-10-07"}
"""When each Python came out: packages of an earlier date publish no wheels for it."""


def python_younger(python: str | None, date: Era) -> str | None:
    """The release date of `python` when it came out after the artifact's date, else None."""
    released = PYTHON_RELEASED.get(python or "")
    return released if released and datetime.date.fromisoformat(released) > date.date else None
