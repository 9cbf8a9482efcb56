"""Documented install command lines split into simple commands and classified by what they set up."""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from .. import shell as sh

PYTHON = re.compile(r"^(?:/usr(?:/local)?/bin/)?(python|python[23](?:\.\d+)?|py)$")
PIP = re.compile(r"^(?:/usr(?:/local)?/bin/)?pip(?:[23](?:\.\d+)?)?$")
RUNNERS = {"poetry": ("run",), "pipenv": ("run",), "uv": ("run",), "conda": ("run",), "mamba": ("run",)}
CONDA = ("conda", "mamba", "micromamba")
OTHER_PM = ("brew", "yum", "dnf", "pacman", "port", "choco", "winget", "apk", "zypper", "snap")
CONDA_INSTALLER = re.compile(r"(mini|ana)conda\d?|miniforge|mambaforge|micromamba|conda\.sh", re.IGNORECASE)
TOOL_INSTALLER = re.compile(r"install\.python-poetry\.org|astral\.sh|pipenv|pyenv\.run|get-pip\.py", re.IGNORECASE)


@dataclass
class Command:
    """One simple command of a documented install line."""

    kind: str
    """cd | pip | setup | poetry | pipenv | uv | conda | venv | activate | apt | other_pm | tooling |
    conda_installer | script | other | ignore."""
    argv: list[str] = field(default_factory=list)
    """Arguments after the program and its subcommand."""
    text: str = ""
    sub: str = ""
    """Subcommand (install, sync, add, env create, setup.py's command, ...)."""
    python: str | None = None
    """Interpreter the command names (python3.10 -m pip, virtualenv -p python3.8, --python 3.12)."""
    env: dict[str, str] = field(default_factory=dict)


def split(line: str) -> list[list[str]] | None:
    """Simple commands of a line (split on &&, ||, ;); None when the line is not valid shell (unbalanced quotes).
    A pipeline stays one command with its '|' tokens."""
    line = re.sub(r"(^|\s)#.*$", "", line, flags=re.MULTILINE)  # a comment starts a word; `#egg=x` is not one
    tokens = sh.tokens(line, operators="|&;")
    if tokens is None:
        return None
    commands: list[list[str]] = []
    current: list[str] = []
    for token in tokens:
        if token in ("&&", "||", ";", "&", ";;"):
            if current:
                commands.append(current)
            current = []
        else:
            current.append(token)
    if current:
        commands.append(current)
    return commands


def _strip_prefix(words: list[str]) -> tuple[list[str], dict[str, str]]:
    env: dict[str, str] = {}
    while words:
        head = words[0]
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", head):
            key, _, value = head.partition("=")
            env[key] = value
            words = words[1:]
        elif head in ("sudo", "doas"):
            words = words[1:]
            while words and words[0].startswith("-"):
                words = words[2:] if words[0] in ("-u", "-g") else words[1:]
        elif head in ("time", "nohup", "command", "exec", "env"):
            words = words[1:]
        else:
            break
    return words, env


REDIRECT = re.compile(r"\s(\d?>>?|&>|\d?<)\s*\S|\d>&\d")


def parse(line: str) -> list[Command]:
    redirect = REDIRECT.search(f" {line}")
    if redirect and not re.search(r"&&|\|\||;", line):  # `installer.sh > log 2>&1`: one command, kept as written
        commands = split(f" {line}"[: redirect.start()])
        if commands and len(commands) == 1:
            words, env = _strip_prefix(commands[0])
            if words:
                command = classify(words)
                command.env, command.text = env, line.strip()
                return [command]
    commands = split(line)
    if commands is None:
        return [Command("unparsable", text=line)]
    out: list[Command] = []
    for words in commands:
        words, env = _strip_prefix(words)
        if not words:
            continue
        command = classify(words)
        command.env = env
        command.text = " ".join(w if w in ("|", "|&") else shlex.quote(w) for w in words)
        out.append(command)
    return out


def _option(words: list[str], *names: str) -> str | None:
    for i, word in enumerate(words):
        for name in names:
            if word == name and i + 1 < len(words):
                return words[i + 1]
            if word.startswith(name + "="):
                return word.split("=", 1)[1]
    return None


