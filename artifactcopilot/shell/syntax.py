"""Shell syntax through bashlex: a script's commands, the compound commands around them (loops, conditionals,
`&&`/`||` chains, groups, subshells), here-documents, and whether a piece of text is a whole command yet.

bashlex rejects some of what bash reads (quoted here-document delimiters, `$(( ))`, `[[ ]]`, arrays, the
`function` keyword); `prepare` rewrites those into forms it reads with the same commands, and a script it still
rejects is read by the tokenizer (`words.tokens`) split at operators. Nothing is executed.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

import bashlex

from .words import ENV_ASSIGN, program_words, tokens

HEREDOC = re.compile(r"<<(-?)\s*(['\"]?)([A-Za-z_][\w.-]*)\2")
_ARITH = re.compile(r"\$\(\([^()]*(?:\([^()]*\)[^()]*)*\)\)")
_ARRAY = re.compile(r"^(\s*(?:local\s+|declare\s+-a\s+)?[A-Za-z_]\w*)=\(([^()\n]*)\)", re.MULTILINE)
_DBRACKET = re.compile(r"\[\[\s.*?\s\]\]")
_FUNCTION = re.compile(r"^(\s*)function\s+([\w.-]+)\s*(\(\))?\s*\{", re.MULTILINE)
_OPENERS = re.compile(r"^\s*(for|while|until|select|if|case|function)\b|^\s*[({]|(&&|\|\||\||\\|\bdo|\bthen|\{|\()\s*$|"
                      r"<<")
COMPOUND_KINDS = {"for": "for loop", "while": "while loop", "until": "until loop", "if": "if … fi",
                  "case": "case … esac", "function": "function"}


class ShellSyntaxError(ValueError):
    """Text bashlex cannot read even after `prepare`."""


@dataclass
class Heredoc:
    key: str
    """The marker that stands for it: the command reads `< key`."""
    body: str
    expands: bool
    """An unquoted delimiter: `$VAR` in the body is expanded."""


@dataclass
class Simple:
    """One simple command: its words (quotes removed), its text, its redirections and here-document, and the
    compound commands around it."""

    words: list[str]
    text: str
    within: list[str] = field(default_factory=list)
    """Kinds of the compound commands it sits in, outermost first (`for loop`, `if … fi`, `&&`, ...)."""
    redirects: list[tuple[str, str]] = field(default_factory=list)
    """(operator, target) of each redirection, `>`, `>>`, `<`, `2>`, ... (a here-document's target is its key)."""
    heredoc: str | None = None
    """The here-document the command reads, when it reads one."""

    @property
    def env(self) -> dict[str, str]:
        """Variables assigned before the program (`RUNS=1 python x.py`)."""
        out: dict[str, str] = {}
        for word in self.words:
            if not ENV_ASSIGN.match(word):
                break
            name, _, value = word.partition("=")
            out[name] = value
        return out

    @property
    def runner(self) -> str | None:
        """The environment manager or wrapper it runs under (`uv` for `uv run`, `sudo`, `time`), if any."""
        rest = self.words[len(self.env):]
        return rest[0] if rest and len(program_words(rest)) < len(rest) else None

    @property
    def argv(self) -> list[str]:
        """The words from the program on (assignments, wrappers and runner prefixes dropped)."""
        return program_words(self.words)


def _quoted(line: str, pos: int) -> bool:
    before = line[:pos]
    return before.count("'") % 2 == 1 or (before.count('"') - before.count('\\"')) % 2 == 1 or \
        "#" in before.split("'")[0] and before.lstrip().startswith("#")


def take_heredocs(script: str, first: int = 0) -> tuple[str, list[Heredoc]]:
    """The script with each here-document body replaced by blank lines and its operator by `< __HEREDOC_n__`
    (n counted from `first`), and the bodies."""
    lines = script.split("\n")
    out: list[str] = []
    docs: list[Heredoc] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        found = [m for m in HEREDOC.finditer(line) if not _quoted(line, m.start())]
        if not found:
            out.append(line)
            i += 1
            continue
        bodies = []
        j = i + 1
        for m in found:
            end, body = m.group(3), []
            while j < len(lines) and (lines[j].lstrip("\t") if m.group(1) else lines[j]).rstrip() != end:
                body.append(lines[j])
                j += 1
            j += 1
            bodies.append("\n".join(body))
        for m, text in zip(reversed(found), reversed(bodies)):
            key = f"__HEREDOC_{first + len(docs)}__"
            docs.append(Heredoc(key, text, not m.group(2)))
            line = line[:m.start()] + f"< {key}" + line[m.end():]
        out.append(line)
        out.extend([""] * (min(j, len(lines)) - i - 1))
        i = j
    return "\n".join(out), docs


def _arith(m: re.Match) -> str:
    """`$((100 * pass / total))`: bashlex cannot read it; what it computes with are its variables."""
    names = re.findall(r"(?<![\w$])\$?\{?([A-Za-z_]\w*)", m.group(0)[3:-2])
    return "".join(f"${{{n}}}" for n in dict.fromkeys(names)) or "0"


def prepare(text: str) -> str:
    """Rewrite what bashlex rejects into forms it reads: `$(( ))` to its variables, `[[ ]]` to `true`, arrays to
    strings, `function f {` to `f() {`. Positions of the rest may move."""
    text = _ARITH.sub(_arith, text)
    text = _DBRACKET.sub("true", text)
    text = _ARRAY.sub(lambda m: f'{m.group(1)}="{m.group(2).replace(chr(34), "")}"', text)
    return _FUNCTION.sub(r"\1\2() {", text)


def parse(text: str) -> list:
    """bashlex trees of prepared text; ShellSyntaxError when bashlex rejects it."""
    try:
        return list(bashlex.parse(text))
    except Exception as exc:  # noqa: BLE001 - bashlex raises several error types (ParsingError, NotImplementedError)
        raise ShellSyntaxError(str(exc)) from exc


def incomplete(text: str) -> bool:
    """Whether text is the start of a command that goes on (an open loop, `if`, quote, group, here-document, or a
    line ending in `&&`, `||` or `|`) — what an interactive shell would answer with its `>` prompt."""
    if not any(_OPENERS.search(line) for line in text.splitlines()) and text.count('"') % 2 == 0 \
            and text.count("'") % 2 == 0:
        return False
    if _open_heredoc(text):
        return True
    body, _ = take_heredocs(text)
    try:
        bashlex.parse(prepare(body))
    except Exception as exc:  # noqa: BLE001
        return "unexpected EOF" in str(exc) or "delimited by end-of-file" in str(exc)
    return False


def _open_heredoc(text: str) -> bool:
    """A here-document whose delimiter line has not come yet."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        for m in HEREDOC.finditer(line):
            if _quoted(line, m.start()):
                continue
            rest = [(ln.lstrip("\t") if m.group(1) else ln).rstrip() for ln in lines[i + 1:]]
            if m.group(3) not in rest:
                return True
    return False


def simple_commands(script: str) -> list[Simple]:
    """Every simple command of a script, with the compound commands it sits in; command substitutions' commands
    included. Redirect targets, comments and here-document bodies are no words."""
    body, docs = take_heredocs(script.replace("\\\n", " "))
    text = prepare(body)
    try:
        trees = parse(text)
    except ShellSyntaxError:
        return _by_tokens(body)
    out: list[Simple] = []
    for tree in trees:
        _collect(tree, text, [], out)
    bodies = {doc.key: doc.body for doc in docs}
    for simple in out:
        simple.heredoc = next((bodies[t] for op, t in simple.redirects if op == "<" and t in bodies), None)
    return out


def _collect(node, text: str, within: list[str], out: list[Simple]) -> None:
    kind = node.kind
    if kind == "command":
        argv = [p.word for p in node.parts if p.kind in ("word", "assignment")]
        redirects = [(f"{p.input if p.input is not None else ''}{p.type}", getattr(p.output, "word", str(p.output)))
                     for p in node.parts if p.kind == "redirect"]
        if argv:
            out.append(Simple(argv, text[node.pos[0]:node.pos[1]], list(within), redirects))
        for part in node.parts:
            for sub in _substitutions(part):
                _collect(sub, text, within, out)
        return
    inner = within
    if kind in COMPOUND_KINDS:
        inner = within + [COMPOUND_KINDS[kind]]
    elif kind == "compound" and node.list and getattr(node.list[0], "word", "") in ("(", "{"):
        inner = within + ["subshell" if node.list[0].word == "(" else "group"]
    elif kind == "list" and any(p.kind == "operator" and p.op in ("&&", "||") for p in node.parts):
        inner = within + ["&&"]
    elif kind == "pipeline" and len(node.parts) > 1:
        inner = within + ["|"]
    for attr in ("parts", "list"):
        for child in getattr(node, attr, None) or []:
            _collect(child, text, inner, out)


def pipelines(script: str) -> list[str]:
    """The text of each pipeline (or lone simple command) of a script in order, `&&`, `||`, `;` and newlines
    between them; a loop's or conditional's body is looked into. Text bashlex rejects is split at those operators
    by the tokenizer."""
    body, _ = take_heredocs(script.replace("\\\n", " "))
    text = prepare(body)
    try:
        trees = parse(text)
    except ShellSyntaxError:
        return _split_by_tokens(body)
    out: list[str] = []
    for tree in trees:
        _pipes(tree, text, out)
    return out


def _pipes(node, text: str, out: list[str]) -> None:
    if node.kind in ("pipeline", "command"):
        out.append(text[node.pos[0]:node.pos[1]])
        return
    for attr in ("parts", "list"):
        for child in getattr(node, attr, None) or []:
            if child.kind not in ("reservedword", "operator", "word"):
                _pipes(child, text, out)


def _split_by_tokens(text: str) -> list[str]:
    out: list[str] = []
    current: list[str] = []
    for token in tokens(text, "|&;\n") or text.split():
        if token in ("&&", "||", ";", "\n", "&", ";;") or set(token) <= {"\n"}:
            if current:
                out.append(_joined(current))
            current = []
        else:
            current.append(token)
    if current:
        out.append(_joined(current))
    return out


def _joined(words: list[str]) -> str:
    return " ".join(w if set(w) <= set("|&;<>()") else shlex.quote(w) for w in words)


def _substitutions(node):
    for sub in getattr(node, "parts", None) or []:
        if sub.kind in ("commandsubstitution", "processsubstitution"):
            yield sub.command
        else:
            yield from _substitutions(sub)


def _by_tokens(text: str) -> list[Simple]:
    """Simple commands by the tokenizer (text bashlex rejects): split at operators and newlines; a redirect's
    target is no word, a `#` word starts a comment."""
    toks = tokens(text, "();<>|&\n")
    if toks is None:
        toks = [t for line in text.splitlines() for t in [*line.split(), "\n"]]
    out: list[Simple] = []
    current: list[str] = []
    skip_next = comment = False
    for token in toks:
        separator = bool(token) and set(token) <= set("();<>|&\n")
        if comment and not (separator and "\n" in token):
            continue
        comment = False
        if skip_next:
            skip_next = False
        elif separator:
            if "<" in token or ">" in token:
                skip_next = token != "<<"
            elif current:
                out.append(Simple(current, " ".join(current)))
                current = []
        elif token.startswith("#"):
            comment = True
        else:
            current.append(token)
    if current:
        out.append(Simple(current, " ".join(current)))
    return out
