"""The Python reader: walks the script's `ast` once, in order, following values to what it prints and writes.

Functions defined in the script are read where they are called, with the call's arguments; loops
are read once. Each print, write, savefig or subprocess becomes a step whose sources are the
origins of the values it outputs (see pyvalues.py and pycalls.py).
"""
from __future__ import annotations

import ast
import posixpath

from .context import Context
from .literals import numbers_source, text_source
from .model import Source, Step
from .paths import path_kind, role_of
from .pyvalues import EMPTY, Orig, Val, union

MAX_WORK = 40_000
MAX_CALL_DEPTH = 5


class PyReader:
    """One Python program being read into steps of `ctx.reading`."""

    def __init__(self, ctx: Context, source: str, cwd: str = "", where: str | None = None, line: int = 0,
                 argv: list[str] | None = None):
        self.ctx, self.source, self.cwd, self.where, self.base = ctx, source, cwd, where, line
        self.argv = argv
        """The command-line arguments the program was started with, when the command is known."""
        self.positionals: list[str] = []
        self.env: dict[str, Val] = {}
        self.funcs: dict[str, ast.AST] = {}
        self.classes: dict[str, ast.ClassDef] = {}
        self.stack: list[str] = []
        self.returns: list[list[Val]] = []
        self.tags: list[Orig] = []
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
            if display_last and i == len(body) - 1 and isinstance(stmt, ast.Expr) and not _is_call_to(stmt.value, (
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
        joined = union(old, value)
        self.bind(node.target, joined if isinstance(node.op, ast.Add) and _stringish(node.value) else joined.derive("+="))

    def s_Expr(self, node: ast.Expr) -> None:
        value = self.ev(node.value)
        if isinstance(node.value, ast.Call) and not self.as_module and any(o.kind == "compute" for o in value.origins):
            self.effect(node.value, value)

    def effect(self, node: ast.Call, value: Val) -> None:
        """A call to the artifact's code whose value is not kept: it runs for what it writes or prints."""
        from .commands import Call, _program_paths

        words = [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
        _reads, writes = _program_paths(self.ctx, Call(argv=words, cwd=self.cwd), words)
        sources = sources_of([Val(frozenset(o for o in value.origins if o.kind in ("compute", "file", "step", "paper")))],
                             "a call")
        step = Step(line=self.line(node), text=" ".join((self.segment(node) or "").split())[:200], lang="python",
                    sources=sources, writes=writes, stdout=True, implicit_writes=not writes, cwd=self.cwd,
                    program=next((s.ref for s in sources if s.kind == "compute"), None))
        self.ctx.reading.add(step)

    def s_Return(self, node: ast.Return) -> None:
        if self.returns and node.value is not None:
            self.returns[-1].append(self.ev(node.value, data=True))

    def s_For(self, node) -> None:
        it = self.ev(node.iter)
        counted = isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Name) and node.iter.func.id == "range"
        computing = _computes(node.body, counted) and not self.calls.literal_results(it) and \
            not any(o.kind in ("file", "step", "text", "paper") for o in it.origins)
        self.bind(node.target, Val(it.origins, path=it.path))
        self._loop(node, computing)

    s_AsyncFor = s_For

    def s_While(self, node: ast.While) -> None:
        self.ev(node.test)
        self._loop(node, _computes(node.body))

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
        if self.as_module and _is_main_guard(node.test):
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
                merged[name] = _merge(merged[name], value) if name in merged else value
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
            name = _root_name(target)
            if name:
                self.env[name] = union(self.env.get(name, EMPTY), value, self.ev(target.slice, data=True))
        elif isinstance(target, ast.Attribute):
            name = _root_name(target)
            if name:
                self.env[f"{name}.{target.attr}"] = value
                self.env[name] = Val(union(self.env.get(name, EMPTY), value).origins, **_keep(self.env.get(name)))

    # ---- expressions
    def ev(self, node: ast.AST | None, data: bool = False) -> Val:
        if node is None:
            return EMPTY
        self.work += 1
        method = getattr(self, "e_" + type(node).__name__, None)
        if method is None:
            return union(*(self.ev(c, data) for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr)))
        return method(node, data)

    def e_Constant(self, node: ast.Constant, data: bool) -> Val:
        v = node.value
        if isinstance(v, str):
            origins = frozenset({Orig("text", v[:4000])}) if any(ch.isdigit() for ch in v) and len(v) < 200_000 else frozenset()
            return Val(origins, path=v if len(v) < 400 else None)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and data:
            return Val(frozenset({Orig("literal", self.segment(node) or repr(v))}))
        return EMPTY

    def e_UnaryOp(self, node: ast.UnaryOp, data: bool) -> Val:
        if isinstance(node.operand, ast.Constant) and isinstance(node.op, ast.USub) and data:
            inner = self.e_Constant(node.operand, data)
            return Val(frozenset(o._replace(ref="-" + o.ref) for o in inner.origins))
        return self.ev(node.operand, data)

    def e_JoinedStr(self, node: ast.JoinedStr, data: bool) -> Val:
        parts, vals, text = [], [], []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
                text.append(str(v.value))
            elif isinstance(v, ast.FormattedValue):
                val = self.ev(v.value, data=True)
                vals.append(val)
                parts.append(val.path if val.path and "\n" not in val.path else "*")
                text.append(" ")
        joined = "".join(text)
        origins = union(*vals).origins | (frozenset({Orig("text", joined)}) if any(c.isdigit() for c in joined) else frozenset())
        return Val(origins, path="".join(parts))

    def e_Name(self, node: ast.Name, data: bool) -> Val:
        if node.id == "__file__":
            return Val(path=f"?root/{self.where}" if self.where else "?script/__file__")
        return self.env.get(node.id) or (Val(qual=node.id) if node.id in _BUILTINS else Val(qual="?" + node.id))

    def e_Attribute(self, node: ast.Attribute, data: bool) -> Val:
        name = _root_name(node)
        if isinstance(node.value, ast.Name) and f"{node.value.id}.{node.attr}" in self.env:
            return self.env[f"{node.value.id}.{node.attr}"]
        base = self.ev(node.value)
        if base.namespace:
            return Val(path=self.option(node.attr))
        if base.qual and not base.origins:
            return Val(qual=f"{base.qual}.{node.attr}")
        if node.attr in ("parent", "parents") and base.path is not None:
            return Val(base.origins, path=_dirname(base.path))
        if node.attr in ("name", "stem", "suffix"):
            return Val(base.origins)
        if base.local and base.local.startswith("obj:"):
            return Val(base.origins, local=base.local + "." + node.attr)
        del name
        return Val(base.origins, path=base.path, qual=(base.qual + "." + node.attr) if base.qual else None,
                   write=base.write)

    def e_Subscript(self, node: ast.Subscript, data: bool) -> Val:
        base = self.ev(node.value)
        if base.qual in ("sys.argv", "os.environ") or (base.qual or "").endswith(".argv"):
            idx = node.slice.value if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int) else None
            if base.qual != "os.environ" and idx is not None and self.argv is not None and 0 < idx <= len(self.argv):
                return Val(path=self.argv[idx - 1])
            return Val(path="?")
        self.ev(node.slice)
        return Val(base.origins, path=base.path if base.path is not None and base.path.endswith("*") else None,
                   write=base.write)

    def e_BinOp(self, node: ast.BinOp, data: bool) -> Val:
        left, right = self.ev(node.left, data and _const(node.right)), self.ev(node.right, data and _const(node.left))
        if isinstance(node.op, ast.Div) and left.path is not None and not left.origins - _texts(left):
            return Val(left.origins | right.origins - _texts(right), path=_join(left.path, right.path))
        if isinstance(node.op, (ast.Add, ast.Mod)) and (left.path is not None or right.path is not None) and \
                (isinstance(node.left, (ast.Constant, ast.JoinedStr)) or isinstance(node.right, (ast.Constant, ast.JoinedStr))
                 or left.path is not None and right.path is not None):
            path = (left.path or "*") + ("" if isinstance(node.op, ast.Mod) else (right.path or "*"))
            return Val(union(left, right).origins, path=path.replace("%s", "*").replace("%d", "*"))
        if isinstance(node.op, (ast.Mult, ast.Div)) and (_const(node.left) or _const(node.right)):
            return union(left, right)  # scaling (x * 100) is reformatting
        return union(left, right).derive("arithmetic")

    def e_BoolOp(self, node, data: bool) -> Val:
        vals = [self.ev(v, data) for v in node.values]
        return Val(union(*vals).origins, path=next((v.path for v in vals if v.path), None))

    def e_Compare(self, node, data: bool) -> Val:
        return union(self.ev(node.left), *(self.ev(c) for c in node.comparators)).derive("comparison")

    def e_IfExp(self, node, data: bool) -> Val:
        self.ev(node.test)
        body, other = self.ev(node.body, data), self.ev(node.orelse, data)
        return Val(union(body, other).origins, path=body.path or other.path)

    def e_Call(self, node: ast.Call, data: bool) -> Val:
        return self.calls.call(node)

    def e_List(self, node, data: bool) -> Val:
        vals = [self.ev(e, True) for e in node.elts]
        return Val(union(*vals).origins, path=vals[0].path if len(vals) == 1 else None)

    e_Tuple = e_Set = e_List

    def e_Dict(self, node: ast.Dict, data: bool) -> Val:
        return union(*(self.ev(k, True) for k in node.keys if k is not None), *(self.ev(v, True) for v in node.values))

    def e_ListComp(self, node, data: bool) -> Val:
        for gen in node.generators:
            it = self.ev(gen.iter)
            self.bind(gen.target, Val(it.origins, path=it.path))
            for cond in gen.ifs:
                self.ev(cond)
        if isinstance(node, ast.DictComp):
            return union(self.ev(node.key, True), self.ev(node.value, True))
        return self.ev(node.elt, True)

    e_SetComp = e_GeneratorExp = e_DictComp = e_ListComp

    def e_Lambda(self, node, data: bool) -> Val:
        return EMPTY

    def e_NamedExpr(self, node, data: bool) -> Val:
        value = self.ev(node.value, data)
        self.bind(node.target, value)
        return value

    def e_Starred(self, node, data: bool) -> Val:
        return self.ev(node.value, data)

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
        first, last = node.col_offset, node.end_col_offset
        if start == end:
            return lines[start - 1][first:last].decode("utf-8", "replace")
        parts = [lines[start - 1][first:]] + lines[start:end - 1] + [lines[end - 1][:last]]
        return b"".join(parts).decode("utf-8", "replace")

    def sink(self, node: ast.AST, vals: list[Val], writes: list[str] | None = None, stdout: bool = False, how: str = "") -> None:
        """An output statement: one step whose sources are the origins of what it outputs."""
        sources = sources_of(vals, how)
        writes = [self.path_of(w) for w in (writes or [])]
        key = (self.line(node), tuple(sorted(s.model_dump_json() for s in sources)), tuple(writes), stdout)
        if key in self.seen:
            return
        self.seen.add(key)
        text = " ".join((self.segment(node) or how).split())[:200]
        step = Step(line=self.line(node), text=text, lang="python", sources=sources, writes=writes, stdout=stdout,
                    neutral=not sources, cwd=self.cwd, implicit_writes=any("?" in w for w in writes))
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


