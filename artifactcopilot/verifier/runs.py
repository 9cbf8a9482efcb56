"""What a command log shows: whether a run executed the artifact's own code, or only displayed text.

A claim that the workflow ran, matched or transferred stands only on a run that
1. the review came to through the documentation: invocation `documented`, or a logged `fix` of a
   documented command (never a `probe` or an `undocumented` command);
2. exited 0 within its time limit, with output that shows the work was done (sandbox/outcome.py: no traceback,
   no missing program, no failure for most items, no empty/NaN/all-zero result files, not only a usage text);
3. ran a program of the artifact — not only shell builtins and coreutils (`echo`, `printf`, `true`,
   `cat FILE`), nor an interpreter given inline code that uses nothing of the artifact
   (`python -c "print(...)"`), nor a package manager;
4. showed more than it was given: output contained in the command text, or whose every number is
   in the command text, is display, not a run (unless the run also wrote files).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cached_property

from ..evidence import EvidenceStore
from ..models import Evidence
from ..sandbox.commandlog import CommandLog, parse_log
from ..sandbox.outcome import RunOutcome, judge
from ..shell import ENV_MANAGERS as RUNNERS
from ..shell import NO_PROGRAM, program_words, simple_commands

GROUNDING_INVOCATIONS = ("documented", "fix")
# fmt: off
SHELL_ONLY = frozenset({
    "echo", "printf", "true", "false", ":", "cat", "tac", "head", "tail", "ls", "pwd", "cd", "pushd", "popd", "test",
    "[", "[[", "export", "set", "unset", "alias", "read", "sleep", "yes", "seq", "wc", "sort", "uniq", "cut", "paste",
    "tr", "tee", "touch", "mkdir", "rmdir", "rm", "cp", "mv", "ln", "chmod", "chown", "date", "whoami", "id",
    "hostname", "uname", "sed", "awk", "gawk", "grep", "egrep", "fgrep", "find", "xargs", "basename", "dirname",
    "realpath", "readlink", "stat", "du", "df", "tree", "diff", "cmp", "md5sum", "sha1sum", "sha256sum", "base64",
    "od", "xxd", "hexdump", "column", "fmt", "fold", "nl", "rev", "shuf", "expr", "bc", "dc", "exit", "return",
    "shift", "eval", "trap", "wait", "jobs", "type", "which", "whereis", "hash", "ulimit", "umask", "history",
    "clear", "less", "more", "file", "printenv", "dd", "split", "csplit", "join", "comm", "tsort", "truncate", "sync",
    "mktemp", "install", "getconf", "nproc", "free", "uptime", "ps", "kill",
})
"""Shell builtins and coreutils: a command made only of these runs none of the artifact's code."""
SETUP = frozenset({
    "pip", "pip3", "pipx", "conda", "mamba", "micromamba", "virtualenv", "venv", "apt", "apt-get", "yum", "dnf",
    "brew", "git", "wget", "curl", "gdown", "tar", "unzip", "gunzip", "bunzip2", "xz", "unxz", "7z", "unrar", "zstd",
    "gzip", "rsync", "scp", "ensurepip",
})
"""Package managers, downloaders and archivers: they prepare, they run nothing of the artifact."""
INTERPRETERS = frozenset({
    "python", "python2", "python3", "pypy", "pypy3", "bash", "sh", "zsh", "dash", "ksh", "source", ".", "Rscript",
    "R", "julia", "node", "perl", "ruby", "php", "lua", "octave", "matlab", "java", "jupyter", "ipython", "papermill",
    "mpirun", "mpiexec", "srun", "torchrun", "deepspeed", "accelerate", "nbconvert",
})
"""Programs that run the artifact's code only when given one of its files or modules."""
SETUP_VERBS = frozenset({"install", "ci", "add", "sync", "lock", "fetch", "download", "get", "update", "upgrade",
                         "init", "venv", "pip", "env", "create", "activate", "config", "restore", "clone"})
