"""Commands documented in prose: inline code spans and quoted commands a sentence introduces, bare command
lines inside paragraphs and list items, scripts named in "run the `x.py` file" sentences, "run the scripts in
folder F in numerical order", and archives a sentence says to unzip.
"""
from __future__ import annotations

import posixpath
import re
import shlex
from dataclasses import dataclass

from .cmdlines import looks_like_command
from .cwd import resolve_dir
from .mdparse import Block, Span
from .view import FileIndex, join, norm

PROSE_CD = re.compile(r"`(?:cd|pushd)\s+([^`;&|]+?)/?`")
NAVIGATE = re.compile(r"\b(?:navigate|go|change|move|switch|proceed|cd|step)\s+(?:in)?to\s+(?:the\s+)?"
                      r"(?:`([\w./\-]+)`|([\w'’ \-]{2,60}?))\s*(?:(?:sub)?(?:folder|directory|dir)\b|`)", re.IGNORECASE)

INTRO = re.compile(r"\b(run|running|execute|executing|use|using|invoke|invoking|type|typing|call|calling|launch|"
                   r"try|enter|issue|with|via|command|commands|e\.g\.?|eg\.|example|instance|simply|do)\b[^`.;]{0,40}$",
                   re.IGNORECASE)
RUN_VERB = re.compile(r"\b(run|running|execute|executing|call|calling|invoke|invoking|launch|launching|start)\b",
                      re.IGNORECASE)
UNPACK_VERB = re.compile(r"\b(unzip|extract|unpack|decompress|uncompress|gunzip|untar|unarchive)\b", re.IGNORECASE)
ARCHIVE = re.compile(r"(?<![\w\-./])[\w\-./]{1,255}\."
                     r"(tar\.gz|tgz|tar\.xz|txz|tar\.bz2|tbz2|tar|zip|gz|xz|bz2|7z|rar|zst)\b", re.IGNORECASE)
IN_DIR_RUN = re.compile(r"\bin\s+`?((?:\.{0,2}/)?[\w.\-]+(?:/[\w.\-]+)*/?)`?\s*(?:folder|directory|dir)?,?\s+"
                        r"(?:run|execute|type)\b", re.IGNORECASE)
FOLDER_SCRIPTS = re.compile(
    r"\b(?:run|execute)\w*\s+(?:all\s+)?(?:of\s+)?(?:the\s+)?(?P<lang>python|bash|shell|r|julia|jupyter)?\s*"
    r"(?P<what>scripts|files|notebooks|programs)\b(?P<tail>[^.]*)", re.IGNORECASE)
GO_TO = re.compile(r"\b(?:go|cd|change|navigate|proceed|switch|move)\s+(?:in)?to\s+(?:the\s+)?`?([\w./\-]+)`?",
                   re.IGNORECASE)
LANG_EXT = {"python": (".py",), "bash": (".sh",), "shell": (".sh",), "r": (".R", ".r"), "julia": (".jl",),
            "jupyter": (".ipynb",), "notebooks": (".ipynb",)}
RUNNER_ONLY = re.compile(r"^(uv|poetry|pipenv|conda|pixi|hatch|pdm)\s+run$")


@dataclass
class ProseCommand:
    cmd: str
    line: int
    origin: str
    """inline | prose."""
    cwd: str | None = None
    """Folder the sentence names for it ("In ./GitHub run ...") or the folder of the script it names."""
    script: str | None = None
    """Artifact path of the script or notebook the sentence names."""
    weak: bool = False
    """Derived from a script name only; dropped when the next code block runs the same script."""


@dataclass
class ProseContext:
    index: FileIndex
    doc_dir: str
    python: str = "python3"
    console_scripts: frozenset[str] = frozenset()


def natural_key(path: str) -> list:
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", posixpath.basename(path))]


def script_command(path: str, python: str) -> str:
    name = shlex.quote(posixpath.basename(path))
    if path.endswith(".ipynb"):
        stem = posixpath.basename(path)[:-6]
        return f"jupyter nbconvert --to notebook --execute {name} --output {shlex.quote(stem + '.executed.ipynb')}"
    runner = {".py": python, ".sh": "bash", ".bash": "bash", ".R": "Rscript", ".r": "Rscript", ".jl": "julia",
              ".pl": "perl", ".rb": "ruby", ".js": "node", ".m": "octave --no-gui --quiet"}.get(
        posixpath.splitext(path)[1], python)
    return f"{runner} {name}"


