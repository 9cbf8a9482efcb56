"""Documented files first: a requirement file the documentation names is what the review installs, and a retired
PyPI name in it is replaced by the distribution it stands for.

A README that says "install the packages in REQUIREMENTS.txt" names the artifact's dependency list, whatever else
it says (a conda command, an environment file exported with build strings). A committee member installs the file
the README names — in any case of its name — rather than translating a conda environment of 170 exact builds to
PyPI. A line such as `sklearn` (a retired name that refuses to install) is installed as `scikit-learn`: a logged
dependency choice (I1), the file itself unchanged.
"""
from __future__ import annotations

import posixpath
import re

from packaging.requirements import InvalidRequirement, Requirement

from .context import HEREDOC, Context, absorb_requirements, add, pip_script
from .model import WORK
from .reqlines import text_lines
from .requirements import REQ_FILE, excluded_reason
from .tables import renamed

MENTION = r"(?<![\w./-]){name}(?![\w-])"


def named_requirement_files(files: list[str], doc_texts: list[str]) -> list[str]:
    """Requirement files of the artifact the documentation names by file name (any case), in the order first named;
    a name shared by several files counts only when one of them is at the top or the path is given."""
    joined = "\n".join(t for t in doc_texts if isinstance(t, str))
    found: list[tuple[int, str]] = []
    for path in files:
        if not REQ_FILE.search(path) or excluded_reason(path):
            continue
        base = posixpath.basename(path)
        hits = [m.start() for pattern in (re.escape(path), re.escape(base))
                for m in re.finditer(MENTION.format(name=pattern), joined, re.IGNORECASE)]
        if not hits:
            continue
        same = [f for f in files if posixpath.basename(f).lower() == base.lower() and not excluded_reason(f)]
        if len(same) > 1 and "/" in path and not re.search(MENTION.format(name=re.escape(path)), joined, re.I):
            continue
        found.append((min(hits), path))
    return [p for _, p in sorted(found)]


def renames_in(ctx: Context, rel: str) -> list[tuple[str, str]]:
    """(retired name, distribution) for the lines of a requirement file that name a retired PyPI name."""
    out = []
    for item in text_lines(ctx.read(rel) or "", rel):
        try:
            name = Requirement(item.line).name if item.line and not item.line.startswith("-") else None
        except InvalidRequirement:
            continue
        if name and (new := renamed(name)):
            out.append((name, new))
    return out


def with_renames(ctx: Context, rel: str) -> tuple[str, str] | None:
    """(script that writes a copy of the requirement file with retired names replaced, the copy's path), or None
    when the file names none. Includes keep pointing at the artifact's own files."""
    renames = dict(renames_in(ctx, rel))
    if not renames:
        return None
    folder = posixpath.dirname(rel)
    lines = []
    for item in text_lines(ctx.read(rel) or "", rel):
        line = item.line
        if include := re.match(r"^(-r|--requirement|-c|--constraint)\s*=?\s*(\S+)", line):
            line = f"{include.group(1)} /artifact/{posixpath.normpath(posixpath.join(folder, include.group(2)))}"
        else:
            for old, new in renames.items():
                line = re.sub(rf"^{re.escape(old)}(?=$|[\s\[=<>!~;@])", new, line, flags=re.IGNORECASE)
        if line:
            lines.append(line)
    target = f"{WORK}/{re.sub(r'[^A-Za-z0-9]+', '-', rel).strip('-').lower()}-renamed.txt"
    body = "\n".join(lines)
    return f"mkdir -p {WORK} && cat > {target} <<'{HEREDOC}'\n{body}\n{HEREDOC}", target


def install_named(ctx: Context, rel: str, why: str) -> None:
    """Install a requirement file the documentation names (a dependency install the docs ask for in words)."""
    folder = posixpath.dirname(rel) or "."
    fixed = with_renames(ctx, rel)
    script = pip_script(["-r", posixpath.basename(rel)], folder)
    renames = ", ".join(f"{new} for {old}" for old, new in renames_in(ctx, rel))
    if fixed:
        script = f"{fixed[0]}\n{pip_script(['-r', fixed[1]], folder)}"
    add(ctx, script, f"install {rel}, the requirement file the documentation names ({why})"
        + (f"; uses the current PyPI names {renames}" if renames else ""), "pip", documented=True, action="install",
        source=rel)
    ctx.requirement_files.append(rel)
    absorb_requirements(ctx, rel)
    ctx.deps_installed = True
    ctx.dependency_source = ctx.dependency_source or rel


def prefer_named(ctx: Context, named: list[str]) -> None:
    """The requirement files the documentation names that the documented install did not use are installed; a conda
    environment translated to PyPI gives way to them (noted)."""
    missing = [p for p in named if p not in ctx.requirement_files and ctx.exists(p)]
    if not missing:
        return
    conda = [s for s in ctx.steps if s.kind == "lock" and s.purpose.startswith("conda environment")]
    for step in conda:
        ctx.steps.remove(step)
        ctx.note(f"{step.source or 'the conda environment'}: not translated to PyPI — the documentation names "
                 f"{', '.join(missing)}, which is installed instead ({step.purpose.split(' (')[0]})")
    for rel in missing:
        install_named(ctx, rel, "in place of the conda environment" if conda else
                      "the documented install steps do not install it")
