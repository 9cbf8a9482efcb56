"""The Python reader: walks the script's `ast` once, in order, following values to what it prints and writes.

Functions defined in the script are read where they are called, with the call's arguments; loops
are read once. Each print, write, savefig or subprocess becomes a step whose sources are the
origins of the values it outputs (see pyvalues.py and pycalls.py).
"""
from __future__ import annotations

import ast
import posixpath

from .context import Context
from .model import Step
from .pyexpr import Expressions
from .pyhelp import is_call_to, is_main_guard, kept_fields, loop_computes, merge, root_name, sources_of, stringish
from .pyvalues import EMPTY, Orig, Val, union

__all__ = ["PyReader", "sources_of"]

MAX_WORK = 40_000
COUNTED = "a count over its records"


class PyReader(Expressions):
    """One Python program being read into steps of `ctx.reading`."""

    def __init__(self, ctx: Context, source: str, cwd: str = "", where: str | None = None, line: int = 0,
                 argv: list[str] | None = None):
        self.ctx, self.source, self.cwd, self.where, self.base = ctx, source, cwd, where, line
        self.argv = argv
        """The command-line arguments the program was started with, when the command is known."""
        self.positionals: list[str] = []
        self.env: dict[str, Val] = {}
        self.funcs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self.classes: dict[str, ast.ClassDef] = {}
        self.stack: list[str] = []
        self.returns: list[list[Val]] = []
        self.tags: list[Orig] = []
        self.over: list[frozenset] = []
        """The data records of the loops being read (what a counter in them counts)."""
        self.plot: Val = EMPTY
        self.argdefaults: dict[str, str] = {}
        self.work = 0
        self.seen: set = set()
        self._lines: tuple[str, list[bytes]] | None = None
        self.as_module = False
        """Read as an imported module: its `if __name__ == "__main__"` part does not run."""
        from .pycalls import Calls

        self.calls = Calls(self)

    # ---- entry points
    def run(self, tree: ast.Module, display_last: bool = False) -> None:
        body = tree.body
        for i, stmt in enumerate(body):
            if display_last and i == len(body) - 1 and isinstance(stmt, ast.Expr) and not is_call_to(stmt.value, (
                    "print", "show", "display", "savefig", "plot", "close", "write", "set_title", "legend")):
                value = self.ev(stmt.value, data=True)
                self.sink(stmt, [value], stdout=True, how="the notebook displays")
                continue
            self.stmt(stmt)

    # ---- statements
    def stmt(self, node: ast.AST) -> None:
        self.work += 1
        if self.work > MAX_WORK:
            return
        method = getattr(self, "s_" + type(node).__name__, None)
        if method is not None:
            method(node)
            return
        for child in ast.iter_child_nodes(node):  # Global, Raise, Assert, Delete, ...
            if isinstance(child, ast.expr):
                self.ev(child)

    def block(self, stmts: list[ast.stmt]) -> None:
        for s in stmts:
            self.stmt(s)

    def s_FunctionDef(self, node) -> None:
        self.funcs[node.name] = node
        self.env[node.name] = Val(local=node.name)

    s_AsyncFunctionDef = s_FunctionDef

    def s_ClassDef(self, node: ast.ClassDef) -> None:
        self.classes[node.name] = node
        self.env[node.name] = Val(local="class:" + node.name)
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.funcs.setdefault(f"{node.name}.{item.name}", item)

    def s_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.asname:
                self.env[alias.asname] = Val(qual=alias.name)
            else:
                top = alias.name.split(".")[0]
                self.env[top] = Val(qual=top)
            self.calls.note_import(alias.name)

    def s_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = ("__artifact__" + ("." + node.module if node.module else "")) if node.level else (node.module or "")
        self.calls.note_import(module)
        for alias in node.names:
            if alias.name != "*":
                self.env[alias.asname or alias.name] = Val(qual=f"{module}.{alias.name}" if module else alias.name)
                self.calls.note_import(f"{module}.{alias.name}")

    def s_Assign(self, node: ast.Assign) -> None:
        value = self.ev(node.value, data=True)
        for target in node.targets:
            self.bind(target, value)

    def s_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.bind(node.target, self.ev(node.value, data=True))

    def s_AugAssign(self, node: ast.AugAssign) -> None:
        value = self.ev(node.value, data=True)
        old = self.ev(node.target)
        if isinstance(node.op, ast.Add) and stringish(node.value):  # text built up row by row: reformatting
            self.bind(node.target, union(old, value))
            return
        self.bind(node.target, union(old, value, *(Val(records) for records in self.over)).derive("+="))

    def s_Expr(self, node: ast.Expr) -> None:
        value = self.ev(node.value)
        if isinstance(node.value, ast.Call) and not self.as_module and any(o.kind == "compute" for o in value.origins):
            self.effect(node.value, value)

    def effect(self, node: ast.Call, value: Val) -> None:
        """A call to the artifact's code whose value is not kept: it runs for what it writes or prints."""
        from .commands import Call, _program_paths

        words = [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
        _reads, writes = _program_paths(self.ctx, Call(argv=words, cwd=self.cwd), words)
        sources = sources_of([Val(frozenset(o for o in value.origins
                                            if o.kind in ("compute", "file", "step", "paper")))], "a call")
        step = Step(line=self.line(node), text=" ".join((self.segment(node) or "").split())[:200], lang="python",
                    sources=sources, writes=writes, stdout=True, implicit_writes=not writes, cwd=self.cwd,
                    where=self.where, program=next((s.ref for s in sources if s.kind == "compute"), None))
        self.ctx.reading.add(step)

    def s_Return(self, node: ast.Return) -> None:
        if self.returns and node.value is not None:
            self.returns[-1].append(self.ev(node.value, data=True))

    def s_For(self, node) -> None:
        it = self.ev(node.iter)
        counted = (isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Name)
                   and node.iter.func.id == "range")
        computing = loop_computes(node.body, counted) and not self.calls.literal_results(it) and \
            not any(o.kind in ("file", "step", "text", "paper") for o in it.origins)
        self.bind(node.target, Val(it.origins, path=it.path))
        records = frozenset(o._replace(derived=True, how=COUNTED, ops=o.ops | {COUNTED}) for o in it.origins
                            if o.kind in ("file", "step"))
        self.over.append(records)  # `n += 1` in the loop counts the records it goes over
        try:
            self._loop(node, computing)
        finally:
            self.over.pop()

    s_AsyncFor = s_For

    def s_While(self, node: ast.While) -> None:
        self.ev(node.test)
        self._loop(node, loop_computes(node.body))

    def _loop(self, node, computing: bool) -> None:
        if computing:
            self.tags.append(Orig("compute", f"loop at line {self.line(node)}", how="a computation loop"))
        try:
            self.block(node.body)
            self.block(node.orelse)
        finally:
            if computing:
                self.tags.pop()

    def s_If(self, node: ast.If) -> None:
        if self.as_module and is_main_guard(node.test):
            return
        self.ev(node.test)
        self.branches([node.body, node.orelse])

    def branches(self, blocks: list[list[ast.stmt]]) -> None:
        """Alternative blocks start from the same values; afterwards a name holds what any of them gave it."""
        start = dict(self.env)
        results = []
        for body in blocks:
            self.env = dict(start)
            self.block(body)
            results.append(self.env)
        merged = dict(start) if any(not b for b in blocks) else {}
        for env in results:
            for name, value in env.items():
                merged[name] = merge(merged[name], value) if name in merged else value
        self.env = merged

    def s_With(self, node) -> None:
        for item in node.items:
            value = self.ev(item.context_expr)
            if item.optional_vars is not None:
                self.bind(item.optional_vars, value)
        self.block(node.body)

    s_AsyncWith = s_With

    def s_Try(self, node) -> None:
        self.branches([node.body + node.orelse] + [h.body for h in node.handlers])
        self.block(node.finalbody)

    s_TryStar = s_Try

    def s_Match(self, node) -> None:
        self.ev(node.subject)
        self.branches([case.body for case in node.cases] + [[]])

    # ---- binding
    def bind(self, target: ast.AST, value: Val) -> None:
        if self.tags:
            value = Val(value.origins | frozenset(self.tags), value.path, value.qual, value.write, value.local,
                        value.namespace)
        if isinstance(target, ast.Name):
            self.env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                self.bind(elt, Val(value.origins, path=value.path))
        elif isinstance(target, ast.Starred):
            self.bind(target.value, value)
        elif isinstance(target, ast.Subscript):
            name = root_name(target)
            if name:
                self.env[name] = union(self.env.get(name, EMPTY), value, self.ev(target.slice, data=True))
        elif isinstance(target, ast.Attribute):
            name = root_name(target)
            if name:
                self.env[f"{name}.{target.attr}"] = value
                self.env[name] = Val(union(self.env.get(name, EMPTY), value).origins, **kept_fields(self.env.get(name)))

    def option(self, dest: str) -> str:
        """The value of an argparse option: from the command line when known, else its default, else '?'."""
        argv = self.argv or []
        names = {"--" + dest, "--" + dest.replace("_", "-"), "-" + dest}
        for i, a in enumerate(argv):
            opt, eq, val = a.partition("=")
            if opt in names:
                return val if eq else (argv[i + 1] if i + 1 < len(argv) else "?")
        if dest in self.positionals:
            free, i = [], 0
            while i < len(argv):
                if argv[i].startswith("-"):
                    i += 1 if "=" in argv[i] or i + 1 >= len(argv) or argv[i + 1].startswith("-") else 2
                    continue
                free.append(argv[i])
                i += 1
            k = self.positionals.index(dest)
            if k < len(free):
                return free[k]
        return self.argdefaults.get(dest, "?")

    # ---- outputs
    def line(self, node: ast.AST) -> int:
        return self.base + getattr(node, "lineno", 0)

    def segment(self, node: ast.AST) -> str | None:
        """The source text of `node` (ast.get_source_segment, with the lines split once)."""
        start, end = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
        if start is None or end is None:
            return None
        if self._lines is None or self._lines[0] is not self.source:
            self._lines = (self.source, [ln.encode("utf-8") for ln in self.source.splitlines(keepends=True)])
        lines = self._lines[1]
        if end > len(lines):
            return None
        first, last = getattr(node, "col_offset", 0), getattr(node, "end_col_offset", None)
        if start == end:
            return lines[start - 1][first:last].decode("utf-8", "replace")
        parts = [lines[start - 1][first:]] + lines[start:end - 1] + [lines[end - 1][:last]]
        return b"".join(parts).decode("utf-8", "replace")

    def sink(self, node: ast.AST, vals: list[Val], writes: list[str] | None = None, stdout: bool = False,
             how: str = "") -> None:
        """An output statement: one step whose sources are the origins of what it outputs."""
        if self.over:  # inside the loop, a count of the records gone over so far numbers the rows it shows
            live = {(o.kind, o.ref) for records in self.over for o in records}
            vals = [Val(frozenset(o for o in v.origins if o.how != COUNTED or (o.kind, o.ref) not in live),
                        **kept_fields(v)) for v in vals]
        sources = sources_of(vals, how)
        writes = [self.path_of(w) for w in (writes or [])]
        key = (self.line(node), tuple(sorted(s.model_dump_json() for s in sources)), tuple(writes), stdout)
        if key in self.seen:
            return
        self.seen.add(key)
        text = " ".join((self.segment(node) or how).split())[:200]
        step = Step(line=self.line(node), text=text, lang="python", sources=sources, writes=writes, stdout=stdout,
                    neutral=not sources, cwd=self.cwd, implicit_writes=any("?" in w for w in writes), where=self.where)
        self.ctx.reading.add(step)

    def path_of(self, path: str) -> str:
        """A path as the script names it, relative to the run's folder ('?' kept for an unknown part)."""
        if path == "?root" or path.startswith("?root/"):  # from __file__ of an artifact program: artifact-relative
            norm = posixpath.normpath(path[len("?root"):].lstrip("/") or ".")
            return "" if norm == "." else norm
        if path.startswith("?script"):  # from __file__ of the submitted script: its folder is where it runs
            path = path[len("?script"):].lstrip("/")
        if not path.startswith(("/", "?", "*")) and self.cwd:
            path = posixpath.join(self.cwd, path)
        norm = posixpath.normpath(path) if path else path
        return "" if norm == "." else norm
