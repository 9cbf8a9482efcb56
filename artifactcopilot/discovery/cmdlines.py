"""Documented command lines: prompts, continuation lines, whole statements (a loop, an `if … fi`, a `&&` chain or a
here-document over several lines is one statement), and whether a line reads as a command at all.

Words and prefixes come from the shell package; nothing is executed here.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..shell import incomplete, program_of, split_env, split_runner

PROGRAMS = {
    "python", "python2", "python3", "py", "pip", "pip2", "pip3", "pipx", "uv", "uvx", "poetry", "pipenv", "conda",
    "mamba", "micromamba", "virtualenv", "pytest", "tox", "nox", "jupyter", "ipython", "papermill", "make", "cmake",
    "ninja", "bash", "sh", "zsh", "source", "export", "cd", "sudo", "apt", "apt-get", "yum", "dnf", "brew", "wget",
    "curl", "git", "gdown", "kaggle", "huggingface-cli", "aws", "zenodo_get", "docker", "docker-compose", "podman",
    "singularity", "apptainer", "tar", "unzip", "gunzip", "gzip", "bunzip2", "xz", "unxz", "7z", "unrar", "zstd",
    "find", "cat", "ls", "pwd", "echo", "mkdir", "cp", "mv", "rm", "ln", "chmod", "tree", "clear", "head", "tail",
    "less", "more", "which", "gnuplot", "Rscript", "R", "julia", "java", "javac", "mvn", "gradle", "ant", "sbt",
    "node", "npm", "npx", "yarn", "cargo", "rustc", "go", "gcc", "g++", "clang", "perl", "ruby", "php", "lua",
    "matlab", "octave", "dotnet", "swift", "stack", "cabal", "ghc", "pdflatex", "latexmk", "xelatex", "time",
    "nohup", "for", "while", "env", "set", "conda-env", "pixi", "hatch", "pdm", "nbconvert", "streamlit", "flask",
    "sed", "awk", "xargs", "parallel", "mpirun", "mpiexec", "srun", "sbatch", "touch", "scp", "rsync",
}
NEEDS_ARGS = {"cd", "source", "export", "sudo", "time", "nohup", "env", "set", "for", "while", "cp", "mv", "rm", "ln",
              "chmod", "mkdir", "find", "cat", "head", "tail", "less", "more", "which", "touch", "echo", "R", "go",
              "java", "node", "ruby", "perl", "php", "lua", "swift", "stack", "ghc", "sed", "awk", "xargs", "scp"}
STRONG = {"python", "python2", "python3", "pip", "pip3", "pipx", "uv", "poetry", "pipenv", "conda", "mamba", "docker",
          "docker-compose", "git", "make", "bash", "sh", "wget", "curl", "jupyter", "pytest", "npm", "yarn", "node",
          "java", "Rscript", "cargo", "gunzip", "unzip", "tar", "gnuplot", "apt", "apt-get", "sudo", "virtualenv",
          "conda-env", "gdown", "kaggle", "tox", "nox", "mvn", "gradle", "julia", "papermill", "7z", "xz", "source",
          "export", "cd"}
SCRIPT_EXT = (".py", ".sh", ".bash", ".R", ".r", ".jl", ".pl", ".rb", ".js", ".ipynb", ".m")
_PROMPTS = [
    re.compile(r"^\s*\[[^\]\s]{1,60}\]\s*[$%]\s+"),                       # [PROJECT_ROOT]$ cmd
    re.compile(r"^\s*(\([\w.\-]+\)\s*)?[\w.\-]+@[\w.\-]+(:[^\s$#%]*)?\s*[$%#]\s+"),  # user@host:~/dir$ cmd
    re.compile(r"^\s*(\([\w.\-]+\)\s*)?(~[\w./\-]*\s*)?[$%]\s+"),         # $ cmd, (venv) $ cmd, ~/x $ cmd
    re.compile(r"^\s*~[\w./\-]*\s*(>>>|>)\s+"),                            # ~ >>> cmd
    re.compile(r"^\s*PS [A-Z]:[^>]*>\s*"),                                 # PS C:\x> cmd
    re.compile(r"^\s*>\s+"),                                               # > cmd
    re.compile(r"^\s*\$(?=\.{0,2}/\w)"),                                     # $./script (no space)
]


def strip_prompt(line: str) -> tuple[str, bool]:
    """The line without a shell prompt marker, and whether it had one."""
    for rx in _PROMPTS:
        match = rx.match(line)
        if match:
            return line[match.end():].strip(), True
    if line.strip() in ("$", "%"):
        return "", True
    return line.strip(), False


@dataclass
class LogicalLine:
    text: str
    line: int
    """Offset (0-based) of the first physical line within the block."""
    prompted: bool = False
    comments: list[str] = field(default_factory=list)
    """Comment lines right above it."""
    end: int = -1
    """Offset of its last physical line."""


MAX_STATEMENT_LINES = 60
"""A statement that is still open after this many lines is read line by line, as written."""
_STARTS_COMPOUND = re.compile(r"^(for|while|until|select|if|case)\s|^[({]\s*|^\w[\w.-]*\s*\(\)\s*\{?\s*$")


def logical_lines(code: str) -> list[LogicalLine]:
    """Documented statements: continuation lines ("\\" at the end) joined, prompts removed, and a statement that
    goes on over lines (a loop, `if … fi`, a line ending in `&&`, a here-document, an open quote) kept whole with
    its lines as written. Comment lines above a statement are kept as its context."""
    raw = code.splitlines()
    out: list[LogicalLine] = []
    comments: list[str] = []
    n = 0
    while n < len(raw):
        text, prompted = strip_prompt(raw[n])
        start = n
        if text.startswith(("#", "//")):
            comments.append(text.lstrip("#/ ").strip())
            n += 1
            continue
        while text.endswith("\\") and not text.endswith("\\\\") and n + 1 < len(raw):
            n += 1
            text = text[:-1].rstrip() + " " + raw[n].strip()
        text = text.rstrip("\\").strip() if text.endswith("\\") and not text.endswith("\\\\") else text.strip()
        if text and _opens(text):
            text, n = _statement(raw, text, n, prompted)
        if text:
            out.append(LogicalLine(text, start, prompted, comments, n))
            comments = []
        elif not prompted:
            comments = []
        n += 1
    return out


def _opens(text: str) -> bool:
    """A line that starts a statement going on over lines (judged by the shell parser)."""
    return (bool(_STARTS_COMPOUND.match(text)) or looks_like_command(text)) and incomplete(text)


def _statement(raw: list[str], text: str, n: int, prompted: bool) -> tuple[str, int]:
    """The whole statement opened by `text` at line n and the offset of its last line; the line alone (and n) when
    it does not close within MAX_STATEMENT_LINES or a new prompt starts first."""
    lines = [text]
    for j in range(n + 1, min(len(raw), n + MAX_STATEMENT_LINES)):
        line, has_prompt = strip_prompt(raw[j]) if prompted else (raw[j].rstrip(), False)
        if prompted and has_prompt and not re.match(r"^\s*>\s", raw[j]):
            break
        lines.append(line if prompted else raw[j].rstrip())
        joined = "\n".join(lines)
        if not incomplete(joined):
            return joined, j
    return text, n


def looks_like_command(text: str, console_scripts: set[str] | frozenset[str] = frozenset(),
                       strict: bool = False) -> bool:
    """Whether a line reads as a shell command (program, script path or the artifact's console script first).

    strict: for lines found in prose — needs arguments after most programs and no English filler words.
    """
    line = text.strip()
    if not line or len(line) > 2000 or line.startswith(("#", "//", "http://", "https://")):
        return False
    _, rest = split_env(line)
    _, rest = split_runner(rest) if not rest.startswith("sudo") or len(rest.split()) > 1 else (None, rest)
    first = program_of(rest)
    if not first:
        return False
    known = (first in PROGRAMS or first in console_scripts or re.fullmatch(r"python\d(\.\d+)?|pip\d(\.\d+)?", first)
             or first.startswith(("./", "../", "~/")) and len(first) > 2
             or first.endswith((".sh", ".py", ".bash")) and re.fullmatch(r"[\w./\-]+", first) is not None)
    if not known or _listing_line(rest, first):
        return False
    if strict:
        tokens = rest.split()
        if first in NEEDS_ARGS and len(tokens) < 2:
            return False
        if first in PROGRAMS and len(tokens) < 2 and first not in ("make", "pytest", "tox", "nox"):
            return False
        if _prose_like(rest):
            return False
        strong = first in STRONG or first in console_scripts or re.fullmatch(r"python\d(\.\d+)?|pip\d(\.\d+)?", first)
        if not strong and not first.startswith(("./", "../")) and not first.endswith((".sh", ".py")):
            return any(t.startswith("-") or "/" in t or re.search(r"\.\w{1,5}$", t) for t in tokens[1:])
    return True


def _listing_line(rest: str, first: str) -> bool:
    """`src/model.py    the model` in a file-structure block: a path, a wide gap, then words describing it."""
    if first.startswith(("./", "../", "~/")) or "/" not in first and not first.endswith((".py", ".sh", ".R")):
        return False
    match = re.match(r"\S+(\s{2,}|\s+[-–—:#]\s+)(.+)$", rest)
    if not match:
        return False
    words = match.group(2).split()
    return len(words) >= 2 and not any(w.startswith("-") or "/" in w or "=" in w for w in words)


_FILLER = re.compile(r"\s(the|a|an|this|that|these|your|our|to|and|with|of|for|in|on|from|is|are|be|it|you|we|"
                     r"should|can|will|then|which|if|than|at|as|by|not|all|only|least|more|most|about|into|please|"
                     r"via|using|when|where|there|here|has|have|was|were|sure|its)\s", re.IGNORECASE)


def _prose_like(text: str) -> bool:
    core = re.sub(r"(\"[^\"]*\"|'[^']*'|`[^`]*`)", " ", text)
    if re.search(r"(?<!\$)\(\s*[A-Za-z]{2,}\b[^)]*\)", core):
        return True
    return len(_FILLER.findall(f" {core} ")) >= 1 or bool(re.search(r"[A-Za-z]{2}[.:]$", core.rstrip()))
