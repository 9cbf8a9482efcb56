"""Makefile targets (name, recipe, .PHONY) and driver scripts (run*.sh, reproduce*.sh, main.sh, ...)."""
from __future__ import annotations

import posixpath
import re

from .model import DriverScript, MakeTarget
from .view import ArtifactView, FileIndex, safe_read

MAKEFILE = re.compile(r"^(GNUmakefile|makefile|Makefile)$")
TARGET = re.compile(r"^([^\s:=#][^:=#]*?)\s*::?(?!=)\s*([^=].*)?$")
ASSIGN = re.compile(r"^\s*(export\s+)?[\w.$()]+\s*(:=|\?=|\+=|=|::=)")
CONVENTIONAL = re.compile(r"^(all|test|tests|check|run|reproduce|repro|experiments?|figures?|plots?|results?|eval|"
                          r"evaluate|evaluation|paper|tables?|bench|benchmarks?|demo|example)$", re.IGNORECASE)
CONVENTIONAL_PART = {"test", "tests", "run", "reproduce", "experiment", "experiments", "figures", "plots", "results",
                     "eval", "evaluate", "tables", "benchmark", "paper"}
DRIVER = re.compile(r"^(run[\w\-.]*|reproduce[\w\-.]*|repro[\w\-.]*|run_all[\w\-.]*|experiments?[\w\-.]*|main)\.sh$",
                    re.IGNORECASE)
VARIABLE = re.compile(r"^\s*([A-Za-z_][\w]*)\s*[:?]?=\s*(.*)$")


def parse_makefile(text: str, path: str) -> list[MakeTarget]:
    """Targets of a Makefile in file order (pattern rules and special targets left out)."""
    targets: list[MakeTarget] = []
    phony: set[str] = set()
    variables: dict[str, str] = {}
    current: MakeTarget | None = None
    for n, raw in enumerate(text.splitlines(), 1):
        if raw.startswith("\t") and current is not None:
            cmd = raw.strip()
            if cmd and not cmd.startswith("#"):
                current.recipe.append(cmd)
            continue
        line = raw.split("#", 1)[0].rstrip()
        var = VARIABLE.match(line)
        if not line.strip() or var and ":" not in line.split("=", 1)[0].rstrip(":?"):
            if var:
                variables[var.group(1)] = var.group(2).strip()
            current = None if not line.strip() else current
            continue
        match = TARGET.match(line)
        if not match or ASSIGN.match(line) and "=" in line.split(":", 1)[0]:
            current = None
            continue
        names = [_expand(name, variables) for name in match.group(1).split()]
        if ".PHONY" in names:
            phony.update((match.group(2) or "").split())
            current = None
            continue
        current = None
        for name in names:
            if name.startswith(".") or "%" in name:
                continue
            current = MakeTarget(name=name, path=path, line=n)
            targets.append(current)
    for target in targets:
        target.phony = target.name in phony
    return targets


def _expand(name: str, variables: dict[str, str]) -> str:
    return re.sub(r"\$[({](\w+)[)}]", lambda m: variables.get(m.group(1), m.group(0)), name)


def makefiles(index: FileIndex) -> list[str]:
    found = [f for f in index.files if MAKEFILE.match(posixpath.basename(f)) and f.count("/") <= 1]
    return sorted(found, key=lambda f: (f.count("/"), f))


def read_targets(view: ArtifactView, index: FileIndex, notes: list[str]) -> list[MakeTarget]:
    out: list[MakeTarget] = []
    for path in makefiles(index):
        text = safe_read(view, path, 500_000)
        if text is None:
            notes.append(f"{path}: could not be read")
            continue
        out += parse_makefile(text, path)
    return out


def conventional(target: MakeTarget) -> bool:
    if CONVENTIONAL.match(target.name):
        return True
    return bool(set(re.split(r"[_\-.]", target.name.lower())) & CONVENTIONAL_PART)


def default_target(targets: list[MakeTarget], path: str) -> MakeTarget | None:
    return next((t for t in targets if t.path == path), None)


def driver_scripts(view: ArtifactView, index: FileIndex) -> list[DriverScript]:
    out = []
    for path in index.files:
        folder = posixpath.dirname(path)
        if not DRIVER.match(posixpath.basename(path)) or folder not in ("", "scripts", "script", "bin"):
            continue
        text = safe_read(view, path, 200_000) or ""
        out.append(DriverScript(path=path, needs_args=needs_args(text)))
    return sorted(out, key=lambda d: (d.path.count("/"), d.path))


def needs_args(text: str) -> bool:
    """The script reads positional arguments without a default (`$1` but not `${1:-x}`)."""
    body = "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("#"))
    body = re.sub(r"\$\{[1-9]:[-=][^}]*\}", "", body)
    return bool(re.search(r"\$\{?[1-9]\b", body))


def script_cwd(text: str, path: str, index: FileIndex) -> str:
    """The folder a driver script expects to run from: its own when it uses ../ or sibling files, else the root."""
    folder = posixpath.dirname(path) or "."
    if folder == ".":
        return "."
    if re.search(r"(^|\s|[\"'=])\.\./", text) or re.search(r"(^|\s)\./[\w\-]+\.(py|sh)\b", text):
        return folder
    if re.search(rf"(^|\s|[\"'=]){re.escape(folder)}/", text):
        return "."
    siblings = {posixpath.basename(f) for f in index.files_in(folder)}
    words = set(re.findall(r"(?<![\w\-.])[\w\-.]{1,255}\.(?:py|sh|R|jl)\b", text))
    return folder if words & siblings else "."