"""A first argument that makes any program (npm, cargo, go, dotnet, ...) a setup step."""
INLINE = frozenset({"-c", "-e", "--eval", "-command", "-r", "--execute-string"})
VERSION_ONLY = frozenset({"--version", "-V", "-v", "version", "--help", "-h", "help"})
SCRIPT_EXT = (".py", ".sh", ".bash", ".r", ".jl", ".pl", ".rb", ".js", ".ipynb", ".m", ".lua", ".php", ".jar")
# fmt: on
NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?!\d)")
IMPORT = re.compile(r"\b(?:import|from|library|require|using)\s*\(?\s*['\"]?([A-Za-z_][\w.]*)")
QUOTED = re.compile(r"['\"]([^'\"\s]+)['\"]")


class ArtifactFiles:
    """The artifact's file and folder names, for telling its own programs from the system's."""

    def __init__(self, files: list[str]):
        self.files = {f.strip("/") for f in files}
        self.dirs = {str(p) for f in self.files for p in _parents(f)}

    def names_path(self, word: str) -> bool:
        if word == "{}":  # the file `find -exec` / `xargs -I{}` found in the artifact
            return True
        if word.startswith("-") and "=" in word:
            word = word.split("=", 1)[1]
        word = word.strip().removeprefix("./").rstrip("/")
        if not word or word.startswith(("-", "$", "/")) or word in (".", ".."):
            return False
        return (
            word in self.files
            or word in self.dirs
            or any(f.endswith("/" + word) for f in self.files)
            or any(d.endswith("/" + word) for d in self.dirs)
        )

    def has_module(self, module: str) -> bool:
        path = module.replace(".", "/")
        return any(self.names_path(p) for p in (f"{path}.py", f"{path}/__init__.py", f"{path}/__main__.py"))

    def names_top(self, name: str) -> bool:
        """An importable name of the artifact: a module file or a folder of that name anywhere in it."""
        top = name.split(".")[0]
        return any(f.rsplit("/", 1)[-1].split(".")[0] == top for f in self.files) or any(
            d.rsplit("/", 1)[-1] == top for d in self.dirs
        )


def _parents(path: str) -> list[str]:
    parts = path.split("/")[:-1]
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def runs_artifact_code(script: str, files: ArtifactFiles) -> bool:
    """Whether some simple command of `script` runs a program of the artifact."""
    return any(_runs_code(program_words(words), files) for words in _command_words(script))


def _command_words(script: str) -> list[list[str]]:
    """The words of each simple command of a run's script (loops, conditionals and substitutions looked into)."""
    return [simple.words for simple in simple_commands(script)]


def _runs_code(words: list[str], files: ArtifactFiles) -> bool:
    if not words or words[0] in NO_PROGRAM:
        return False
    program, args = words[0], words[1:]
    if "/" in program:
        if files.names_path(program):
            return True
        program = program.rsplit("/", 1)[-1]
    if program in ("find", "xargs"):  # the command they run is what counts
        return _runs_code(program_words(_inner_command(program, args)), files)
    if program in SHELL_ONLY or program in SETUP or program in RUNNERS or (args and args[0] in SETUP_VERBS):
        return False
    if program in INTERPRETERS or re.fullmatch(r"python\d(\.\d+)?", program):
        return _interpreter_runs_code(program, args, files)
    return not args or not set(args) <= VERSION_ONLY  # a build tool, a console script or another program


def _inner_command(program: str, args: list[str]) -> list[str]:
    if program == "find":
        start = next((i + 1 for i, a in enumerate(args) if a in ("-exec", "-execdir", "-ok")), len(args))
        end = next((i for i in range(start, len(args)) if args[i] in (";", "+", "\\;")), len(args))
        return args[start:end]
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in ("-I", "-n", "-P", "-L", "-d", "-E", "-s") else 1
    return args[i:]


