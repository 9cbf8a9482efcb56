"""Commands that run code: interpreters, notebooks, make, build tools and the artifact's own programs.

Inline code (`python3 -c`, `python3 - <<EOF`, `Rscript -e`, `bash -c`) is read by the language's
reader in place. An artifact program (`python3 summarize.py results/raw`, `./run.sh`, `make table2`,
`jupyter nbconvert --execute nb.ipynb`) is read from the artifact when there is one, its unnamed
inputs and outputs bound to the command's arguments; without an artifact it stays a program run
whose role comes from its name.
"""
from __future__ import annotations

import posixpath
import re
from dataclasses import replace

from . import tools as T
from .commands import Call, _program_paths, _step, compute, emit, silent
from .context import Context
from .model import Source
from .packed import PYTHON_DECODERS
from .paths import normalize, path_kind, role_of

PYTHONS = {"python", "python2", "python3", "pypy", "pypy3", "ipython", "ipython3"}
NOTEBOOK_TOOLS = {"jupyter", "jupyter-nbconvert", "jupyter-execute", "papermill", "runipy", "jupytext", "quarto",
                  "voila"}
_PY_VALUED = {"-W", "-X", "--check-hash-based-pycs"}
_NEUTRAL_MODULES = {"pip", "venv", "ensurepip", "http.server", "site", "compileall", "virtualenv", "pip._internal",
                    "spacy", "nltk.downloader", "build", "twine", "conda", "poetry", "uv", "pipx", "mypy", "flake8",
                    "black", "ruff", "isort", "pylint"}
_PAPER_MODULES = {"fitz", "pymupdf", "pdfminer", "pdfplumber", "pypdf", "pymupdf4llm", "pdftotext", "docling", "marker",
                  "camelot", "tabula"}
def program(ctx: Context, call: Call, prog: str) -> list[int] | None:
    """Steps of a command that runs code, or None when `prog` is not such a command."""
    from .runners import _executed_notebook, _gnuplot, _make, _notebook, _runner  # noqa: F401 - dispatch table below

    argv = call.argv
    if prog in PYTHONS:
        return _python(ctx, call)
    if prog in ("Rscript", "Rscript.exe", "R"):
        return _r(ctx, call, prog)
    if prog in ("bash", "sh", "zsh", "dash", "ksh", "source", "."):
        return _shell(ctx, call, prog)
    if prog in NOTEBOOK_TOOLS:
        return _notebook(ctx, call, prog)
    if prog in ("make", "gmake"):
        return _make(ctx, call)
    if prog == "gnuplot":
        return _gnuplot(ctx, call)
    if prog == "java":
        rest = argv[1:]
        for i, a in enumerate(rest):
            if a == "-jar" and i + 1 < len(rest):
                return compute(ctx, call, rest[i + 1], rest[i + 2:])
            if a in ("-cp", "-classpath", "--class-path", "--module-path", "-p"):
                continue
            if not a.startswith("-") and (i == 0 or rest[i - 1] not in ("-cp", "-classpath", "--class-path")):
                return compute(ctx, call, a, rest[i + 1:])
        return compute(ctx, call, "java", rest)
    if prog in T.BUILD_RUNNERS or argv[0] in T.BUILD_RUNNERS:
        return _runner(ctx, call, prog)
    if prog in T.INTERPRETERS:
        script = next((a for a in argv[1:] if not a.startswith("-")), None)
        if script is None:
            return compute(ctx, call, prog, [])
        return compute(ctx, call, script, argv[argv.index(script) + 1:])
    if "/" in argv[0] or (ctx.exists(normalize(argv[0], call.cwd)) and not ctx.is_dir(normalize(argv[0], call.cwd))):
        return run_file(ctx, call, argv[0], argv[1:])
    return None


def run_file(ctx: Context, call: Call, program: str, args: list[str], lang: str | None = None) -> list[int]:
    """Run an artifact file (`program` as the command names it): read its code in place when the artifact has it,
    else a program run."""
    found = ctx.code(normalize(program, call.cwd))
    if found is None:
        return compute(ctx, call, program, args)
    rel, text = found
    lang = lang or _language(rel, text)
    if lang is None:
        return compute(ctx, call, program, args)
    return run_code(ctx, call, lang, text, args, where=rel)


def _language(path: str, text: str) -> str | None:
    low = path.lower()
    first = text.split("\n", 1)[0] if text.startswith("#!") else ""
    if low.endswith(".py") or "python" in first:
        return "python"
    if low.endswith(".r") or "Rscript" in first:
        return "r"
    if low.endswith((".sh", ".bash")) or re.search(r"\b(ba|z|da|k)?sh\b", first):
        return "shell"
    if low.endswith(".ipynb"):
        return "notebook"
    if posixpath.basename(low) in ("makefile", "gnumakefile") or low.endswith(".mk"):
        return "make"
    return None


