"""LaTeX papers: the main file of a project, \\input/\\include inlined, tables in order, prose as plain text."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..fileio import decode_text
from ..tables import Table, parse_tables

_COMMENT = re.compile(r"(?<!\\)%[^\n]*")
_INPUT = re.compile(r"\\(input|include|subfile)\s*\{([^}]+)\}")
_TABLE_ENV = re.compile(r"\\begin\{(table\*?)\}.*?\\end\{\1\}", re.S)
_TABULAR = re.compile(r"\\begin\{(tabular\*?|tabularx)\}.*?\\end\{\1\}", re.S)


def main_tex(folder: Path) -> Path | None:
    """The project's main file: one with \\documentclass, preferring main/paper/ms/article, then one with a body."""
    found = [f for f in sorted(folder.rglob("*.tex")) if "\\documentclass" in _COMMENT.sub("", read_tex(f))]
    if not found:
        return None
    named = [f for f in found if f.stem.lower() in ("main", "paper", "ms", "article")]
    return (named or [f for f in found if "\\begin{document}" in read_tex(f)] or found)[0]


def read_tex(f: Path) -> str:
    try:
        return decode_text(f.read_bytes())
    except OSError:
        return ""


def _inline(text: str, root: Path, notes: list[str], stack: tuple[Path, ...] = ()) -> str:
    """Replace \\input/\\include by the file's content (paths are relative to the main file's folder)."""
    def repl(m: re.Match) -> str:
        name = m.group(2).strip()
        f = next((c.resolve() for c in (root / name, root / f"{name}.tex") if c.is_file()), None)
        if f is None or f in stack:
            notes.append(f"\\{m.group(1)}{{{name}}}: {'file not found' if f is None else 'includes itself'}, skipped")
            return ""
        return _inline(read_tex(f), root, notes, stack + (f,))
    return _INPUT.sub(repl, _COMMENT.sub("", text))


def _arg(source: str, command: str) -> str:
    m = re.search(r"\\" + command + r"\*?\s*(?:\[[^\]]*\])?\s*\{", source)
    if not m:
        return ""
    depth, start = 0, m.end() - 1
    for i in range(start, len(source)):
        depth += {"{": 1, "}": -1}.get(source[i], 0) if source[i - 1] != "\\" else 0
        if depth == 0:
            return source[start + 1:i]
    return ""


def _latex_plain(s: str, refs: dict[str, str]) -> str:
    s = _TABULAR.sub("\n", s)  # table cells are in `tables`; as prose they only confuse claims
    s = re.sub(r"\\(?:url|path)\s*\{([^{}]*)\}", lambda m: m.group(1).replace("\\_", "_"), s)
    s = re.sub(r"\\href\s*\{([^{}]*)\}\s*\{([^{}]*)\}", lambda m: f"{m.group(2)} ({m.group(1)})", s)
    s = re.sub(r"\\(?:auto|c|C)?ref\s*\{([^{}]*)\}", lambda m: refs.get(m.group(1), "?"), s)
    s = re.sub(r"\\(?:cite[a-zA-Z]*|label|vspace|hspace|bibliography(?:style)?|includegraphics)\*?\s*(?:\[[^\]]*\])*"
               r"\s*\{[^{}]*\}", "", s)
    s = re.sub(r"\\(?:sub)*section\*?\s*\{([^{}]*)\}", r"\n\n\1\n\n", s)
    s = re.sub(r"\\(?:begin|end)\s*\{[^{}]*\}(?:\[[^\]]*\])?", "\n", s)
    for a, b in (("\\%", "%"), ("\\&", "&"), ("\\_", "_"), ("\\$", "$"), ("~", " "), ("\\\\", "\n"),
                 ("\\pm", "±"), ("\\times", "×"), ("---", "—"), ("--", "–"), ("``", '"'), ("''", '"')):
        s = s.replace(a, b)
    s = re.sub(r"\\[a-zA-Z]+\*?", "", s)
    s = re.sub(r"(?<!\\)[${}]", "", s)
    paragraphs = (" ".join(par.split()) for par in re.split(r"\n\s*\n", s))
    return "\n\n".join(par for par in paragraphs if par)


@dataclass
class LatexParts:
    """What a LaTeX source says, as plain text: the paper model is built from it."""

    title: str
    abstract: str
    sections: list[tuple[str, str]]
    text: str
    tables: list[Table]
    notes: list[str] = field(default_factory=list)


def parse_latex(main: Path, source: str | None = None) -> LatexParts:
    """The main file (or its given source) with \\input/\\include inlined, reduced to plain text and tables."""
    notes: list[str] = []
    source = _inline(read_tex(main) if source is None else source, main.parent, notes, (main.resolve(),))
    m = re.search(r"\\begin\{document\}(.*?)(?:\\end\{document\}|\Z)", source, re.S)
    body = m.group(1) if m else source
    # LaTeX numbers tables by the order of table environments.
    found: list[tuple[int, Table]] = []
    refs: dict[str, str] = {}
    for n, env in enumerate(_TABLE_ENV.finditer(body), 1):
        for t in parse_tables(env.group(0)):
            t.label = t.label or f"Table {n}"
            if t.ref:
                refs[t.ref] = t.label.split()[-1]
            found.append((env.start(), t))
    rest = _TABLE_ENV.sub(lambda e: " " * len(e.group(0)), body)
    found += [(tab.start(), t) for tab in _TABULAR.finditer(rest) for t in parse_tables(tab.group(0))]
    abstract = re.search(r"\\begin\{abstract\}(.*?)\\end\{abstract\}", body, re.S)
    heads = list(re.finditer(r"\\(?:sub)*section\*?\s*\{", body))
    sections = [(_latex_plain(_arg(body[h.start():], "(?:sub)*section"), refs),
                 _latex_plain(re.sub(r"^\\(?:sub)*section\*?\s*\{[^{}]*\}", "", body[h.start():e]), refs))
                for h, e in zip(heads, [h.start() for h in heads[1:]] + [len(body)])]
    counter = iter(range(1, 1000))
    return LatexParts(title=_latex_plain(_arg(source, "title"), refs),
                      abstract=_latex_plain(abstract.group(1), refs) if abstract else "", sections=sections,
                      text=_latex_plain(_TABLE_ENV.sub(lambda e: _caption_text(e.group(0), next(counter)), body), refs),
                      tables=[t for _, t in sorted(found, key=lambda f: f[0])], notes=notes)


def _caption_text(env: str, n: int) -> str:
    """A table env in the plain text is reduced to its caption line."""
    caption = _arg(env, "caption")
    line = caption if re.match(r"Table\s", caption) else f"Table {n}: {caption}"
    return f"\n\n{line}\n\n"


# ---------------------------------------------------------------------------------- claims, links, terms
