"""Paper ingestion: PDF, Markdown, LaTeX (a file or a project directory) or plain text -> `Paper`.

Later phases need the paper's results tables (what to reproduce), its claims (what to check)
and its links (where the artifact lives). Bad input becomes a one-line `PaperError`, never a traceback.
"""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from ..fileio import decode_text, looks_binary
from ..tables import Table, parse_tables
from .latex import main_tex, parse_latex
from .pdftext import PaperError

__all__ = ["Paper", "PaperError", "Section", "distinctive_terms", "load_paper", "paper_title", "paper_year"]


class Section(BaseModel):
    title: str
    text: str


class Paper(BaseModel):
    path: str
    format: Literal["pdf", "markdown", "latex", "text"]
    title: str = ""
    abstract: str = ""
    sections: list[Section] = Field(default_factory=list)
    text: str = Field("", description="Full plain text.")
    tables: list[Table] = Field(default_factory=list)
    claims: list[str] = Field(default_factory=list)
    links: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list, description="Non-fatal problems, e.g. a missing \\input file.")
    figures: list[str] = Field(default_factory=list, description="Figure captions as printed.")


def load_paper(path: str | Path) -> Paper:
    p = Path(path)
    if not p.exists():
        raise PaperError(f"paper {p} does not exist", hint="check the path to the paper")
    if p.is_dir():
        main = main_tex(p)
        if main is None:
            raise PaperError(f"paper directory {p} has no main .tex file (none contains \\documentclass)",
                             hint="pass the main .tex file or a PDF instead")
        paper = _latex(main)
        paper.path = str(p)
        paper.notes.insert(0, f"main file: {main.relative_to(p)}")
        return paper
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise PaperError(f"paper {p} cannot be read: {exc.strerror}") from None
    if not data.strip():
        raise PaperError(f"paper {p} is empty", hint="pass the paper's PDF, Markdown, LaTeX or text file")
    ext = p.suffix.lower()
    if data.lstrip()[:5] == b"%PDF-" or (ext == ".pdf" and b"%PDF-" in data[:1024]):  # spec allows leading junk
        return _pdf(p, data)
    if ext == ".pdf":
        raise PaperError(f"paper {p} is a corrupt PDF: no %PDF header", hint="re-download the PDF")
    if looks_binary(data):
        raise PaperError(f"paper {p} is not a text, Markdown, LaTeX or PDF file",
                         hint="pass the paper's PDF, Markdown, LaTeX sources or plain text")
    text = decode_text(data)
    fmt = {".md": "markdown", ".markdown": "markdown", ".tex": "latex", ".txt": "text"}.get(ext) or _sniff(text)
    if fmt == "latex":
        return _latex(p, text)
    return (_markdown if fmt == "markdown" else _plain_text)(p, text)


_NO_TITLE = {"pdf": "neither the PDF's first page nor its metadata gives one",
             "markdown": "the Markdown file has no title heading",
             "latex": "the LaTeX source has no \\title", "text": "the text file has no first line"}


def paper_title(paper: Paper) -> tuple[str, str]:
    """(the paper's title, '') when one was read; else (its file name, why no title could be read)."""
    if paper.title.strip():
        return " ".join(paper.title.split()), ""
    return Path(paper.path).name, (f"No title could be read from the paper ({_NO_TITLE[paper.format]}); "
                                   "the title is its file name.")


# ---------------------------------------------------------------------------------- bytes

def _sniff(text: str) -> str:
    if re.search(r"\\(documentclass|begin\{document\}|section\*?\{)", text):
        return "latex"
    if re.search(r"^#{1,6} \S", text, re.M) or re.search(r"^\s*\|?\s*:?-{3,}:?\s*\|", text, re.M):
        return "markdown"
    return "text"


# ---------------------------------------------------------------------------------- PDF

def _pdf(p: Path, data: bytes) -> Paper:
    from .pdfread import read_pdf

    reading = read_pdf(p, data)
    paper = _from_text(p, "pdf", "\n\n".join(reading.pages).strip(), reading.tables)
    paper.figures, paper.notes = reading.figures, paper.notes + reading.notes
    # as printed on the first page, else the metadata's, else a first line that reads as a title
    paper.title = reading.title or (paper.title if _title_like(paper.title) else "")
    return paper