def run_code(ctx: Context, call: Call, lang: str, text: str, args: list[str], where: str | None = None,
             inline: bool = False, on_line: bool = False) -> list[int]:
    """Read code in place; its unnamed reads/writes bind to the command's path arguments, its stdout to the call's.
    on_line: inline code given on the command's line (`bash -c '...'`), not in a here-document below it."""
    name = where or f"inline {lang}"
    if not ctx.child(name):
        return compute(ctx, call, where or lang, args)
    start = len(ctx.reading.steps)
    if where and where not in ctx.reading.programs:
        ctx.reading.programs.append(where)
    try:
        from . import read_into

        saved = dict(ctx.shell_vars)
        if lang == "shell":
            ctx.shell_vars.update({str(i + 1): a for i, a in enumerate(args[:9])})
            ctx.shell_vars["@"] = " ".join(args)
        notes = len(ctx.reading.notes)
        read_into(ctx, lang, text, call.cwd, where=where, line=call.line - on_line if inline else 0, argv=args)
        unreadable = any("does not parse" in n for n in ctx.reading.notes[notes:])
        if lang == "shell":
            ctx.shell_vars = saved
    finally:
        ctx.leave()
    inner = ctx.reading.steps[start:]
    if not inner and where and unreadable:
        return compute(ctx, call, where, args)  # not readable here: the program run, by its name
    if not inner:
        ctx.reading.notes.append(f"{where or 'the inline code'} runs nothing that outputs or writes (a library?)")
        return []
    reads, writes = _program_paths(ctx, call, args)
    role = role_of(where) if where else "unknown"
    for step in inner:
        if call.container and not step.container:
            step.container, step.isolated = call.container, call.mounted is False
        step.expanded = step.expanded or not inline
        if step.role == "unknown" and where and step.sources and any(s.kind == "compute" for s in step.sources):
            step.role = role
        step.sources = _bind(step.sources, reads, call)
        step.writes = [w for p in step.writes for w in (_bind_path(p, writes) if "?" in p else [p])]
        if any("?" in w or "*" in w for w in step.writes):
            step.implicit_writes = True
    out = [s.index for s in inner if s.stdout]
    for i in out:
        step = ctx.reading.steps[i]
        if call.out_file:
            target = normalize(call.out_file, call.cwd)
            step.stdout = False
            step.appends = bool(re.search(r">>\s*\S", call.text))
            if path_kind(target) != "device":
                step.writes.append(target)
        elif not call.stdout:
            step.stdout = False
    return out


def _bind(sources: list[Source], inputs: list[str], call: Call) -> list[Source]:
    out = []
    for s in sources:
        if s.kind == "file" and s.ref.startswith("?"):
            if inputs:
                out += [s.model_copy(update={"ref": p + s.ref[1:] if s.ref.startswith("?/") else p}) for p in inputs]
            elif call.stdin_file:
                out.append(s.model_copy(update={"ref": normalize(call.stdin_file, call.cwd)}))
            elif call.stdin:
                out += [c.model_copy(update={"use": s.use}) for c in call.stdin]
            else:
                out.append(s)
        else:
            out.append(s)
    return out


def _bind_path(path: str, outputs: list[str]) -> list[str]:
    if not outputs:
        return [path]
    return [o + path[1:] if path.startswith("?/") else o for o in outputs]


def _python(ctx: Context, call: Call) -> list[int]:
    args = call.argv[1:]
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "-":
        a = args[i]
        if a == "-c" and i + 1 < len(args):
            return run_code(ctx, call, "python", args[i + 1], args[i + 2:], inline=True, on_line=True)
        if a.startswith("-c") and len(a) > 2:
            return run_code(ctx, call, "python", a[2:], args[i + 1:], inline=True, on_line=True)
        if a == "-m" and i + 1 < len(args):
            return _module(ctx, call, args[i + 1], args[i + 2:])
        if a.startswith("-m") and len(a) > 2:
            return _module(ctx, call, a[2:], args[i + 1:])
        i += 2 if a in _PY_VALUED else 1
    rest = args[i:]
    if not rest or rest[0] == "-":
        code = call.stdin_text if call.stdin_text is not None else None
        if code is None and call.stdin_file:
            found = ctx.code(normalize(call.stdin_file, call.cwd))
            if found:
                return run_code(ctx, call, "python", found[1], rest[1:], where=found[0])
            return compute(ctx, call, call.stdin_file, rest[1:])
        if code is None:
            return compute(ctx, call, "python", rest[1:])
        sub = replace(call, lang="python", stdin=[], stdin_text=None, stdin_file=None)
        return run_code(ctx, sub, "python", code, rest[1:], inline=True)
    if rest[0].lower().endswith(".ipynb"):
        from .runners import _executed_notebook

        return _executed_notebook(ctx, call, rest[0], rest[1:])
    return run_file(ctx, call, rest[0], rest[1:], lang="python")


