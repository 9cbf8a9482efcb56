"""Shell text read the way a shell would split it: simple commands and the words from their program on.

Only reads command text (a command log's script); nothing is executed.
"""

from __future__ import annotations

import re
import shlex

# fmt: off
WRAPPERS = frozenset({
    "time", "nohup", "exec", "command", "builtin", "nice", "ionice", "stdbuf", "timeout", "env", "sudo", "xvfb-run",
    "taskset", "unbuffer", "npx",
})
RUNNERS = frozenset({"uv", "poetry", "pipenv", "pdm", "hatch", "pixi", "rye", "conda", "mamba", "micromamba"})
"""Environment managers: `<runner> run CMD` runs CMD; any other use of them prepares the environment."""
VALUE_OPTIONS = frozenset({"-n", "--name", "-p", "--prefix", "--with", "--python", "--extra", "--group", "--project",
                           "--directory", "--env-file", "-u"})
KEYWORDS = frozenset({"if", "then", "else", "elif", "while", "until", "do", "!", "{"})
NO_PROGRAM = frozenset({"for", "select", "case", "function", "fi", "done", "esac", "}", ")", ";;"})
ENV_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
HEREDOC = re.compile(r"(?<!<)<<(?!<)-?\s*['\"]?([A-Za-z_]\w*)['\"]?")
# fmt: on


def simple_commands(script: str) -> list[list[str]]:
    """The words of each simple command of a shell script (split at newlines, `;`, `&&`, `||`, `|`, `&`);
    quoted text keeps its newlines, and redirect targets, comments and here-document bodies are no words."""
    lines, heredoc = [], None
    for line in re.sub(r"\\\n", " ", script).splitlines():
        if heredoc is not None:
            heredoc = None if line.strip() == heredoc else heredoc
            continue
        opened = HEREDOC.search(line)
        heredoc = opened.group(1) if opened else None
        lines.append(line)
    text = "\n".join(lines)
    lexer = shlex.shlex(text, posix=True, punctuation_chars="();<>|&\n")
    lexer.whitespace, lexer.commenters, lexer.whitespace_split = " \t\r", "", True
    try:
        tokens = list(lexer)
    except ValueError:  # unbalanced quotes: words as written
        tokens = [t for line in lines for t in [*line.split(), "\n"]]
    return _split_tokens(tokens)


def _split_tokens(tokens: list[str]) -> list[list[str]]:
    out: list[list[str]] = []
    current: list[str] = []
    skip_next = comment = False
    for token in tokens:
        separator = bool(token) and set(token) <= set("();<>|&\n")
        if comment and not (separator and "\n" in token):
            continue
        comment = False
        if skip_next:
            skip_next = False
        elif separator:
            if "<" in token or ">" in token:
                skip_next = token != "<<"  # a redirect's target (or a here-string) is no argument
            elif current:
                out.append(current)
                current = []
        elif token.startswith("#"):
            comment = True
        else:
            current.append(token)
    if current:
        out.append(current)
    return out


def program_words(words: list[str]) -> list[str]:
    """The words from the program on: without assignments, keywords, wrappers and runner prefixes."""
    i = 0
    while i < len(words):
        word = words[i]
        if ENV_ASSIGN.match(word) or word in KEYWORDS:
            i += 1
        elif word in WRAPPERS:
            i += 1
            while i < len(words) and (
                words[i].startswith("-") or ENV_ASSIGN.match(words[i]) or re.fullmatch(r"[\d.]+[smhd]?", words[i])
            ):
                i += 2 if words[i] in VALUE_OPTIONS else 1
        elif word in RUNNERS and i + 1 < len(words) and words[i + 1] in ("run", "exec"):
            i += 2
            while i < len(words) and words[i].startswith("-"):
                i += 2 if words[i] in VALUE_OPTIONS else 1
        else:
            return words[i:]
    return []
