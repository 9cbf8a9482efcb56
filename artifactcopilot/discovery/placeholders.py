"""Arguments of documented commands that are placeholders (`<path>`, `$trace_file`, `PATH_TO_DATA`,
`project_folder`, `/dir1/dir2/file.txt`), found per step. Filling them is in `fill.py`.
"""
from __future__ import annotations

import re
from collections.abc import Set as AbstractSet

from ..shell import words
from .model import Placeholder
from .view import FileIndex, join, norm

GENERIC = {"path", "paths", "dir", "dirs", "directory", "folder", "file", "files", "filename", "fname", "input",
           "inputs", "output", "outputs", "in", "out", "project", "proj", "repo", "repository", "module", "package",
           "pkg", "root", "name", "value", "val", "number", "num", "count", "threads", "thread", "foo", "bar", "baz",
           "qux", "something", "example", "your", "my", "some", "of", "to", "the", "a", "src", "source", "dest",
           "destination", "target", "arg", "args", "param", "params", "location", "loc", "id", "url", "host", "port",
           "user", "username", "password", "key", "token", "code", "local", "container", "x", "n", "k", "xx", "xxx"}
CAPS_GENERIC = re.compile(r"(PATH|DIR|FILE|FOLDER|INPUT|OUTPUT|NAME|VALUE|NUM|NUMBER|URL|TOKEN|KEY|ID|HOST|PORT|"
                          r"USER|PASSWORD|PROJECT|REPO|DATASET)")
STD_VARS = {"HOME", "PWD", "PATH", "USER", "SHELL", "TMPDIR", "PYTHONPATH", "LD_LIBRARY_PATH", "CONDA_PREFIX",
            "VIRTUAL_ENV", "OLDPWD", "HOSTNAME", "LANG", "CUDA_VISIBLE_DEVICES", "JAVA_HOME", "DISPLAY", "RANDOM",
            "SECONDS", "UID", "PPID", "OSTYPE", "TERM"}
OUTPUT_FLAGS = {"-o", "--output", "--out", "-O", "--output-dir", "--outdir", "--output_dir", "--save",
                "--output-file", "--log", "--as-graph-output", ">", ">>", "2>", "&>", "--name"}
SHELL_WORDS = {"for", "in", "do", "done", "if", "then", "else", "elif", "fi", "while", "until", "case", "esac", "&&",
               "||", "|", ";", "&"}
FILE_MODE = re.compile(r"[ugoa]*[+=-][rwxXst]+(?:,[ugoa]*[+=-][rwxXst]+)*")
"""A chmod mode (`+x`, `u+x`, `a+rw,o-w`), not a name to fill in."""
VAR = re.compile(r"(?<![\\$])\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")


def _pieces(token: str) -> list[str]:
    body = token.strip("'\"").rstrip("/")
    body = re.sub(r"\.[A-Za-z0-9]{1,5}$", "", body)
    out = []
    for part in re.split(r"[^A-Za-z0-9]+|(?<=[a-z])(?=[A-Z])|\d+", body):
        if part:
            out.append(part.lower())
    return out


def generic_token(token: str) -> bool:
    """All words of the token are generic ("project_folder", "/dir1/dir2/tracefile.txt", "my_code_repo")."""
    pieces = _pieces(token)
    if not pieces or len(token) > 120:
        return False
    if re.match(r"^(my|your|some)[_\-]?[a-z]{3,}", token.strip("/").split("/")[0], re.IGNORECASE):
        return True
    for piece in pieces:
        if piece in GENERIC:
            continue
        if len(piece) > 4 and any(piece.endswith(g) or piece.startswith(g) for g in
                                  ("file", "folder", "dir", "path", "name", "repo", "input", "output")):
            continue
        return False
    return True


def usage_name(token: str) -> bool:
    """A name that only describes the argument ("project_folder", "number_of_threads"), not an example value."""
    return bool(re.fullmatch(r"[a-z]+(?:[_:/][a-z]+)+|[A-Z][A-Z_]+", token)) and generic_token(token) and \
        not re.match(r"^(my|your|some)_", token)


def described_placeholders(text: str) -> set[str]:
    """Tokens the prose declares as placeholders: "where X is …", "replace X with …", "X should be replaced"."""
    found = set()
    token = r"(?<![\w\-./\[\]<>{}])[`'\"]?([\w\-./\[\]<>{}]{1,80}"
    patterns = (r"\bwhere\s+(?:the\s+)?[`'\"]?([\w\-./\[\]<>{}]{1,80})[`'\"]?\s+(?:is|are|denotes|stands)\b",
                r"\breplac(?:e|ing)\s+[`'\"]?([\w\-./\[\]<>{}]{1,80})[`'\"]?\s+with\b",
                token + r"(?:\s\.\.\.\])?)[`'\"]?\s+should\s+be\s+replaced\b",
                token + r")[`'\"]?\s+is\s+a\s+placeholder\b")
    for rx in patterns:
        for match in re.finditer(rx, text or "", re.IGNORECASE):
            if match.group(1).lower() not in ("it", "this", "that", "the", "they", "which"):
                found.add(match.group(1))
    return found


