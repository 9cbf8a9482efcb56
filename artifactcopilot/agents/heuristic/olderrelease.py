"""Code written for an older release of a library, failing under the release installed here.

An artifact that leaves a library's version open gets whatever the resolution gave it (today's, or the releases of
its date): a plotting style its code names was renamed and then removed, a function moved, a keyword dropped. A
committee member reads the traceback, sees the error raised inside the library about a name it no longer has, and
installs the release series before the installed one. The review does the same, once per library, as a version
choice (I1) — and only when the error is raised by the library itself (its frame is the last one, or the error names
it) and says something was removed or is unknown to it; NumPy 2's removals have their own fix (fixes.NUMPY2).
"""
from __future__ import annotations

import re
import shlex

from ...provision.failures import module_to_distribution
from ...provision.model import PIP, VENV_PYTHON

ERROR_LINE = re.compile(r"(?m)^(?:[A-Za-z_][\w.]*\.)?(?P<kind>\w*(?:Error|Exception)): (?P<message>.+)$")
LIBRARY_FRAME = re.compile(r'File "[^"\n]*/(?:site|dist)-packages/(?P<module>[A-Za-z_]\w*)/[^"\n]*", line \d+')
REMOVED = re.compile(r"\bis not a valid\b|\bhas no attribute\b|\bcannot import name\b|"
                     r"\bunexpected keyword argument\b|\bno longer\b|\b(?:was|were|has been|have been) removed\b|"
                     r"\bis deprecated\b|\bnot (?:a )?(?:recogni[sz]ed|supported) (?:style|option|argument|keyword)",
                     re.IGNORECASE)
NAMED = re.compile(r"(?:cannot import name '[^']+' from|module) '(?P<module>[A-Za-z_]\w*)[\w.]*'")
SKIP = {"numpy", "pip", "setuptools", "wheel", "copilot"}
"""NumPy's removals have their own fix; the installer's own packages are never downgraded."""


def removed_in_library(text: str, files: list[str]) -> tuple[str, str] | None:
    """(distribution, error line) when the run's last error is an installed library's (not a module of the artifact,
    `files`), about a name the installed release no longer has (see the module's docstring); else None."""
    errors = list(ERROR_LINE.finditer(text))
    if not errors:
        return None
    last = errors[-1]
    line = f"{last.group('kind')}: {last.group('message').strip()}"
    if not REMOVED.search(last.group("message")):
        return None
    named = NAMED.search(last.group("message"))
    frames = list(LIBRARY_FRAME.finditer(text[:last.start()]))
    module = named.group("module") if named else (frames[-1].group("module") if frames else None)
    if module is None or module in SKIP or module.startswith("_") or _own(module, files):
        return None
    if not named and _artifact_frame_after(text[:last.start()], frames[-1].end()):
        return None  # the artifact's own code raised it, after the library returned
    return module_to_distribution(module), line[:200]


def _own(module: str, files: list[str]) -> bool:
    return any(f == f"{module}.py" or f.endswith(f"/{module}.py") or f.startswith(f"{module}/") or f"/{module}/" in f
               for f in files)


def _artifact_frame_after(text: str, offset: int) -> bool:
    return bool(re.search(r'File "(?![^"\n]*/(?:site|dist)-packages/)(?![^"\n]*/lib/python3)[^"\n]+", line \d+',
                          text[offset:]))


def older_series_script(dist: str) -> str:
    """Install the release series before the installed one (3.8.x installed: `<3.8`), read inside the sandbox."""
    name = shlex.quote(dist)
    probe = (f'import importlib.metadata as m; v = m.version("{dist}").split("."); '
             'print(v[0] + "." + (v[1] if len(v) > 1 else "0"))')
    return f'series=$({VENV_PYTHON} -c {shlex.quote(probe)}) && {PIP} install {name}"<$series"'
