"""What a reproduction script's text says about its method, before (or instead of) running it.

The static reader (reader/) parses the script and follows its data flow to a verdict of its own
(copy, last-mile, full or undetermined). Against an expected table, three more signals are read
from the script and the artifact programs it runs: the table's numbers written in the code, a
base64/hex blob that decodes to it, and checked-in files that hold it (Artisan §4.5.1).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic import BaseModel, Field

from ..tables import Table, best_match, parse_number, parse_tables
from .reader import read_script
from .reader.flow import FlowVerdict, classify
from .reader.inputs import InputKinds
from .reader.literals import decodings

TEXT_SUFFIXES = (".txt", ".csv", ".tsv", ".md", ".json", ".jsonl", ".log", ".tex", ".out", ".dat", ".yaml", ".yml",
                 ".html", ".ipynb", ".pdf", ".rst", ".xml", "")
CODE_SUFFIXES = (".py", ".r", ".sh", ".jl", ".java", ".class", ".jar", ".so", ".pyc", ".js", ".ts", ".c", ".cc", ".cpp",
                 ".h", ".rs", ".go", ".scala", ".ml", ".m", ".pl", ".rb", ".toml", ".cfg", ".ini", ".lock")
EXECUTE_NOTEBOOK = re.compile(r"nbconvert[^\n]*--execute|papermill|jupyter\s+execute|runipy|nbclient|"
                              r"ExecutePreprocessor")


class StaticFindings(BaseModel):
    """Signals read from the script's text (and the artifact programs it runs)."""

    language: str = Field("shell", description="How the script was read: shell, python, r, notebook or make.")
    flow: FlowVerdict = Field(default_factory=lambda: FlowVerdict(method="undetermined"),
                              description="The static reader's own verdict from the script's data flow.")
    hardcoded: bool = Field(False, description="The target table's numbers are written in the script.")
    encoded: list[str] = Field(
        default_factory=list, description="Encodings of blobs in the script that decode to the table.")
    reads_paper: list[str] = Field(default_factory=list, description="Why the script looks like it reads the paper.")
    documents: list[str] = Field(default_factory=list, description="Stored results documents (PDF) the script takes "
                                                                   "the text of: not the paper.")
    referenced: list[str] = Field(default_factory=list, description="Artifact files the script names.")
    displayed: list[str] = Field(
        default_factory=list, description="Stored files an output shows as they are (cat, cp, print).")
    stored_inputs: list[str] = Field(default_factory=list, description="Stored results an output is computed from.")
    written: list[str] = Field(default_factory=list, description="Paths the script writes (`> f`, `--out f`, to_csv).")
    executes_notebook: bool = Field(
        False, description="The script executes a notebook rather than reading its stored outputs.")
    programs: list[str] = Field(default_factory=list, description="Artifact programs read in place (one level deep).")
    notes: list[str] = Field(default_factory=list, description="What the reader could not parse or follow.")


def readable_text(path: Path, limit: int = 2_000_000) -> str:
    """A file's text as a reader would see it: notebook outputs for .ipynb, extracted text for .pdf."""
    try:
        if path.stat().st_size > 20_000_000:
            return ""
        data = path.read_bytes()[: limit * 4]
    except OSError:
        return ""
    suffix = path.suffix.lower()
    if suffix == ".ipynb":
        return _notebook_text(data)
    if suffix == ".pdf" or data[:5] == b"%PDF-":
        return _pdf_text(path)
    if b"\0" in data[:4096]:
        return ""
    return data[:limit].decode("utf-8", "replace")


def _notebook_text(data: bytes) -> str:
    try:
        nb = json.loads(data)
    except ValueError:
        return data.decode("utf-8", "replace")
    parts = []
    for cell in nb.get("cells", []) if isinstance(nb, dict) else []:
        for out in (cell.get("outputs", []) or []) if isinstance(cell, dict) else []:
            if not isinstance(out, dict):
                continue
            data_ = out.get("data", {}) if isinstance(out.get("data"), dict) else {}
            texts = [out.get("text")] + [data_.get(k) for k in ("text/markdown", "text/plain", "text/latex")]
            for t in texts:
                if t:
                    parts.append("".join(map(str, t)) if isinstance(t, list) else str(t))
    return "\n\n".join(parts)


def _pdf_text(path: Path) -> str:
    try:
        from pypdf import PdfReader

        return "\n".join(page.extract_text() or "" for page in PdfReader(str(path)).pages[:60])
    except Exception:  # noqa: BLE001 - an unreadable PDF holds no readable table
        return ""


def contains_table(target: Table, text: str) -> bool:
    if not text:
        return False
    comp = best_match(target, text)
    return bool(comp and comp.success)


def _distinctive(target: Table) -> list[str]:
    cells = [target.rows[r][c].strip() for r, c in target.numeric_cells()]
    return [c for c in cells if (p := parse_number(c)) and (p.decimals > 0 or abs(p.value) >= 10)]


def literal_share(target: Table, text: str) -> float:
    """Share of the table's distinctive numbers (decimals or >= 10) written verbatim in `text`."""
    cells = _distinctive(target)
    if len(cells) < 3:
        return 0.0
    tokens = set(re.findall(r"[-+]?\d[\d,]*\.?\d*%?", text))
    return sum(re.sub(r"[*_$\\]", "", c) in tokens for c in cells) / len(cells)


def _table_like(text: str) -> bool:
    return any(len(t.numeric_cells()) >= 4 for t in parse_tables(text))


def _program_texts(root: Path | None, programs: list[str]) -> list[str]:
    if root is None:
        return []
    from .reader.notebook import cells

    out = []
    for rel in programs[:10]:
        try:
            text = (root / rel).read_text(encoding="utf-8", errors="replace")[:200_000]
        except OSError:
            continue
        if rel.lower().endswith(".ipynb"):  # the code a run executes, not the outputs stored with it
            text = "\n".join(src for kind, src in cells(text) or [] if kind == "code")
        out.append(text)
    return out


def analyze_script(script: str, root: Path | None, target: Table | None, files: list[str] | None = None,
                   name: str | None = None) -> StaticFindings:
    """Static signals of `script` against the artifact at `root` (files: its relative paths; None: no artifact)."""
    reading = read_script(script, name, root if files is not None else None, files)
    flow = classify(reading, files, InputKinds.from_artifact(root if files is not None else None, files))
    found = StaticFindings(language=reading.language, flow=flow, notes=reading.notes[:10])
    found.programs = reading.programs
    texts = [script] + _program_texts(root, reading.programs)
    if target is not None:
        found.hardcoded = any(contains_table(target, t) or literal_share(target, t) >= 0.6 for t in texts)
    for kind, text in (d for t in texts for d in decodings(t)):
        if (target is not None and contains_table(target, text)) or (target is None and _table_like(text)):
            found.encoded.append(kind)
    found.reads_paper = list(dict.fromkeys(reading.paper))
    found.documents = list(dict.fromkeys(src.ref for st in reading.steps for src in st.sources
                                         if src.kind == "file" and "stored results document" in src.how))
    found.executes_notebook = bool(EXECUTE_NOTEBOOK.search(script))
    known = set(files or [])
    paths = [s.ref for st in reading.steps for s in st.sources if s.kind in ("file", "paper")]
    paths += [w for st in reading.steps for w in st.writes]
    found.referenced = list(dict.fromkeys(p.lstrip("./") if p.startswith("./") else p for p in paths if p in known))
    found.displayed = flow.displayed
    found.stored_inputs = flow.stored_inputs
    found.written = list(dict.fromkeys(w for st in reading.steps for w in st.writes if w and "<" not in w))[:50]
    return found
