"""Notebook tools (nbconvert, papermill, jupyter execute), make, gnuplot and build/test runners as steps."""
from __future__ import annotations

import posixpath
import re
from dataclasses import replace

from .commands import Call, _step, compute, emit, silent
from .context import Context, rel_dir
from .model import Source
from .paths import normalize, path_kind, role_of
from .programs import run_code

BUILD_ONLY = {"build", "compile", "install", "package", "assemble", "fetch", "check", "clean", "update", "deps",
               "dependency:resolve", "dependencies", "restore", "setup", "get", "download", "lock", "configure", "ci",
               "i", "add", "link", "audit", "rebuild", "prune", "config", "cache", "init", "version"}


def _notebook(ctx: Context, call: Call, prog: str) -> list[int]:
    args = call.argv[1:]
    sub = args[0] if args and prog == "jupyter" else ""
    if prog == "jupyter" and sub in ("notebook", "lab", "kernelspec", "--version", "server", "labextension"):
        return silent(ctx, _step(call, neutral=True, program="jupyter " + sub))
    named = [a for a in args if a.lower().endswith((".ipynb", ".qmd", ".rmd"))]
    notebooks = [normalize(a, call.cwd) for a in named]
    if not notebooks:
        return compute(ctx, call, " ".join(call.argv[:2]), args)
    nb = notebooks[0]
    executes = (prog in ("papermill", "runipy", "jupyter-execute") or sub == "execute"
                or any(a in ("--execute", "--inplace-execute") or "ExecutePreprocessor.enabled=True" in a
                       for a in args) or (prog == "quarto" and not nb.endswith(".ipynb")))
    out = _notebook_output(prog, sub, args, nb, notebooks, call.cwd)
    if executes:
        if out and out != "-":  # the executed notebook (or its rendering) is written where the tool writes it
            call = replace(call, out_file=_relative(out, call.cwd), stdout=False, stdin=[], stdin_text=None,
                           stdin_file=None)
        return _executed_notebook(ctx, call, named[0], [])
    src = Source(kind="file", ref=nb, use="display", how=f"{prog} renders the stored outputs")
    step = _step(call, sources=[src], program=prog, role="display")
    if out == "-":
        return emit(ctx, call, step)
    step.writes = [out] if out else []
    return silent(ctx, step)


_FORMATS = {"markdown": ".md", "md": ".md", "gfm": ".md", "commonmark": ".md", "html": ".html", "latex": ".tex",
            "pdf": ".pdf", "script": ".py", "python": ".py", "notebook": ".ipynb", "ipynb": ".ipynb", "rst": ".rst",
            "asciidoc": ".asciidoc", "docx": ".docx", "md_document": ".md", "html_document": ".html",
            "pdf_document": ".pdf", "word_document": ".docx", "github_document": ".md"}


def _option(args: list[str], *names: str) -> str | None:
    for i, a in enumerate(args):
        if a in names and i + 1 < len(args):
            return args[i + 1]
        opt, eq, val = a.partition("=")
        if eq and opt in names:
            return val
    return None


def _notebook_output(prog: str, sub: str, args: list[str], nb: str, notebooks: list[str], cwd: str) -> str | None:
    """Where the tool writes the notebook it executed or rendered (from the script's starting folder), `-` for its
    stdout, None when it writes nothing. nbconvert writes next to the notebook unless told `--output-dir`; an
    `--output` name without a suffix takes the format's."""
    if "--stdout" in args:
        return "-"
    if "--inplace" in args:
        return nb
    if prog == "papermill":
        return notebooks[1] if len(notebooks) > 1 else None
    if prog not in ("jupyter", "jupyter-nbconvert", "quarto") or sub == "execute":
        return None
    to = _option(args, "--to", "-t") or "html"
    ext = _FORMATS.get(to, "." + to if re.fullmatch(r"\w+", to) else ".html")
    name = _option(args, "--output", "-o")
    folder = _option(args, "--output-dir")
    base = normalize(folder, cwd) if folder else posixpath.dirname(nb)
    if name:
        name = name if posixpath.splitext(name)[1] else name + ext
    else:
        stem = re.sub(r"\.(ipynb|qmd|rmd)$", "", posixpath.basename(nb), flags=re.IGNORECASE)
        name = stem + (".nbconvert.ipynb" if ext == ".ipynb" and prog != "quarto" else ext)
    return name if name.startswith("/") else normalize(posixpath.join(base, name), "")


def _relative(path: str, cwd: str) -> str:
    """`path` (from the script's starting folder) as a command run in `cwd` names it."""
    if path.startswith("/") or not cwd or cwd.startswith("/"):
        return path
    return posixpath.relpath(path, cwd)


