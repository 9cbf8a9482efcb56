"""Where a documented command runs: `cd` targets resolved against the artifact, and the folder of the script a
command names when the documented folder does not hold it.
"""
from __future__ import annotations

import posixpath
import re

from ..shell import split_env, split_runner, words
from .view import FileIndex, join, norm

CD = re.compile(r"^\s*(?:cd|pushd)\s+(\"[^\"]+\"|'[^']+'|\S+)\s*$")
CD_AND = re.compile(r"^\s*cd\s+(\"[^\"]+\"|'[^']+'|\S+)\s*&&\s*(.+)$")
AND_CD = re.compile(r"^\s*(.+?)\s*&&\s*cd\s+(\"[^\"]+\"|'[^']+'|[^\s;&|]+)\s*$")
CLONE = re.compile(r"^\s*git\s+clone\s+(?:-\S+\s+)*(\S+?)(?:\.git)?/?(?:\s+(\S+))?\s*$")


def resolve_dir(index: FileIndex, cwd: str, target: str, doc_dir: str = ".",
                clones: tuple[str, ...] = ()) -> tuple[str, str | None]:
    """The folder `cd target` leads to from cwd, and a note when it is not an artifact folder."""
    raw = target.strip().strip("'\"")
    if raw in ("", "~", "-", "$HOME", "/"):
        return cwd, None
    stripped = raw.lstrip("/") if raw.startswith("/") else raw
    candidates = [join(cwd, stripped), norm(stripped), join(doc_dir, stripped)]
    for candidate in candidates:
        if index.is_dir(candidate):
            return candidate, None
    if posixpath.basename(norm(raw)) in clones:
        return ".", f"`cd {raw}` enters the freshly cloned artifact: taken as the artifact root"
    documented = norm(raw) if raw.startswith(("/", "~")) else join(cwd, stripped)
    return documented, f"`cd {raw}`: folder {documented!r} is not in the artifact"


def clone_dir(line: str) -> str | None:
    match = CLONE.match(line)
    if not match:
        return None
    return match.group(2) or posixpath.basename(match.group(1).rstrip("/"))


SCRIPT_RUNNERS = re.compile(r"^(python[\d.]*|bash|sh|zsh|Rscript|julia|perl|ruby|node|source|\.)$")


def primary_file(inner: str) -> str | None:
    """The file a command mainly reads: the script it runs or the requirements/environment file it installs."""
    _, rest = split_env(inner)
    _, rest = split_runner(rest)
    parts = words(rest)
    if not parts:
        return None
    first = parts[0]
    if first.startswith(("./", "../")) or re.search(r"\.(py|sh|bash|R|jl|pl|rb)$", first) and "=" not in first:
        return first
    if SCRIPT_RUNNERS.match(first):
        for part in parts[1:]:
            if part == "-m" or part == "-c":
                return None
            if not part.startswith("-"):
                return part
        return None
    for flag in ("-r", "--requirement", "-f", "--file", "--environment-file"):
        if flag in parts[1:-1] and first in ("pip", "pip3", "conda", "mamba", "micromamba", "uv") or \
                flag in parts[1:-1] and re.match(r"python[\d.]*$", first):
            return parts[parts.index(flag, 1) + 1]
    if first == "jupyter" and parts[1:2] in (["nbconvert"], ["execute"]):
        return next((p for p in parts[2:] if p.endswith(".ipynb")), None)
    return None


def locate(index: FileIndex, cwd: str, inner: str) -> tuple[str, str | None]:
    """cwd adjusted so that the command's primary file exists, and a note when it had to move."""
    path = primary_file(inner)
    if not path or "$" in path or "<" in path or path.startswith(("/", "~")):
        return cwd, None
    rel = path.removeprefix("./")
    if index.is_file(join(cwd, rel)) or index.is_dir(join(cwd, rel)):
        return cwd, None
    if cwd != "." and index.is_file(norm(rel)):
        return ".", f"{path} is not in {cwd}/ but at the artifact root: runs from the root"
    hits = [h for h in index.named(posixpath.basename(rel)) if h.endswith(norm(rel))]
    if len(hits) == 1:
        found_dir = hits[0][: len(hits[0]) - len(norm(rel))].rstrip("/") or "."
        return found_dir, f"{path} is not in {cwd}/; found at {hits[0]}: runs from {found_dir}/"
    if hits:
        return cwd, f"{path} is not in {cwd}/; several candidates ({', '.join(hits[:3])})"
    return cwd, f"{path} is not in the artifact"


