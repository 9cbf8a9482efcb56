"""`discover()`: read an artifact's documentation the way an AE reviewer does and return everything it documents.

Bad input (unreadable, binary or corrupt files, a failing view) never raises: the result says what failed.
"""
from __future__ import annotations

import re

import tomllib

from . import text as tx
from .appendix import artifact_appendix
from .assemble import driver_steps, line_facts, make_steps, merge_duplicates, notebook_step, with_variants
from .badges import requested_badges
from .built import built_programs, relocate_built
from .claimties import tie_claims
from .cwd import argument_folder, resolving_folder
from .docfiles import DocText, select_docs
from .extract import DocExtract, DocInput, RawStep, Shared, extract
from .facts import env_vars, python_versions, signals, system_tools
from .fill import fill_all
from .makefile import driver_scripts, read_targets
from .model import Discovery, DocSection, DocumentedOutput, ExpectedOutput
from .notebooks import DocLine, mark_documented, read_notebook
from .reuse import reuse_hints
from .view import ArtifactView, FileIndex, safe_read

DEPENDENCY_FILES = re.compile(r"(^|/)(requirements[^/]*\.txt|pyproject\.toml|setup\.py|setup\.cfg|"
                              r"environment[^/]*\.ya?ml|Pipfile(\.lock)?|poetry\.lock|Dockerfile[^/]*|"
                              r"docker-compose[^/]*\.ya?ml|package\.json|Cargo\.toml|pom\.xml|build\.gradle|renv\.lock|"
                              r"DESCRIPTION|go\.mod|conda[^/]*\.ya?ml|uv\.lock)$", re.IGNORECASE)
MAX_NOTEBOOKS = 200
MAX_FACT_CHARS = 300_000
LATE = 10**9


def discover(view: ArtifactView, paper_text: str | None = None) -> Discovery:
    """Documents, steps, notebooks, outputs, badges and reuse hints of the artifact behind `view`."""
    result = Discovery()
    try:
        files = [f for f in list(view.files) if isinstance(f, str)]
    except Exception as exc:  # noqa: BLE001 - a view that cannot list its files yields an empty, explained result
        result.notes.append(f"the artifact's file list could not be read ({type(exc).__name__})")
        return result
    try:
        _discover(view, FileIndex(files), paper_text, result)
    except Exception as exc:  # noqa: BLE001 - last line of defence: the result so far, with why it stopped
        result.notes.append(f"discovery stopped early: {type(exc).__name__}: {str(exc)[:200]}")
    return result


def _discover(view: ArtifactView, index: FileIndex, paper_text: str | None, result: Discovery) -> None:
    docs, notes = select_docs(view, index, artifact_appendix(paper_text))
    result.docs, result.notes = [d.doc for d in docs], notes
    shared = Shared(index, console_scripts(view, index, result.notes), _python_name(docs), view=view)
    extracts = [extract(DocInput(d.doc.path, d.doc.role, d.doc.order, d.text), shared) for d in docs if d.text]
    result.sections = [DocSection(s.level, s.title, s.source, len(s.text.split())) for e in extracts
                       for s in e.sections if s.title]
    lines = [DocLine(d.doc.order, n, line, f"{d.doc.path}:{n}") for d in docs for n, line in
             enumerate(d.text.splitlines(), 1)]
    raws = sorted((r for e in extracts for r in e.steps), key=lambda r: r.pos)
    raws = with_variants(raws, [v for e in extracts for v in e.variants])
    raws = _with_notebooks(view, index, raws, lines, shared.python, result)
    documented = [r.step for r in raws]
    result.make_targets = read_targets(view, index, result.notes)
    result.driver_scripts = driver_scripts(view, index)
    late = make_steps(result.make_targets, documented) + driver_steps(result.driver_scripts, documented, view, index)
    if not any(s.kind in ("workflow", "plot") for s in documented):
        late += [notebook_step(nb, f"{nb.path}:1", shared.python) for nb in result.notebooks if not nb.documented]
    raws += [RawStep(step, (LATE, i, 0)) for i, step in enumerate(late)]
    kept, redirect = merge_duplicates(raws)
    result.steps = [r.step for r in kept]
    for n, step in enumerate(result.steps, 1):
        step.order = n
    line_facts(result.steps, lines)
    tie_claims(result.steps, [(d.doc.path, d.text) for d in docs if d.text])
    relocate_built(result.steps, index, built_programs(view, index, result.make_targets, result.steps))
    fill_all(result.steps, index, [s for e in extracts for s in e.samples])
    if _argument_folders(result.steps, index, view):  # a step moved to its folder may now repeat another
        result.steps = [r.step for r in merge_duplicates([RawStep(s, (0, 0, s.order)) for s in result.steps])[0]]
        for n, step in enumerate(result.steps, 1):
            step.order = n
    _outputs(extracts, redirect, result)
    _facts(view, index, docs, extracts, lines, result)


