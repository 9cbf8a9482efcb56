"""The artifact's era: dependencies it leaves open are resolved as of its own date, today's releases second.

An artifact from 2022 that pins nothing gets, from a plain `pip install`, the releases of the day of the review —
a scipy whose default changed, an nltk that wants other data, a numpy its code predates. A committee member
resolves what the artifact leaves open as its authors did: with the releases available on the artifact's date.
The review does that with uv's `--exclude-newer` (a well-kept resolver with a date cut-off; pip has none), logged
as a version choice (I1) with the date and where it comes from; when that resolution fails, the documented install
runs as written with today's releases, and the review says which applied.

The date, in order of trust:
1. the commit date of the reviewed snapshot — recorded by the acquisition (GitHub commits API), or read from the
   artifact's own git history when it is a checkout;
2. a date the artifact's documentation gives — CITATION.cff `date-released`, codemeta.json, .zenodo.json, else
   the newest dated entry of a changelog;
3. the paper's year (its last day).
File modification times are never used: copies, archives and checkouts reset them.
"""
from __future__ import annotations

import datetime
import json
import posixpath
import re
import shlex
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import yaml
from packaging.requirements import InvalidRequirement, Requirement

from .model import PIP, VENV_PYTHON, ProvisionStep
from .reqlines import requirement_lines

Reader = Callable[[str], str | None]
UV_HOME = "/opt/copilot/uv"
UV = f"{UV_HOME}/bin/uv"
ERA_TIMEOUT_S = 600
"""The most the dated resolution may take before the install falls back to today's releases."""
COMPILED = ("numpy", "scipy", "pandas", "matplotlib", "scikit-learn", "torch", "tensorflow", "h5py", "pillow", "lxml",
            "grpcio")
"""Compiled packages taken only as wheels in a dated resolution: a release of the artifact's date that has no wheel
for the interpreter here is not built from source for many minutes — the resolution fails at once and today's
releases are installed instead."""
FELL_BACK = "copilot: resolution as of"
ISO_DATE = re.compile(r"(?<!\d)(20\d\d)-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(?!\d)")
CHANGELOG = re.compile(r"^(CHANGELOG|CHANGES|HISTORY|NEWS|RELEASE[-_ ]?NOTES)(\.\w+)?$", re.IGNORECASE)
OLDEST = datetime.date(2008, 1, 1)
"""Before PyPI's upload dates are dependable; an earlier date is not used."""


@dataclass(frozen=True)
class Era:
    date: datetime.date
    source: str
    """Where the date comes from, in words ("the commit date of the reviewed snapshot (git)")."""

    @property
    def iso(self) -> str:
        return self.date.isoformat()

    def cutoff(self) -> str:
        """uv's --exclude-newer: releases uploaded on the artifact's date still count."""
        return (self.date + datetime.timedelta(days=1)).isoformat()

    def to_dict(self) -> dict[str, str]:
        return {"date": self.iso, "source": self.source}

    @classmethod
    def from_dict(cls, data: dict | None) -> Era | None:
        try:
            return cls(datetime.date.fromisoformat(str(data["date"])), str(data["source"])) if data else None
        except (KeyError, ValueError, TypeError):
            return None


def _as_date(text: object) -> datetime.date | None:
    match = ISO_DATE.search(str(text or ""))
    if not match:
        return None
    try:
        day = datetime.date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None
    return day if OLDEST <= day <= datetime.date.today() else None


