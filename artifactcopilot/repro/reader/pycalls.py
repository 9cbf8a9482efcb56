"""Calls in the Python reader: prints and writes (outputs), loads (file origins), PDF libraries (the paper),
subprocesses (commands), the script's own functions (read with their arguments), the artifact's code
and computing libraries (computations), aggregations (derived values) and reformatting (kept as is).
"""
from __future__ import annotations

import ast
import posixpath
from typing import TYPE_CHECKING

from .literals import irregular
from .paths import path_kind
from .pyinvoke import Invocations
from .pyoutputs import PATH_KEYWORDS, Outputs
from .pyvalues import (
    AGGREGATES,
    CAPTURES,
    COPIES,
    DATA_LIBS,
    EMPTY,
    MUTATORS,
    PATH_FUNCS,
    PRINTS,
    READERS,
    STDLIB,
    SUBPROCESS,
    Orig,
    Val,
    union,
)
from .tools import PAPER_LIBS

if TYPE_CHECKING:
    from .python import PyReader

CONSTRUCTORS = {"DataFrame", "Series", "array", "asarray", "dict", "list", "tuple", "set", "OrderedDict", "from_dict",
                "from_records", "tabulate", "Table", "PrettyTable", "concat", "stack", "vstack", "hstack",
                "column_stack", "defaultdict", "namedtuple", "zip", "print", "format", "Markdown", "HTML", "Latex"}
_GLOBS = {"glob", "iglob", "listdir", "scandir", "rglob", "iterdir", "walk", "glob1"}


