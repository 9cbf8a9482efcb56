"""Choose the documents a reviewer reads and put them in reading order.

Order: the top-level README; the documents it links to (link order); the other AE documents (ARTIFACT*,
*Artifact-Appendix*, INSTALL, REQUIREMENTS, REPRODUCE, STATUS); the paper's artifact appendix; sub-folder READMEs
(shallow first); docs/ pages. Vendored trees are skipped; unreadable or binary files are listed with a note.
"""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from .model import DocFile
from .view import ArtifactView, FileIndex, join, looks_binary, safe_read

README = re.compile(r"^readme(\.(md|markdown|txt|rst|adoc))?$", re.IGNORECASE)
DOC_EXT = re.compile(r"(\.(md|markdown|txt|rst|adoc))?$", re.IGNORECASE)
ROLES = [
    ("artifact", re.compile(r"^(artifact[\w\-. ]*|[\w\-. ]*artifact[-_ ]?(appendix|evaluation)[\w\-. ]*)"
                            r"\.(md|markdown|txt|rst|pdf)$|^artifact$", re.IGNORECASE)),
    ("install", re.compile(r"^(install|installation|setup|getting[-_ ]?started)(\.(md|markdown|txt|rst))?$",
                           re.IGNORECASE)),
    ("requirements", re.compile(r"^requirements?(\.(md|markdown|txt|rst))?$", re.IGNORECASE)),
    ("reproduce", re.compile(r"^(reproduc\w*|replicat\w*|reproducibility)(\.(md|markdown|txt|rst))?$", re.IGNORECASE)),
    ("status", re.compile(r"^status(\.(md|markdown|txt|rst))?$", re.IGNORECASE)),
]
ROLE_RANK = {name: i for i, (name, _) in enumerate(ROLES)}
LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)|^\s*\[[^\]]+\]:\s*(\S+)", re.MULTILINE)
MAX_SUBREADMES = 40
MAX_DOCS_PAGES = 30
SUBREADME_DEPTH = 2
MAX_DOC_CHARS = 1_000_000


@dataclass
class DocText:
    doc: DocFile
    text: str


def role_of(path: str) -> str | None:
    name = posixpath.basename(path)
    for role, rx in ROLES:
        if rx.match(name):
            return role
    if README.match(name):
        return "readme" if "/" not in path else "subreadme"
    return None


def _pip_file(text: str) -> bool:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    spec = re.compile(r"^(-[er]\s+\S+|--[\w-]+.*|[A-Za-z0-9_.\-\[\]]+\s*([<>=!~]=?.*)?(\s*;.*)?|git\+\S+|https?://\S+)$")
    return bool(lines) and sum(bool(spec.match(ln)) for ln in lines) >= 0.8 * len(lines)


def _links(text: str, folder: str, index: FileIndex) -> list[str]:
    out = []
    for match in LINK.finditer(text):
        href = (match.group(1) or match.group(2) or "").split("#")[0].split("?")[0]
        if not href or "://" in href or href.startswith(("mailto:", "#")):
            continue
        rel = join(folder, href.lstrip("/")) if not href.startswith("/") else join(".", href)
        if index.is_dir(rel):
            readme = next((f for f in index.files_in(rel) if README.match(posixpath.basename(f))), None)
            if readme:
                out.append(readme)
        elif index.is_file(rel) and DOC_EXT.search(rel) and not rel.lower().endswith((".py", ".sh", ".ipynb")):
            out.append(rel)
    return list(dict.fromkeys(out))


def _candidates(index: FileIndex) -> tuple[str | None, list[str], list[str], list[str]]:
    files = index.files
    top = sorted((f for f in files if "/" not in f and README.match(f)),
                 key=lambda f: (not f.lower().endswith(".md"), len(f), f))
    readmes = sorted((f for f in files if README.match(posixpath.basename(f))), key=lambda f: (f.count("/"), f))
    entry = top[0] if top else (readmes[0] if readmes else None)
    ae = [f for f in files if f.count("/") <= 2 and role_of(f) in ROLE_RANK]
    ae.sort(key=lambda f: (f.count("/"), ROLE_RANK[role_of(f) or "status"], f))
    subs = [f for f in readmes if f != entry and "/" in f and f.count("/") <= SUBREADME_DEPTH]
    pages = sorted(f for f in files if re.match(r"^docs?/", f, re.IGNORECASE)
                   and re.search(r"\.(md|markdown|rst|txt)$", f, re.IGNORECASE))
    return entry, ae, subs, pages


def select_docs(view: ArtifactView, index: FileIndex, appendix: tuple[str, str] | None = None
                ) -> tuple[list[DocText], list[str]]:
    """Documents in reading order with their text, and notes about what could not be read."""
    entry, ae, subs, pages = _candidates(index)
    out: list[DocText] = []
    notes: list[str] = []
    seen: set[str] = set()

    def add(path: str, role: str | None, linked_from: str | None = None, text: str | None = None) -> str | None:
        if path in seen:
            return None
        seen.add(path)
        body, note = (text, None) if text is not None else _read(view, path)
        if body is not None and role == "requirements" and path.lower().endswith(".txt") and _pip_file(body):
            seen.discard(path)
            return None
        doc = DocFile(path=path, role=role or role_of(path) or "docs", order=len(out) + 1,
                      words=len((body or "").split()), linked_from=linked_from, note=note)
        out.append(DocText(doc, body or ""))
        if note:
            notes.append(f"{path}: {note}")
        return body

    if entry:
        body = add(entry, "readme")
        for link in _links(body or "", posixpath.dirname(entry) or ".", index):
            add(link, role_of(link) if role_of(link) != "readme" else "subreadme", linked_from=entry)
    else:
        notes.append("no README found")
    for path in ae:
        add(path, role_of(path))
    if appendix:
        add(f"paper:{appendix[0]}", "appendix", text=appendix[1])
    for path in subs[:MAX_SUBREADMES]:
        add(path, "subreadme")
    if len(subs) > MAX_SUBREADMES:
        notes.append(f"{len(subs) - MAX_SUBREADMES} more sub-folder READMEs not read")
    for path in pages[:MAX_DOCS_PAGES]:
        add(path, "docs")
    return out, notes


def _read(view: ArtifactView, path: str) -> tuple[str | None, str | None]:
    if path.lower().endswith(".pdf"):
        return None, "PDF document: not read as text"
    text = safe_read(view, path, 2_000_000)
    if text is None:
        return None, "could not be read"
    if looks_binary(text):
        return None, "binary content: not read"
    if len(text) > MAX_DOC_CHARS:
        return text[:MAX_DOC_CHARS], f"very large: only the first {MAX_DOC_CHARS} characters were read"
    return text, None
