"""What a reproduction script's text says about its method, before (or instead of) running it.

Looks for the ways a script can yield a paper table without computing it (Artisan §4.5.1): the
table hard-coded or encoded (base64/hex) in the script, the paper read (pdftotext, a copy of the
paper), checked-in result files or notebook outputs displayed with cat/cp/head/...
"""
from __future__ import annotations

import base64
import binascii
import gzip
import json
import posixpath
import re
import zlib
from pathlib import Path

from pydantic import BaseModel, Field

from ..tables import Table, best_match, parse_number, parse_tables

TEXT_SUFFIXES = (".txt", ".csv", ".tsv", ".md", ".json", ".jsonl", ".log", ".tex", ".out", ".dat", ".yaml", ".yml",
                 ".html", ".ipynb", ".pdf", ".rst", ".xml", "")
CODE_SUFFIXES = (".py", ".r", ".sh", ".jl", ".java", ".class", ".jar", ".so", ".pyc", ".js", ".ts", ".c", ".cc", ".cpp",
                 ".h", ".rs", ".go", ".scala", ".ml", ".m", ".pl", ".rb", ".toml", ".cfg", ".ini", ".lock")
RESULTS_LIKE = re.compile(r"(^|/)(results?|outputs?|logs?|raw|runs|measurements?|traces?|[\w.-]*[-_]results?|"
                          r"[\w.-]*[-_]logs?)(/)|(^|/)[^/]*(results?|logs?|measurements?|traces?|outputs?)[^/]*\.\w+$", re.I)
PAPER_TOOLS = re.compile(r"\b(pdftotext|pdf2txt(\.py)?|pdfminer|pdfplumber|pypdf2?|PyPDF2|fitz|pymupdf|tika|arxiv\.org|"
                         r"scholar\.google|semanticscholar)\b", re.I)
PAPER_FILE = re.compile(r"(^|/)(paper|main|manuscript|preprint|article|camera[-_]?ready)[^/]*\.(pdf|tex|md|txt)$|\.pdf$", re.I)
DISPLAY = re.compile(r"(?<![\w-])(cat|tac|cp|head|tail|less|more|nl|sed|awk|grep|jq|column|rsync|mv|ln|install|tee|"
                     r"nbconvert|open\(|read_text|read_csv|shutil\.copy\w*|json\.load|type)(?![\w-])")
EXECUTE_NOTEBOOK = re.compile(r"nbconvert[^\n]*--execute|papermill|jupyter\s+execute|runipy|nbclient|ExecutePreprocessor")
BASE64 = re.compile(r"[A-Za-z0-9+/]{40,}={0,2}")
HEX = re.compile(r"\b(?:[0-9a-fA-F]{2}){24,}\b")
TOKEN = re.compile(r"[\w./@+-]+")
WRITES = re.compile(r"(?:>>?|--out(?:put)?[= ]|-o |\btee (?:-a )?)\s*([\w./@+-]+)")


class StaticFindings(BaseModel):
    """Signals read from the script's text."""

    hardcoded: bool = Field(False, description="The target table's numbers are written in the script.")
    encoded: list[str] = Field(default_factory=list, description="Encodings of blobs in the script that decode to the table.")
    reads_paper: list[str] = Field(default_factory=list, description="Why the script looks like it reads the paper.")
    referenced: list[str] = Field(default_factory=list, description="Artifact files the script names.")
    displayed: list[str] = Field(default_factory=list, description="Artifact files the script shows or copies (cat, cp, ...).")
    written: list[str] = Field(default_factory=list, description="Paths the script writes (`> f`, `--out f`, `tee f`).")
    executes_notebook: bool = Field(False, description="The script executes a notebook rather than reading its stored outputs.")


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
        for out in cell.get("outputs", []) or []:
            texts = [out.get("text")] + [out.get("data", {}).get(k) for k in ("text/markdown", "text/plain", "text/latex")]
            for t in texts:
                if t:
                    parts.append("".join(t) if isinstance(t, list) else str(t))
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


def _literal_share(target: Table, text: str) -> float:
    cells = _distinctive(target)
    if len(cells) < 3:
        return 0.0
    tokens = set(re.findall(r"[-+]?\d[\d,]*\.?\d*%?", text))
    return sum(re.sub(r"[*_$\\]", "", c) in tokens for c in cells) / len(cells)