def find_file(ctx: ProseContext, name: str) -> str | None:
    """An existing artifact file a doc names: relative to the doc's folder, the root, else a unique base name."""
    name = name.strip().strip("`'\"").split("#")[0]
    if not name or "://" in name:
        return None
    for candidate in (join(ctx.doc_dir, name), norm(name)):
        if ctx.index.is_file(candidate):
            return candidate
    hits = ctx.index.named(posixpath.basename(norm(name)))
    if len(hits) > 1:
        local = [h for h in hits if h.startswith(ctx.doc_dir + "/")] if ctx.doc_dir != "." else []
        hits = local or sorted(hits, key=lambda h: (h.count("/"), h))
    return hits[0] if hits else None


def find_dir(ctx: ProseContext, name: str) -> str | None:
    name = name.strip().strip("`'\"").rstrip("/")
    for candidate in (join(ctx.doc_dir, name), norm(name)):
        if candidate != "." and ctx.index.is_dir(candidate):
            return candidate
    hits = ctx.index.dir_names.get(posixpath.basename(norm(name)), [])
    return hits[0] if len(hits) == 1 else None


def prose_commands(block: Block, ctx: ProseContext) -> list[ProseCommand]:
    """Commands one paragraph documents, in text order."""
    out = _span_commands(block, ctx) + _bare_lines(block, ctx) + _listed_script(block, ctx)
    taken = {c.cmd for c in out}
    text = block.text
    for sentence, start in _sentences(text):
        line = block.line_of(start)
        found = _folder_scripts(sentence, ctx, line) or _named_scripts(sentence, block, start, ctx, line)
        found += _archives(sentence, ctx, line)
        out += [c for c in found if c.cmd not in taken and not _inside_command(c, out)]
    return sorted(out, key=lambda c: c.line)


def _sentences(text: str) -> list[tuple[str, int]]:
    out, start = [], 0
    for match in re.finditer(r"(?<=[.!?])\s+(?=[A-Z(\[`*_\"'])|(?<=[.!?:])\s*\n|\n\s*\n|\n(?=\s*[-*\d])", text):
        out.append((text[start:match.start()], start))
        start = match.end()
    out.append((text[start:], start))
    return [(s, i) for s, i in out if s.strip()]


def _span_commands(block: Block, ctx: ProseContext) -> list[ProseCommand]:
    out = []
    for span in block.spans:
        if span.kind not in ("code", "quote"):
            continue
        cmd = span.text.strip()
        if RUNNER_ONLY.match(cmd) or not looks_like_command(cmd, ctx.console_scripts):
            continue
        if len(cmd.split()) < 2 and cmd not in ("make", "pytest", "tox", "nox") and cmd not in ctx.console_scripts \
                and not (cmd.startswith("./") and find_file(ctx, cmd)):  # `./scripts/run.sh`: a script, run as named
            continue
        before = block.text[max(0, span.start - 90):max(0, span.start - 1)]
        before = re.split(r"(?<=[.!?])\s", before)[-1]
        alone = block.text.strip() == f"`{span.text}`"  # a command on a line of its own, in single backticks
        if not INTRO.search(before) and not (alone and looks_like_command(cmd, ctx.console_scripts, strict=True)):
            continue
        cwd_match = IN_DIR_RUN.search(before)
        cwd = find_dir(ctx, cwd_match.group(1)) or norm(cwd_match.group(1)) if cwd_match else None
        out.append(ProseCommand(cmd, block.line_of(span.start), "inline", cwd=cwd))
    return out


def _bare_lines(block: Block, ctx: ProseContext) -> list[ProseCommand]:
    out, offset = [], 0
    for raw in block.text.split("\n"):
        text = re.sub(r"^\s*((for )?example[s]?:?|e\.g\.,?|eg\.|\$)\s*", "", raw.strip(), flags=re.IGNORECASE)
        if text and "`" not in text and looks_like_command(text, ctx.console_scripts, strict=True):
            out.append(ProseCommand(text, block.line_of(offset), "prose"))
        offset += len(raw) + 1
    return out


