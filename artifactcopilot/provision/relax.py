"""Pins that exist only for older Pythons: relax them to the nearest release that installs here.

A requirement file written for Python 3.6/3.7 (`numpy==1.16.5`) pins releases that publish wheels for no
interpreter on offer, and building them from source on a newer Python fails. A reviewer then installs the nearest
release series that has wheels for the interpreter used (numpy 1.19.x on 3.9), logs it as a version choice (I1)
with the pinned and the installed versions, and says that results may differ. A pin whose Python *is* available is
never relaxed (the interpreter choice follows it instead), nor are wheel-only frameworks (tensorflow, torch), whose
next installable release is another API: those are reported as blockers.
"""
from __future__ import annotations

import posixpath
import re
import shlex
from dataclasses import dataclass

from packaging.requirements import InvalidRequirement, Requirement

from .. import shell as sh
from .context import HEREDOC, Context
from .model import PIP, WORK, ProvisionStep
from .pyversions import Minor, fmt, parse_minor
from .reqlines import requirement_lines, text_lines
from .tables import WHEEL_ONLY, normalize, series_for_python, wheel_ceiling

_R_FLAG = re.compile(r"(?P<flag>-r|--requirement)(?P<sep>\s+|=)(?P<path>'[^']+'|\S+)")
_CD = re.compile(r"^cd (?P<dir>'[^']+'|\S+) && ")


@dataclass(frozen=True)
class Relaxed:
    name: str
    pinned: str
    series: str
    ceiling: Minor
    source: str

    def describe(self) -> str:
        return (f"{self.name}=={self.pinned} -> {self.name}=={self.series}.* ({self.source}; {self.pinned} "
                f"publishes wheels up to Python {fmt(self.ceiling)})")


def relax_old_pins(ctx: Context, chosen: str, offered: list[str]) -> list[Relaxed]:
    """Rewrite the steps that install requirement files pinning releases no interpreter here can install."""
    python = parse_minor(chosen)
    versions = [v for k in offered if (v := parse_minor(k))]
    if python is None or not versions:
        return []
    relaxed: dict[str, Relaxed] = {}
    for name, version, source in ctx.pins:
        ceiling = wheel_ceiling(name, version)
        if ceiling is None or python <= ceiling or any(v <= ceiling for v in versions) \
                or normalize(name) in WHEEL_ONLY:
            continue  # installable here, or an interpreter that has its wheels is on offer, or another API
        series = series_for_python(name, version, python)
        if series and normalize(name) not in relaxed:
            relaxed[normalize(name)] = Relaxed(name, version, series, ceiling, source)
    if not relaxed:
        return []
    used: list[Relaxed] = []
    for step in ctx.steps:
        used += _rewrite(ctx, step, relaxed, chosen)
    _drop_build_warning(ctx, used)
    for item in dict.fromkeys(used):
        ctx.note(f"pin for an older Python relaxed: {item.describe()}; no interpreter here has its wheels, so the "
                 f"nearest release with wheels for Python {chosen} is installed — results may differ")
    return list(dict.fromkeys(used))


def _drop_build_warning(ctx: Context, used: list[Relaxed]) -> None:
    """The interpreter choice warned that these pins would be built from source; relaxed, they are not."""
    gone = {f"{r.name}=={r.pinned}" for r in used}
    for i, note in enumerate(ctx.notes):
        head, _, tail = note.partition(", pip may have to build them from source: ")
        if not tail or not head.startswith("pinned packages without wheels"):
            continue
        kept = [e for e in re.split(r", (?=\S+==)", tail) if e.split(" ", 1)[0] not in gone]
        ctx.notes[i] = f"{head}, pip may have to build them from source: {', '.join(kept)}" if kept else ""
    ctx.notes[:] = [n for n in ctx.notes if n]