class Calls(Invocations, Outputs):
    def __init__(self, reader: PyReader):
        self.r = reader
        self.imported: set[str] = set()

    def note_import(self, module: str) -> None:
        top = module.lstrip(".").split(".")[0]
        self.imported.add(module)
        if top in PAPER_LIBS or module.split(".")[-1] in PAPER_LIBS:
            note = f"imports {module.lstrip('.')}"
            if note not in self.r.ctx.reading.paper:
                self.r.ctx.reading.paper.append(note)

    def literal_results(self, v: Val) -> bool:
        return sum(o.kind == "literal" and irregular(o.ref) for o in v.origins) >= 2

    # ---- dispatch
    def call(self, node: ast.Call) -> Val:
        r = self.r
        q, recv = self.qual(node.func)
        last = q.rsplit(".", 1)[-1]
        data_args = last in CONSTRUCTORS or (last in MUTATORS and bool(node.args)) or last in PRINTS
        args = [r.ev(a, data_args) for a in node.args]
        kwargs = {k.arg: r.ev(k.value, data_args) for k in node.keywords}
        every = args + list(kwargs.values())
        for handler in (self._local, self._print, self._member, self._open, self._subprocess, self._copy, self._paper,
                        self._argparse, self._read, self._write, self._plot, self._path, self._compute, self._mutate):
            out = handler(node, q, last, recv, args, kwargs)
            if out is not None:
                return out
        if last in ("map", "imap", "imap_unordered", "starmap", "apply_async", "submit") and len(args) >= 2 and \
                args[0].qual and READERS.match(args[0].qual.rsplit(".", 1)[-1]) and args[1].path:
            return Val(frozenset({self._origin(self.r.path_of(args[1].path), args[0].qual)}))  # map(pd.read_csv, files)
        callbacks = [v.local for v in every if v.local and not v.local.startswith(("class:", "obj:"))]
        results = [self.invoke(name, node, [], {}) for name in callbacks]
        if last in AGGREGATES:
            return union(recv or EMPTY, *every, *results).derive(last)
        if last == "range":
            return EMPTY
        if last in ("writer", "DictWriter", "ExcelWriter") and every and every[0].write:  # csv.writer(open(f, "w"))
            return Val(write=every[0].write)
        path = (recv.path if recv is not None and recv.path is not None and last in ("strip", "replace", "format")
                else None)
        if last in ("sorted", "list", "reversed", "iter", "tuple", "set", "enumerate", "natsorted") and len(args) == 1:
            path = args[0].path
        return Val(union(recv or EMPTY, *every, *results).origins, path=path,
                   qual=f"{q}()" if not q.startswith(".") else None)

    def qual(self, func: ast.AST) -> tuple[str, Val | None]:
        """Qualified name of the called function, and the receiver value for a method call."""
        if isinstance(func, ast.Name):
            v = self.r.env.get(func.id)
            if v is not None and v.qual:
                return v.qual, None
            if v is not None and v.local:
                return "local:" + v.local, None
            return func.id, None
        if isinstance(func, ast.Attribute):
            base = self.r.ev(func.value)
            if base.qual and not base.origins and not base.path:
                return f"{base.qual}.{func.attr}", base
            if base.local:
                return f"local:{base.local}.{func.attr}", base
            return f".{func.attr}", base
        value = self.r.ev(func)
        return (f"local:{value.local}", None) if value.local else (".call", value)

    def module_of(self, q: str) -> str:
        return q.lstrip("?").split(".")[0] if not q.startswith(".") else ""

    # ---- handlers (each returns None when the call is not its kind)
    def _member(self, node, q, last, recv, args, kwargs):
        """`zipfile.ZipFile(a).read(m)`, `.open(m)`, `tarfile.open(a).extractfile(m)`: the member of a shipped
        archive is a file of its own."""
        if last not in ("read", "open", "extractfile", "extract") or recv is None or not recv.path or not args \
                or not args[0].path or path_kind(recv.path) != "archive":
            return None
        path = self.r.path_of(recv.path).rstrip("/") + "/" + args[0].path.lstrip("./")
        return Val(frozenset({self._origin(path, f"{q.lstrip('.')} (archive member)")}), path=path)

    def _open(self, node, q, last, recv, args, kwargs):
        if q not in ("open", "io.open", "codecs.open", "gzip.open", "bz2.open", "lzma.open", "tarfile.open",
                     "zipfile.ZipFile", "builtins.open") and not (last == "open" and recv is not None and recv.path):
            return None
        target = (recv if last == "open" and recv is not None and recv.path and not args
                  else (args[0] if args else kwargs.get("file")))
        path = target.path if target is not None and target.path else "?"
        mode_node = (node.args[1] if len(node.args) > 1
                     else next((k.value for k in node.keywords if k.arg == "mode"), None))
        mode = mode_node.value if isinstance(mode_node, ast.Constant) and isinstance(mode_node.value, str) else "r"
        if any(c in mode for c in "wax"):
            return Val(write=path)  # raw: normalised once, where it is written
        return Val(frozenset({self._origin(self.r.path_of(path), q)}) |
                   (target.origins if target and not target.path else frozenset()), path=path)

    def _origin(self, path: str, how: str) -> Orig:
        if path_kind(path) == "paper":
            note = f"reads {path}"
            if note not in self.r.ctx.reading.paper:
                self.r.ctx.reading.paper.append(note)
            return Orig("paper", path, how=how)
        return Orig("file", path, how=how)

    def _subprocess(self, node, q, last, recv, args, kwargs):
        if not SUBPROCESS.match(q.lstrip("?")):
            return None
        from .commands import Call, command
        from .shell import read_shell

        first = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg in ("args", "cmd")), None)
        captured = bool(CAPTURES.search(q)) or any(k.arg in ("capture_output", "stdout") for k in node.keywords)
        start = len(self.r.ctx.reading.steps)
        if isinstance(first, (ast.List, ast.Tuple)):
            argv = [self._word(e) for e in first.elts]
            command(self.r.ctx, Call(argv=argv, cwd=self.r.cwd, line=self.r.line(node), lang="python",
                                     text=self.r.segment(node) or " ".join(argv), stdout=not captured,
                                     where=self.r.where))
        elif first is not None:
            text = self._word(first)
            read_shell(self.r.ctx, text, self.r.cwd, self.r.line(node) - 1)
        steps = self.r.ctx.reading.steps[start:]
        if captured:
            for s in steps:
                s.stdout = False
        return Val(frozenset(Orig("step", str(s.index)) for s in steps if not s.neutral))

    def _word(self, node: ast.AST) -> str:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        v = self.r.ev(node)
        return v.path if v.path is not None else "*"

    def _copy(self, node, q, last, recv, args, kwargs):
        if not COPIES.match(q) or len(args) < 2:
            return None
        from .model import Source, Step

        src, dst = self.r.path_of(args[0].path or "?"), self.r.path_of(args[1].path or "?")
        step = Step(line=self.r.line(node), text=(self.r.segment(node) or q)[:200], lang="python", cwd=self.r.cwd,
                    sources=[Source(kind="file", ref=src, use="display", how=q)], writes=[dst], where=self.r.where)
        self.r.ctx.reading.add(step)
        return EMPTY

    def _paper(self, node, q, last, recv, args, kwargs):
        top = self.module_of(q)
        if recv is not None and any(o.kind == "paper" for o in recv.origins):
            return Val(recv.origins, qual=f"{q}()")
        if top not in PAPER_LIBS:
            return None
        ref = next((self.r.path_of(a.path) for a in args if a.path), None)
        kind = path_kind(ref) if ref else "unknown"
        if ref and kind == "results":  # the artifact's results document, not the paper: its text, as stored
            return Val(frozenset({Orig("file", ref, how=f"{q} (text of a stored results document)")}), qual=f"{q}()")
        if kind == "data" or (self.r.ctx.in_artifact_code and kind != "paper"):
            # the artifact's own tool over its PDF data (a corpus), not the paper
            origins = frozenset({Orig("file", ref, how=q)}) if ref else frozenset()
            return Val(origins | {Orig("compute", q, how=f"processes PDFs with {q}")}, qual=f"{q}()")
        if not any(q.split(".")[0] in p for p in self.r.ctx.reading.paper):
            self.r.ctx.reading.paper.append(f"uses {q}")
        return Val(frozenset({Orig("paper", ref or q, how=q)}), qual=f"{q}()")

    def _argparse(self, node, q, last, recv, args, kwargs):
        if last == "ArgumentParser":
            return Val(qual="argparse.ArgumentParser()")
        if last == "add_argument" and (q.startswith("argparse")
                                       or (recv is not None and "ArgumentParser" in (recv.qual or ""))):
            names = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            dest = next((n.lstrip("-").replace("-", "_") for n in names if n.startswith("--")), None) or \
                (names[0].lstrip("-").replace("-", "_") if names else None)
            dest = next((k.value.value for k in node.keywords
                         if k.arg == "dest" and isinstance(k.value, ast.Constant)), dest)
            if names and not names[0].startswith("-") and dest:
                self.r.positionals.append(dest)
            default = kwargs.get("default")
            if dest and default is not None and default.path:
                self.r.argdefaults[dest] = default.path
            return EMPTY
        if last in ("parse_args", "parse_known_args") and (recv is None or "ArgumentParser" in (recv.qual or "")):
            return Val(namespace=True)
        if q in ("os.getenv", "os.environ.get") or (last == "get" and recv is not None and recv.qual == "os.environ"):
            return Val(path=args[1].path if len(args) > 1 and args[1].path else "?")
        return None

    def _read(self, node, q, last, recv, args, kwargs):
        top = self.module_of(q)
        if last in _GLOBS and (top in ("glob", "os", "pathlib", "") or recv is not None):
            base = recv.path if recv is not None and recv.path is not None else ""
            pattern = args[0].path if args and args[0].path else "*"
            path = posixpath.join(base, pattern) if base and last in ("glob", "rglob") else (base or pattern)
            if last in ("listdir", "scandir", "iterdir", "walk"):
                path = posixpath.join(args[0].path if args and args[0].path else (base or "?"), "*")
            return Val(path=path)
        if not READERS.match(last) or last in ("parse",) and top not in ("json", "yaml", "xml", "csv"):
            return None
        if last in ("read", "readlines", "readline", "read_text", "read_bytes", "load", "loads") and recv is not None \
                and (recv.origins or recv.path) and not args:
            if recv.path and not recv.origins:
                return Val(frozenset({self._origin(self.r.path_of(recv.path), q)}))
            return Val(recv.origins)
        source = args[0] if args else next((kwargs[k] for k in PATH_KEYWORDS if k in kwargs), None)
        if source is None and recv is not None and recv.path:
            source = recv
        if source is None:
            return None
        if source.origins and not source.path:
            return Val(source.origins, qual=f"{q}()")
        if source.path is not None and (top in DATA_LIBS or top in STDLIB or top in ("", "pd", "np")
                                        or recv is not None):
            path = self.r.path_of(source.path)
            return Val(frozenset({self._origin(path, q)}), qual=f"{q}()")
        return None

    def _path(self, node, q, last, recv, args, kwargs):
        if q in ("os.getcwd", "pathlib.Path.cwd", "Path.cwd", "os.curdir"):
            return Val(path=".")
        if last == "dirname" and args:
            path = args[0].path
            return Val(path=path if path in ("?script", "?root") else posixpath.dirname(path) if path else "?")
        if last not in PATH_FUNCS:
            return None
        if last == "str" and args and args[0].path is None:
            return None
        parts = [a.path for a in args]
        if recv is not None and recv.path is not None:
            parts = [recv.path] + parts
        if not parts:
            return Val(path=".") if last in ("Path", "cwd") else None
        if last in ("with_suffix",) and len(parts) == 2 and parts[0]:
            return Val(path=posixpath.splitext(parts[0])[0] + (parts[1] or ""))
        if last in ("with_name",) and len(parts) == 2 and parts[0]:
            return Val(path=posixpath.join(posixpath.dirname(parts[0]), parts[1] or "*"))
        joined = ""
        for p in parts:
            p = p if p is not None else "*"
            joined = p if (not joined or p.startswith("/")) else posixpath.join(joined, p)
        return Val(union(*args).origins - frozenset(o for a in args for o in a.origins if o.kind == "text"),
                   path=joined)

    def _mutate(self, node, q, last, recv, args, kwargs):
        if last not in MUTATORS or not isinstance(node.func, ast.Attribute):
            return None
        root = node.func.value
        while isinstance(root, (ast.Attribute, ast.Subscript, ast.Call)):  # d.setdefault(k, []).append(v)
            root = root.func if isinstance(root, ast.Call) else root.value
        if isinstance(root, ast.Name) and node.args:  # gs.update(left=0.08) configures, it adds no data
            old = self.r.env.get(root.id, EMPTY)
            joined = union(old, *args, *kwargs.values())
            if self.r.tags:
                joined = Val(joined.origins | frozenset(self.r.tags))
            self.r.env[root.id] = Val(joined.origins, path=old.path, qual=old.qual if not joined.origins else None,
                                      write=old.write, local=old.local)
        return EMPTY
