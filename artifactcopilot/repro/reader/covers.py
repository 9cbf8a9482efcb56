"""How the flow links paths and commands: whether a written path (or pattern) covers a read one, and whether a
command passes a program the parameters of a computation rather than a selector."""
from __future__ import annotations

import re
from fnmatch import fnmatch

from .paths import same_file, under

_SELECTORS = re.compile(r"^(--?(table|tab|fig|figure|t|f|exp|experiment|id|name|q|quiet|v|verbose)(=\S*)?|\d+|"
                        r"(table|tab|fig|figure)[-_]?\w*|[<>|&;]|\d?>&?\d?|/dev/null)$", re.IGNORECASE)


# Options that configure a computation (which model, data set, how many epochs, seeds, trials, how long): a program
# given them runs the experiment, whatever its name says (`analyze.py --model m --benchmark b`).
_EXPERIMENT_OPTS = re.compile(r"^--?(model|models|llm|dataset|datasets|benchmark|benchmarks|epochs?|seeds?|iterations?|"
                              r"iters|trials|repeats?|repetitions|timeout|time[-_]?limit|budget|n[-_]?samples|"
                              r"batch[-_]?size|lr|learning[-_]?rate|temperature|gpus?|device|threads|workers)(=.*)?$",
                              re.IGNORECASE)


def experiment_options(text: str, program: str) -> list[str]:
    """The options of `text` after `program` that configure a computation."""
    words = text.split()
    base = program.split()[0].rsplit("/", 1)[-1] if program.strip() else program
    tail = next((words[i + 1:] for i, w in enumerate(words) if w.rsplit("/", 1)[-1] == base), [])
    return [w.split("=", 1)[0] for w in tail if _EXPERIMENT_OPTS.match(w)]


def parameters(text: str, program: str) -> bool:
    """The command passes the program parameters of a computation (`--epochs 3 --dataset x`), not just a selector."""
    words = re.sub(r"\d?(>>?|<)\s*\S+", " ", text).split()  # redirections are not parameters
    base = program.split()[0].rsplit("/", 1)[-1] if program.strip() else program
    if base in ("make", "gmake", "just", "rake", "invoke", "inv"):
        return False  # targets name parts of a pipeline, not parameters of a computation
    tail = next((words[i + 1:] for i, w in enumerate(words) if w.rsplit("/", 1)[-1] == base), [])
    return any(not _SELECTORS.match(w) for w in tail)


def _folder(pattern: str) -> str:
    return pattern.split("*")[0].split("?")[0].rsplit("/", 1)[0]


def covers(written: str, path: str) -> bool:
    if not written:
        return False
    if same_file(written, path) or under(path, written):
        return True
    if any(ch in written for ch in "*?["):
        if fnmatch(path, written) or fnmatch(path, written + "/*"):
            return True
        if any(ch in path for ch in "*?["):  # two patterns: the same folder and the same kind of file
            return _folder(written) == _folder(path) and written.rsplit(".", 1)[-1] == path.rsplit(".", 1)[-1]
        return False
    if any(ch in path for ch in "*?["):
        prefix = path.split("*")[0].rstrip("/")
        return bool(prefix) and (under(written, prefix) or under(prefix, written) or fnmatch(written, path))
    return False