def _decodings(script: str) -> list[tuple[str, str]]:
    out = []
    for kind, pattern, decode in (("base64", BASE64, lambda s: base64.b64decode(s + "=" * (-len(s) % 4), validate=True)),
                                  ("hex", HEX, bytes.fromhex)):
        for blob in pattern.findall(script):
            try:
                raw = decode(blob)
            except (binascii.Error, ValueError):
                continue
            for unpack, name in ((lambda b: b, kind), (gzip.decompress, f"gzip+{kind}"), (zlib.decompress, f"zlib+{kind}")):
                try:
                    out.append((name, unpack(raw).decode("utf-8")))
                    break
                except (OSError, zlib.error, UnicodeDecodeError, EOFError):
                    continue
    return out


def _table_like(text: str) -> bool:
    return any(len(t.numeric_cells()) >= 4 for t in parse_tables(text))


INVOKED = re.compile(r"(?<![\w./-])([\w./-]+\.(?:py|sh|r|R|pl|rb|jl))\b|\bmake(?:\s+([\w.-]+))?")


def _recipe(makefile: str, target: str | None) -> str:
    """The recipe of `target` (the first target when None), so `make fast` is not read as `make all`."""
    lines, out, inside = makefile.splitlines(), [], False
    for line in lines:
        head = re.match(r"^([\w.-]+)\s*:", line)
        if head:
            if inside:
                break
            inside = target is None or head.group(1) == target
        elif inside:
            out.append(line)
    return "\n".join(out)


def expand(script: str, root: Path | None, files: set[str], limit: int = 10) -> str:
    """The script plus the artifact scripts (and Makefile) it invokes, one level deep."""
    if root is None:
        return script
    parts = [script]
    for m in INVOKED.finditer(script):
        rel = m.group(1).lstrip("./") if m.group(1) else "Makefile"
        if rel in files and len(parts) <= limit:
            text = readable_text(root / rel, 200_000)
            parts.append(text if m.group(1) else _recipe(text, m.group(2)))
    return "\n".join(parts)


def analyze_script(script: str, root: Path | None, target: Table | None, files: list[str] | None = None) -> StaticFindings:
    """Static signals of `script` against the artifact at `root` (files: its relative paths)."""
    found = StaticFindings()
    own = script  # the paper is looked for in the submitted script only: artifact code may process PDFs legitimately
    script = expand(script, root, set(files or []))
    if target is not None:
        found.hardcoded = contains_table(target, script) or _literal_share(target, script) >= 0.6
    for kind, text in _decodings(script):
        if (target is not None and contains_table(target, text)) or (target is None and _table_like(text)):
            found.encoded.append(kind)
    found.reads_paper = [f"uses {m.group(0)}" for m in PAPER_TOOLS.finditer(own)]
    found.executes_notebook = bool(EXECUTE_NOTEBOOK.search(script))
    known = set(files or [])
    dirs: dict[str, list[str]] = {}
    for f in known:
        parts = f.split("/")
        for i in range(1, len(parts)):
            dirs.setdefault("/".join(parts[:i]), []).append(f)
    cwd = ""
    for line in script.splitlines():
        if line.lstrip().startswith("#"):
            continue
        for m in re.finditer(r"(?:^|[;&|]\s*)cd\s+([\w./-]+)", line):
            cwd = posixpath.normpath(posixpath.join(cwd, m.group(1))).lstrip("./") if m.group(1) != "/" else ""
        named = []
        for tok in TOKEN.findall(line):
            tok = posixpath.normpath(posixpath.join(cwd, tok)) if cwd and not tok.startswith("/") else tok
            tok = tok.strip("./") if tok.startswith("./") else tok.rstrip("/")
            if tok in known:
                named.append(tok)
            elif tok in dirs and ("/" in tok or DISPLAY.search(line)):  # a bare word ("results") is prose, not a path
                named += sorted(dirs[tok])[:50]
        for m in WRITES.finditer(line):
            written = m.group(1)[2:] if m.group(1).startswith("./") else m.group(1)
            if written not in found.written:
                found.written.append(written)
        if DISPLAY.search(line):
            # a file an earlier command was pointed at (`--out results/t.md`) is that command's output (Artisan Fig. 10)
            shown = [n for n in named if not n.lower().endswith(CODE_SUFFIXES) and n not in found.referenced]
            found.displayed += [n for n in shown if n not in found.displayed]
        found.referenced += [n for n in named if n not in found.referenced]
    found.reads_paper += [f"reads {f}" for f in found.referenced if PAPER_FILE.search(f) and f in own]
    return found
