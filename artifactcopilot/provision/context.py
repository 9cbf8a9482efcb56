"""State shared while a plan is built, and the helpers that turn decisions into shell steps."""
from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field

from .metadata import Project
from .model import PIP, VENV, WORK, InstallStep, ProvisionStep
from .requirements import read_requirements

HEREDOC = "COPILOT_REQUIREMENTS"


@dataclass
class Context:
    files: list[str]
    read: Callable[[str], str | None]
    container: bool
    project: Project
    fileset: set[str] = field(default_factory=set)
    steps: list[ProvisionStep] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    requests: list[tuple[str, str]] = field(default_factory=list)
    """Hard Python requests: (specifier, source)."""
    preferences: list[tuple[str, str, int]] = field(default_factory=list)
    """Python versions asked for without a hard requirement: (version, source, rank); rank 0 .python-version,
    1 documented commands, 2 versions the docs mention, 3 classifiers (never reported as drift)."""
    pins: list[tuple[str, str, str]] = field(default_factory=list)
    """(distribution, exact version, source) — used to keep the interpreter within published wheels."""
    names: list[str] = field(default_factory=list)
    """Distributions the plan installs (for build needs)."""
    remote: list[str] = field(default_factory=list)
    requirement_files: list[str] = field(default_factory=list)
    apt_documented: list[str] = field(default_factory=list)
    apt_extra: list[tuple[str, str]] = field(default_factory=list)
    """(package, why) — system packages the plan needs besides the documented ones."""
    deps_installed: bool = False
    """A documented step installs the artifact's dependencies (no fallback needed)."""
    project_installed: bool = False
    published: list[tuple[str, str]] = field(default_factory=list)
    """(distribution, local folder): the artifact's own package, documented as installed from PyPI."""
    dependency_source: str | None = None
    """The file the documented install takes dependencies from (for skip reasons)."""

    def __post_init__(self) -> None:
        self.fileset = set(self.files)

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def exists(self, rel: str) -> bool:
        return rel in self.fileset

    def is_dir(self, rel: str) -> bool:
        rel = rel.strip("/")
        return rel in ("", ".") or any(f.startswith(rel + "/") for f in self.files)


def join(cwd: str, rel: str) -> str:
    """Artifact-root-relative path of `rel` seen from `cwd` (both posix, relative)."""
    if rel.startswith("/"):
        return rel
    out = posixpath.normpath(posixpath.join(cwd or ".", rel))
    return "." if out in ("", ".") else out


def relative(target: str, cwd: str) -> str:
    """`target` (root-relative) as seen from `cwd`."""
    out = posixpath.relpath(target or ".", cwd or ".")
    return out if out.startswith(".") else f"./{out}"


def prefix(cwd: str, env: dict[str, str] | None = None) -> str:
    """`cd X && VAR=v ` for a command that runs in `cwd` with `env`."""
    parts = f"cd {shlex.quote(cwd)} && " if cwd not in ("", ".") else ""
    if env:
        parts += " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items()) + " "
    return parts


def pip_script(args: list[str], cwd: str = ".", env: dict[str, str] | None = None) -> str:
    return f"{prefix(cwd, env)}{PIP} install {' '.join(shlex.quote(a) for a in args)}".rstrip()


def lock_script(lines: list[str], label: str) -> str:
    """Write the requirement lines to a file inside the sandbox and install them in one pip run."""
    slug = re.sub(r"[^A-Za-z0-9]+", "-", label).strip("-").lower() or "requirements"
    target = f"{WORK}/{slug}.txt"
    body = "\n".join(lines)
    return (f"mkdir -p {WORK} && cat > {target} <<'{HEREDOC}'\n{body}\n{HEREDOC}\n"
            f"{PIP} install -r {target}")


def apt_script(packages: list[str]) -> str:
    """Install Debian packages as root, non-interactively, without recommended extras."""
    return ("apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "
            + " ".join(packages))


def activated(script: str) -> str:
    """Run `script` with the review's virtual environment first on PATH (for documented scripts)."""
    return f"export VIRTUAL_ENV={VENV} PATH={VENV}/bin:$PATH && {script}"


def add(ctx: Context, script: str, purpose: str, kind: str, *, documented: bool, action: str,
        source: str = "", network: bool = True, required: bool = True) -> ProvisionStep:
    for existing in ctx.steps:
        if existing.script == script:  # the same install documented twice runs once
            return existing
    step = ProvisionStep(script=script, purpose=purpose, kind=kind, network=network, documented=documented,
                         action=action, source=source, required=required)
    ctx.steps.append(step)
    return step


def src(step: InstallStep | None) -> str:
    return step.source if step else ""


def absorb_requirements(ctx: Context, rel: str) -> None:
    """Record what a requirement file installs (names, pins for the Python choice, git sources)."""
    info = read_requirements(rel, ctx.read)
    ctx.names += info.names
    ctx.pins += [(n, v, rel) for n, v in info.pins]
    ctx.remote += info.remote
    for note in info.notes:
        ctx.note(note)
