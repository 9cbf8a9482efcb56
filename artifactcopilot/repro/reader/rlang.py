"""The R reader: a careful tokenizer (strings, raw strings, comments, numbers, operators, backticks) and a
statement walker that follows values like the Python reader does (pyvalues.Val origins): read.csv /
readRDS / load / fread give file origins, c(...) / data.frame(...) numbers are literal, mean /
aggregate / group_by derive, runif / rnorm / functions with loops compute, print / cat / write.csv /
ggsave / kable and top-level auto-printed values are outputs, source() and system() run more code.
"""
from __future__ import annotations

import posixpath
import re

from .context import Context
from .model import Step
from .pyhelp import sources_of
from .pyvalues import EMPTY, Orig, Val, union
from .rcalls import COMPUTE, WRITERS, RCalls

TOKEN = re.compile(r"""(?P<comment>\#[^\n]*)|(?P<raw>[rR]["'](?P<dash>-*)[(\[{].*?[)\]}](?P=dash)["'])|
    (?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|(?P<bt>`[^`]*`)|
    (?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?[Li]?|0[xX][0-9a-fA-F]+L?)|
    (?P<id>[A-Za-z.][\w.]*)|(?P<nl>\n)|
    (?P<op><<-|->>|<-|->|%[^%\n]*%|\|>|::{1,2}|\[\[|\]\]|==|!=|<=|>=|&&|\|\||[-+*/^~?:$@=<>!&|,;(){}\[\]])|
    (?P<ws>[ \t\r\f\\]+)""",
                   re.VERBOSE | re.DOTALL)
INVISIBLE = {"library", "require", "source", "set.seed", "suppressMessages", "suppressWarnings",
             "suppressPackageStartupMessages", "invisible", "options", "par", "setwd", "dev.off", "pdf", "png", "jpeg",
             "svg", "dir.create", "rm", "gc", "Sys.setenv", "theme_set", "stopifnot", "stop", "warning", "on.exit",
             "attach", "detach", "sink", "registerDoParallel", "install.packages", "cat", "print", "message",
             "writeLines", "legend", "title", "axis", "mtext", "grid", "layout", "close"}


def tokens(text: str) -> list[tuple[str, str, int]]:
    """(kind, text, line) of each token; comments and blanks dropped, newlines kept."""
    out: list[tuple[str, str, int]] = []
    line = 1
    for m in TOKEN.finditer(text):
        kind = m.lastgroup if m.lastgroup and m.lastgroup != "dash" else "raw"  # every alternative is a named group
        value = m.group(0)
        if kind == "raw":
            kind, value = "str", repr(value[2:-1].strip("-")[1:-1])
        if kind not in ("comment", "ws"):
            out.append((kind, value, line))
        line += value.count("\n") if kind != "str" else m.group(0).count("\n")
    return out


def _split(toks: list, sep: set[str]) -> list[list]:
    """Split at depth-0 separators (commas in argument lists, `;`/newlines between statements)."""
    parts: list[list] = []
    cur: list = []
    depth = 0
    for i, t in enumerate(toks):
        kind, value, _ = t
        if kind == "op" and value in ("(", "{", "[", "[["):
            depth += 1
        elif kind == "op" and value in (")", "}", "]", "]]"):
            depth -= 1
        if depth == 0 and (value in sep and kind in ("op", "nl")):
            if kind == "nl" and cur and (cur[-1][0] == "op" and cur[-1][1] not in (")", "}", "]", "]]", ";")
                                         or _open_control(cur, toks[i + 1:])):
                continue  # the statement goes on after an operator or before its body / else
            parts.append(cur)
            cur = []
            continue
        if kind != "nl" or (depth > 0 and cur):
            cur.append(t)
    if cur:
        parts.append(cur)
    return [p for p in parts if any(t[0] != "nl" for t in p)]


def _open_control(cur: list, rest: list) -> bool:
    head = cur[0][1] if cur else ""
    nxt = next((t for t in rest if t[0] != "nl"), None)
    if nxt is not None and nxt[1] == "else":
        return True
    if head in ("for", "while", "if", "function") or (len(cur) > 2 and cur[-1][1] == ")" and any(
            t[1] == "function" for t in cur)):
        return cur[-1][1] == ")" or cur[-1][1] == "else"
    return cur[-1][1] == "else"


