"""Jupyter notebooks: what they hold (cells, stored outputs, language) and whether the docs point a reviewer to
them (named, or inside a folder the docs describe as holding the analysis or figures)."""
from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass

from . import text as tx
from .model import Notebook
from .view import ArtifactView, FileIndex, safe_read

NB_WORDS = re.compile(r"\b(notebooks?|jupyter|analys[ie]s|analy[sz]e|figures?|plots?|graphs?|charts?|results)\b",
                      re.IGNORECASE)


@dataclass
class DocLine:
    order: int
    """Reading order of the document."""
    line: int
    text: str
    source: str


def read_notebook(view: ArtifactView, path: str) -> Notebook:
    nb = Notebook(path=path)
    text = safe_read(view, path, 20_000_000)
    if text is None:
        nb.note = "could not be read"
        return nb
    try:
        data = json.loads(text)
        cells = data.get("cells") if isinstance(data, dict) else None
        if cells is None and isinstance(data, dict):
            cells = [c for ws in data.get("worksheets", []) or [] for c in ws.get("cells", [])]
    except (ValueError, AttributeError, TypeError) as exc:
        nb.note = f"not a valid notebook ({str(exc)[:80]})"
        return nb
    if not isinstance(cells, list):
        nb.note = "not a valid notebook (no cell list)"
        return nb
    cells = [c for c in cells if isinstance(c, dict)]
    nb.cells = len(cells)
    code = [c for c in cells if c.get("cell_type") == "code"]
    nb.code_cells = len(code)
    nb.stored_outputs = sum(1 for c in code if c.get("outputs"))
    nb.language = _language(data)
    markdown = " ".join(_source(c) for c in cells if c.get("cell_type") == "markdown")
    nb.mentions = tx.refs(markdown)
    return nb


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(s for s in src if isinstance(s, str)) if isinstance(src, list) else str(src)


def _language(data: dict) -> str | None:
    meta = _dict(data.get("metadata"))
    spec, info = _dict(meta.get("kernelspec")), _dict(meta.get("language_info"))
    lang = spec.get("language") or info.get("name")
    return str(lang) if lang else None


def _dict(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def _clause_refs(text: str, name: str) -> list[str]:
    for sentence in tx.sentences(text) or [text]:
        if name not in sentence:
            continue
        clauses = re.split(r"[,;]\s+(?=[A-Z])", sentence)
        hits = [c for c in clauses if name in c]
        refs = tx.refs(" ".join(hits))
        return refs or tx.refs(sentence) if sum(n.endswith(".ipynb") for n in sentence.split()) <= 1 else refs
    return []


def mark_documented(notebooks: list[Notebook], lines: list[DocLine],
                    index: FileIndex) -> dict[str, tuple[int, int, str]]:
    """Set `documented` and doc mentions; return the first doc position (order, line, source) of each."""
    first: dict[str, tuple[int, int, str]] = {}
    by_folder: dict[str, list[Notebook]] = {}
    names: dict[str, list[Notebook]] = {}
    for nb in notebooks:
        by_folder.setdefault(posixpath.dirname(nb.path) or ".", []).append(nb)
        names.setdefault(posixpath.basename(nb.path), []).append(nb)
    for dl in lines:
        for base, same in names.items():
            if base not in dl.text:
                continue
            named = _named(same, dl)
            if named:
                named.documented = True
                named.mentions = tx.merge(named.mentions, _clause_refs(dl.text, base))
                first.setdefault(named.path, (dl.order, dl.line, dl.source))
    for folder, members in by_folder.items():
        position = _folder_described(folder, members, lines)
        for nb in members:
            if position and not nb.documented:
                nb.documented = True
                first.setdefault(nb.path, position)
    return first


def _named(same: list[Notebook], dl: DocLine) -> Notebook | None:
    """The notebook a doc line names by base name: the only one, the one by the doc, or the one whose path it gives."""
    if len(same) == 1:
        return same[0]
    doc_dir = posixpath.dirname(dl.source.rsplit(":", 1)[0])
    by_path = [nb for nb in same if nb.path in dl.text]
    local = [nb for nb in same if (posixpath.dirname(nb.path) or "") == doc_dir]
    return next(iter(by_path or local), None)


def _folder_described(folder: str, members: list[Notebook], lines: list[DocLine]) -> tuple[int, int, str] | None:
    if folder == ".":
        return None
    names = {posixpath.basename(nb.path) for nb in members}
    name = re.escape(folder)
    rx = re.compile(rf"`/?{name}/?`|(?<![\w\-]){name}/|/{name}(?![\w\-])|(?<![\w\-/]){name}\s+(folder|directory|dir)\b|"
                    rf"\b(folder|directory)\s+`?{name}(?![\w\-])")
    for dl in lines:
        if rx.search(dl.text) and NB_WORDS.search(rx.sub(" ", dl.text)) and not any(n in dl.text for n in names):
            return dl.order, dl.line, dl.source
    readme_lines = [dl for dl in lines if dl.source.startswith(folder + "/") and "/" not in
                    dl.source[len(folder) + 1:].split(":")[0]]
    for dl in readme_lines:
        if re.search(r"\bnotebooks?\b", dl.text, re.IGNORECASE):
            return dl.order, dl.line, dl.source
    return None