def _rewrite(ctx: Context, step: ProvisionStep, relaxed: dict[str, Relaxed], chosen: str) -> list[Relaxed]:
    if step.kind not in ("pip", "project", "lock") or " -m pip install" not in step.script:
        return []
    cd = _CD.match(step.script)
    cwd = sh.split(cd.group("dir"))[0] if cd else "."
    script, used = _relax_heredoc(step.script, relaxed)  # a lock or environment file translated to pip lines
    if not used:
        script, used = _relax_words(script, relaxed)  # pins named on the documented command line
    for match in list(_R_FLAG.finditer(step.script)):
        path = posixpath.normpath(posixpath.join(cwd, sh.split(match.group("path"))[0]))
        if path.startswith(("/", "../")) or not ctx.exists(path):
            continue  # only the artifact's own requirement files (not one the review wrote in the sandbox)
        lines, hits = _relaxed_lines(ctx, path, relaxed)
        if not hits:
            continue
        slug = re.sub(r"[^A-Za-z0-9]+", "-", path).strip("-").lower()
        target = f"{WORK}/relaxed-{slug}"
        body = "\n".join(lines)
        script = (f"mkdir -p {WORK} && cat > {target} <<'{HEREDOC}'\n{body}\n{HEREDOC}\n"
                  + script.replace(match.group(0), f"{match.group('flag')} {target}", 1))
        used += hits
    if not used:
        return []
    names = "|".join(re.escape(normalize(r.name)).replace("\\-", "[-_.]") for r in used)
    step.script = f"{script} && {{ {PIP} list --format=freeze 2>/dev/null | grep -iE '^({names})==' || true; }}"
    step.purpose += (f"; pins for older Pythons relaxed to releases with wheels for Python {chosen}: "
                     + "; ".join(r.describe() for r in used) + " — results may differ from the pinned versions")
    step.documented, step.action = False, "version"
    return used


def _relax_words(script: str, relaxed: dict[str, Relaxed]) -> tuple[str, list[Relaxed]]:
    used: list[Relaxed] = []

    def swap(match: re.Match) -> str:
        item = relaxed.get(normalize(match.group(1)))
        if item is None or match.group(2) != item.pinned:
            return match.group(0)
        used.append(item)
        return shlex.quote(f"{match.group(1)}=={item.series}.*")

    return re.sub(r"(?<=\s)([A-Za-z0-9][\w.\-]*)==(\d+(?:\.\d+)+)(?=\s|$)", swap, script), used


def _relax_heredoc(script: str, relaxed: dict[str, Relaxed]) -> tuple[str, list[Relaxed]]:
    opening = f"<<'{HEREDOC}'\n"
    if opening not in script or f"\n{HEREDOC}\n" not in script:
        return script, []
    head, rest = script.split(opening, 1)
    body, tail = rest.split(f"\n{HEREDOC}\n", 1)
    lines, used = [], []
    for entry in text_lines(body):
        item = _relax_line(entry.line, relaxed)
        lines.append(f"{item.name}=={item.series}.*" if item else entry.line)
        used += [item] if item else []
    return f"{head}{opening}" + "\n".join(lines) + f"\n{HEREDOC}\n{tail}", used


def _relaxed_lines(ctx: Context, path: str, relaxed: dict[str, Relaxed]) -> tuple[list[str], list[Relaxed]]:
    """The file's requirement lines with relaxed pins (included files of the artifact inlined, so that nothing
    points back; an include outside the artifact is left to pip as written)."""
    lines: list[str] = []
    hits: list[Relaxed] = []
    inside = lambda sub: not sub.startswith(("/", "../")) and ctx.exists(sub)  # noqa: E731
    for entry in requirement_lines(path, ctx.read, follow=inside):
        if entry.include is not None:
            if not entry.followed:
                lines.append(entry.line)
            continue
        item = _relax_line(entry.line, relaxed)
        if item is not None:
            lines.append(f"{item.name}=={item.series}.*")
            hits.append(item)
        elif entry.line:
            lines.append(entry.line)
    return lines, hits


def _relax_line(line: str, relaxed: dict[str, Relaxed]) -> Relaxed | None:
    if not line or line.startswith("-"):
        return None
    try:
        req = Requirement(line)
    except InvalidRequirement:
        return None
    return relaxed.get(normalize(req.name)) if not req.url else None
