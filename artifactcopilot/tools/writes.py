"""Who changed a file: the review, or the artifact's own program when it ran.

An intervention is what the review does to the artifact (edits, fixes, choices), never what the artifact's
documented command does when it runs: a dynamic-analysis tool that instruments its inputs in place, a build that
regenerates a source file, a script that rewrites its own configuration. So a change to a pre-existing file is the
artifact's doing when the command runs the artifact's own program — a file of the artifact (`python3 tool.py`,
`./run.sh`) or a program a documented command runs (`dynapyt`, an installed console script) — and nothing in the
command the review wrote edits files itself. It is the review's when the command does the editing: an in-place
editor (`sed -i`, `perl -pi`, `patch`, `2to3 -w`, a formatter), a copy or move onto files (`cp`, `mv`, `rsync`,
`install`, `ln`), `git apply|checkout|restore`, inline code (`python -c`, a here-document), a redirection (`>`,
`>>`, `tee`) into the file — or when the command runs no program of the artifact at all.
"""
from __future__ import annotations

import posixpath
import re
from pathlib import Path

from .. import shell as sh

INTERPRETERS = re.compile(r"^(?:python[\d.]*|pypy[\d.]*|bash|sh|zsh|dash|Rscript|R|node|julia|perl|ruby|java|"
                          r"octave|matlab|php|lua|tclsh)$")
EDITORS = frozenset({"sed", "perl", "patch", "cp", "mv", "rsync", "install", "ln", "dd", "truncate", "tee", "2to3",
                     "black", "autopep8", "yapf", "isort", "ruff", "clang-format", "gofmt", "prettier", "ed", "ex",
                     "awk", "gawk", "sponge", "touch", "chmod", "rm", "unlink"})
IN_PLACE = re.compile(r"(?:^|\s)-[a-zA-Z]*i\b|--in-place\b|(?:^|\s)-w\b|--write\b|--fix\b")
GIT_EDITS = frozenset({"apply", "checkout", "restore", "am", "reset", "stash", "merge", "cherry-pick", "mv", "rm"})
HARMLESS = frozenset({"cd", "pushd", "popd", "export", "set", "unset", "source", ".", "true", ":", "echo", "printf",
                      "mkdir", "env", "timeout", "time", "nice", "ulimit", "sleep", "wait", "exit", "test", "[",
                      "ls", "cat", "head", "tail", "wc", "grep", "which", "command", "hash"})


def _program(words: list[str]) -> tuple[str, list[str]]:
    """(program, its arguments) of one simple command, past assignments, wrappers and runner prefixes."""
    argv = sh.program_words(words)
    return (argv[0], argv[1:]) if argv else ("", [])


def _program_file(program: str, args: list[str]) -> str:
    """The file a command runs: the script an interpreter is given (`python3 -u tool.py`), else the program."""
    if INTERPRETERS.match(posixpath.basename(program)):
        for n, word in enumerate(args):
            if word in ("-m", "-c", "-e"):
                return "" if word != "-m" or n + 1 >= len(args) else args[n + 1].split(".")[0]
            if not word.startswith("-"):
                return word
        return ""
    return program


def _edits(program: str, args: list[str], redirects: list[tuple[str, str]], heredoc: str | None) -> bool:
    """Whether one simple command edits files itself (see the module's docstring)."""
    name = posixpath.basename(program)
    if any(op in (">", ">>", ">|", "&>", "1>", "2>") and target not in ("/dev/null", "/dev/stderr", "/dev/stdout")
           for op, target in redirects):
        return True
    if name in ("sed", "perl", "ruby"):
        return bool(IN_PLACE.search(" ".join(args)))
    if name in EDITORS:
        return True
    if name == "git":
        return bool(args) and args[0] in GIT_EDITS
    if INTERPRETERS.match(name) and ("-c" in args or "-e" in args or heredoc is not None or "-" in args):
        return True
    return bool(IN_PLACE.search(" ".join(args))) and name in ("black", "isort", "ruff", "autopep8", "yapf")


def _documented(commands: set[str]) -> tuple[set[tuple[str, ...]], set[str]]:
    """(the simple commands of the documented commands, word for word; the programs they run, by file name)."""
    simple: set[tuple[str, ...]] = set()
    programs: set[str] = set()
    for command in commands:
        try:
            found = sh.simple_commands(command)
        except (ValueError, RecursionError):
            continue
        for one in found:
            simple.add(tuple(one.words))
            program, args = _program(one.words)
            target = posixpath.basename(_program_file(program, args)) if program else ""
            if target and target not in HARMLESS and not INTERPRETERS.match(target):
                programs.add(target)
    return simple, programs


def artifact_wrote(script: str, root: Path | None, cwd: str, documented: set[str]) -> bool:
    """Whether the changes a command made to the artifact's files are the artifact's own doing: it runs the
    artifact's program and edits nothing itself beyond what a documented command does (the module's docstring)."""
    try:
        commands = sh.simple_commands(script)
    except (ValueError, RecursionError):
        return False
    same, known = _documented(documented)
    here = (root / (cwd or ".")).resolve() if root is not None else None
    runs_own = False
    for simple in commands:
        program, args = _program(simple.words)
        if not program:
            continue
        if tuple(simple.words) in same:  # word for word a step of a documented command: the artifact's doing
            runs_own = runs_own or posixpath.basename(program) not in HARMLESS
            continue
        if _edits(program, args, simple.redirects, simple.heredoc):
            return False
        if program == "cd" and here is not None:  # later programs are found from where the command went
            here = (here / args[0]).resolve() if args and not args[0].startswith(("~", "$", "-")) else here
            continue
        if posixpath.basename(program) in HARMLESS:
            continue
        target = _program_file(program, args)
        path = (here / target).resolve() if here is not None and target else None
        own_file = path is not None and root is not None and path.is_file() and root.resolve() in path.parents
        runs_own = runs_own or own_file or posixpath.basename(target or program) in known
    return runs_own