SCRIPT_EXT = re.compile(r"\.(py|sh|R|r|jl|m)$")  # notebooks a list names are read by notebooks.py
OBJECT = re.compile(r"\b(Tables?|Tab\.|Figures?|Figs?\.|RQ)\s*\d", re.IGNORECASE)


def _listed_script(block: Block, ctx: ProseContext) -> list[ProseCommand]:
    """A list item that starts with a script of the artifact and names the paper object it makes ("- `fig2.m`:
    Figure 2", "* table_3.py — Table 3"): the script, run from its folder (a plan written as a list)."""
    if not block.in_list or not OBJECT.search(block.text):
        return []
    first = block.spans[0].text.strip() if block.spans and block.spans[0].start <= 2 else \
        (block.text.split() or [""])[0].strip(":,;*")
    if not SCRIPT_EXT.search(first) or " " in first:
        return []
    path = find_file(ctx, first)
    if path is None:
        return []
    return [ProseCommand(script_command(path, ctx.python), block.line, "prose", cwd=posixpath.dirname(path) or ".",
                         script=path, weak=True)]


def _inside_command(found: ProseCommand, commands: list[ProseCommand]) -> bool:
    name = posixpath.basename(found.script or "")
    return bool(name) and any(name in c.cmd.split() or f"/{name}" in c.cmd for c in commands if c.script is None)


def _named_scripts(sentence: str, block: Block, start: int, ctx: ProseContext, line: int) -> list[ProseCommand]:
    if not RUN_VERB.search(sentence) or re.search(r"\bthe following\b", sentence, re.IGNORECASE):
        return []
    found: list[tuple[int, str]] = []
    for span in block.spans:
        if start <= span.start < start + len(sentence) and span.kind in ("code", "link", "quote"):
            found.append((span.start - start, span.href if span.kind == "link" and span.href else span.text))
    plain = re.sub(r"`[^`]*`", lambda m: " " * len(m.group(0)), sentence)
    found += [(m.start(), m.group(0))
              for m in re.finditer(r"(?<![\w\-./])[\w\-./]{1,255}\.(?:py|sh|ipynb|R|jl)\b", plain)]
    if re.search(r"\.py\b|\bpython (files|scripts)\b", sentence, re.IGNORECASE):
        found += [(m.start(), m.group(0) + ".py") for m in re.finditer(r"\b[a-z][\w\-]*_[\w\-]+\b(?!\.)", plain)]
    names = [name for _, name in sorted(found)]
    out = []
    for name in dict.fromkeys(names):
        if len(name.split()) > 1 or not re.search(r"\.(py|sh|ipynb|R|jl)$", name):
            continue
        path = find_file(ctx, name)
        if path:
            cmd = script_command(path, ctx.python)
            out.append(ProseCommand(cmd, line, "prose", cwd=posixpath.dirname(path) or ".", script=path, weak=True))
    return out


def _folder_scripts(sentence: str, ctx: ProseContext, line: int) -> list[ProseCommand]:
    match = FOLDER_SCRIPTS.search(sentence)
    if not match or re.search(r"\b(the following|corresponding|each of the)\b", sentence, re.IGNORECASE):
        return []
    folder_match = re.search(r"^\s*(?:in|from|inside|within|under)\s+(?:the\s+)?`?([\w./\-]+)`?", match.group("tail"))
    folder_match = folder_match or GO_TO.search(sentence[:match.start()])
    folder = find_dir(ctx, folder_match.group(1)) if folder_match else None
    if not folder:
        return []
    lang = (match.group("lang") or match.group("what")).lower()
    exts = LANG_EXT.get(lang, (".py", ".sh"))
    skip = re.compile(r"^(__init__|setup|conftest)\.py$|^_")
    files = [f for f in ctx.index.files_in(folder) if f.endswith(exts) and not skip.match(posixpath.basename(f))]
    return [ProseCommand(script_command(f, ctx.python), line, "prose", cwd=folder, script=f)
            for f in sorted(files, key=natural_key)]


