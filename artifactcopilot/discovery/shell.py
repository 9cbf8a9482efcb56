"""Shell-line handling: prompts, continuation lines, words, inline env prefixes, runner prefixes.

No command is executed here; this only reads documented command text.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

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
ENV_ASSIGN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(\S*)$")
RUNNERS = ("uv", "poetry", "pipenv", "conda", "sudo")


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


def logical_lines(code: str) -> list[LogicalLine]:
    """Join continuation lines ("\\" at the end); remove prompts; keep comment lines as context of the next."""
    out: list[LogicalLine] = []
    buf, start, prompted, comments = "", 0, False, []
    for n, raw in enumerate(code.splitlines()):
        text, had_prompt = strip_prompt(raw) if not buf else (raw.strip(), False)
        if not buf:
            start, prompted = n, had_prompt
            if text.startswith(("#", "//")):
                comments.append(text.lstrip("#/ ").strip())
                continue
        if text.endswith("\\") and not text.endswith("\\\\"):
            buf += text[:-1].rstrip() + " "
            continue
        full = (buf + text).strip()
        buf = ""
        if full:
            out.append(LogicalLine(full, start, prompted, comments, n))
            comments = []
        elif not prompted:
            comments = []
    if buf.strip():
        out.append(LogicalLine(buf.strip(), start, prompted, comments, len(code.splitlines()) - 1))
    return out


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


def words(cmd: str) -> list[str]:
    """Shell words of a command (quotes removed, `$(...)` kept whole); a plain split when the quoting is broken."""
    masked, subs = _substitutions(cmd)
    try:
        parts = shlex.split(masked, comments=False, posix=True)
    except ValueError:
        parts = masked.split()
    return [re.sub(r"\x00(\d+)\x00", lambda m: subs[int(m.group(1))], p) for p in parts]


def program_of(cmd: str) -> str:
    parts = cmd.strip().split()
    return parts[0] if parts else ""


def split_env(cmd: str) -> tuple[dict[str, str], str]:
    """Inline variable assignments before a command: `RUNS=1 python x.py` gives ({"RUNS": "1"}, "python x.py")."""
    env: dict[str, str] = {}
    rest = cmd.strip()
    while True:
        match = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)=((?:\"[^\"]*\"|'[^']*'|\S)*)\s+(?=\S)", rest)
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
    patterns = [
        ("uv", r"^uv\s+run(\s+--?[\w-]+(?:[ =](?!python\b)[^\s-]\S*)?)*\s+"),
        ("poetry", r"^poetry\s+run\s+"),
        ("pipenv", r"^pipenv\s+run\s+"),
        ("conda", (r"^(?:conda|mamba|micromamba)\s+run\s+(?:(?:-n|--name|-p|--prefix)\s+\S+\s+|--no-capture-output\s+|"
                   r"--live-stream\s+)*")),
        ("sudo", r"^sudo(\s+-[EHiSk]+|\s+-u\s+\S+)*\s+"),
    ]
    for name, rx in patterns:
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
