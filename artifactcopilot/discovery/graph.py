"""The documented steps as a graph: for every command the files it reads and writes (discovery/stepio.py), and for a
file a command needs, the documented step that makes it — a download, a clone, an unpack, a build, an earlier
script — so that step runs first and a file is called missing from the repository only when no step makes it.

A download script (`bash download.sh`, `python get_data.py`) is read for the downloads it runs, one level deep.
"""
from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field

from ..shell import simple_commands, split_env, split_runner, words
from .classify import classify
from .model import Step
from .stepio import SCRIPT_EXT, StepIO, step_io
from .view import join

Reader = Callable[[str], "str | None"]
MAX_SCRIPT_LINES = 400


@dataclass
class GraphNode:
    order: int
    cmd: str
    source: str
    kind: str
    cwd: str
    reads: list[str] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)
    folders: list[str] = field(default_factory=list)
    """Empty folders it makes (`mkdir`)."""
    urls: list[str] = field(default_factory=list)
    makes_unknown: bool = False
    """It writes files the command line does not name (a download script, `zenodo_get` into the current folder)."""
    missing: list[str] = field(default_factory=list)
    """Reads that are not in the repository."""

    @property
    def fetches(self) -> bool:
        return self.kind == "download"


def covers(written: str, path: str) -> bool:
    """A written file or folder holds `path` (a folder written as "." holds nothing by name)."""
    written = written.rstrip("/")
    return written not in ("", ".") and (path == written or path.startswith(written + "/"))


@dataclass
class StepGraph:
    nodes: list[GraphNode] = field(default_factory=list)

    def producers(self, path: str, before: int | None = None) -> list[GraphNode]:
        """The steps that write `path` (or a folder holding it), in documentation order. With `before`: those
        documented before that position, else any (a step documented later still runs first when its output is
        needed)."""
        found = [n for n in self.nodes if any(covers(w, path) for w in n.writes)]
        if before is not None:
            earlier = [n for n in found if n.order < before]
            return earlier or found
        return found

    def chain(self, path: str, files: set[str], seen: set[int] | None = None) -> list[GraphNode]:
        """The steps that make `path`, with the steps that make their own missing inputs first, in run order."""
        seen = set() if seen is None else seen
        out: list[GraphNode] = []
        for node in self.producers(path)[:1]:
            if node.order in seen:
                continue
            seen.add(node.order)
            for need in node.reads:
                if need not in files:
                    out += [n for n in self.chain(need, files, seen) if n not in out]
            out.append(node)
        return out

    def blocked_by(self, node: GraphNode) -> list[GraphNode]:
        """The other steps that need what `node` makes, directly or through a step that needs it (an unpack), in
        documentation order."""
        made, blocked = list(node.writes), {node.order}
        changed = True
        while changed:
            changed = False
            for other in self.nodes:
                if other.order in blocked:
                    continue
                needs = any(covers(w, r) for r in other.reads for w in made)
                unknown = node.makes_unknown and other.missing and not any(self.producers(m) for m in other.missing)
                if needs or unknown:
                    blocked.add(other.order)
                    made += other.writes
                    changed = True
        return [n for n in self.nodes if n.order in blocked and n.order != node.order]

    def unproduced(self) -> list[tuple[GraphNode, str]]:
        """(step, file) for every missing input no documented step makes."""
        return [(n, m) for n in self.nodes for m in n.missing if not self.producers(m)]

    def to_dict(self) -> list[dict]:
        return [asdict(n) for n in self.nodes]


def _script_of(inner: str, cwd: str) -> str | None:
    """The script a download step runs (`bash download.sh`, `python3 get_data.py`, `./fetch.sh`)."""
    argv = words(split_env(inner)[1])
    for word in argv[:3]:
        if word.endswith(SCRIPT_EXT):
            return join(cwd, word)
    return None


