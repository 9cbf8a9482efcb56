"""The shell reader: bashlex parses the script; each simple command becomes a step (commands.py).

Parsing is the shell package's (bashlex with its rewrites of what bashlex rejects): here-documents are taken out
before parsing and come back as the command's stdin text; a script bashlex still rejects is read line by line, and a
line it rejects is split into commands by the package's tokenizer. Pipes carry values
from one step to the next; `x=$(cmd)` keeps the step in the variable, so `echo "$x"` displays it.
"""
from __future__ import annotations

import bisect
import re

from ... import shell as sh
from . import tools as T
from .commands import Call, command
from .context import Context
from .model import Source

MARK = re.compile(r"\u27e6(step|file):([^\u27e7]*)\u27e7")
_KEYWORDS = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "case", "esac", "{", "}", "(", ")",
             "function", "in", "select", "!"}


def take_heredocs(script: str, ctx: Context) -> str:
    """The script with each here-document body taken out (the shell package's reading), registered in ctx as the
    stdin text of the command that reads `< __HEREDOC_n__`."""
    text, docs = sh.take_heredocs(script, len(ctx.heredocs))
    for doc in docs:
        ctx.heredocs[doc.key] = doc.body
        if doc.expands:
            ctx.expanding_heredocs.add(doc.key)
        if T.MASKED.search(doc.body):
            from .literals import NUMBER

            ctx.given.update(n.strip() for n in NUMBER.findall(doc.body))
    return text


def read_shell(ctx: Context, script: str, cwd: str = "", line: int = 0) -> str:
    """Read a shell script into steps; returns the folder the script ends in."""
    text = sh.prepare(take_heredocs(script, ctx))
    walker = _Walker(ctx, text, line)
    try:
        trees = sh.parse(text)
    except sh.ShellSyntaxError:  # fall back to smaller pieces
        return walker.chunks(cwd)
    for tree in trees:
        cwd = walker.node(tree, cwd)
    return cwd