def sources_of(vals: list[Val], how: str) -> list[Source]:
    """Sources of an output from the values it outputs (literal numbers count only where nothing computed them)."""
    out: list[Source] = []
    numbers: list[str] = []
    # Labels (row names, keys) come from the same file as the values; one derived value means the file was computed on.
    derived = {o.ref for v in vals for o in v.origins if o.kind == "file" and o.derived}
    for v in vals:
        # numbers combined with loaded or computed data in one value are parameters (scales, offsets, settings)
        computed = any(o.kind in ("compute", "file", "step") for o in v.origins)
        for o in sorted(v.origins):
            if o.kind == "file":
                kind = "paper" if path_kind(o.ref) == "paper" else "file"
                use = "derive" if o.derived or o.ref in derived else "display"
                out.append(Source(kind=kind, ref=o.ref, use=use, how=o.how or how))
            elif o.kind == "literal" and not computed:
                numbers.append(o.ref)
            elif o.kind == "text" and not computed and not o.derived:
                src = text_source(o.ref, how or "a string in the script")
                if src is not None and (src.table or src.irregular):
                    out.append(src)
            elif o.kind == "compute":
                out.append(Source(kind="compute", ref=o.ref, role=role_of(o.ref.split(".")[-1].split(" ")[0]),
                                  how=o.how or "computes"))
            elif o.kind == "paper":
                out.append(Source(kind="paper", ref=o.ref, how=o.how or "reads the paper"))
            elif o.kind == "step":
                out.append(Source(kind="step", ref=o.ref, use="derive" if o.derived else "display", how="captured output"))
    src = numbers_source(numbers, "numbers written in the script")
    if src is not None:
        out.append(src)
    unique: dict[str, Source] = {}
    for s in out:
        unique.setdefault(f"{s.kind}|{s.ref}|{s.use}|{s.numbers}", s)
    return list(unique.values())[:60]


