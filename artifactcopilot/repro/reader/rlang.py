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
from .paths import path_kind
from .python import sources_of
from .pyvalues import EMPTY, Orig, Val, union
from .tools import PAPER_LIBS

TOKEN = re.compile(r"""(?P<comment>\#[^\n]*)|(?P<raw>[rR]["'](?P<dash>-*)[(\[{].*?[)\]}](?P=dash)["'])|
    (?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|(?P<bt>`[^`]*`)|
    (?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?[Li]?|0[xX][0-9a-fA-F]+L?)|
    (?P<id>[A-Za-z.][\w.]*)|(?P<nl>\n)|
    (?P<op><<-|->>|<-|->|%[^%\n]*%|\|>|::{1,2}|\[\[|\]\]|==|!=|<=|>=|&&|\|\||[-+*/^~?:$@=<>!&|,;(){}\[\]])|(?P<ws>[ \t\r\f\\]+)""",
                   re.VERBOSE | re.DOTALL)
READERS = re.compile(r"^(read\.\w+|read_\w+|readRDS|readLines|readline|load|fread|scan|fromJSON|vroom|read_rds|"
                     r"readxl|loadWorkbook|read\.xlsx|dbConnect|open_dataset|readtext|read_yaml|yaml\.load_file)$")
WRITERS = {"write.csv", "write.table", "write_csv", "write_tsv", "write.csv2", "saveRDS", "save", "writeLines",
           "write_rds", "fwrite", "write_json", "write_xlsx", "write.xlsx", "ggsave", "save_kable", "write_parquet",
           "print.xtable", "dput", "export", "sink"}
PRINTS = {"print", "cat", "message", "writeLines", "show", "kable", "xtable", "print.xtable", "stargazer", "knit_print",
          "cli_text", "str", "glimpse", "View", "pander", "gt", "huxtable", "flextable"}
AGGREGATE = {"mean", "sum", "sd", "median", "var", "min", "max", "aggregate", "tapply", "table", "nrow", "ncol",
             "length", "quantile", "cor", "lm", "glm", "t.test", "wilcox.test", "chisq.test", "summary", "summarise",
             "summarize", "group_by", "mutate", "count", "n", "prop.table", "colMeans", "rowMeans", "colSums",
             "rowSums", "cumsum", "diff", "scale", "ecdf", "fisher.test", "kruskal.test", "cohen.d", "cliff.delta",
             "coef", "anova", "AIC", "predict", "range", "IQR", "mad", "weighted.mean", "cor.test", "shapiro.test",
             "xtabs", "ftable", "unique", "rank", "order", "tally", "across", "n_distinct", "nlevels", "exp", "log",
             "sqrt", "abs", "prod", "pmin", "pmax", "which.max", "which.min", "rowsum", "ave", "by", "dcast", "melt",
             "pivot_wider", "pivot_longer", "spread", "gather", "sapply", "lapply", "vapply", "mapply", "apply", "Map",
             "Reduce", "do.call", "effsize", "VD.A", "p.adjust", "confint", "TukeyHSD", "aov", "lmer", "glmer"}
COMPUTE = {"runif", "rnorm", "rbinom", "rpois", "rexp", "sample", "replicate", "set.seed", "system.time",
           "Sys.time", "rlaplace", "rgeom", "optim", "optimize", "uniroot", "integrate", "train", "randomForest",
           "xgboost", "svm", "nls", "simulate", "proc.time", "rmultinom", "rbeta", "rgamma", "rcauchy"}
CONSTRUCTORS = {"c", "data.frame", "list", "matrix", "tibble", "tribble", "data.table", "rbind", "cbind", "array",
                "setNames", "vector", "structure", "as.data.frame", "as.numeric", "factor"}
PLOTS = {"plot", "ggplot", "barplot", "hist", "boxplot", "lines", "points", "matplot", "curve", "abline", "text",
         "heatmap", "image", "pie", "dotchart", "stripchart", "mosaicplot", "pairs", "qplot"}
INVISIBLE = {"library", "require", "source", "set.seed", "suppressMessages", "suppressWarnings", "suppressPackageStartupMessages",
             "invisible", "options", "par", "setwd", "dev.off", "pdf", "png", "jpeg", "svg", "dir.create", "rm", "gc",
             "Sys.setenv", "theme_set", "stopifnot", "stop", "warning", "on.exit", "attach", "detach", "sink",
             "registerDoParallel", "install.packages", "cat", "print", "message", "writeLines", "legend", "title",
             "axis", "mtext", "grid", "layout", "close"}


def tokens(text: str) -> list[tuple[str, str, int]]:
    """(kind, text, line) of each token; comments and blanks dropped, newlines kept."""
    out, line = [], 1
    for m in TOKEN.finditer(text):
        kind = m.lastgroup if m.lastgroup not in ("dash",) else "raw"
        value = m.group(0)
        if kind == "raw":
            kind, value = "str", repr(value[2:-1].strip("-")[1:-1])
        if kind not in ("comment", "ws"):
            out.append((kind, value, line))
        line += value.count("\n") if kind != "str" else m.group(0).count("\n")
    return out


def _split(toks: list, sep: set[str]) -> list[list]:
    """Split at depth-0 separators (commas in argument lists, `;`/newlines between statements)."""
    parts, cur, depth = [], [], 0
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