class _Walker:
    def __init__(self, ctx: Context, text: str, line: int):
        self.ctx, self.text, self.base = ctx, text, line
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.where = next((n for n in reversed(ctx.expanding) if not n.startswith("inline ")), None)

    def line_of(self, pos: int) -> int:
        return self.base + bisect.bisect_right(self.starts, pos)

    def chunks(self, cwd: str) -> str:
        """Parse line by line (joining continuations); a line bashlex rejects is split by a tokenizer."""
        self.ctx.reading.notes.append("the shell parser rejected the script as a whole; read line by line")
        logical, start = "", 0
        for n, raw in enumerate(self.text.split("\n")):
            if not logical:
                start = n
            logical += raw
            if logical.endswith("\\"):
                logical = logical[:-1] + " "
                continue
            if logical.strip():
                try:
                    for tree in sh.parse(logical):
                        cwd = _Walker(self.ctx, logical, self.base + start).node(tree, cwd)
                except sh.ShellSyntaxError:
                    cwd = self.tokens(logical, cwd, self.base + start + 1)
            logical = ""
        return cwd

    def tokens(self, line: str, cwd: str, lineno: int) -> str:
        toks = sh.tokens(line, operators=True, comments=True) or line.split()
        cmd: list[str] = []
        for tok in toks + [";"]:
            if tok in (";", "&&", "||", "|", "&", ";;", "(", ")", "{", "}") or (not cmd and tok in _KEYWORDS):
                if cmd and not re.fullmatch(r"[^\s)]*\)", cmd[0]):
                    cwd = self.simple(cmd, cwd, lineno, line)
                cmd = []
                continue
            cmd.append(tok)
        return cwd

    def simple(self, words: list[str], cwd: str, lineno: int, text: str) -> str:
        argv, out, stdin_file = [], None, None
        it = iter(words)
        for w in it:
            if w in (">", ">>", "&>", "1>"):
                out = next(it, None)
            elif w == "<":
                stdin_file = next(it, None)
            elif w in ("2>", "2>>"):
                next(it, None)
            else:
                argv.append(self.expand(w))
        call = Call(argv=argv, cwd=cwd, line=lineno, text=text.strip()[:200], out_file=out, where=self.where)
        self._stdin(call, stdin_file)
        return command(self.ctx, call)[1]

    def expand(self, word: str) -> str:
        def var(m: re.Match) -> str:
            name = m.group(1) or m.group(2)
            return self.ctx.shell_vars.get(name, "*" if name not in ("HOME", "PWD") else ".")
        return re.sub(r"\$\{([\w@#?]+)(?:[:%#/][^}]*)?\}|\$([\w@#?]+)", var, word)

    def split(self, word: str) -> list[str]:
        """An unquoted word with a variable holding several words (a loop's list): one word per item, as the loop
        runs it (`logs/$t/*.log` over `for t in a b` -> logs/a/*.log logs/b/*.log)."""
        names = [m.group(1) or m.group(2) for m in re.finditer(r"\$\{(\w+)\}|\$(\w+)", word)]
        many = next((n for n in names if len(self.ctx.shell_vars.get(n, "").split()) > 1), None)
        if many is None or "\u27e6" in self.ctx.shell_vars[many]:
            return [self.expand(word)]
        items = self.ctx.shell_vars[many].split()[:8]
        out = []
        for item in items:
            self.ctx.shell_vars[many] = item
            out.append(self.expand(word))
        self.ctx.shell_vars[many] = " ".join(items)
        return out

    def _stdin(self, call: Call, stdin_file: str | None) -> None:
        if stdin_file and stdin_file in self.ctx.heredocs:
            call.stdin_text = self.ctx.heredocs[stdin_file]
            if stdin_file in self.ctx.expanding_heredocs:  # `cat > t.md <<EOF ... $AIC ...`: the values of $AIC
                for name in re.findall(r"\$\{?(\w+)", call.stdin_text):
                    held = self.ctx.shell_vars.get(name, "")
                    call.stdin += [Source(kind="step", ref=m.group(2), use="display", how=f"${name}")
                                   if m.group(1) == "step" else
                                   Source(kind="file", ref=m.group(2), use="display", how=f"${name}")
                                   for m in MARK.finditer(held)]
        elif stdin_file:
            call.stdin_file = stdin_file

    # ---- bashlex nodes
    def node(self, node, cwd: str, stdin: list[Source] | None = None, out: str | None = None, stdout: bool = True,
             tolerant: bool = False) -> str:
        kind = node.kind
        if kind == "list":
            parts = node.parts
            for i, part in enumerate(parts):
                if part.kind == "operator":
                    continue
                nxt = parts[i + 1] if i + 1 < len(parts) else None
                tol = tolerant or bool(nxt is not None and nxt.kind == "operator" and nxt.op == "||")
                cwd = self.node(part, cwd, stdin, out, stdout, tol)
            return cwd
        if kind == "pipeline":
            return self.pipeline(node, cwd, stdin, out, stdout, tolerant)
        if kind == "command":
            return self.command(node, cwd, stdin, out, stdout, tolerant)[1]
        if kind == "function":
            name = next((p.word for p in node.parts if p.kind == "word"), None)
            if name:
                self.ctx.shell_functions[name] = node.body
            return cwd
        if kind == "compound":
            out2, stdin_file = out, None
            for r in getattr(node, "redirects", []) or []:
                target = self._target(r)
                if r.type in (">", ">>", "&>") and r.input in (None, 1):
                    out2 = target
                elif r.type == "<":
                    stdin_file = target
            if stdin_file:
                self._bind_reads(node, stdin_file)
            inner = cwd
            for part in node.list:
                inner = self.node(part, inner, stdin, out2, stdout, tolerant)
            return cwd if node.list and node.list[0].kind == "reservedword" and node.list[0].word == "(" else inner
        if kind == "for":
            words = [p for p in node.parts if p.kind == "word"]
            if words:
                self.ctx.shell_vars[words[0].word] = " ".join(self.expand(w.word) for w in words[1:]) or "*"
        for part in getattr(node, "parts", []) or []:
            if part.kind in ("list", "pipeline", "command", "compound", "if", "for", "while", "until", "function"):
                cwd = self.node(part, cwd, stdin, out, stdout, tolerant)
        return cwd

    def _bind_reads(self, node, path: str) -> None:
        for sub in _walk(node):
            if sub.kind == "command":
                words = [p.word for p in sub.parts if p.kind == "word"]
                if words[:1] == ["read"]:
                    for w in words[1:]:
                        if not w.startswith("-"):
                            self.ctx.shell_vars[w] = f"\u27e6file:{path}\u27e7"

    def pipeline(self, node, cwd, stdin, out, stdout, tolerant) -> str:
        cmds = [p for p in node.parts if p.kind != "pipe"]
        feed = stdin
        for i, cmd in enumerate(cmds):
            last = i == len(cmds) - 1
            if cmd.kind == "command":
                outs, cwd = self.command(cmd, cwd, feed, out if last else None, stdout if last else False, tolerant)
            else:
                start = len(self.ctx.reading.steps)
                cwd = self.node(cmd, cwd, feed, out if last else None, stdout if last else False, tolerant)
                outs = [s.index for s in self.ctx.reading.steps[start:] if not s.neutral]
            feed = [Source(kind="step", ref=str(o), use="display", how="pipe") for o in outs]
        return cwd

    def _target(self, r) -> str | None:
        return self.expand(r.output.word) if hasattr(r.output, "word") else None

    def command(self, node, cwd, stdin, out, stdout, tolerant) -> tuple[list[int], str]:
        argv: list[str] = []
        stdin_file = None
        for p in node.parts:
            if p.kind in ("word", "assignment"):
                captured: list[int] = []
                for sub in _walk(p):
                    if sub.kind == "commandsubstitution":
                        start = len(self.ctx.reading.steps)
                        self.node(sub.command, cwd, None, None, False, tolerant)
                        captured += [s.index for s in self.ctx.reading.steps[start:] if not s.neutral]
                raw = self.text[p.pos[0]:p.pos[1]] if hasattr(p, "pos") else p.word
                # `bash -c "x=\$(cmd) ..."`: escaped expansions belong to the inner shell, not this one
                bare = re.sub(r"'[^']*'", "", raw)  # `Rscript -e 'd$acc <- 1'`: single quotes expand nothing
                words = [p.word] if "$" not in bare or ("\\$" in bare and not re.search(r"(?<!\\)\$", bare)) \
                    else self.split(p.word) if not re.search(r"[\"']", raw) else [self.expand(p.word)]
                if captured and ("$(" in p.word or "`" in p.word):
                    words = [re.sub(r"\$\(.*\)|`[^`]*`", "".join(f"\u27e6step:{i}\u27e7" for i in captured), w)
                             for w in words]
                argv += words
            elif p.kind == "redirect" and p.type == "<<<" and argv[:1] == ["read"]:
                start = len(self.ctx.reading.steps)
                for sub in _walk(p.output):
                    if sub.kind == "commandsubstitution":
                        self.node(sub.command, cwd, None, None, False, tolerant)
                held = "".join(f"\u27e6step:{s.index}\u27e7" for s in self.ctx.reading.steps[start:] if not s.neutral)
                for name in (w for w in argv[1:] if not w.startswith("-")):
                    self.ctx.shell_vars[name] = held or "*"
                return [], cwd
            elif p.kind == "redirect":
                target = self._target(p)
                if p.type in (">", ">>", "&>", ">|") and p.input in (None, 1) or \
                        p.type == ">&" and p.input in (None, 1) and target not in ("2", None):
                    out = target
                elif p.type in ("<", "<<<"):
                    stdin_file = target
        if argv and argv[0] in self.ctx.shell_functions and len(self.ctx.expanding) < 3:
            self.ctx.expanding.append("inline function " + argv[0])
            start = len(self.ctx.reading.steps)
            try:
                self.node(self.ctx.shell_functions[argv[0]], cwd, stdin, out, stdout, tolerant)
            finally:
                self.ctx.expanding.pop()
            return [s.index for s in self.ctx.reading.steps[start:] if s.stdout], cwd
        marks = [Source(kind="step", ref=m.group(2), use="display", how="variable") if m.group(1) == "step"
                 else Source(kind="file", ref=m.group(2), use="display", how="read")
                 for a in argv for m in MARK.finditer(a)]
        argv = [MARK.sub("", a) for a in argv]
        if len(argv) == 1 and "=" in argv[0] and marks:  # x=$(cmd): the variable holds the step
            name = argv[0].split("=", 1)[0]
            self.ctx.shell_vars[name] = "".join(f"\u27e6step:{s.ref}\u27e7" if s.kind == "step"
                                                else f"\u27e6file:{s.ref}\u27e7" for s in marks)
            return [], cwd
        text = self.text[node.pos[0]:node.pos[1]] if hasattr(node, "pos") else " ".join(argv)
        call = Call(argv=argv, cwd=cwd, line=self.line_of(node.pos[0]) if hasattr(node, "pos") else self.base,
                    text=" ".join(text.split())[:200], stdin=list(stdin or []) + marks, out_file=out, stdout=stdout,
                    tolerant=tolerant, where=self.where)
        self._stdin(call, stdin_file)
        return command(self.ctx, call)


def _walk(node):
    yield node
    for attr in ("parts", "list"):
        for child in getattr(node, attr, None) or []:
            yield from _walk(child)
    if getattr(node, "command", None) is not None and node.kind == "commandsubstitution":
        return