def classify(words: list[str]) -> Command:
    head, rest = words[0], words[1:]
    if head == "cd":
        return Command("cd", rest[:1] or ["~"])
    if head in ("source", ".") and rest and ("activate" in rest[0] or rest[0].endswith("/bin/activate")) or \
            head in ("deactivate", "workon") or head in CONDA and rest[:1] in (["activate"], ["deactivate"]):
        return Command("activate", rest)
    if head in ("apt", "apt-get", "aptitude"):
        if rest[:1] == ["install"]:
            return Command("apt", [w for w in rest[1:] if not w.startswith("-")], sub="install")
        return Command("ignore", rest, sub=rest[0] if rest else "")
    if head in OTHER_PM:
        return Command("other_pm", rest, sub=head)
    if PIP.match(head):
        return Command("pip", rest[1:], sub="install") if rest[:1] == ["install"] else \
            Command("ignore", rest, sub="pip")
    if PYTHON.match(head):
        return _python(head, rest)
    if head == "virtualenv":
        return Command("venv", rest, python=_option(rest, "-p", "--python"))
    if head == "pyenv":
        version = next((w for w in rest[1:] if re.match(r"^\d+\.\d+", w)), None)
        return Command("venv", rest, sub=rest[0] if rest else "", python=version)
    if head in ("poetry", "pipenv", "uv") or head in CONDA:
        return _manager("conda" if head in CONDA else head, rest)
    if head in ("pipx",):
        return Command("tooling", rest, sub=head)
    if head in ("curl", "wget") and "|" in rest:
        text = " ".join(rest)
        if CONDA_INSTALLER.search(text):
            return Command("conda_installer", rest)
        return Command("tooling" if TOOL_INSTALLER.search(text) else "other", rest, sub=head)
    if head in ("curl", "wget") and CONDA_INSTALLER.search(" ".join(rest)):
        return Command("conda_installer", rest)
    if head in ("bash", "sh", "zsh") and rest and rest[0].endswith(".sh"):
        return Command("script", rest, sub=rest[0])
    if head.endswith(".sh"):
        return Command("script", rest, sub=head)
    if head == "make":
        return Command("script", rest, sub="make")
    return Command("other", rest, sub=head)


def _python(head: str, rest: list[str]) -> Command:
    if rest[:1] == ["-m"] and len(rest) > 1:
        module, args = rest[1], rest[2:]
        if module == "pip":
            return Command("pip", args[1:], sub="install", python=head) if args[:1] == ["install"] else \
                Command("ignore", args, sub="pip", python=head)
        if module in ("venv", "virtualenv"):
            return Command("venv", args, python=head)
        if module in ("poetry", "pipenv", "uv"):
            return _manager(module, args)
    if rest[:1] == ["setup.py"]:
        return Command("setup", rest[2:], sub=rest[1] if len(rest) > 1 else "", python=head)
    if rest and rest[0].endswith("get-pip.py"):
        return Command("tooling", rest, sub="get-pip")
    return Command("other", rest, python=head)


def _manager(tool: str, rest: list[str]) -> Command:
    if not rest:
        return Command("other", [], sub=tool)
    sub, args = rest[0], rest[1:]
    if sub in RUNNERS.get(tool, ()) and args:
        while args and args[0].startswith("-"):  # conda run -n env / --no-capture-output
            args = args[2:] if args[0] in ("-n", "--name", "-p", "--prefix") else args[1:]
        inner = classify(args) if args else Command("other", [])
        return inner
    if tool == "uv":
        if sub == "pip" and args[:1] in (["install"], ["sync"]):
            kind_args = args[1:] if args[0] == "install" else ["-r", *args[1:]]
            return Command("pip", kind_args, sub="install", python=_option(args, "--python", "-p"))
        if sub == "venv":
            return Command("venv", args, python=_option(args, "--python", "-p"))
        if sub == "python":
            version = next((w for w in args[1:] if re.match(r"^\d+\.\d+", w)), None)
            return Command("venv", args, sub="python", python=version)
        if sub == "tool":
            return Command("tooling", args, sub="uv tool")
    if tool == "conda" and sub == "env" and args:
        return Command("conda", args[1:], sub=f"env {args[0]}", python=None)
    python = _option(args, "--python") if tool in ("uv", "pipenv") else None
    return Command(tool, args, sub=sub, python=python)
