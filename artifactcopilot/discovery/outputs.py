"""Files the documentation says the workflow produces, with the paper objects they stand for.

Shapes: "Figure 2: ./Resources/Output/annotationsPerYear2.pdf (and b.pdf)", "The results will be saved in the
`results/x` directory", "This creates four plots in the `scripts/plotting/...` directory corresponding to figures
1, 2", "This will produce four graphs, as pdf files, that correspond to Figure 4-7" (the folder the last command
ran in), "The results will be put in an output folder `output-<timestamp>-<case>`" (placeholders become globs).
"""
from __future__ import annotations

import posixpath
import re

from . import text as tx
from .model import DocumentedOutput
from .view import FileIndex, join, norm

OUTPUT_EXT = (r"pdf|png|svg|eps|jpe?g|gif|csv|tsv|tex|txt|json|jsonl|html|xlsx?|dat|log|pkl|pickle|h5|hdf5|npy|npz|"
              r"out|pgf")
PATH = re.compile(r"`([^`\s]{1,255})`|(?<![\w\-.{}<>*/])"
                  r"((?:\.{0,2}/)?[\w\-.{}<>*]{1,255}(?:/[\w\-.{}<>*]{1,255}){1,20}/?|"
                  r"[\w\-.{}<>*]{1,255}\.(?:" + OUTPUT_EXT +
                  r"))(?=[\s,;:)'\"]|\.(?:\s|$)|$)", re.IGNORECASE)
PRODUCE = re.compile(r"\b(sav(e|ed|es)|plac(e|ed|es)|writ(e|es|ten)|stor(e|ed|es)|put|creat(e|ed|es)|generat(e|ed|es)|"
                     r"produc(e|ed|es)|appear|find|found|dump(ed|s)?|export(ed|s)?|located)\b", re.IGNORECASE)
ABOUT_OUTPUT = re.compile(r"\b(results?|outputs?|plots?|figures?|graphs?|files?|tables?|csv|json|pdfs?|images?|"
                          r"charts?|logs?|tabular|latex)\b", re.IGNORECASE)
NO_OUTPUT = re.compile(r"\b(download|zenodo|figshare|dataverse|hosted|input files?|requires?|needs?|provided|included|"
                       r"contains|you (must|should) (first )?populate|(go|cd|proceed|navigate|switch|change)\s+(in)?to|"
                       r"you (could|can|may|should|must|need to) (create|write|make|prepare))\b|"
                       r"^\W*(place|put|move|copy|store)\b", re.IGNORECASE)
DIR_SPAN = re.compile(r"`([^`\s]{1,255})`\s+(folder|directory|dir)\b|\b(folder|directory)\s+`([^`\s]{1,255})`",
                      re.IGNORECASE)
CODE_EXT = re.compile(r"\.(py|sh|ipynb|r|jl|java|c|cpp|h|js|ts|m|gnuplot|gp|sql|boa|yml|yaml|toml|cfg|md)$",
                      re.IGNORECASE)


def _clean(token: str) -> str:
    token = token.strip().strip("'\"`").rstrip(".,;:'\"")
    token = re.sub(r"<[^<>]*>|\{[^{}]*\}", "*", token)
    return token


def _place(token: str, base: str, doc_dir: str, index: FileIndex) -> str:
    raw = _clean(token)
    if raw.startswith("/"):
        return norm(raw)
    first = norm(raw).split("/")[0]
    if raw.startswith("./") and doc_dir == ".":
        return norm(raw)
    if index.is_dir(first) or index.is_file(norm(raw)):
        return norm(raw)
    if doc_dir != "." and (raw.startswith("../") or index.exists(join(doc_dir, raw)) or
                           index.is_dir(join(doc_dir, first))):
        return join(doc_dir, raw)
    return join(base, raw)


def outputs_in(text: str, line: int, source_path: str, base: str, doc_dir: str, index: FileIndex,
               fallback: list[str]) -> list[DocumentedOutput]:
    """Documented outputs in one paragraph (list item) starting at `line`."""
    out: list[DocumentedOutput] = []
    for _n, piece in enumerate(_pieces(text)):
        source = f"{source_path}:{line + text[:text.find(piece)].count(chr(10)) if piece in text else line}"
        refs = tx.refs(piece)
        scan = re.sub(r"\(\s*and\s+[^)]*\)|\w+://\S+", " ", piece)
        dirs = [m.group(1) or m.group(4) for m in DIR_SPAN.finditer(scan)]
        paths = [m.group(1) or m.group(2) for m in PATH.finditer(scan)]
        paths = [p for p in paths if p and not CODE_EXT.search(_clean(p)) and "://" not in p and not p.startswith("-")
                 and (_is_pathish(_clean(p)) or p in dirs)]
        produce = bool(PRODUCE.search(piece)) and bool(ABOUT_OUTPUT.search(piece)) and not NO_OUTPUT.search(piece)
        listed = bool(refs) and re.match(r"^\s*\W*(Figure|Table|Fig\.|Tab\.)\s*\S+\s*[:\-–→>]", piece, re.IGNORECASE)
        if not listed and re.match(r"^\s*\W*`?[\w\-./]+`?\s*[:\-–]\s", piece):
            continue
        if not (produce or listed):
            continue
        mentions = refs or list(fallback)
        placed = [_place(p, base, doc_dir, index) for p in paths]
        if placed and listed:
            placed += _siblings(piece, placed[0])
        if not placed and produce and refs:
            ext = re.search(r"\b(" + OUTPUT_EXT + r")\b(?: files?)?", piece, re.IGNORECASE)
            if ext and re.search(r"\b(graphs?|plots?|figures?|charts?|images?)\b", piece, re.IGNORECASE):
                placed = [join(base, f"*.{ext.group(1).lower()}")]
        out += [DocumentedOutput(path=p, mentions=mentions, source=source) for p in dict.fromkeys(placed)]
    return out


def _pieces(text: str) -> list[str]:
    lines = [ln for ln in text.split("\n") if ln.strip()]
    if len(lines) > 1 and sum(bool(re.match(r"^\s*\W*(Figure|Table)", ln, re.IGNORECASE)) for ln in lines) >= 2:
        return lines
    return tx.sentences(text) or [text]


def _is_pathish(token: str) -> bool:
    if not token or len(token) > 200 or token in (".", "..", "/") or re.fullmatch(r"\*?\.\w+", token):
        return False
    return "/" in token or bool(re.search(r"\.(" + OUTPUT_EXT + r")$", token, re.IGNORECASE)) or "*" in token


def _siblings(piece: str, first: str) -> list[str]:
    """"(and b.pdf and c.pdf)" after a path names files in the same folder."""
    match = re.search(r"\(\s*and\s+([^)]*)\)", piece)
    if not match:
        return []
    folder = posixpath.dirname(first)
    names = re.findall(r"(?<![\w\-.])[\w\-.]{1,255}\.(?:" + OUTPUT_EXT + r")\b", match.group(1), re.IGNORECASE)
    return [join(folder, n) if folder else n for n in names]


def format_block_output(code: str, line: int, source_path: str, base: str, doc_dir: str, index: FileIndex,
                        fallback: list[str]) -> list[DocumentedOutput]:
    """A code block holding only an output path pattern ("/experiments_results/{case}/{case}.pdf")."""
    lines = [ln.strip() for ln in code.splitlines() if ln.strip()]
    if len(lines) != 1 or " " in lines[0] or not _is_pathish(_clean(lines[0])) or CODE_EXT.search(_clean(lines[0])):
        return []
    return [DocumentedOutput(_place(lines[0], base, doc_dir, index), list(fallback), f"{source_path}:{line}")]