_BUILTINS = {"print", "open", "len", "sum", "min", "max", "sorted", "round", "str", "int", "float", "list", "dict", "tuple",
             "set", "zip", "enumerate", "map", "filter", "range", "abs", "format", "repr", "iter", "next", "any", "all",
             "reversed", "input", "exec", "eval", "isinstance", "getattr", "setattr", "hasattr", "type", "super",
             "vars", "bool", "bytes", "chr", "ord", "hex", "divmod", "pow", "hash", "id", "object", "frozenset",
             "Exception", "ValueError", "KeyError", "RuntimeError", "display"}


def _is_main_guard(test: ast.AST) -> bool:
    return isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"


def _merge(a: Val, b: Val) -> Val:
    if a == b:
        return a
    return Val(a.origins | b.origins, path=a.path or b.path, qual=a.qual or b.qual, write=a.write or b.write,
               local=a.local or b.local, namespace=a.namespace or b.namespace)


def _is_call_to(node: ast.AST, names: tuple[str, ...]) -> bool:
    if not isinstance(node, ast.Call):
        return isinstance(node, (ast.Constant,))
    f = node.func
    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
    return name in names


def _root_name(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _keep(v: Val | None) -> dict:
    return {"path": v.path, "qual": v.qual, "write": v.write, "local": v.local} if v else {}


def _const(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)


def _stringish(node: ast.AST) -> bool:
    return isinstance(node, (ast.JoinedStr,)) or (isinstance(node, ast.Constant) and isinstance(node.value, str)) or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("str", "format", "repr"))