def _module(ctx: Context, call: Call, module: str, args: list[str]) -> list[int]:
    top = module.split(".")[0]
    if module in ("json.tool",):
        from .toolsteps import _display

        call.argv = ["cat"] + args
        return _display(ctx, call, "cat")
    if module in PYTHON_DECODERS:  # `python3 -m base64 -d`: the command-line decoder of the same job
        from .toolsteps import _display

        call.argv = [PYTHON_DECODERS[module]] + args
        return _display(ctx, call, call.argv[0])
    if module == "gzip":
        from .toolsteps import _unpack

        call.argv = ["gzip"] + args
        return _unpack(ctx, call, "gzip")
    if module in _NEUTRAL_MODULES or top in ("pip", "venv", "ensurepip"):
        return silent(ctx, _step(call, neutral=True, program=module))
    if top in _PAPER_MODULES:
        ctx.reading.paper.append(f"python -m {module}")
        return emit(ctx, call, _step(call, sources=[Source(kind="paper", ref=module, how=f"python -m {module}")],
                                     program=module, role="display"))
    if top in ("jupyter", "nbconvert", "papermill"):
        from .runners import _notebook

        call.argv = [top] + args
        return _notebook(ctx, call, top)
    for candidate in (module.replace(".", "/") + ".py", module.replace(".", "/") + "/__main__.py"):
        if ctx.code(normalize(candidate, call.cwd)) is not None:
            return run_file(ctx, call, candidate, args, lang="python")
    return compute(ctx, call, module, args)


def _r(ctx: Context, call: Call, prog: str) -> list[int]:
    args = call.argv[1:]
    if prog == "R" and args[:2] == ["CMD", "BATCH"]:
        files = [a for a in args[2:] if not a.startswith("-")]
        if not files:
            return compute(ctx, call, "R", [])
        out = files[1] if len(files) > 1 else re.sub(r"\.[Rr]$", "", files[0]) + ".Rout"
        sub = replace(call, out_file=out, stdout=False, stdin=[], stdin_text=None, stdin_file=None)
        return run_file(ctx, sub, files[0], [], lang="r")
    exprs = [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-e", "--expr")]
    if exprs:
        return run_code(ctx, call, "r", "\n".join(exprs), [], inline=True, on_line=True)
    files = [a.removeprefix("--file=") for a in args if not a.startswith("-") or a.startswith("--file=")]
    files = [args[i + 1] for i, a in enumerate(args[:-1]) if a == "-f"] + files
    if files:
        return run_file(ctx, call, files[0], args[args.index(files[0]) + 1:] if files[0] in args else [], lang="r")
    if call.stdin_text is not None:
        return run_code(ctx, call, "r", call.stdin_text, [], inline=True)
    if call.stdin_file:
        return run_file(ctx, call, call.stdin_file, [], lang="r")
    return compute(ctx, call, prog, [])


def _shell(ctx: Context, call: Call, prog: str) -> list[int]:
    args = call.argv[1:]
    i = 0
    while i < len(args) and args[i].startswith("-"):
        if args[i] == "-c" and i + 1 < len(args):
            written = re.match(r"\s*cat\s*>\s*([^\s;&|]+)", args[i + 1])
            if written and call.stdin_text is not None:  # `docker exec -i c bash -c "cat > /x/run.sh" <<EOF`
                ctx.written_code[normalize(written.group(1), call.cwd)] = call.stdin_text
            return run_code(ctx, call, "shell", args[i + 1], args[i + 3:], inline=True, on_line=True)
        if "c" in args[i] and not args[i].startswith("--") and i + 1 < len(args):
            return run_code(ctx, call, "shell", args[i + 1], args[i + 3:], inline=True, on_line=True)
        i += 1
    rest = args[i:]
    if rest:
        return run_file(ctx, call, rest[0], rest[1:], lang="shell")
    if call.stdin_text is not None:
        return run_code(ctx, call, "shell", call.stdin_text, [], inline=True)
    if call.stdin_file:
        return run_file(ctx, call, call.stdin_file, [], lang="shell")
    return silent(ctx, _step(call, neutral=True, program=prog))

