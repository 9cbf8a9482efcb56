"""Shell words: the one place command text is split into words (`shlex`), with the prefixes a command line carries
(inline variable assignments, wrappers such as `time`/`sudo`, environment-manager runners such as `uv run`).

Reads command text only; nothing is executed.
"""
from __future__ import annotations

import re
import shlex

# fmt: off
WRAPPERS = frozenset({
    "time", "nohup", "exec", "command", "builtin", "nice", "ionice", "stdbuf", "timeout", "env", "sudo", "xvfb-run",
    "taskset", "unbuffer", "npx",
})
ENV_MANAGERS = frozenset({"uv", "poetry", "pipenv", "pdm", "hatch", "pixi", "rye", "conda", "mamba", "micromamba"})
"""Environment managers: `<manager> run CMD` runs CMD; any other use of them prepares the environment."""
VALUE_OPTIONS = frozenset({"-n", "--name", "-p", "--prefix", "--with", "--python", "--extra", "--group", "--project",
                           "--directory", "--env-file", "-u"})
KEYWORDS = frozenset({"if", "then", "else", "elif", "while", "until", "do", "!", "{"})
NO_PROGRAM = frozenset({"for", "select", "case", "function", "fi", "done", "esac", "}", ")", ";;"})
ENV_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_ASSIGN_PREFIX = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=((?:\"[^\"]*\"|'[^']*'|\S)*)\s+(?=\S)")
_RUNNER_PREFIXES = (
    ("uv", r"^uv\s+run(\s+--?[\w-]+(?:[ =](?!python\b)[^\s-]\S*)?)*\s+"),
    ("poetry", r"^poetry\s+run\s+"),
    ("pipenv", r"^pipenv\s+run\s+"),
    ("conda", (r"^(?:conda|mamba|micromamba)\s+run\s+(?:(?:-n|--name|-p|--prefix)\s+\S+\s+|--no-capture-output\s+|"
               r"--live-stream\s+)*")),
    ("sudo", r"^sudo(\s+-[EHiSk]+|\s+-u\s+\S+)*\s+"),
)
# fmt: on
OPERATORS = "();<>|&\n"


def split(text: str) -> list[str]:
    """The words of command text as the shell reads them (quotes removed); ValueError when the quoting is broken."""
    return shlex.split(text)


def words(text: str) -> list[str]:
    """Shell words of a command (quotes removed, `$(...)` and backticks kept whole); a plain whitespace split when
    the quoting is broken."""
    masked, subs = _substitutions(text)
    try:
        parts = shlex.split(masked, comments=False, posix=True)
    except ValueError:
        parts = masked.split()
    return [re.sub(r"\x00(\d+)\x00", lambda m: subs[int(m.group(1))], p) for p in parts]


def tokens(text: str, operators: str | bool = OPERATORS, comments: bool = False) -> list[str] | None:
    """Words and operator runs (`&&`, `;`, `|`, `>`, newlines when given) of command text; None when the quoting
    is broken. A `#` starts a comment only with `comments`."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars=operators)
    lexer.whitespace_split = True
    lexer.commenters = "#" if comments else ""
    if isinstance(operators, str) and "\n" in operators:
        lexer.whitespace = " \t\r"
    try:
        return list(lexer)
    except ValueError:
        return None


def _substitutions(cmd: str) -> tuple[str, list[str]]:
    """Replace `$(...)` and backtick substitutions with markers so that each stays one word."""
    out, subs, i = [], [], 0
    while i < len(cmd):
        if cmd.startswith("$(", i) or cmd[i] == "`":
            close, depth, j = ("`", 0, i + 1) if cmd[i] == "`" else (")", 1, i + 2)
            while j < len(cmd) and (depth > 0 if close == ")" else cmd[j] != "`"):
                depth += {"(": 1, ")": -1}.get(cmd[j], 0) if close == ")" else 0
                j += 1
            end = j if close == ")" else j + 1
            subs.append(cmd[i:end])
            out.append(f"\x00{len(subs) - 1}\x00")
            i = end
            continue
        out.append(cmd[i])
        i += 1
    return "".join(out), subs


def program_of(cmd: str) -> str:
    """The first word of a command line as written."""
    parts = cmd.strip().split()
    return parts[0] if parts else ""


def split_env(cmd: str) -> tuple[dict[str, str], str]:
    """Inline variable assignments before a command: `RUNS=1 python x.py` gives ({"RUNS": "1"}, "python x.py")."""
    env: dict[str, str] = {}
    rest = cmd.strip()
    while True:
        match = _ASSIGN_PREFIX.match(rest)
        if not match:
            return env, rest
        env[match.group(1)] = match.group(2).strip("'\"")
        rest = rest[match.end():]


def split_runner(cmd: str) -> tuple[str | None, str]:
    """The runner prefix (uv run, poetry run, pipenv run, conda run -n X, sudo) and the command it runs."""
    runner: str | None = None
    rest = cmd.strip()
    while True:
        found = _one_runner(rest)
        if not found:
            return runner, rest
        name, rest = found
        runner = runner or name


def _one_runner(cmd: str) -> tuple[str, str] | None:
    for name, rx in _RUNNER_PREFIXES:
        match = re.match(rx, cmd)
        if match and cmd[match.end():].strip():
            rest = cmd[match.end():].strip()
            if name == "uv" and re.match(r"^--?[\w-]+\s", rest):
                return None
            return name, rest
    return None


def head_word(inner: str) -> str:
    """The program a command line starts with, ignoring env prefixes."""
    _, rest = split_env(inner)
    return program_of(rest)


def program_words(argv: list[str]) -> list[str]:
    """The words from the program on: without assignments, keywords, wrappers and runner prefixes."""
    i = 0
    while i < len(argv):
        word = argv[i]
        if ENV_ASSIGN.match(word) or word in KEYWORDS:
            i += 1
        elif word in WRAPPERS:
            i += 1
            while i < len(argv) and (
                argv[i].startswith("-") or ENV_ASSIGN.match(argv[i]) or re.fullmatch(r"[\d.]+[smhd]?", argv[i])
            ):
                i += 2 if argv[i] in VALUE_OPTIONS else 1
        elif word in ENV_MANAGERS and i + 1 < len(argv) and argv[i + 1] in ("run", "exec"):
            i += 2
            while i < len(argv) and argv[i].startswith("-"):
                i += 2 if argv[i] in VALUE_OPTIONS else 1
        else:
            return argv[i:]
    return []