def _argument_folders(steps, index: FileIndex, view: ArtifactView) -> bool:
    """Move each script that enters its argument as a folder, or whose own relative paths resolve elsewhere, to that
    folder; whether any moved."""
    moved_any = False
    for step in steps:
        if step.kind in ("workflow", "plot", "test") and step.runnable:
            read = lambda rel: safe_read(view, rel, 200_000)  # noqa: E731
            moved = argument_folder(index, step.cwd, step.inner, read) or \
                resolving_folder(index, step.cwd, step.inner, read)
            if moved is not None:
                inner, folder, note = moved
                step.cmd = step.cmd.replace(step.inner, inner, 1)
                step.inner, step.cwd = inner, folder
                step.notes.append(note)
                moved_any = True
    return moved_any


def _with_notebooks(view: ArtifactView, index: FileIndex, raws: list[RawStep], lines: list[DocLine], python: str,
                    result: Discovery) -> list[RawStep]:
    paths = [f for f in index.files if f.lower().endswith(".ipynb")]
    if len(paths) > MAX_NOTEBOOKS:
        result.notes.append(f"{len(paths) - MAX_NOTEBOOKS} more notebooks not read")
    result.notebooks = [read_notebook(view, p) for p in paths[:MAX_NOTEBOOKS]]
    result.notes += [f"{nb.path}: {nb.note}" for nb in result.notebooks if nb.note]
    first = mark_documented(result.notebooks, lines, index)
    executed = {r.step.notebook for r in raws if r.step.notebook}
    extra = []
    for nb in result.notebooks:
        if nb.documented and nb.path not in executed and nb.path in first:
            order, line, source = first[nb.path]
            extra.append(RawStep(notebook_step(nb, source, python), (order, line, LATE)))
    return sorted(raws + extra, key=lambda r: r.pos)


def _outputs(extracts: list[DocExtract], redirect: dict[int, RawStep], result: Discovery) -> None:
    steps = {id(s) for s in result.steps}
    for ext in extracts:
        for raw, text, source in ext.expected:
            kept = redirect.get(id(raw), raw)
            if id(kept.step) in steps:
                result.expected_outputs.append(ExpectedOutput(kept.step.order, text, source))
    seen: dict[str, DocumentedOutput] = {}
    for ext in extracts:
        for out in ext.outputs:
            if out.path in seen:
                seen[out.path].mentions = tx.merge(seen[out.path].mentions, out.mentions)
            else:
                seen[out.path] = out
    result.documented_outputs = list(seen.values())
    result.costs = [c for ext in extracts for c in ext.costs]
    result.prerequisites = [p for ext in extracts for p in ext.prerequisites]


def _facts(view: ArtifactView, index: FileIndex, docs: list[DocText], extracts: list[DocExtract],
           lines: list[DocLine], result: Discovery) -> None:
    texts = [d.text[:MAX_FACT_CHARS] for d in docs]
    full = "\n".join(texts)[:MAX_FACT_CHARS]
    sections = [(s.title, s.text[:MAX_FACT_CHARS]) for e in extracts for s in e.sections]
    result.paper_refs = tx.refs(full)
    result.long_run_warning = tx.is_long(full)
    result.env_vars = env_vars(result.steps, [(d.doc.path, d.text) for d in docs])
    result.python_versions = python_versions(texts, view, index, result.notes)
    result.system_tools = system_tools(sections, result.steps)
    result.requested_badges = requested_badges([(d.doc.path, d.doc.role, d.text) for d in docs])
    samples = [s for e in extracts for s in e.samples]
    result.reuse = reuse_hints([s.title for e in extracts for s in e.sections if s.title], lines, result.steps,
                               index, view, [c for e in extracts for c in e.code_examples],
                               [(s.title, s.source, s.text) for e in extracts for s in e.sections if s.title], samples)
    has_dep = any(DEPENDENCY_FILES.search(f) and f.count("/") <= 2 for f in index.files)
    result.signals = signals(sections, result.steps, has_dep)
    result.notes += [n for e in extracts for n in e.notes]


def _python_name(docs: list[DocText]) -> str:
    text = "\n".join(d.text for d in docs)
    return "python" if len(re.findall(r"\bpython\s", text)) > len(re.findall(r"\bpython3\s", text)) else "python3"


def console_scripts(view: ArtifactView, index: FileIndex, notes: list[str]) -> frozenset[str]:
    """Console-script names the artifact declares (pyproject [project.scripts], poetry scripts, setup.py/cfg)."""
    names: set[str] = set()
    if index.is_file("pyproject.toml"):
        try:
            data = tomllib.loads(safe_read(view, "pyproject.toml", 500_000) or "")
            names |= set((data.get("project", {}) or {}).get("scripts", {}) or {})
            names |= set(((data.get("tool", {}) or {}).get("poetry", {}) or {}).get("scripts", {}) or {})
        except (tomllib.TOMLDecodeError, ValueError, AttributeError, TypeError) as exc:
            notes.append(f"pyproject.toml: not valid TOML ({str(exc)[:80]})")
    for rel in ("setup.py", "setup.cfg"):
        if index.is_file(rel):
            text = safe_read(view, rel, 500_000) or ""
            block = re.search(r"console_scripts[\"']?\s*[:=]\s*\[?([^\]]*?)(\]|\n\S|\Z)", text, re.DOTALL)
            if block:
                names |= set(re.findall(r"^\s*[\"']?([\w\-.]+)\s*=\s*[\w.]+:", block.group(1), re.MULTILINE))
    return frozenset(n for n in names if isinstance(n, str))
