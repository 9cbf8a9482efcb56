"""Shell command text, read one way everywhere: words and prefixes (`words`), and the syntax around them — simple
commands, compound commands, here-documents — through bashlex (`syntax`).

Discovery (documented commands), the verifier (command logs) and the reproduction reader (scripts) read shell
text through this package alone; `shlex.split` is called here and nowhere else. Nothing is executed.
"""
from __future__ import annotations

from .statements import Loop, compound, for_loop
from .syntax import (
    HEREDOC,
    Heredoc,
    ShellSyntaxError,
    Simple,
    incomplete,
    parse,
    pipelines,
    prepare,
    simple_commands,
    take_heredocs,
)
from .words import (
    ENV_ASSIGN,
    ENV_MANAGERS,
    KEYWORDS,
    NO_PROGRAM,
    WRAPPERS,
    head_word,
    program_of,
    program_words,
    split,
    split_env,
    split_runner,
    tokens,
    words,
)

__all__ = [
    "ENV_ASSIGN", "ENV_MANAGERS", "HEREDOC", "KEYWORDS", "NO_PROGRAM", "WRAPPERS", "Heredoc", "Loop",
    "ShellSyntaxError", "Simple", "compound", "for_loop", "head_word", "incomplete", "parse", "pipelines", "prepare",
    "program_of", "program_words", "simple_commands", "split", "split_env", "split_runner", "take_heredocs",
    "tokens", "words",
]