def _archives(sentence: str, ctx: ProseContext, line: int) -> list[ProseCommand]:
    if not UNPACK_VERB.search(sentence):
        return []
    paths = [p for name in dict.fromkeys(m.group(0) for m in ARCHIVE.finditer(sentence)) if (p := find_file(ctx, name))]
    weak = False
    if not paths and not ARCHIVE.search(sentence):  # "unzip the data first": dropped if the next block unpacks
        paths, weak = _unnamed_archives(sentence, ctx), True
    return [ProseCommand(unpack_command(posixpath.basename(path)), line, "prose", cwd=posixpath.dirname(path) or ".",
                         script=path, weak=weak) for path in paths]


DATA_WORDS = re.compile(r"\b(the\s+)?(data(sets?)?|inputs?|archives?|zip(ped)?\s+files?|benchmarks?|samples?|"
                        r"models?|traces?|corpus|corpora)\b", re.IGNORECASE)


def _unnamed_archives(sentence: str, ctx: ProseContext) -> list[str]:
    """The archives an unpack sentence means without naming them ("Unzip the data first"): those in a folder it
    names, else the artifact's only archive(s) in one folder whose name the sentence uses ("data")."""
    if not DATA_WORDS.search(sentence):
        return []
    archives = [f for f in ctx.index.files if ARCHIVE.fullmatch(posixpath.basename(f)) and f.count("/") <= 3]
    named = [m.group(1) for m in re.finditer(r"`([\w./\-]+)`", sentence)] + \
        [m.group(2) for m in DATA_WORDS.finditer(sentence)]
    for word in named:
        folder = find_dir(ctx, word)
        if folder is not None:
            inside = [a for a in archives if a.startswith(folder + "/")]
            if inside:
                return inside[:5]
    folders = {posixpath.dirname(a) for a in archives}
    return archives[:5] if archives and len(folders) == 1 and len(archives) <= 5 else []


def unpack_command(name: str) -> str:
    quoted = shlex.quote(name)
    lower = name.lower()
    for suffixes, cmd in (((".tar.gz", ".tgz"), "tar xzf"), ((".tar.xz", ".txz"), "tar xJf"),
                          ((".tar.bz2", ".tbz2"), "tar xjf"), ((".tar",), "tar xf"), ((".zip",), "unzip -o"),
                          ((".gz",), "gunzip -k"), ((".xz",), "xz -dk"), ((".bz2",), "bunzip2 -k"),
                          ((".7z",), "7z x"), ((".rar",), "unrar x"), ((".zst",), "zstd -d")):
        if lower.endswith(suffixes):
            return f"{cmd} {quoted}"
    return f"unzip {quoted}"


def span_in(block: Block, start: int, end: int) -> list[Span]:
    return [s for s in block.spans if start <= s.start < end]


def navigated_folder(sentence: str, ctx: ProseContext, index: FileIndex, cwd: str, doc_dir: str) -> str | None:
    """The folder a sentence tells the reader to stand in: "`cd benchmark/`", "navigate to the `attacks`
    directory", "go to the reference implementation's directory" (words matched to a folder's name)."""
    cd = PROSE_CD.search(sentence)
    if cd:
        folder, note = resolve_dir(index, cwd, cd.group(1), doc_dir)
        return None if note else folder
    go = NAVIGATE.search(sentence)
    if go is None:
        return None
    if go.group(1):
        return find_dir(ctx, go.group(1))
    return _folder_named(go.group(2) or "", index, cwd)


def _squash(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", re.sub(r"['’]s\b", "", text.lower()))


def _folder_named(words: str, index: FileIndex, cwd: str) -> str | None:
    """The one folder whose name is the words (case, spaces, underscores and dashes aside), nearest `cwd` first."""
    key = _squash(words)
    if len(key) < 3:
        return None
    hits = [d for d in index.dirs if d != "." and _squash(posixpath.basename(d)) == key]
    near = [d for d in hits if cwd == "." or d.startswith(cwd + "/")]
    hits = near or hits
    return hits[0] if len(hits) == 1 else None