ENTERS_ARG = re.compile(r"^\s*(?:cd|pushd)\s+[\"']?\$\{?(\d)\}?[\"']?/?\s*(?:$|[;&|])", re.MULTILINE)


def argument_folder(index: FileIndex, cwd: str, inner: str, read) -> tuple[str, str, str] | None:
    """A shell script the command runs that enters one of its arguments as a folder (`cd $1/`) where that folder is
    not under the documented folder but exists in exactly one other place: (the command with the script's path
    from there, that folder, a note). None otherwise."""
    parts = words(inner)
    script = primary_file(inner)
    if not script or not script.endswith((".sh", ".bash")) or script not in parts:
        return None
    text = read(join(cwd, script.removeprefix("./"))) or ""
    match = ENTERS_ARG.search(text[:200_000])
    if match is None:
        return None
    position = parts.index(script) + int(match.group(1))
    if position >= len(parts) or parts[position].startswith("-") or "$" in parts[position]:
        return None
    arg = parts[position].strip("/")
    if index.is_dir(join(cwd, arg)):
        return None
    hits = [d for d in index.dirs if d.endswith("/" + arg) and d != arg]
    if len(hits) != 1:
        return None
    folder = hits[0][: -len(arg) - 1]
    moved = posixpath.relpath(join(cwd, script.removeprefix("./")), folder)
    new = inner.replace(script, moved, 1)
    return new, folder, (f"{script} enters its argument `{arg}` as a folder (`cd ${match.group(1)}`), which is only at "
                         f"{hits[0]}: runs from {folder}/")


REL_PATH = re.compile(r"""(?<![\w/.$-])((?:\.\./|\./)?[\w.\-]+(?:/[\w.\-]+)*/[\w.\-]+\.[A-Za-z][\w]{0,7})(?![\w/])""")
SCRIPT_EXT = (".sh", ".bash", ".py", ".R", ".r")


def resolving_folder(index: FileIndex, cwd: str, inner: str, read) -> tuple[str, str, str] | None:
    """A script whose own relative paths (the files it sources, runs or opens: `source ipp/constants.py`, `python
    ipp/steps/step_1.py`, `open("data/x.csv")`) resolve from another folder than the one the command runs in — the
    artifact root or the script's own folder — and not from there: (the command with the script's path from that
    folder, the folder, a note). None when they resolve where it runs, or nowhere better."""
    script = primary_file(inner)
    if not script or not script.endswith(SCRIPT_EXT) or "$" in script or script.startswith(("/", "~")):
        return None
    path = join(cwd, script.removeprefix("./"))
    text = (read(path) or "")[:200_000]
    used = [p for p in dict.fromkeys(REL_PATH.findall(text)) if not p.startswith("..")]
    if len(used) < 2:
        return None
    folders = list(dict.fromkeys([cwd, ".", posixpath.dirname(path) or "."]))
    score = {f: sum(index.exists(join(f, p)) for p in used) for f in folders}
    best = max(folders, key=lambda f: (score[f], f == cwd))
    if best == cwd or score[best] <= score[cwd] or score[best] * 2 < len(used):
        return None
    moved = posixpath.relpath(path, best)
    found = [p for p in used if index.exists(join(best, p))][:3]
    return inner.replace(script, moved, 1), best, (
        f"{script}'s own relative paths ({', '.join(found)}) resolve from {best}/, not from {cwd}/: runs from {best}/")