def _executed_notebook(ctx: Context, call: Call, nb: str, args: list[str]) -> list[int]:
    """`nb` as the command names it; the notebook runs in its own folder, as Jupyter runs it."""
    found = ctx.code(normalize(nb, call.cwd))
    if found is None:
        return compute(ctx, call, nb, args)
    folder = rel_dir(found[0])
    out = call.out_file and _relative(normalize(call.out_file, call.cwd), folder)
    inside = replace(call, cwd=folder, out_file=out, stdin=[], stdin_text=None, stdin_file=None)
    return run_code(ctx, inside, "notebook", found[1], args, where=found[0])


_UPKEEP = {"clean", "distclean", "mrproper", "realclean", "clobber", "uninstall", "help", "lint", "format", "fmt",
           "check-env", "deps", "dependencies", "venv", "env", "setup", "pull"}


def _make(ctx: Context, call: Call) -> list[int]:
    args = call.argv[1:]
    folder, makefile, targets, i = call.cwd, None, [], 0
    while i < len(args):
        a = args[i]
        if a in ("-C", "--directory") and i + 1 < len(args):
            folder, i = normalize(args[i + 1], call.cwd), i + 2
            continue
        if a in ("-f", "--file", "--makefile") and i + 1 < len(args):
            makefile, i = args[i + 1], i + 2
            continue
        if a in ("-j", "--jobs", "-l") and i + 1 < len(args) and args[i + 1].isdigit():
            i += 2
            continue
        if not a.startswith("-") and "=" not in a:
            targets.append(a)
        i += 1
    if targets and all(t in _UPKEEP for t in targets):  # `make clean`: moves no values
        return silent(ctx, _step(call, neutral=True, program="make " + " ".join(targets)))
    path = normalize(makefile or "Makefile", folder)
    found = ctx.code(path) or ctx.code(normalize("makefile", folder))
    name = "make " + " ".join(targets) if targets else "make"
    if found is None or not ctx.child(found[0]):
        return compute(ctx, call, name, [], role="unknown")  # a make target may run the whole pipeline
    start = len(ctx.reading.steps)
    try:
        from .make import read_makefile

        read_makefile(ctx, found[1], targets, folder, call.line)
    finally:
        ctx.leave()
    inner = ctx.reading.steps[start:]
    for step in inner:
        step.expanded = True
    out = [s.index for s in inner if s.stdout]
    if call.out_file or not call.stdout:
        for i in out:
            ctx.reading.steps[i].stdout = False
            if call.out_file and path_kind(normalize(call.out_file, call.cwd)) != "device":
                ctx.reading.steps[i].writes.append(normalize(call.out_file, call.cwd))
    return out


def _gnuplot(ctx: Context, call: Call) -> list[int]:
    files = [normalize(a, call.cwd) for a in call.argv[1:] if not a.startswith("-")]
    found = ctx.code(files[0]) if files else None
    if found is None:
        return compute(ctx, call, files[0] if files else "gnuplot", files[1:], role="aggregate")
    base = rel_dir(found[0]) if call.cwd == "" else call.cwd
    quoted = re.findall(r"""['"]([^'"\n]+)['"]""", found[1])
    outputs = re.findall(r"""set\s+output\s+['"]([^'"]+)['"]""", found[1])
    reads = [normalize(q, call.cwd or base) for q in quoted if "/" in q or "." in q and q not in outputs
             and path_kind(q) not in ("code", "unknown")]
    sources = [Source(kind="compute", ref=found[0], role="aggregate", how="gnuplot")]
    sources += [Source(kind="file", ref=r, use="derive", how="plotted by gnuplot") for r in reads if r not in
                [normalize(o, call.cwd or base) for o in outputs]]
    step = _step(call, sources=sources, writes=[normalize(o, call.cwd or base) for o in outputs], program=found[0],
                 role="aggregate", expanded=True)
    return emit(ctx, call, step)


def _runner(ctx: Context, call: Call, prog: str) -> list[int]:
    args = call.argv[1:]
    subs = [a for a in args if not a.startswith("-")][:2]
    sub = subs[0] if subs else ""
    if sub in BUILD_ONLY or prog in ("tox", "nox") and not subs:
        return silent(ctx, _step(call, neutral=True, program=f"{prog} {sub}".strip()))
    if prog == "dvc" and sub != "repro":
        return silent(ctx, _step(call, neutral=True, program=f"dvc {sub}"))
    rest = args[args.index("--") + 1:] if "--" in args else args[1:]
    if prog in ("npm", "yarn", "pnpm"):  # `npm run NAME`, `yarn NAME`: NAME is a script of package.json, not a file
        subs = subs[1:2] if sub in ("run", "run-script") else subs[:1]
        rest = args[args.index("--") + 1:] if "--" in args else []
    name = f"{prog} {' '.join(subs)}".strip()
    role = role_of("_".join(subs)) if subs else "unknown"
    if prog in ("pytest", "ctest") or sub == "test":
        role = "unknown"
    if prog in ("cargo", "go") and sub in ("bench",):
        role = "experiment"
    return compute(ctx, call, name, rest, role=role if role != "unknown" else role_of(name))