def _title_like(line: str) -> bool:
    """A line that could be a title: a few words, mostly letters, not a sentence ('2401.01234v2 [cs.SE]' is not)."""
    letters = sum(c.isalpha() for c in line)
    return 2 <= len(line.split()) <= 30 and letters >= 0.6 * len(line.replace(" ", "")) and not line.endswith(".")


# ---------------------------------------------------------------------------------- text & Markdown

_HEADING = re.compile(r"^\s*(?:(?:\d{1,2}(?:\.\d{1,2})*\.?|[IVX]+\.)\s+[A-Z][A-Za-z][\w\- ,:&]{0,60}"
                      r"|(?:Abstract|Introduction|Related Work|Background|Evaluation|Experiments|Results|Discussion|"
                      r"Conclusions?|References|"
                      r"Acknowledge?ments|Appendix))\s*$")


def _from_text(p: Path, fmt: str, text: str, tables: list[Table] | None = None) -> Paper:
    """Plain text (and PDF text): headings are numbered lines or well-known section names."""
    lines = text.splitlines()
    heads = [i for i, ln in enumerate(lines) if _HEADING.match(ln)]
    sections = [Section(title=lines[i].strip(), text="\n".join(lines[i + 1:j]).strip())
                for i, j in zip(heads, heads[1:] + [len(lines)])]
    abstract = next((s.text for s in sections if s.title.lower() == "abstract"), "")
    if not abstract:
        m = re.search(r"(?is)\babstract\b[\s.:—-]*(.+?)(?=\n\s*\n|\n\s*(?:1\.?|I\.)?\s*Introduction\b|\Z)", text)
        abstract = m.group(1).strip() if m else ""
    title = next((ln.strip() for ln in lines if ln.strip()), "")[:200]
    return _finish(Paper(path=str(p), format=fmt, title=title, abstract=abstract[:3000], sections=sections,
                         text=text, tables=parse_tables(text) if tables is None else tables))


def _plain_text(p: Path, text: str) -> Paper:
    return _from_text(p, "text", text)


def _markdown(p: Path, text: str) -> Paper:
    lines = text.splitlines()
    heads, fence = [], False
    for i, ln in enumerate(lines):
        fence ^= ln.lstrip().startswith("```")
        if not fence and (m := re.match(r"^(#{1,6})\s+(.+?)\s*#*\s*$", ln)):
            heads.append((i, len(m.group(1)), m.group(2)))
    # the level-1 heading; else a first heading that is not a section's ("## Abstract", "## 1 Introduction")
    first = heads[0][2] if heads and not _HEADING.match(heads[0][2].strip("* ")) else ""
    title = next((h for _, lvl, h in heads if lvl == 1), first)
    sections = [Section(title=h, text="\n".join(lines[i + 1:j]).strip())
                for (i, _, h), j in zip(heads, [k for k, _, _ in heads[1:]] + [len(lines)])]
    abstract = next((s.text for s in sections if s.title.strip("* ").lower() == "abstract"), "")
    if not abstract and (m := re.search(r"(?im)^\s*(?:\*\*|__)?abstract(?:\*\*|__)?[.:—-]*(?:\*\*|__)?\s*(.+)$", text)):
        abstract = m.group(1).strip()
    plain = re.sub(r"^#{1,6}\s+", "", text, flags=re.M)
    plain = re.sub(r"!?\[([^\]]*)\]\(([^)\s]+)\)", r"\1 (\2)", plain)  # keep link targets for `links`
    plain = re.sub(r"(\*\*|__)(.+?)\1", r"\2", plain)
    return _finish(Paper(path=str(p), format="markdown", title=title.strip("* "), abstract=abstract,
                         sections=sections, text=plain, tables=parse_tables(text)))


def _latex(p: Path, source: str | None = None) -> Paper:
    parts = parse_latex(p, source)
    return _finish(Paper(path=str(p), format="latex", title=parts.title, abstract=parts.abstract,
                         sections=[Section(title=t, text=x) for t, x in parts.sections], text=parts.text,
                         tables=parts.tables, notes=parts.notes))


_SKIP_SECTIONS = re.compile(r"(?i)^\W*(?:\d+\.?\s*)?(references|bibliography|acknowledge?ments?)\b")
_RESULT_WORDS = re.compile(r"(?i)\b(?:improv\w*|outperform\w*|achiev\w*|reduc\w*|faster|slower|speed-?ups?|accura\w*|"
                           r"than|higher|lower|better|worse|increas\w*|decreas\w*|surpass\w*|beats?|reach\w*|up to|"
                           r"state[- ]of[- ]the[- ]art)\b|%|×|\d\s*x\b")