def _interpreter_runs_code(program: str, args: list[str], files: ArtifactFiles) -> bool:
    for i, arg in enumerate(args):
        if arg in INLINE and i + 1 < len(args):
            code = args[i + 1]
            if program in ("bash", "sh", "zsh", "dash", "ksh"):
                return runs_artifact_code(code, files)
            return any(files.names_top(m) for m in IMPORT.findall(code)) or any(
                q.lower().endswith(SCRIPT_EXT) and files.names_path(q) for q in QUOTED.findall(code)
            )
        if arg == "-m" and i + 1 < len(args):
            module = args[i + 1]
            return files.has_module(module) or module.split(".")[0] in ("pytest", "unittest", "nose", "nose2")
        if not arg.startswith("-") and files.names_path(arg):
            return True
    return False


def is_display(stdout: str, script: str, wrote_files: bool) -> bool:
    """Output that only repeats the command's own text (or only its numbers), from a run that wrote nothing."""
    out = stdout.strip()
    if not out or wrote_files:
        return False
    flat = " ".join(script.split())
    lines = [" ".join(line.split()) for line in out.splitlines() if line.strip()]
    if all(line in flat for line in lines):
        return True
    numbers = NUMBER.findall(out)
    return bool(numbers) and set(numbers) <= set(NUMBER.findall(script))


@dataclass
class RunView:
    """One run's log, read for grounding."""

    evidence: Evidence
    log: CommandLog
    script: str
    """The whole command as run (every line of it)."""
    files: ArtifactFiles = field(repr=False)

    @property
    def ok(self) -> bool:
        return self.log.ok

    @property
    def outputs(self) -> set[str]:
        return set(self.log.created) | set(self.log.modified)

    @cached_property
    def outcome(self) -> RunOutcome:
        """The judgement the log records (made with the files the run wrote), else one from its output alone."""
        recorded = RunOutcome.from_header(self.log.outcome) if self.log.outcome else None
        return recorded or judge(self.log.exit_code, self.log.timed_out, self.log.stdout, self.log.stderr,
                                 wrote=bool(self.outputs))

    @cached_property
    def artifact_code(self) -> bool:
        return runs_artifact_code(self.script, self.files)

    @cached_property
    def display(self) -> bool:
        return is_display(self.log.stdout, self.script, bool(self.outputs))

    @property
    def ran_program(self) -> bool:
        """Exit 0 from some program beyond shell builtins (what a probe of the environment needs)."""
        return self.ok and self.outcome.valid and any(
            program_words(w) and program_words(w)[0] not in SHELL_ONLY for w in _command_words(self.script)
        )

    @cached_property
    def grounds(self) -> bool:
        """A run that can back a claim that the workflow ran, matched or transferred."""
        return (self.ok and self.outcome.valid and self.log.invocation in GROUNDING_INVOCATIONS and self.artifact_code
                and not self.display)

    def why_not(self) -> str:
        if not self.ok:
            return "it did not exit 0"
        if not self.outcome.valid:
            return f"its output shows the work was not done ({'; '.join(self.outcome.reasons[:2])})"
        if self.log.invocation not in GROUNDING_INVOCATIONS:
            return f"it was {'a probe' if self.log.invocation == 'probe' else 'not a documented command'}"
        if not self.artifact_code:
            return "it ran none of the artifact's own code"
        return "its output only repeats the command's text" if self.display else ""


def artifact_files(store: EvidenceStore) -> ArtifactFiles:
    """The acquired artifact's files, as the gate's acquisition log lists them."""
    for ev in store.all():
        if ev.kind == "acquisition":
            try:
                data = json.loads(store.read(ev.id))
            except (json.JSONDecodeError, OSError, ValueError):
                continue
            if isinstance(data, dict) and isinstance(data.get("files"), list):
                return ArtifactFiles([str(f) for f in data["files"]])
    return ArtifactFiles([])


def run_view(store: EvidenceStore, ev: Evidence, files: ArtifactFiles) -> RunView:
    try:
        text = store.read(ev.id)
    except (OSError, ValueError):
        text = ""
    log = parse_log(text)
    head = text.partition("\n# cwd: ")[0]  # the whole script: the log's header holds every line of it
    script = head[2:] if head.startswith("$ ") else log.script
    return RunView(ev, log, script, files)
