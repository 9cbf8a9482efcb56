"""Mechanical fixes a human reviewer would try when a documented command fails (I1/I2 only).

Each diagnosis returns the new script, the Action to classify and a purpose; the caller logs the
intervention before running. Nothing here edits artifact files, so nothing here can be I4.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import PurePosixPath

from ...interventions import Action
from ...models import CommandRecord

CANT_OPEN = re.compile(r"can't open file '([^']+)'|No such file or directory: '([^']+)'|([^\s:]+): No such file or directory")
NOT_FOUND_CMD = re.compile(r"(?:^|\s)(python|pip): (?:command )?not found")
TRACEBACK = re.compile(r"Traceback \(most recent call last\)|^\s*Exception in thread", re.M)


@dataclass
class Fix:
    script: str
    action: Action
    purpose: str
    env: dict[str, str]


def valid_output(rec: CommandRecord) -> bool:
    """RW3: exit 0 within the budget, something to look at, no traceback."""
    produced = bool(rec.stdout.strip()) or bool(rec.files_created) or bool(rec.files_modified)
    return rec.ok and produced and not TRACEBACK.search(rec.stderr)


def diagnose(rec: CommandRecord, script: str, files: list[str], env_vars: dict[str, str], env: dict[str, str]) -> Fix | None:
    if rec.timed_out:
        return None  # a hang is the artifact's problem, not a path or a variable
    text = rec.stderr + "\n" + rec.stdout
    missing = NOT_FOUND_CMD.search(text)
    if missing:
        word = missing.group(1)
        fixed = re.sub(rf"(^|\s|;|&&){word}(\s)", rf"\1{word}3\2", script)
        if fixed != script:
            return Fix(fixed, Action("version", fixed), f"'{word}' is not on this system; use '{word}3'", env)
    for name, value in env_vars.items():
        if name not in env and re.search(rf"\b{name}\b", text):
            new_env = {**env, name: value}
            return Fix(script, Action("env", f"{name}={value}"), f"the run needs {name}, which the documentation sets to {value}", new_env)
    match = CANT_OPEN.search(text)
    if match:
        wanted = next(g for g in match.groups() if g)
        fixed = _fix_path(script, wanted, files)
        if fixed:
            token, actual, new_script = fixed
            return Fix(new_script, Action("path_fix", relocation(token, actual)),
                       f"'{wanted}' does not exist; the file is at {actual}", env)
    return None


def relocation(documented: str, actual: str) -> str:
    """Canonical text of a path fix, so the same fix found in D2 and D3 is one ledger entry."""
    return f"use {actual} for documented {documented}"


def _fix_path(script: str, wanted: str, files: list[str]) -> tuple[str, str, str] | None:
    base = PurePosixPath(wanted).name
    hits = sorted((f for f in files if PurePosixPath(f).name == base), key=lambda f: (f.count("/"), f))
    if not hits or not base:
        return None
    lines = script.splitlines()
    last = lines[-1]
    try:
        tokens = shlex.split(last)
    except ValueError:
        return None
    for i, tok in enumerate(tokens):
        if PurePosixPath(tok).name == base and tok != hits[0]:
            tokens[i] = hits[0]
            return tok, hits[0], "\n".join(lines[:-1] + [shlex.join(tokens)])
    return None
