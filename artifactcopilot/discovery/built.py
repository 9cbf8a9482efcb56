"""Programs the documented build makes, and the folder a documented example must run them from.

A C/C++ artifact's binary is not in the repository: `make` (a Makefile target linked with `-o`), CMake
(`add_executable` in the folder the docs run `cmake` from, `build/` by default) or a documented compiler line
(`g++ … -o tool`) makes it. An example that runs `./tool` from another folder is run the way a reviewer does: in
the build folder, unchanged, when its arguments name files seen from there (an examples/ README written "for the
directory where tool resides"); else from the documented folder with the binary called by its path (the repository
root with the binary built in build/: a path fix).
"""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from ..shell import words
from .cwd import primary_file
from .model import MakeTarget, Step
from .view import ArtifactView, FileIndex, join, norm, safe_read

COMPILER = re.compile(r"^(gcc|g\+\+|cc|c\+\+|clang|clang\+\+|nvcc|gfortran|icc|icpx|rustc|go build)\b")
NOT_PROGRAM = re.compile(r"\.(o|a|so|obj|d|dylib|dll|lib|pdf|txt|csv|log|h|hpp|c|cc|cpp)$", re.IGNORECASE)
ADD_EXECUTABLE = re.compile(r"add_executable\s*\(\s*([A-Za-z_][\w\-.]*)", re.IGNORECASE)


@dataclass
class Built:
    path: str
    """Where the build puts the program, relative to the artifact root."""
    how: str
    """The build step that makes it ("`make` (Makefile)", "CMake (CMakeLists.txt)", "`g++ … -o tool` (README.md:9)")."""


def built_programs(view: ArtifactView, index: FileIndex, targets: list[MakeTarget], steps: list[Step]) -> list[Built]:
    """Programs the documented build makes and that the repository does not hold."""
    out: list[Built] = []
    for target in targets:
        if target.phony or "$" in target.name or " " in target.name or NOT_PROGRAM.search(target.name):
            continue
        if any(re.search(r"(^|\s)-o\s*\S", ln) for ln in target.recipe):
            folder = posixpath.dirname(target.path) or "."
            out.append(Built(join(folder, target.name), f"`make` ({target.path}:{target.line})"))
    cmake_dirs = [_cmake_build_dir(s) for s in steps if re.match(r"^cmake\b", s.inner)]
    for path in [f for f in index.files if posixpath.basename(f) == "CMakeLists.txt" and f.count("/") <= 1]:
        for name in ADD_EXECUTABLE.findall(safe_read(view, path, 500_000) or ""):
            for folder in dict.fromkeys([d for d in cmake_dirs if d] or ["build"]):
                out.append(Built(join(folder, name), f"CMake ({path}, built in {folder}/)"))
    for step in steps:
        if COMPILER.match(step.inner):
            parts = words(step.inner)
            if "-o" in parts[:-1]:
                out.append(Built(join(step.cwd, parts[parts.index("-o") + 1]), f"`{step.cmd[:60]}` ({step.source})"))
    return [b for b in out if not index.exists(b.path)]


def _cmake_build_dir(step: Step) -> str | None:
    parts = words(step.inner)
    if "-B" in parts[:-1]:
        return join(step.cwd, parts[parts.index("-B") + 1])
    return step.cwd if any(p in ("..", "../") for p in parts[1:]) else None


def relocate_built(steps: list[Step], index: FileIndex, built: list[Built]) -> None:
    """Steps that run a built program from a folder it is not built in: the program is called by where the build
    puts it, from the folder its relative arguments are written for (the build folder when they name files there,
    as an example written for the build folder does; else the documented folder)."""
    for step in steps:
        path = primary_file(step.inner)
        missing = f"{path} is not in the artifact"
        if not path or missing not in step.notes:
            continue
        rel = norm(path.removeprefix("./"))
        hits = [b for b in built if b.path == rel or b.path.endswith("/" + rel)]
        if not hits:
            continue
        made = next((b for b in hits if b.path == join(step.cwd, rel)), hits[0])
        folder = made.path[: len(made.path) - len(rel)].rstrip("/") or "."
        notes = [n for n in step.notes if n != missing]
        notes.append(f"{made.path} is made by the documented build, {made.how}")
        if folder != step.cwd:
            if _args_found(step, index, folder) > _args_found(step, index, step.cwd):
                # written for the build folder ("where the binary resides"): the documented command, run there
                notes.append(f"{path} is built in {folder}/ and the command's arguments name files seen from there: "
                             f"run in {folder}/")
                step.cwd = folder
            else:  # the documented folder, with the binary called by its path (a path fix)
                notes.append(f"{path} is not in {step.cwd}/; found at {made.path}: runs from {step.cwd}/")
        step.notes = notes


def _args_found(step: Step, index: FileIndex, folder: str) -> int:
    """How many of the command's relative path arguments name artifact files or folders seen from `folder`."""
    args = [w.split("=", 1)[-1] for w in words(step.inner)[1:]]
    return sum(1 for a in args if "/" in a and not a.startswith(("/", "~", "-")) and "$" not in a
               and index.exists(join(folder, a)))