def git_commit_date(root: Path | None) -> datetime.date | None:
    """The committer date of HEAD in a checkout, read with git configured to run nothing of the repository's."""
    if root is None or not (Path(root) / ".git").exists():
        return None
    env = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_TERMINAL_PROMPT": "0"}
    try:
        done = subprocess.run(["git", "--no-pager", "-c", "core.fsmonitor=false", "-c", "safe.directory=*", "-C",
                               str(root), "log", "-1", "--format=%cI", "HEAD"], capture_output=True, text=True,
                              timeout=10, env=env, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return _as_date(done.stdout) if done.returncode == 0 else None


def _documented(files: list[str], read: Reader) -> tuple[datetime.date, str] | None:
    top = {f.lower(): f for f in files if "/" not in f}
    if path := top.get("citation.cff"):
        try:
            data = yaml.safe_load(read(path) or "") or {}
        except yaml.YAMLError:
            data = {}
        if isinstance(data, dict) and (day := _as_date(data.get("date-released"))):
            return day, f"{path} date-released"
    for name, keys in (("codemeta.json", ("dateModified", "datePublished")), (".zenodo.json", ("publication_date",))):
        if path := top.get(name):
            try:
                data = json.loads(read(path) or "{}")
            except ValueError:
                data = {}
            for key in keys:
                if isinstance(data, dict) and (day := _as_date(data.get(key))):
                    return day, f"{path} {key}"
    logs = [f for f in files if f.count("/") <= 1 and CHANGELOG.match(posixpath.basename(f))]
    for path in logs:
        days = [d for m in ISO_DATE.finditer(read(path) or "") if (d := _as_date(m.group(0)))]
        if days:
            return max(days), f"the newest dated entry of {path}"
    return None


def artifact_era(files: list[str], read: Reader, *, root: Path | None = None,
                 resolution: Iterable[dict] = (), paper_year: int | None = None) -> Era | None:
    """The artifact's date and where it comes from (see the module's docstring), or None when nothing gives one."""
    for hop in resolution or ():
        if isinstance(hop, dict) and (day := _as_date(hop.get("date"))):
            return Era(day, f"the commit date of the reviewed snapshot ({hop.get('to') or 'acquisition'})")
    if day := git_commit_date(root):
        return Era(day, "the commit date of the reviewed snapshot (its git history)")
    if found := _documented(files, read):
        return Era(found[0], found[1])
    if paper_year and OLDEST.year <= paper_year <= datetime.date.today().year:
        last = min(datetime.date(paper_year, 12, 31), datetime.date.today())
        return Era(last, f"the paper's year ({paper_year}; its last day)")
    return None


def _open(line: str) -> str | None:
    """The name of a requirement that leaves its version open (not pinned with == or ===), else None."""
    try:
        req = Requirement(line)
    except InvalidRequirement:
        return None
    if req.url or any(s.operator in ("==", "===") for s in req.specifier):
        return None  # pinned (a `==1.19.*` series is the pin relaxed for this interpreter: nothing left to date)
    return req.name


def install_lines(script: str, read: Reader, project_deps: Callable[[str], list[str]]) -> list[str]:
    """The requirements an install script installs: lines of the requirement files and here-documents it installs,
    the packages it names, and the declared dependencies of a project it installs with them."""
    lines: list[str] = []
    if "<<'" in script:
        marker, _, body = script.partition("<<'")[2].partition("\n")
        lines += [ln for ln in body.split(f"\n{marker.rstrip(chr(39))}\n")[0].splitlines() if ln.strip()]
    parts = script.split(f"{PIP} install ")
    for before, segment in zip(parts, parts[1:]):
        cd = re.search(r"cd ('[^']+'|\S+) && [^\n]*$", before)
        cwd = cd.group(1).strip("'") if cd else "."
        try:
            words = shlex.split(re.split(r" && | \|\| |;|\n", segment, maxsplit=1)[0])
        except ValueError:
            continue
        lines += _args_lines(words, cwd, read, project_deps)
    return lines


def requirement_name(line: str) -> str | None:
    try:
        return Requirement(line.strip()).name
    except InvalidRequirement:
        return None


def open_requirements(script: str, read: Reader, project_deps: Callable[[str], list[str]]) -> list[str]:
    """What an install script leaves open: requirements it installs that no == pin fixes."""
    return list(dict.fromkeys(n for ln in install_lines(script, read, project_deps) if (n := _open(ln.strip()))))


def _args_lines(words: list[str], cwd: str, read: Reader, project_deps: Callable[[str], list[str]]) -> list[str]:
    out: list[str] = []
    no_deps = "--no-deps" in words
    i = 0
    while i < len(words):
        word = words[i]
        if word in ("-r", "--requirement") and i + 1 < len(words):
            path = posixpath.normpath(posixpath.join(cwd, words[i + 1]))
            out += [item.line for item in requirement_lines(path, read) if item.line and item.include is None
                    and item.constraint is None and not item.line.startswith("-")]
            i += 2
            continue
        if word in ("-e", "--editable"):
            i += 1
            continue
        if word.startswith("-"):
            i += 2 if word in ("-c", "--constraint", "-i", "--index-url", "--extra-index-url", "-f") else 1
            continue
        if word.startswith((".", "/")):
            if not no_deps:
                out += project_deps(posixpath.normpath(posixpath.join(cwd, word)))
        else:
            out.append(word)
        i += 1
    return out


def dated(script: str, era: Era) -> str:
    """`script` with each pip install run by uv, resolving as of the artifact's date (bounded in time); uv comes from
    PyPI into the review's environment folder (not the artifact's venv), the index settings carried over. The
    script still ends with its install command, whose exit status is the dated install's."""
    uv = (f"timeout {ERA_TIMEOUT_S} {UV} pip install --python {VENV_PYTHON} --exclude-newer {era.cutoff()} "
          f"--only-binary {','.join(COMPILED)} ")
    return (f"test -x {UV} || {VENV_PYTHON} -m pip install --quiet --disable-pip-version-check --target {UV_HOME} "
            "--python-version 3.12 --only-binary=:all: uv >/dev/null "
            "|| echo 'copilot: uv could not be installed from the package index' >&2\n"
            "export UV_LINK_MODE=copy UV_NO_PROGRESS=1 UV_HTTP_TIMEOUT=180\n"
            'if [ -n "${PIP_INDEX_URL:-}" ]; then export UV_INDEX_URL="$PIP_INDEX_URL"; fi\n'
            'if [ -n "${PIP_EXTRA_INDEX_URL:-}" ]; then export UV_EXTRA_INDEX_URL="$PIP_EXTRA_INDEX_URL"; fi\n'
            + script.replace(f"{PIP} install ", uv))


def era_step(step: ProvisionStep, era: Era, open_names: list[str]) -> ProvisionStep:
    """The dated install of `step`, with `step` itself (today's releases) as its fallback."""
    shown = ", ".join(open_names[:6]) + (f" and {len(open_names) - 6} more" if len(open_names) > 6 else "")
    return ProvisionStep(script=dated(step.script, era), kind=step.kind, network=True, documented=False,
                         action="version", source=step.source, required=step.required, env=dict(step.env),
                         purpose=f"{step.purpose}; what it leaves open ({shown}) resolved as of {era.iso} "
                                 f"({era.source}) with uv --exclude-newer, today's releases if that fails",
                         fallback=step)


def era_pip_script(pip_line: str, era: Era | None, guard: str = "") -> str:
    """A one-off install (a fix during the run, one command line) resolved as of the artifact's date, else with
    today's releases; its output says when the fallback applied. `guard`: a check that makes the install unneeded
    when it succeeds (`python -c 'import x'`), kept on the script's last line with the install."""
    if era is None or f"{PIP} install " not in pip_line or "\n" in pip_line.strip():
        return f"{guard} || {pip_line}" if guard else pip_line
    fallback = f"echo '{FELL_BACK} {era.iso} failed: the releases of today' >&2; {pip_line}"
    head, _, last = dated(pip_line, era).rpartition("\n")
    return f"{head}\n{guard + ' || ' if guard else ''}{last} || {{ {fallback}; }}"