def _group_words(parts: list[str]) -> list[str]:
    """Merge a bracketed argument spread over several words ("[algorithms", "...]") into one word."""
    out: list[str] = []
    i = 0
    while i < len(parts):
        word = parts[i]
        if word.startswith(("[", "<")) and not word.endswith(("]", ">")):
            close = "]" if word.startswith("[") else ">"
            j = next((k for k in range(i + 1, min(i + 6, len(parts))) if parts[k].endswith(close)), None)
            if j is not None:
                out.append(" ".join(parts[i:j + 1]))
                out += [""] * (j - i)
                i = j + 1
                continue
        out.append(word)
        i += 1
    return out


def block_vars(lines: list[str]) -> set[str]:
    """Variables a block sets: exports, assignments and loop variables."""
    names = set()
    for line in lines:
        names.update(re.findall(r"(?:^|\s|;)(?:export\s+)?([A-Za-z_]\w*)=", line))
        names.update(re.findall(r"\bfor\s+([A-Za-z_]\w*)\s+in\b", line))
        names.update(re.findall(r"\bread\s+(?:-\w+\s+)*([A-Za-z_]\w*)", line))
    return names


def detect(inner: str, kind: str, cwd: str, index: FileIndex, known_vars: set[str],
           described: AbstractSet[str] = frozenset()) -> list[Placeholder]:
    """Placeholders among the words of `inner`."""
    parts = _group_words(words(inner))
    out: list[Placeholder] = []
    body_from = parts.index("do") + 1 if parts[:1] in (["for"], ["while"]) and "do" in parts else 0
    for i, word in enumerate(parts):
        if not word or i == 0 and not word.startswith(("<", "[", "$", "{")) or i < body_from:
            continue
        if word.rstrip(";") in SHELL_WORDS:
            continue
        prev = parts[i - 1] if i else ""
        reason = _reason(word, prev, kind, cwd, index, known_vars, described)
        if reason:
            out.append(Placeholder(token=word, index=i, reason=reason))
    return out


def _reason(word: str, prev: str, kind: str, cwd: str, index: FileIndex, known: set[str],
            described: AbstractSet[str]) -> str:
    value = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
    if (word in described or value in described) and not _exists(value, cwd, index):
        return "the documentation says to replace it"  # an existing file it names is a runnable example
    if re.search(r"<[^<>=|]*[A-Za-z][^<>=|]*>", value) and not value.startswith("<<"):
        return "angle-bracket placeholder"
    if re.fullmatch(r"<[A-Za-z][\w\-./ ]*|[A-Za-z][\w\-./]*>", value) and not value.startswith("<<"):
        return "angle-bracket placeholder with one bracket missing"
    if re.fullmatch(r"\[[^\]]*[A-Za-z]{2,}[^\]]*\]", value) or re.fullmatch(r"\{[A-Za-z_][\w\- ]*\}", value):
        return "bracketed placeholder"
    for name in VAR.findall(value):
        if name not in known and name not in STD_VARS and not name.isdigit():
            return f"variable ${name} is not set in the documentation"
    if kind in ("install", "download", "env", "trivial") or value.startswith("-") or prev in OUTPUT_FLAGS \
            or FILE_MODE.fullmatch(value):
        return ""
    if "://" in value or "$" in value or "*" in value or re.fullmatch(r"[\d.,:eE+\-]+", value):
        return ""
    if _exists(value, cwd, index):
        return ""
    if re.fullmatch(r"[A-Z][A-Z0-9_]{2,}(\.\w+)?", value) and ("_" in value or CAPS_GENERIC.fullmatch(value)):
        return "ALL_CAPS placeholder name"
    if re.search(r"(?<![A-Za-z])(X{2,}|x{3,})(?![A-Za-z])", value):
        return "XX stands for a value to fill in"
    if generic_token(value):
        return "generic name that is not in the artifact"
    return ""


def _exists(value: str, cwd: str, index: FileIndex) -> bool:
    rel = value.strip("'\"")
    if not rel or rel in (".", "..", "./"):
        return True
    if index.exists(join(cwd, rel)) or index.exists(norm(rel)):
        return True
    base = rel.rstrip("/").rsplit("/", 1)[-1]
    return bool(index.named(base)) or base in index.dir_names
