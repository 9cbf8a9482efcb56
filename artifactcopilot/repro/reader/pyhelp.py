"""Helpers of the Python reader: sources of an output, loop and branch rules, small AST predicates."""
from __future__ import annotations

import ast
import posixpath

from .literals import numbers_source, text_source
from .model import Source
from .paths import path_kind, role_of
from .pyvalues import Val


def sources_of(vals: list[Val], how: str) -> list[Source]:
    """Sources of an output from the values it outputs (literal numbers count only where nothing computed them)."""
    out: list[Source] = []
    numbers: list[str] = []
    # Labels (row names, keys) come from the same file as the values; one derived value means the file was computed on.
    derived = {o.ref for v in vals for o in v.origins if o.kind == "file" and o.derived}
    ops: dict[str, set[str]] = {}
    for v in vals:
        for o in v.origins:
            if o.kind == "file" and o.derived:
                ops.setdefault(o.ref, set()).update(o.ops)
    for v in vals:
        # numbers combined with loaded or computed data in one value are parameters (scales, offsets, settings)
        computed = any(o.kind in ("compute", "file", "step") for o in v.origins)
        for o in sorted(v.origins):
            if o.kind == "file":
                kind = "paper" if path_kind(o.ref) == "paper" else "file"
                use = "derive" if o.derived or o.ref in derived else "display"
                out.append(Source(kind=kind, ref=o.ref, use=use, how=o.how or how, ops=sorted(ops.get(o.ref, ()))))
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
                out.append(Source(kind="step", ref=o.ref, use="derive" if o.derived else "display",
                                  how="captured output"))
    src = numbers_source(numbers, "numbers written in the script")
    if src is not None:
        out.append(src)
    unique: dict[str, Source] = {}
    for s in out:
        unique.setdefault(f"{s.kind}|{s.ref}|{s.use}|{s.numbers}", s)
    return list(unique.values())[:60]


BUILTINS = {"print", "open", "len", "sum", "min", "max", "sorted", "round", "str", "int", "float", "list", "dict",
            "tuple", "set", "zip", "enumerate", "map", "filter", "range", "abs", "format", "repr", "iter", "next",
            "any", "all", "reversed", "input", "exec", "eval", "isinstance", "getattr", "setattr", "hasattr", "type",
            "super", "vars", "bool", "bytes", "chr", "ord", "hex", "divmod", "pow", "hash", "id", "object", "frozenset",
            "Exception", "ValueError", "KeyError", "RuntimeError", "display"}


def is_main_guard(test: ast.AST) -> bool:
    return isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"


def merge(a: Val, b: Val) -> Val:
    if a == b:
        return a
    return Val(a.origins | b.origins, path=a.path or b.path, qual=a.qual or b.qual, write=a.write or b.write,
               local=a.local or b.local, namespace=a.namespace or b.namespace)


def is_call_to(node: ast.AST, names: tuple[str, ...]) -> bool:
    if not isinstance(node, ast.Call):
        return isinstance(node, (ast.Constant,))
    f = node.func
    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
    return name in names


def root_name(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def kept_fields(v: Val | None) -> dict:
    return {"path": v.path, "qual": v.qual, "write": v.write, "local": v.local} if v else {}


def is_number_constant(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)


def stringish(node: ast.AST) -> bool:
    return isinstance(node, (ast.JoinedStr,)) or (isinstance(node, ast.Constant) and isinstance(node.value, str)) or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("str", "format", "repr"))


def text_origins(v: Val) -> frozenset:
    return frozenset(o for o in v.origins if o.kind == "text")


def join_path(left: str, right: str | None) -> str:
    return posixpath.join(left, right or "*") if left else (right or "*")


def parent_path(path: str) -> str:
    if path in ("?script", "?root"):
        return path  # above the script's folder or the artifact's root: unknown, kept
    d = posixpath.dirname(path.rstrip("/"))
    return d if d else ("." if not path.startswith("?") else path)


MATH = {"exp", "log", "log2", "log10", "sqrt", "factorial", "pow", "sin", "cos", "tan", "comb", "gamma", "lgamma",
        "erf", "expm1", "log1p", "power", "matmul", "dot", "inv", "solve", "norm", "random", "normal", "laplace",
        "uniform", "randint", "choice", "binomial", "poisson", "exponential", "rand", "randn", "integrate", "quad",
        "minimize"}


def loop_computes(body: list[ast.stmt], counted: bool = True) -> bool:
    """A loop that computes: math or random functions, or (over a range, or a while loop) products, powers and
    accumulations between variables. A loop over categories that filters and plots does not."""
    for node in ast.walk(ast.Module(body=body, type_ignores=[])):
        if counted and isinstance(node, ast.BinOp) and \
                isinstance(node.op, (ast.Mult, ast.Div, ast.Pow, ast.Sub, ast.FloorDiv, ast.Mod)) and \
                not is_number_constant(node.left) and not is_number_constant(node.right) and \
                not isinstance(node.left, (ast.Constant, ast.JoinedStr)):
            return True
        if counted and isinstance(node, ast.AugAssign) and not isinstance(node.op, ast.Add) and \
                not is_number_constant(node.value):
            return True
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if name in MATH:
                return True
    return False
