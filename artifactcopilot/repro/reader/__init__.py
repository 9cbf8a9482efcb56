"""The static reader of reproduction scripts: parse (shell with bashlex, Python with `ast`, R and Makefiles
with a tokenizer, notebooks by their code cells), follow the data flow from what the script runs to
what it outputs, and classify it: copy, last-mile, full, or undetermined when the flow cannot be told.

    reading = read_script(text, name="repro.sh", root=artifact_or_None, files=artifact_files_or_None)
    flow = classify(reading)   # flow.method, flow.reasons, flow.confidence
"""
from __future__ import annotations

import ast
from pathlib import Path

from .context import Context
from .flow import FlowVerdict, classify
from .model import Reading, Source, Step

MAX_SCRIPT = 400_000
__all__ = ["FlowVerdict", "Reading", "Source", "Step", "classify", "detect_language", "read_into", "read_script"]


def detect_language(text: str, name: str | None = None) -> str:
    """shell | python | r | notebook | make, from the file name, the shebang, then the text itself."""
    low = (name or "").lower()
    first = text.lstrip().split("\n", 1)[0] if text.strip() else ""
    if low.endswith(".ipynb") or (text.lstrip().startswith("{") and '"cells"' in text[:20000]):
        return "notebook"
    if low.endswith(".py") or (first.startswith("#!") and "python" in first):
        return "python"
    if low.endswith(".r") or (first.startswith("#!") and "Rscript" in first):
        return "r"
    if low.rsplit("/", 1)[-1] in ("makefile", "gnumakefile") or low.endswith(".mk"):
        return "make"
    if low.endswith((".sh", ".bash")) or first.startswith("#!"):
        return "shell"
    if _shell_first(text):
        return "shell"
    try:
        tree = ast.parse(text)
        if any(isinstance(n, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.Assign)) for n in tree.body):
            return "python"
    except (SyntaxError, ValueError):
        pass
    if "<-" in text and ("library(" in text or "read.csv(" in text or "function(" in text):
        return "r"
    return "shell"


def _shell_first(text: str) -> bool:
    """The first line of code runs a command-line program (`Rscript -e '...'`, `docker exec ...`, `cat f`)."""
    from . import tools as T

    line = next((ln.strip() for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")), "")
    first = line.split()[0] if line.split() else ""
    known = T.INTERPRETERS | T.DISPLAY | T.NEUTRAL | T.COPY | T.UNPACK | T.FETCH | T.CONTAINERS | set(T.FRAMEWORK_TOOLS)
    return first in known and "<-" not in line.split("'")[0].split('"')[0]


def read_into(ctx: Context, lang: str, text: str, cwd: str = "", where: str | None = None, line: int = 0,
              argv: list[str] | None = None) -> None:
    """Read `text` (in `lang`) into ctx.reading's steps."""
    if lang == "shell":
        from .shell import read_shell

        read_shell(ctx, text, cwd, line)
    elif lang == "python":
        from .python import PyReader

        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError) as exc:
            ctx.reading.notes.append(f"{where or 'the Python code'} does not parse: {getattr(exc, 'msg', exc)}")
            if where is None and ctx.depth == 0:
                ctx.reading.parsed = False
            return
        PyReader(ctx, text, cwd, where, line, argv).run(tree)
    elif lang == "r":
        from .rlang import read_r

        read_r(ctx, text, cwd, where, line)
    elif lang == "notebook":
        from .notebook import read_notebook

        read_notebook(ctx, text, cwd, where)
    elif lang == "make":
        from .make import read_makefile

        read_makefile(ctx, text, [], cwd, line)


def read_script(text: str, name: str | None = None, root: Path | None = None, files: list[str] | None = None,
                language: str | None = None) -> Reading:
    """Read a reproduction script (never raises on bad input: problems are in `reading.notes`)."""
    ctx = Context.make(root, files)
    if len(text) > MAX_SCRIPT:
        ctx.reading.notes.append(f"only the first {MAX_SCRIPT} characters of the script were read")
        text = text[:MAX_SCRIPT]
    lang = language or detect_language(text, name)
    ctx.reading.language = lang
    try:
        read_into(ctx, lang, text, where=None)
    except RecursionError:
        ctx.reading.notes.append("the script nests too deeply to be read")
    except Exception as exc:  # noqa: BLE001 - a reader bug must not take the judge down; say what happened
        ctx.reading.notes.append(f"the {lang} reader stopped: {type(exc).__name__}: {exc}")
    return ctx.reading