def _texts(v: Val) -> frozenset:
    return frozenset(o for o in v.origins if o.kind == "text")


def _join(left: str, right: str | None) -> str:
    return posixpath.join(left, right or "*") if left else (right or "*")


def _dirname(path: str) -> str:
    if path in ("?script", "?root"):
        return path  # above the script's folder or the artifact's root: unknown, kept
    d = posixpath.dirname(path.rstrip("/"))
    return d if d else ("." if not path.startswith("?") else path)


_MATH = {"exp", "log", "log2", "log10", "sqrt", "factorial", "pow", "sin", "cos", "tan", "comb", "gamma", "lgamma", "erf",
         "expm1", "log1p", "power", "matmul", "dot", "inv", "solve", "norm", "random", "normal", "laplace", "uniform",
         "randint", "choice", "binomial", "poisson", "exponential", "rand", "randn", "integrate", "quad", "minimize"}


def _computes(body: list[ast.stmt], counted: bool = True) -> bool:
    """A loop that computes: math or random functions, or (over a range, or a while loop) products, powers and
    accumulations between variables. A loop over categories that filters and plots does not."""
    for node in ast.walk(ast.Module(body=body, type_ignores=[])):
        if counted and isinstance(node, ast.BinOp) and \
                isinstance(node.op, (ast.Mult, ast.Div, ast.Pow, ast.Sub, ast.FloorDiv, ast.Mod)) and \
                not _const(node.left) and not _const(node.right) and not isinstance(node.left, (ast.Constant, ast.JoinedStr)):
            return True
        if counted and isinstance(node, ast.AugAssign) and not isinstance(node.op, ast.Add) and not _const(node.value):
            return True
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if name in _MATH:
                return True
    return False
