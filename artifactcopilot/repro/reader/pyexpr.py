"""Expressions in the Python reader: each AST expression evaluated to a value with origins (pyvalues.Val).

Paths are followed through string operations, f-strings, `Path(...) / "x"` and `__file__`; numbers
become literal origins only where they are data (containers, assignments, printed values).
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from .pyhelp import BUILTINS, is_number_constant, join_path, parent_path, root_name, text_origins
from .pyvalues import EMPTY, Orig, Val, union

if TYPE_CHECKING:
    from .pycalls import Calls


class Expressions:
    """The e_* methods of PyReader (a mixin: `self` is the reader, which provides what is declared here)."""

    work: int
    where: str | None
    argv: list[str] | None
    env: dict[str, Val]
    calls: Calls
    if TYPE_CHECKING:
        def segment(self, node: ast.AST) -> str | None: ...
        def option(self, dest: str) -> str: ...
        def bind(self, target: ast.AST, value: Val) -> None: ...

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
            origins = (frozenset({Orig("text", v[:4000])}) if any(ch.isdigit() for ch in v) and len(v) < 200_000
                       else frozenset())
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
        origins = union(*vals).origins | (frozenset({Orig("text", joined)}) if any(c.isdigit() for c in joined)
                                          else frozenset())
        return Val(origins, path="".join(parts))

    def e_Name(self, node: ast.Name, data: bool) -> Val:
        if node.id == "__file__":
            return Val(path=f"?root/{self.where}" if self.where else "?script/__file__")
        return self.env.get(node.id) or (Val(qual=node.id) if node.id in BUILTINS else Val(qual="?" + node.id))

    def e_Attribute(self, node: ast.Attribute, data: bool) -> Val:
        name = root_name(node)
        if isinstance(node.value, ast.Name) and f"{node.value.id}.{node.attr}" in self.env:
            return self.env[f"{node.value.id}.{node.attr}"]
        base = self.ev(node.value)
        if base.namespace:
            return Val(path=self.option(node.attr))
        if base.qual and not base.origins:
            return Val(qual=f"{base.qual}.{node.attr}")
        if node.attr in ("parent", "parents") and base.path is not None:
            return Val(base.origins, path=parent_path(base.path))
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
            idx = (node.slice.value if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int)
                   else None)
            if base.qual != "os.environ" and idx is not None and self.argv is not None and 0 < idx <= len(self.argv):
                return Val(path=self.argv[idx - 1])
            return Val(path="?")
        self.ev(node.slice)
        return Val(base.origins, path=base.path if base.path is not None and base.path.endswith("*") else None,
                   write=base.write)

    def e_BinOp(self, node: ast.BinOp, data: bool) -> Val:
        left, right = (self.ev(node.left, data and is_number_constant(node.right)),
                       self.ev(node.right, data and is_number_constant(node.left)))
        if isinstance(node.op, ast.Div) and left.path is not None and not left.origins - text_origins(left):
            return Val(left.origins | right.origins - text_origins(right), path=join_path(left.path, right.path))
        if isinstance(node.op, (ast.Add, ast.Mod)) and (left.path is not None or right.path is not None) and \
                (isinstance(node.left, (ast.Constant, ast.JoinedStr))
                 or isinstance(node.right, (ast.Constant, ast.JoinedStr))
                 or left.path is not None and right.path is not None):
            path = (left.path or "*") + ("" if isinstance(node.op, ast.Mod) else (right.path or "*"))
            return Val(union(left, right).origins, path=path.replace("%s", "*").replace("%d", "*"))
        if isinstance(node.op, (ast.Mult, ast.Div)) and (is_number_constant(node.left)
                                                         or is_number_constant(node.right)):
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
        tests = []
        for gen in node.generators:
            it = self.ev(gen.iter)
            self.bind(gen.target, Val(it.origins, path=it.path))
            tests += [self.ev(cond) for cond in gen.ifs]
        if isinstance(node, ast.DictComp):
            return union(self.ev(node.key, True), self.ev(node.value, True))
        elt = self.ev(node.elt, True)
        if tests and elt.path and ("*" in elt.path or "/" in elt.path) and \
                not any(o.kind in ("file", "step", "compute") for o in elt.origins):
            # files picked by what they hold (`[f for f in glob(...) if "OK" in open(f).read()]`): computed from them
            picked = frozenset(o for t in tests for o in t.origins if o.kind in ("file", "step"))
            return Val(elt.origins | Val(picked).derive("a selection by content").origins, path=elt.path)
        return elt

    e_SetComp = e_GeneratorExp = e_DictComp = e_ListComp

    def e_Lambda(self, node, data: bool) -> Val:
        return EMPTY

    def e_NamedExpr(self, node, data: bool) -> Val:
        value = self.ev(node.value, data)
        self.bind(node.target, value)
        return value

    def e_Starred(self, node, data: bool) -> Val:
        return self.ev(node.value, data)