def _script_downloads(text: str, cwd: str, read: Reader | None) -> StepIO:
    """The downloads, unpacks and folders a download script's own lines make (one level: no further scripts)."""
    io = StepIO()
    if text.lstrip().startswith(("import ", "from ", "#!/usr/bin/env python", "#!/usr/bin/python")) or "urlretrieve" \
            in text or "requests.get" in text:
        io.urls = re.findall(r"https?://[^\s'\"<>)]+", text)[:20]
        io.makes_unknown = True
        for target in re.findall(r"""(?:urlretrieve|download)\([^,]+,\s*['"]([\w./\-]+)['"]""", text):
            io.writes.append(join(cwd, target))
        return io
    for simple in simple_commands(text)[:MAX_SCRIPT_LINES]:  # a loop's body is read as the commands it runs
        cmd = simple.text.strip()
        inner = split_runner(split_env(cmd)[1])[1]
        kind = classify(inner)
        if kind not in ("download", "data", "workflow", "env"):
            continue
        part = step_io(inner, kind, cwd, None)
        io.urls += part.urls
        io.writes += part.writes
        io.reads += [r for r in part.reads if r not in io.writes]
        io.makes_unknown = io.makes_unknown or part.makes_unknown and kind == "download" and not part.writes
    return io


def node_of(step: Step, files: set[str], read: Reader | None) -> GraphNode:
    io = step_io(step.inner, step.kind, step.cwd, read)
    script = _script_of(step.inner, step.cwd) if step.kind == "download" else None
    if script and read is not None and (text := read(script)):
        inner = _script_downloads(text, step.cwd, read)
        io.urls = list(dict.fromkeys(io.urls + inner.urls))
        io.writes = list(dict.fromkeys(io.writes + inner.writes))
        io.makes_unknown = inner.makes_unknown or not inner.writes
    missing = [r for r in io.reads if r not in files and not _is_folder(r, files)]
    writes = list(dict.fromkeys(io.writes + [o for o in step.outputs if o not in io.writes]))
    return GraphNode(order=step.order, cmd=step.cmd, source=step.source, kind=step.kind, cwd=step.cwd,
                     reads=io.reads, writes=writes, folders=io.folders, urls=io.urls, makes_unknown=io.makes_unknown,
                     missing=missing)


def _is_folder(path: str, files: Iterable[str]) -> bool:
    prefix = path.rstrip("/") + "/"
    return any(f.startswith(prefix) for f in files)


def build_graph(steps: list[Step], files: Iterable[str], read: Reader | None = None) -> StepGraph:
    """The graph of the documented steps (install and environment steps read and make no data: left out)."""
    have = set(files)
    nodes = [node_of(s, have, read) for s in steps if s.kind in ("download", "data", "workflow", "plot", "test")]
    return StepGraph(nodes)


def said_about(path: str, docs: list[tuple[str, str]]) -> tuple[str, str] | None:
    """Where the documentation says a file comes from: the first sentence naming it (or its folder) together with
    a word of obtaining it, else the first sentence giving a download link; (sentence, document) or None."""
    name, folder = posixpath.basename(path), posixpath.dirname(path)
    words_ = re.compile(r"download|obtain|available|hosted|fetch|request|archive|zenodo|figshare|drive|server|"
                        r"contact|provided by|from\s+http", re.I)
    pointer = None
    for doc, text in docs:
        for sentence in re.split(r"(?<=[.!?])\s+|\n\s*\n", text):
            flat = " ".join(sentence.split())
            if len(flat) > 400 or not words_.search(flat):
                continue
            folder_named = folder not in ("", ".") and re.search(rf"(?<![\w/.]){re.escape(folder)}/?(?![\w./-])", flat)
            if name in flat or folder_named:
                return flat, doc
            if pointer is None and re.search(r"https?://", flat) and re.search(r"\bdownload", flat, re.I):
                pointer = (flat, doc)  # no sentence names the file: the documentation's first download link
    return pointer
