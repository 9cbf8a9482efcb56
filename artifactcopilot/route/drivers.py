"""What a documented command runs beyond its own text: the artifact's scripts a shell driver calls (so that a
`run_all.sh` costs what its experiments cost and covers their paper objects), and the hosts it or its script fetch
from at run time (a command that clones projects from GitHub is not an offline route). Pure."""
from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from ..discovery import Step
from ..discovery.cwd import primary_file
from ..shell import ShellSyntaxError, simple_commands

Reader = Callable[[str], "str | None"]
INTERPRETERS = re.compile(r"^(python[\d.]*|bash|sh|zsh|Rscript|julia|octave|octave-cli|perl|node|source|\.)$")
SCRIPT = re.compile(r"\.(py|sh|bash|R|r|jl|m|pl|js|ipynb)$")
FETCH = re.compile(r"\b(git\W{1,6}clone|git\W{1,6}submodule|wget|curl|gdown|urlretrieve|urlopen|requests\.get|"
                   r"hf_hub_download|snapshot_download|load_dataset|download)\b", re.I)
URL_HOST = re.compile(r"\b(?:https?|ftp|git)://(?:[^@/\s'\"]+@)?([\w.\-]+)", re.I)
REGISTRIES = ("pypi.org", "files.pythonhosted.org", "pythonhosted.org", "deb.debian.org", "security.debian.org",
              "registry.npmjs.org", "npmjs.org", "localhost", "127.0.0.1")
MAX_SCRIPT_BYTES = 200_000
MAX_RUNS = 40


def driver_runs(step: Step, read: Reader, files: frozenset[str] = frozenset()) -> list[str]:
    """The artifact scripts a shell driver the step runs calls (artifact paths, in the driver's order): `python
    fig_2.py`, `bash sub.sh`, `./x.py`, and the files a `for f in *.py` loop goes over."""
    script = primary_file(step.inner)
    if not script or not script.endswith((".sh", ".bash")) or "$" in script:
        return []
    path = posixpath.normpath(posixpath.join(step.cwd, script.removeprefix("./")))
    text = read(path)
    if not text:
        return []
    folder = posixpath.dirname(path) or "."
    try:
        commands = simple_commands(text[:MAX_SCRIPT_BYTES])
    except (ShellSyntaxError, RecursionError, ValueError):
        return []
    out: list[str] = []
    for cmd in commands:
        argv = cmd.argv
        if not argv:
            continue
        if argv[0] in ("cd", "pushd") and len(argv) > 1 and "$" not in argv[1]:
            folder = posixpath.normpath(posixpath.join(folder, argv[1]))
            continue
        target = argv[1] if INTERPRETERS.match(argv[0]) and len(argv) > 1 else argv[0]
        if "$" in target or "*" in target:
            out += [f for f in _glob(folder, target, text, files) if SCRIPT.search(f)]
        elif SCRIPT.search(target):
            out.append(posixpath.normpath(posixpath.join(folder, target.removeprefix("./"))))
    return [p for p in dict.fromkeys(out) if p != path][:MAX_RUNS]


def _glob(folder: str, target: str, text: str, files: frozenset[str]) -> list[str]:
    """The files a loop variable or a glob stands for: `for f in *.py; do python $f` over the driver's folder."""
    patterns = re.findall(r"\bfor\s+\w+\s+in\s+([^;\n]+)", text) if "$" in target else [target]
    out = []
    for pattern in patterns:
        for word in pattern.split():
            if "*" not in word and "?" not in word:
                continue
            rx = re.compile("^" + re.escape(posixpath.normpath(posixpath.join(folder, word)))
                            .replace(r"\*", "[^/]*").replace(r"\?", "[^/]") + "$")
            out += sorted(f for f in files if rx.match(f))
    return out


def hosts_of(step: Step, read: Reader) -> list[str]:
    """Hosts beyond the package registries that the command, or the script it runs, fetches from."""
    texts = [step.inner]
    script = primary_file(step.inner)
    if script and SCRIPT.search(script) and "$" not in script and not script.endswith(".ipynb"):
        texts.append(read(posixpath.normpath(posixpath.join(step.cwd, script.removeprefix("./")))) or "")
    hosts: list[str] = []
    for text in texts:
        for line in text[:MAX_SCRIPT_BYTES].splitlines():
            if line.lstrip().startswith("#") or not FETCH.search(line):
                continue
            hosts += [h.lower() for h in URL_HOST.findall(line)]
    return [h for h in dict.fromkeys(hosts) if not any(h == r or h.endswith("." + r) for r in REGISTRIES)]