class RReader:
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
        vals, i, derived = [], 0, False
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

    def call(self, name: str, inner: list, line: int, piped: list[Val]) -> Val:
        data = name in CONSTRUCTORS or name in PRINTS
        pos, named = self.args(inner, data)
        pos = piped + pos
        every = pos + list(named.values())
        if name in ("library", "require", "requireNamespace", "p_load"):
            pkg = pos[0].path if pos and pos[0].path else (inner[0][1] if inner else "")
            if pkg in PAPER_LIBS:
                self.ctx.reading.paper.append(f"library({pkg})")
            return EMPTY
        if name in ("pdf_text", "pdf_data", "extract_tables", "extract_text", "pdf_info", "readPDF", "pdf_ocr_text"):
            ref = pos[0].path if pos and pos[0].path else name
            self.ctx.reading.paper.append(f"{name}({ref})")
            return Val(frozenset({Orig("paper", ref, how=name)}))
        if name == "setwd" and pos and pos[0].path:
            self.cwd = posixpath.normpath(posixpath.join(self.cwd, pos[0].path))
            return EMPTY
        if name in ("source", "sys.source") and pos and pos[0].path:
            self.run_command(["Rscript", pos[0].path], line)
            return EMPTY
        if name in ("system", "system2", "shell") and pos and pos[0].path:
            words = [pos[0].path] + [a.path for a in pos[1:] if a.path] + ([named["args"].path] if "args" in named
                                                                            and named["args"].path else [])
            from .shell import read_shell

            read_shell(self.ctx, " ".join(words), self.cwd, self.base + line - 1)
            return EMPTY
        if READERS.match(name):
            target = pos[-1] if name == "dbConnect" and pos else (pos[0] if pos else named.get("file") or named.get("path"))
            if target is not None and target.path:
                path = self.path(target.path)
                kind = "paper" if path_kind(path) == "paper" else "file"
                return Val(frozenset({Orig(kind, path, how=name)}))
        if name == "sink":
            self.sink_to = self.path(pos[0].path) if pos and pos[0].path else None
            return EMPTY
        if name in ("pdf", "png", "jpeg", "svg", "tiff", "cairo_pdf"):
            self.device = self.path(pos[0].path) if pos and pos[0].path else f"Rplot.{name}"
            return EMPTY
        if name == "dev.off":
            if self.device:
                self.output(inner, [self.plot], writes=[self.device], how="plots to " + self.device, line=line)
            self.device = None
            return EMPTY
        if name in PLOTS or name.startswith("geom_"):
            self.plot = union(self.plot, *every).derive("plotted")
            return EMPTY
        if name == "ggsave":
            target = named.get("filename") or (pos[0] if pos else None)
            self.output(inner, [self.plot, *every[1:]], writes=[self.path(target.path) if target and target.path else "?"],
                        how="ggsave", line=line)
            return EMPTY
        if name in WRITERS and name not in ("writeLines",) or (name == "writeLines" and len(pos) > 1):
            target = named.get("file") or named.get("path") or named.get("con") or (pos[1] if len(pos) > 1 else None)
            self.output(inner, pos[:1], writes=[self.path(target.path) if target and target.path else "?"], how=name,
                        line=line)
            return EMPTY
        if name in PRINTS:
            target = named.get("file")
            writes = [self.path(target.path)] if target is not None and target.path else ([self.sink_to] if self.sink_to else [])
            if name in ("kable", "xtable", "stargazer", "gt", "pander", "flextable", "huxtable"):
                return union(*pos)  # formats; printed by the caller or at top level
            self.output(inner, pos, writes=writes, stdout=not writes, how=name, line=line)
            return EMPTY
        if name in self.funcs and name not in self.stack and len(self.stack) < 4:
            return self.invoke(name, pos, named)
        callbacks = [v.local for v in every if v.local and v.local in self.funcs and v.local not in self.stack]
        if callbacks and len(self.stack) < 4:
            results = [self.invoke(f, [union(*(v for v in pos if not v.local))], {}) for f in callbacks]
            every = every + results
        if name in COMPUTE:
            return Val(union(*every).derive(name).origins | {Orig("compute", name, how=f"calls {name}")})
        if name in AGGREGATE:
            return union(*every).derive(name)
        if name in ("file.path", "paste0", "paste", "sprintf", "here", "normalizePath"):
            parts = [a.path or "*" for a in pos]
            joined = "/".join(parts) if name in ("file.path", "here") else "".join(parts).replace("%s", "*")
            return Val(union(*every).origins, path=joined)
        return Val(union(*every).origins, path=pos[0].path if len(pos) == 1 else None)

    def invoke(self, name: str, pos: list[Val], named: dict[str, Val]) -> Val:
        params, body = self.funcs[name]
        saved = dict(self.env)
        for i, p in enumerate(params):
            self.env[p] = named.get(p) or (pos[i] if i < len(pos) else EMPTY)
        self.stack.append(name)
        try:
            computes = any(t[1] in ("for", "while", "repeat") for t in body) and any(t[1] in ("*", "/", "^") for t in body)
            result = self.statement(body) if body and body[0][1] != "{" else self._block(body)
        finally:
            self.stack.pop()
            self.env = saved
        if computes:
            result = Val(result.origins | {Orig("compute", name, how=f"{name} computes in loops")})
        return result

    def _block(self, body: list) -> Val:
        end = _close(body, 0)
        last = EMPTY
        for st in _split(body[1:end], {";", "\n"}):
            last = self.statement(st)
        return last

    def run_command(self, argv: list[str], line: int) -> None:
        from .commands import Call, command

        command(self.ctx, Call(argv=argv, cwd=self.cwd, line=self.base + line, lang="r", text=" ".join(argv)))

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
                                  stdout=stdout, neutral=not sources, cwd=self.cwd,
                                  implicit_writes=any("?" in w for w in writes or [])))


def _texts(v: Val) -> frozenset:
    return frozenset(o for o in v.origins if o.kind in ("text", "literal"))


def read_r(ctx: Context, text: str, cwd: str = "", where: str | None = None, line: int = 0) -> None:
    """Read R code into steps."""
    RReader(ctx, cwd, where, line).run(tokens(text[:400_000]))