def _close(toks: list, i: int) -> int:
    """Index of the bracket closing the one at i."""
    depth = 0
    for j in range(i, len(toks)):
        if toks[j][1] in ("(", "{", "[", "[["):
            depth += 1
        elif toks[j][1] in (")", "}", "]", "]]"):
            depth -= 1
            if depth == 0:
                return j
    return len(toks) - 1


class RReader(RCalls):
    def __init__(self, ctx: Context, cwd: str, where: str | None, line: int):
        self.ctx, self.cwd, self.where, self.base = ctx, cwd, where, line
        self.env: dict[str, Val] = {}
        self.funcs: dict[str, tuple[list[str], list]] = {}
        self.plot: Val = EMPTY
        self.sink_to: str | None = None
        self.device: str | None = None
        self.tags: list[Orig] = []
        self.stack: list[str] = []
        self.work = 0

    def run(self, toks: list) -> None:
        for stmt in _split(toks, {";", "\n"}):
            self.statement(stmt, top=True)

    def statement(self, st: list, top: bool = False) -> Val:
        self.work += 1
        if not st or self.work > 20_000:
            return EMPTY
        head = st[0][1]
        if head in ("for", "while", "repeat") and st[0][0] == "id":
            return self.loop(st)
        if head == "if" and st[0][0] == "id":
            return self.branch(st)
        if head == "{":
            end = _close(st, 0)
            for sub in _split(st[1:end], {";", "\n"}):
                self.statement(sub, top)
            return EMPTY
        depth = 0
        for i, (kind, value, _) in enumerate(st):
            if value in ("(", "{", "[", "[["):
                depth += 1
            elif value in (")", "}", "]", "]]"):
                depth -= 1
            elif depth == 0 and kind == "op" and value in ("<-", "<<-", "=", "->", "->>") and i > 0:
                lhs, rhs = (st[:i], st[i + 1:]) if value not in ("->", "->>") else (st[i + 1:], st[:i])
                return self.assign(lhs, rhs)
        value = self.expr(st)
        if top and not self._invisible(st):
            self.output(st, [value], stdout=True, how="printed at top level")
        return value

    def _invisible(self, st: list) -> bool:
        return st[0][0] == "id" and (st[0][1] in INVISIBLE or st[0][1] in self.funcs or st[0][1] in WRITERS or
                                     (len(st) > 1 and st[1][1] == "::" and len(st) > 2 and st[2][1] in INVISIBLE))

    def assign(self, lhs: list, rhs: list) -> Val:
        if rhs and rhs[0][1] == "function":
            end = _close(rhs, 1)
            params = [p[0][1] for p in _split(rhs[2:end], {","}) if p and p[0][0] == "id"]
            if lhs and lhs[0][0] in ("id", "bt"):
                self.funcs[lhs[0][1].strip("`")] = (params, rhs[end + 1:])
            return EMPTY
        value = self.expr(rhs, data=True)
        if self.tags:
            value = Val(value.origins | frozenset(self.tags), path=value.path)
        name = next((t[1].strip("`") for t in lhs if t[0] in ("id", "bt")), None)
        if name:
            if len(lhs) > 1 and name in self.env:  # x$col <- ..., x[i] <- ...
                value = union(self.env[name], value)
            self.env[name] = value
        return value

    def loop(self, st: list) -> Val:
        computing = False
        body_start = 1
        if st[1][1] == "(":
            end = _close(st, 1)
            inner = st[2:end]
            if st[0][1] == "for" and any(t[1] == "in" for t in inner):
                k = next(i for i, t in enumerate(inner) if t[1] == "in")
                it = self.expr(inner[k + 1:])
                self.env[inner[0][1]] = Val(it.origins, path=it.path)
                computing = not any(o.kind in ("file", "step", "text") for o in it.origins)
            body_start = end + 1
        body = st[body_start:]
        computing = computing and any(t[1] in ("*", "/", "^", "-") for t in body) or any(
            t[1] in COMPUTE for t in body)
        if computing:
            self.tags.append(Orig("compute", f"loop at line {self.base + st[0][2]}", how="a computation loop"))
        try:
            self.statement(body)
        finally:
            if computing:
                self.tags.pop()
        return EMPTY

    def branch(self, st: list) -> Val:
        end = _close(st, 1)
        self.expr(st[2:end])
        rest = st[end + 1:]
        depth, split = 0, len(rest)
        for i, (_, v, _) in enumerate(rest):
            if v in ("(", "{", "[", "[["):
                depth += 1
            elif v in (")", "}", "]", "]]"):
                depth -= 1
            elif depth == 0 and v == "else":
                split = i
                break
        self.statement(rest[:split])
        if split < len(rest):
            self.statement(rest[split + 1:])
        return EMPTY

    # ---- expressions
    def expr(self, toks: list, data: bool = False) -> Val:
        vals: list[Val] = []
        i, derived = 0, False
        while i < len(toks):
            kind, value, _ = toks[i]
            if kind in ("id", "bt") and i + 1 < len(toks) and toks[i + 1][1] == "(":
                end = _close(toks, i + 1)
                piped = [vals.pop()] if i > 0 and toks[i - 1][1] in ("%>%", "|>") and vals else []
                vals.append(self.call(value.strip("`"), toks[i + 2:end], toks[i][2], piped))
                i = end + 1
                continue
            if kind in ("id", "bt") and i + 1 < len(toks) and toks[i + 1][1] == "::":
                i += 2  # pkg::fun -> fun
                continue
            if kind in ("id", "bt"):
                name = value.strip("`")
                vals.append(self.env.get(name) or (Val(local=name) if name in self.funcs else EMPTY))
            elif kind == "str":
                text = value[1:-1]
                origins = frozenset({Orig("text", text)}) if any(c.isdigit() for c in text) else frozenset()
                vals.append(Val(origins, path=text))
            elif kind == "num" and data:
                vals.append(Val(frozenset({Orig("literal", value.rstrip("Li"))})))
            elif kind == "op" and value in ("(", "{", "[", "[["):
                end = _close(toks, i)
                inner = self.expr(toks[i + 1:end], data and value in ("(", "{"))
                vals.append(inner if value in ("(", "{") else Val(inner.origins - _texts(inner)))
                i = end + 1
                continue
            elif kind == "op" and value in ("*", "/", "^", "-", "+", "%/%", "%%", "<", ">", "==") and i > 0:
                derived = True
            i += 1
        if len(vals) == 1 and not derived:
            return vals[0]
        joined = union(*vals)
        path = None
        return joined.derive("arithmetic") if derived else Val(joined.origins, path=path)

    def args(self, toks: list, data: bool) -> tuple[list[Val], dict[str, Val]]:
        pos, named = [], {}
        for part in _split(toks, {","}):
            if len(part) > 2 and part[1][1] == "=" and part[0][0] in ("id", "str", "bt"):
                named[part[0][1].strip("`'\"")] = self.expr(part[2:], data)
            elif part:
                pos.append(self.expr(part, data))
        return pos, named

    def _block(self, body: list) -> Val:
        end = _close(body, 0)
        last = EMPTY
        for st in _split(body[1:end], {";", "\n"}):
            last = self.statement(st)
        return last

    def run_command(self, argv: list[str], line: int) -> None:
        from .commands import Call, command

        command(self.ctx, Call(argv=argv, cwd=self.cwd, line=self.base + line, lang="r", text=" ".join(argv),
                               where=self.where))

    def path(self, p: str) -> str:
        if p.startswith(("/", "?", "*", "~")) or not self.cwd:
            return posixpath.normpath(p) if p and not p.startswith("?") else p
        return posixpath.normpath(posixpath.join(self.cwd, p))

    def output(self, toks: list, vals: list[Val], writes: list[str] | None = None, stdout: bool = False, how: str = "",
               line: int | None = None) -> None:
        if self.sink_to and stdout:
            writes, stdout = [self.sink_to], False
        sources = sources_of(vals, how)
        ln = self.base + (line if line is not None else (toks[0][2] if toks else 0))
        text = " ".join(t[1] for t in toks)[:200]
        self.ctx.reading.add(Step(line=ln, text=f"{how}: {text}"[:200], lang="r", sources=sources, writes=writes or [],
                                  stdout=stdout, neutral=not sources, cwd=self.cwd, where=self.where,
                                  implicit_writes=any("?" in w for w in writes or [])))


def _texts(v: Val) -> frozenset:
    return frozenset(o for o in v.origins if o.kind in ("text", "literal"))


def read_r(ctx: Context, text: str, cwd: str = "", where: str | None = None, line: int = 0) -> None:
    """Read R code into steps."""
    RReader(ctx, cwd, where, line).run(tokens(text[:400_000]))