_NOT_RESULTS = re.compile(r"(?i)\b(?:Table|Tab\.|Figure|Fig\.|Section|Sec\.|Eq\.|Equation|Appendix|Algorithm)\s*\d+"
                          r"|\[\d+(?:[,–-]\s*\d+)*\]|\b(?:19|20)\d{2}\b")
_CAPTION = re.compile(r"(?i)^(?:Table|Tab\.|Figure|Fig\.)\s*\d+\s*[.:]")
_ABBREV = re.compile(r"(?i)(?:\be\.g|\bi\.e|\bet al|\bfig|\bsec|\beq|\btab|\bvs|\bcf|\bapprox|\bresp)\.$")


def _sentences(text: str) -> list[str]:
    text = re.sub(r"(\w)-\n(\w)", r"\1\2", text)  # PDF hyphenation
    out: list[str] = []
    for piece in re.split(r"(?<=[.!?])\s+(?=[A-Z(\[])|\n\s*\n", text):
        piece = " ".join(piece.split())
        if out and _ABBREV.search(out[-1]):
            out[-1] += " " + piece
        elif piece:
            out.append(piece)
    return out


def _claims(paper: Paper) -> list[str]:
    body = [paper.abstract] + [s.text for s in paper.sections if not _SKIP_SECTIONS.match(s.title)]
    if not paper.sections:
        body.append(paper.text)
    seen: dict[str, None] = {}
    for sentence in _sentences(re.sub(r"(\*\*|__)(.+?)\1", r"\2", "\n\n".join(body))):
        if _CAPTION.match(sentence):  # "Table 1: accuracy (%) on CIFAR-10" describes, it does not claim
            continue
        if 20 <= len(sentence) <= 500 and _RESULT_WORDS.search(sentence) \
                and re.search(r"\d", _NOT_RESULTS.sub("", sentence)):
            seen.setdefault(sentence, None)
    return list(seen)


_URL = re.compile(r"https?://[^\s<>\"'`{}|\\^\[\]]+")
_DOI = re.compile(r"\b10\.\d{4,9}/[^\s<>\"'`{}|\\^\[\]]+")


def _tidy(link: str) -> str:
    while link and (link[-1] in ".,;:!?'\"" or (link[-1] == ")" and link.count(")") > link.count("("))):
        link = link[:-1]
    return link


def _links(text: str) -> list[str]:
    urls = list(dict.fromkeys(_tidy(u) for u in _URL.findall(text)))
    dois = [d for d in dict.fromkeys(_tidy(d) for d in _DOI.findall(text)) if not any(d in u for u in urls)]
    return urls + dois


def _finish(paper: Paper) -> Paper:
    paper.claims = _claims(paper)
    paper.links = _links(paper.text + "\n" + paper.abstract)
    return paper


# Common English and paper-boilerplate words of 5+ letters: frequent everywhere, so they say nothing
# about which paper an artifact belongs to.
_STOP = set("""about above according across actually after again against almost along already although always
among another anything approach around based because become before being below better between beyond cannot
compare compared could different doing during each either enough every example first following found further
general given great having however important include includes including indeed instead itself known large
later least little might method methods model models moreover never number numbers often order other others
otherwise overall paper perhaps point points present presents problem problems propose proposed provide
provides rather really result results second section several shall should shown shows similar simple since
small specific still study system systems table their theirs themselves there therefore these thing things
third those though three through together total toward towards under until using value values various where
whereas whether which while whose within without works would yours yourself figure figures tables evaluation
experiments experimental""".split())


def paper_year(text: str, now: int | None = None) -> int | None:
    """The year a paper is from: the latest plausible year in its first lines (venue, copyright, date)."""
    import datetime

    now = now or datetime.date.today().year
    years = [int(y) for y in re.findall(r"(?<![\d/.-])((?:19|20)\d\d)(?![\d/.-])", text[:3000])]
    years = [y for y in years if 1990 <= y <= now]
    return max(years) if years else None


def distinctive_terms(text: str, limit: int = 60) -> set[str]:
    """Frequent uncommon words (>= 5 letters): a cheap fingerprint to tell whether an artifact matches a paper."""
    counts = Counter(w for w in re.findall(r"[a-z]{5,}", text.lower()) if w not in _STOP)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return {w for w, _ in ranked[:limit]}
