"""Calls in the R reader: reads (read.csv, readRDS, fread ...), the paper (pdftools), outputs (print, cat,
write.csv, sink, ggsave, dev.off), plots, the script's own functions, computations and aggregations,
and code run through source() and system().
"""
from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

from .paths import path_kind
from .pyvalues import EMPTY, Orig, Val, union
from .tools import PAPER_LIBS

if TYPE_CHECKING:
    from .context import Context

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
FORMATTERS = {"kable", "xtable", "stargazer", "gt", "pander", "flextable", "huxtable"}
PAPER_CALLS = {"pdf_text", "pdf_data", "extract_tables", "extract_text", "pdf_info", "readPDF", "pdf_ocr_text"}
DEVICES = {"pdf", "png", "jpeg", "svg", "tiff", "cairo_pdf"}


class RCalls:
    """Methods of RReader (a mixin: `self` is the reader, which provides what is declared here)."""

    ctx: Context
    cwd: str
    base: int
    env: dict[str, Val]
    funcs: dict[str, tuple[list[str], list]]
    plot: Val
    sink_to: str | None
    device: str | None
    stack: list[str]
    if TYPE_CHECKING:
        def args(self, toks: list, data: bool) -> tuple[list[Val], dict[str, Val]]: ...
        def statement(self, st: list, top: bool = False) -> Val: ...
        def _block(self, body: list) -> Val: ...
        def run_command(self, argv: list[str], line: int) -> None: ...
        def path(self, p: str) -> str: ...
        def output(self, toks: list, vals: list[Val], writes: list[str] | None = None, stdout: bool = False,
                   how: str = "", line: int | None = None) -> None: ...

    def call(self, name: str, inner: list, line: int, piped: list[Val]) -> Val:
        pos, named = self.args(inner, name in CONSTRUCTORS or name in PRINTS)
        pos = piped + pos
        for handler in (self._environment, self._read, self._output):
            out = handler(name, inner, line, pos, named)
            if out is not None:
                return out
        return self._value(name, pos, named)

    def _environment(self, name: str, inner: list, line: int, pos: list[Val], named: dict[str, Val]) -> Val | None:
        """library(), setwd(), source(), system(): what the script loads and runs."""
        first = pos[0].path if pos and pos[0].path else None
        if name in ("library", "require", "requireNamespace", "p_load"):
            if (first or (inner[0][1] if inner else "")) in PAPER_LIBS:
                self.ctx.reading.paper.append(f"library({first or inner[0][1]})")
            return EMPTY
        if name == "setwd" and first:
            self.cwd = posixpath.normpath(posixpath.join(self.cwd, first))
            return EMPTY
        if name in ("source", "sys.source") and first:
            self.run_command(["Rscript", first], line)
            return EMPTY
        if name in ("render", "knit", "quarto_render", "knit2html", "render_site") and first and \
                first.lower().endswith((".rmd", ".qmd", ".ipynb")):  # the document's code runs as it is rendered
            target = named.get("output_file") or named.get("output")
            fmt = named.get("output_format")
            argv = ["quarto", "render", first] + (["--output", target.path] if target and target.path else []) + \
                (["--to", fmt.path] if fmt and fmt.path else ["--to", "md"] if name == "knit" else [])
            self.run_command(argv, line)
            return EMPTY
        if name in ("system", "system2", "shell") and first:
            words = [first] + [a.path for a in pos[1:] if a.path]
            if "args" in named and named["args"].path:
                words.append(named["args"].path)
            from .shell import read_shell

            read_shell(self.ctx, " ".join(words), self.cwd, self.base + line - 1)
            return EMPTY
        return None

    def _read(self, name: str, inner: list, line: int, pos: list[Val], named: dict[str, Val]) -> Val | None:
        if name in PAPER_CALLS:
            ref = pos[0].path if pos and pos[0].path else name
            self.ctx.reading.paper.append(f"{name}({ref})")
            return Val(frozenset({Orig("paper", ref, how=name)}))
        if READERS.match(name):
            target = (pos[-1] if name == "dbConnect" and pos
                      else (pos[0] if pos else named.get("file") or named.get("path")))
            if target is not None and target.path:
                path = self.path(target.path)
                return Val(frozenset({Orig("paper" if path_kind(path) == "paper" else "file", path, how=name)}))
        return None

    def _output(self, name: str, inner: list, line: int, pos: list[Val], named: dict[str, Val]) -> Val | None:
        """Prints, writes, sinks, graphics devices and plots."""
        every = pos + list(named.values())
        target = None
        if name == "sink":
            self.sink_to = self.path(pos[0].path) if pos and pos[0].path else None
        elif name in DEVICES:
            self.device = self.path(pos[0].path) if pos and pos[0].path else f"Rplot.{name}"
        elif name == "dev.off":
            if self.device:
                self.output(inner, [self.plot], writes=[self.device], how="plots to " + self.device, line=line)
            self.device = None
        elif name in PLOTS or name.startswith("geom_"):
            self.plot = union(self.plot, *every).derive("plotted")
        elif name == "ggsave":
            target = named.get("filename") or (pos[0] if pos else None)
            self.output(inner, [self.plot, *every[1:]],
                        writes=[self.path(target.path) if target and target.path else "?"], how="ggsave", line=line)
        elif (name in WRITERS and name != "writeLines") or (name == "writeLines" and len(pos) > 1):
            target = named.get("file") or named.get("path") or named.get("con") or (pos[1] if len(pos) > 1 else None)
            self.output(inner, pos[:1], writes=[self.path(target.path) if target and target.path else "?"], how=name,
                        line=line)
        elif name in FORMATTERS:
            return union(*pos)  # formats; printed by the caller or at top level
        elif name in PRINTS:
            target = named.get("file")
            writes = [self.path(target.path)] if target is not None and target.path else \
                ([self.sink_to] if self.sink_to else [])
            self.output(inner, pos, writes=writes, stdout=not writes, how=name, line=line)
        else:
            return None
        return EMPTY

    def _value(self, name: str, pos: list[Val], named: dict[str, Val]) -> Val:
        """What any other call returns: the script's functions are read, computations and aggregations marked."""
        every = pos + list(named.values())
        if name in self.funcs and name not in self.stack and len(self.stack) < 4:
            return self.invoke(name, pos, named)
        callbacks = [v.local for v in every if v.local and v.local in self.funcs and v.local not in self.stack]
        if callbacks and len(self.stack) < 4:
            every = every + [self.invoke(f, [union(*(v for v in pos if not v.local))], {}) for f in callbacks]
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
            computes = (any(t[1] in ("for", "while", "repeat") for t in body)
                        and any(t[1] in ("*", "/", "^") for t in body))
            result = self.statement(body) if body and body[0][1] != "{" else self._block(body)
        finally:
            self.stack.pop()
            self.env = saved
        if computes:
            result = Val(result.origins | {Orig("compute", name, how=f"{name} computes in loops")})
        return result
