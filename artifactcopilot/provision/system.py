"""System (Debian) packages: tools the documentation requires and what building Python packages needs."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .tables import normalize, table, tool_entry

BUILD_TOOLCHAIN = ["build-essential", "python3-dev"]


@dataclass
class ToolPlan:
    """How the system tools named by the documentation are obtained."""

    apt: list[str] = field(default_factory=list)
    pip: list[str] = field(default_factory=list)
    suites: list[tuple[str, list[str]]] = field(default_factory=list)
    """(tool, Debian suites that still package it) for tools not packaged everywhere."""
    unknown: list[str] = field(default_factory=list)
    packages: dict[str, list[str]] = field(default_factory=dict)
    """tool -> its Debian packages."""


def plan_tools(tools: list[str]) -> ToolPlan:
    plan = ToolPlan()
    for tool in tools:
        if not isinstance(tool, str) or not tool.strip():
            continue
        entry = tool_entry(tool)
        if entry is None:
            if re.split(r"[\s>=<(]", tool.strip().lower())[0] in ("python", "python3", "pip", "pip3", "docker"):
                continue  # the venv provides Python; Docker is not installable inside a sandbox
            plan.unknown.append(tool.strip())
            continue
        plan.apt += [p for p in entry.get("apt", []) if p not in plan.apt]
        plan.packages[tool.strip()] = list(entry.get("apt", []))
        if entry.get("pip") and entry["pip"] not in plan.pip:
            plan.pip.append(entry["pip"])
        if entry.get("suites"):
            plan.suites.append((tool.strip(), list(entry["suites"])))
    return plan


def build_needs(names: list[str], remote: list[str], needs_toolchain: bool) -> list[tuple[str, str]]:
    """(Debian package, why) needed to build what the plan installs from source."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()

    def need(pkg: str, why: str) -> None:
        if pkg not in seen:
            seen.add(pkg)
            out.append((pkg, why))

    if remote:
        need("git", "pip clones git dependencies")
        need("ca-certificates", "HTTPS access for git")
    builds = {normalize(k): v for k, v in table("builds").items()}
    for name in names:
        for pkg in builds.get(normalize(name), []):
            need(pkg, f"building {name}")
    if needs_toolchain:
        for pkg in BUILD_TOOLCHAIN:
            need(pkg, "compiling packages that have no wheel for this Python")
    return out
