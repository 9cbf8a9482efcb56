"""Calls into code in the Python reader: the script's own functions (read with their arguments), the artifact's
modules (read where they are called, one module deep), computing libraries and the artifact's code (computations).
"""
from __future__ import annotations

import ast
import posixpath
from typing import TYPE_CHECKING

from .pyvalues import COMPUTE_CALLS, COMPUTE_LIBS, COMPUTE_METHODS, DATA_LIBS, EMPTY, STDLIB, Orig, Val, union

if TYPE_CHECKING:
    from .python import PyReader


class Invocations:
    """Methods of Calls (a mixin: `self.r` is the reader)."""

    r: PyReader

    def _local(self, node, q, last, recv, args, kwargs):
        if not q.startswith("local:"):
            return None
        name = q[len("local:"):]
        if name.startswith("class:"):
            cls = name[len("class:"):]
            obj = Val(union(*args, *kwargs.values()).origins, local="obj:" + cls)
            if f"{cls}.__init__" in self.r.funcs:
                self.invoke(f"{cls}.__init__", node, [obj] + args, kwargs)
            return Val(self.r.env.get(f"__obj__{cls}", obj).origins | obj.origins, local="obj:" + cls)
        if name.startswith("obj:"):
            cls, _, method = name[len("obj:"):].partition(".")
            method = method.split(".")[-1]
            if f"{cls}.{method}" in self.r.funcs:
                return self.invoke(f"{cls}.{method}", node, [recv or EMPTY] + args, kwargs)
            return union(recv or EMPTY, *args).derive(method)
        return self.invoke(name, node, args, kwargs)

    def invoke(self, name: str, node, args: list[Val], kwargs: dict[str, Val]) -> Val:
        """Read a function of the script with these arguments; its value is what it returns."""
        r = self.r
        fn = r.funcs.get(name)
        if fn is None or name in r.stack or len(r.stack) >= 5:
            return union(*args, *kwargs.values()).derive(name)
        saved = dict(r.env)
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        for i, p in enumerate(params):
            r.env[p] = args[i] if i < len(args) else kwargs.get(p, EMPTY)
        defaults = fn.args.defaults
        for p, d in zip(params[len(params) - len(defaults):], defaults):
            if p not in kwargs and params.index(p) >= len(args):
                r.env[p] = r.ev(d, True)
        for kw, kw_default in zip(fn.args.kwonlyargs, fn.args.kw_defaults):
            r.env[kw.arg] = kwargs.get(kw.arg) or (r.ev(kw_default, True) if kw_default is not None else EMPTY)
        if fn.args.vararg:
            r.env[fn.args.vararg.arg] = union(*args[len(params):])
        if fn.args.kwarg:
            r.env[fn.args.kwarg.arg] = union(*kwargs.values())
        r.stack.append(name)
        r.returns.append([])
        try:
            r.block(fn.body)
        finally:
            r.stack.pop()
            returned = r.returns.pop()
            if "." in name and params and params[0] == "self" and args:  # attributes set on self survive the method
                cls = name.split(".")[0]
                r.env = {**saved, f"__obj__{cls}": union(saved.get(f"__obj__{cls}", EMPTY), r.env.get("self", EMPTY))}
            else:
                r.env = saved
        return union(*returned)

    def _compute(self, node, q, last, recv, args, kwargs):
        plain = q.replace("()", "").lstrip("?")
        top = self.module_of(q.replace("()", ""))  # `s = set(); s.add(x)`: a method of a builtin, not of the artifact
        everything = union(recv or EMPTY, *args, *kwargs.values())
        if COMPUTE_CALLS.match(plain) or top in COMPUTE_LIBS:
            return Val(everything.derive(last).origins | {Orig("compute", plain, how=f"calls {plain}")}, qual=f"{q}()")
        artifact = q.startswith("?") or (not q.startswith(".") and top not in STDLIB and top not in DATA_LIBS
                                         and top not in _LOCAL_BUILTINS)
        if artifact:
            read = self._module_function(plain, node, args, kwargs)
            if read is not None:
                return read
            name = plain.replace("__artifact__.", "").lstrip(".")
            return Val(everything.derive(last).origins | {Orig("compute", name, how=f"calls the artifact's {name}")},
                       qual=f"{q}()")
        if q.startswith(".") and last in COMPUTE_METHODS and recv is not None and not any(
                o.kind in ("file", "literal", "text") for o in recv.origins):
            return Val(everything.derive(last).origins | {Orig("compute", last, how=f"calls .{last}()")})
        return None

    def _module_function(self, q: str, node, args: list[Val], kwargs: dict[str, Val]) -> Val | None:
        """A function of the artifact's own modules, read where it is called (one module level deep)."""
        ctx = self.r.ctx
        if not ctx.has_artifact or "." not in q or q.startswith("."):
            return None
        module, func = q.rsplit(".", 1)
        reader = module_reader(ctx, module, self.r.where, self.r.cwd)
        if reader is None or func not in reader.funcs or func in reader.stack:
            return None
        if not ctx.child(f"{reader.where}:{func}"):
            return None
        try:
            value = reader.calls.invoke(func, node, args, kwargs)
        finally:
            ctx.leave()
        return Val(value.origins, path=value.path, qual=f"{q}()")


_LOCAL_BUILTINS = {"print", "open", "len", "sum", "min", "max", "sorted", "round", "str", "int", "float", "list",
                   "dict", "tuple", "set", "zip", "enumerate", "map", "filter", "range", "abs", "format", "repr",
                   "iter", "next", "any", "all", "reversed", "input", "isinstance", "getattr", "setattr", "hasattr",
                   "type", "super", "vars", "bool", "bytes", "chr", "ord", "hex", "divmod", "pow", "hash", "id",
                   "object", "frozenset", "display", "exit", "quit", "globals", "locals", "callable", "issubclass",
                   "sys", "os", "exec", "eval"}


MAX_MODULES = 20


def module_reader(ctx, module: str, where: str | None, cwd: str) -> PyReader | None:
    """A reader holding an artifact module's definitions (its `if __name__ == "__main__"` part not run), or None."""
    from .python import PyReader

    cache = ctx.modules
    if module in cache:
        return cache[module]
    cache[module] = None
    if len(cache) > MAX_MODULES:
        return None
    base = posixpath.dirname(where) if where else cwd
    if module.startswith("__artifact__"):
        rel = module[len("__artifact__"):].lstrip(".").replace(".", "/")
        candidates = [posixpath.join(base, rel)]
    else:
        rel = module.replace(".", "/")
        candidates = [rel, posixpath.join(base, rel), posixpath.join(cwd, rel), posixpath.join("src", rel)]
    for stem in candidates:
        for path in (stem + ".py", posixpath.join(stem, "__init__.py")):
            found = ctx.code(posixpath.normpath(path))
            if found is None:
                continue
            try:
                tree = ast.parse(found[1])
            except (SyntaxError, ValueError):
                return None
            reader = PyReader(ctx, found[1], cwd, found[0])
            reader.as_module = True
            if ctx.child(found[0]):
                try:
                    reader.run(tree)
                finally:
                    ctx.leave()
            cache[module] = reader
            return reader
    return None
