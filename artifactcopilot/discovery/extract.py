"""Read one document top to bottom like a reviewer: sections, command blocks (with their `cd`, exports and
prompts), commands in prose, what commands print, what the workflow writes, and pointers to sample inputs.
"""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from . import text as tx
from .classify import HEAD_DATA, HEAD_PLOT, HEAD_SETUP, HEAD_TEST
from .codeblocks import read_block
from .costs import line_costs, table_costs
from .cwd import AND_CD, CD, CD_AND, clone_dir, primary_file, resolve_dir
from .fill import SamplePointer
from .mdparse import Block, around, last_para, parse
from .model import DocCost, DocumentedOutput, Prerequisite, Step
from .outputs import PRODUCE, format_block_output, outputs_in
from .placeholders import block_vars, described_placeholders
from .prereqs import assignment_line, code_edits, prose_prerequisites
from .prose import ProseContext, find_dir, find_file, navigated_folder, prose_commands
from .stepbuild import WORK_KINDS, Context, build_step
from .steptable import table_steps
from .variants import Variant, variants_in
from .view import ArtifactView, FileIndex, safe_read
from .view import join as join_path

MEANINGFUL = re.compile(r"experiment|reproduc|\brun|usage|result|example|evaluat|figure|table|benchmark|how to|demo|"
                        r"quick ?start|getting started|workflow|analys", re.IGNORECASE)
EXPORT = re.compile(r"^\s*export\s+([A-Za-z_]\w*)=(.*)$")
PRINTS = re.compile(r"\bwill (?:print|output|display|show|return)\s*:\s*([^\n]+)", re.IGNORECASE)
PRINTS_LIST = re.compile(r"\b(?:should|will|would|must)\s+(?:find|see|get|observe|print|show|output|display)\b"
                         r"[^:\n]{0,80}\b(?:output|console|terminal|print(?:s|ed)?|log|stdout)\b[^:\n]{0,30}:[ \t]*"
                         r"((?:\n+[ \t]*(?:[-*+][ \t]+)?[^\n]{1,120}(?=\n|$)){1,6})", re.IGNORECASE)
"""A lead-in that ends in a colon, then the lines the output shows (list items: one short paragraph each)."""
SAMPLE = re.compile(r"\b(sample|example|test|demo|toy)\b.*\b(input|trace|file|data|dataset)s?\b", re.IGNORECASE)
WORKDIR = re.compile(r"\b(?:working directory|(?:run|execute)\s+(?:all\s+)?(?:the\s+)?(?:following\s+)?commands?)\b"
                     r"[^.]{0,60}?"
                     r"\b(?:from|in|inside|to be|is|be)\s+(?:the\s+)?`([\w./\-]{1,200})`\s*(?:folder|directory|dir)?",
                     re.IGNORECASE)
KNOB = re.compile(r"\b(number of (runs|rounds|trials|iterations|repetitions|samples|epochs|seeds)|repeated|"
                  r"runs per|speed up|reduce|smaller)\b", re.IGNORECASE)


MAX_PARA_CHARS = 20_000


@dataclass
class DocInput:
    path: str
    role: str
    order: int
    text: str

    @property
    def folder(self) -> str:
        return "." if self.path.startswith("paper:") else (posixpath.dirname(self.path) or ".")


@dataclass
class RawStep:
    step: Step
    pos: tuple[int, int, int]
    weak: bool = False
    script: str | None = None


@dataclass
class Section:
    level: int
    title: str
    source: str
    text: str = ""


@dataclass
class Shared:
    """State shared by all documents of one artifact."""

    index: FileIndex
    console_scripts: frozenset[str] = frozenset()
    python: str = "python3"
    blocks: int = 0
    seq: int = 0
    knobs: set[str] = field(default_factory=set)
    view: ArtifactView | None = None
    """The artifact's files, for what a sentence says of them (the entry scripts of a folder it names)."""


@dataclass
class DocExtract:
    steps: list[RawStep] = field(default_factory=list)
    expected: list[tuple[RawStep, str, str]] = field(default_factory=list)
    outputs: list[DocumentedOutput] = field(default_factory=list)
    samples: list[SamplePointer] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    code_examples: list[tuple[str, str, str, str]] = field(default_factory=list)
    """(source, info, code, section title)."""
    costs: list[DocCost] = field(default_factory=list)
    variants: list[Variant] = field(default_factory=list)
    """Patterns of commands ("replace `fig_3a.py` with the desired script …")."""
    prerequisites: list[Prerequisite] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class Walker:
    def __init__(self, doc: DocInput, shared: Shared):
        self.doc, self.shared, self.out = doc, shared, DocExtract()
        self.stack: list[tuple[int, str]] = []
        self.sticky: dict[int, str] = {}
        self.last_cwd = doc.folder
        self.pending_weak: list[RawStep] = []
        self.last_block_steps: list[RawStep] = []
        self.pctx = ProseContext(shared.index, doc.folder, shared.python, shared.console_scripts)

    # ---- navigation -------------------------------------------------------------------------
    def titles(self) -> list[str]:
        return [t for _, t in reversed(self.stack)]

    def heading(self) -> str:
        return next((t for t in self.titles() if any(rx.search(t) for rx in (HEAD_SETUP, HEAD_DATA, HEAD_PLOT,
                                                                               HEAD_TEST, MEANINGFUL))), "")

    def base_cwd(self) -> str:
        return self.sticky[max(self.sticky)] if self.sticky else self.doc.folder

    def source(self, line: int) -> str:
        return f"{self.doc.path}:{line}"

    def run(self) -> DocExtract:
        blocks, note = parse(self.doc.text)
        if note:
            self.out.notes.append(f"{self.doc.path}: {note}")
        self.out.sections.append(Section(0, "", self.source(1)))
        before, after = around(blocks)
        for i, block in enumerate(blocks):
            if block.kind == "heading":
                self._heading(block)
            elif block.kind == "para":
                self._para(block)
            elif block.kind == "table":
                self._table(block, before[i])
                continue  # a table's cells are not prose of the section
            else:
                self._code(block, before[i], after[i])
            self.out.sections[-1].text += "\n" + block.text
        return self.out

    def _heading(self, block: Block) -> None:
        while self.stack and self.stack[-1][0] >= block.level:
            self.stack.pop()
        for level in [lv for lv in self.sticky if lv >= block.level]:
            del self.sticky[level]
        self.stack.append((block.level, block.text))
        self.out.sections.append(Section(block.level, block.text, self.source(block.line)))
        self.last_block_steps = []

    # ---- prose ------------------------------------------------------------------------------
    def _para(self, block: Block) -> None:
        if len(block.text) > MAX_PARA_CHARS:
            block = Block("para", block.line, block.text[:MAX_PARA_CHARS], spans=[s for s in block.spans
                                                                                 if s.start < MAX_PARA_CHARS])
        for pc in prose_commands(block, self.pctx):
            ctx = self._context(self.source(pc.line), pc.cwd or self.base_cwd(), pc.origin, before=block.text)
            self.shared.blocks += 1
            ctx.block = self.shared.blocks
            raw = self._add(build_step(pc.cmd, ctx), pc.line, weak=pc.weak, script=pc.script)
            if pc.weak:
                self.pending_weak.append(raw)
            if raw.step.kind in WORK_KINDS:
                self.last_cwd = raw.step.cwd
        self.out.costs += line_costs(block.text, block.line_of, self.source, self.pctx)
        if self.shared.view is not None:
            if "`" in block.text:
                self.out.variants += variants_in(block.text, self.source(block.line), self.pctx, self.shared.view)
            self.out.prerequisites += prose_prerequisites(block.text, self.source(block.line), self._section(),
                                                          self.pctx, self._read)
        fallback = tx.refs(" ".join(self.titles()[:2]))
        self.out.outputs += outputs_in(block.text, block.line, self.doc.path, self.last_cwd, self.doc.folder,
                                       self.shared.index, fallback)
        for sentence in tx.sentences(block.text):
            self._sentence_facts(sentence, block.line)

    def _sentence_facts(self, sentence: str, line: int) -> None:
        workdir = WORKDIR.search(sentence)
        folder = find_dir(self.pctx, workdir.group(1)) if workdir else None
        folder = folder or self._navigated(sentence)
        if folder:
            self.sticky[self.stack[-1][0] if self.stack else 0] = folder
        if KNOB.search(sentence):
            self.shared.knobs.update(re.findall(r"`?\$?\b([A-Z][A-Z0-9_]{1,})\b`?", sentence))
        if SAMPLE.search(sentence) and re.search(r"\b(provided|included|is in|are in|found|located|there is|"
                                                 r"there are|ships|available)\b", sentence, re.IGNORECASE):
            for token in re.findall(r"[\w\-./]+", sentence):
                path = find_file(self.pctx, token) if "." in token.strip(".") else None
                path = path or (find_dir(self.pctx, token) if re.search(rf"\b{re.escape(token)}\s+(directory|folder)\b",
                                                                        sentence) else None)
                if path and len(token) > 2:
                    self.out.samples.append(SamplePointer(path, sentence, self.source(line)))

    def _navigated(self, sentence: str) -> str | None:
        return navigated_folder(sentence, self.pctx, self.shared.index, self.base_cwd(), self.doc.folder)

    # ---- step tables ------------------------------------------------------------------------
    def _table(self, block: Block, before: str) -> None:
        """A table with a Command column: its commands in the table's order, each with the outputs its row states;
        a runtime table: the cost of each row's scripts and paper objects."""
        self.out.costs += table_costs(block.rows, self.source(block.line), self.pctx)
        for k, row in enumerate(table_steps(block.rows)):
            line = block.line + 2 + row.index  # its row; it takes its place in the table's run order below
            ctx = self._context(self.source(line), self.base_cwd(), "table", before=f"{last_para(before)}\n{row.row}")
            self.shared.blocks += 1
            ctx.block = self.shared.blocks
            step = build_step(row.cmd, ctx)
            step.outputs = [join_path(step.cwd, o) for o in row.outputs]
            if step.kind in WORK_KINDS:
                step.mentions = tx.merge(step.mentions, tx.refs(row.row), tx.refs(before))
            self._add(step, block.line + 2 + k)
            self.out.outputs += [DocumentedOutput(path, step.mentions, self.source(line)) for path in step.outputs]

    # ---- code blocks ------------------------------------------------------------------------
    def _section(self) -> str:
        return self.titles()[0] if self.stack else ""

    def _read(self, rel: str) -> str | None:
        return safe_read(self.shared.view, rel, 300_000) if self.shared.view is not None else None

    def _code(self, block: Block, before: str, after: str) -> None:
        if self.shared.view is not None and any(assignment_line(ln) for ln in block.text.splitlines()):
            self.out.prerequisites += code_edits(block.text, last_para(before), self.source(block.line),
                                                 self._section(), self.pctx, self._read)
        reading = read_block(block.text, block.info, before, self.shared.console_scripts)
        if reading.kind == "commands":
            self._commands(block, reading, before, after)
            return
        if reading.kind == "output" and self.last_block_steps:
            self.out.expected.append((self.last_block_steps[-1], block.text.strip("\n"), self.source(block.line)))
        elif reading.kind == "code":
            self.out.code_examples.append((self.source(block.line), block.info, block.text, self.titles()[0]
                                           if self.stack else ""))
        elif PRODUCE.search(before):
            self.out.outputs += format_block_output(block.text, block.line, self.doc.path, self.last_cwd,
                                                    self.doc.folder, self.shared.index,
                                                    tx.refs(before) or tx.refs(" ".join(self.titles()[:2])))

    def _commands(self, block: Block, reading, before: str, after: str) -> None:
        self.shared.blocks += 1
        number, cwd = self.shared.blocks, self.base_cwd()
        env: dict[str, str] = {}
        clones: list[str] = []
        notes: list[str] = []
        known = block_vars([ln.text for ln in reading.lines])
        described = described_placeholders(f"{before}\n{after}")
        made: list[RawStep] = []
        for n, ln in enumerate(reading.lines):
            text, line_cwd = ln.text, cwd
            match = CD.match(text)
            if match:
                cwd, note = resolve_dir(self.shared.index, cwd, match.group(1), self.doc.folder, tuple(clones))
                notes += [note] if note else []
                if note and "freshly cloned" in note:
                    _mark_self_clone(made)
                continue
            match = CD_AND.match(text)
            if match:
                line_cwd, note = resolve_dir(self.shared.index, cwd, match.group(1), self.doc.folder, tuple(clones))
                text, notes = match.group(2), notes + ([note] if note else [])
            then_cd = AND_CD.match(text)
            if then_cd:  # `mkdir -p build && cd build`: the command runs here, the lines after it in the folder
                text = then_cd.group(1)
            clones += [d for d in [clone_dir(text)] if d]
            ctx = self._context(self.source(block.line + ln.line), line_cwd, "fence",
                                before=last_para(before) + "\n" + " ".join(ln.comments), after=after)
            ctx.block, ctx.env, ctx.known_vars, ctx.described = number, dict(env), known, described
            step = build_step(text, ctx)
            if step.kind in WORK_KINDS:
                step.mentions = tx.merge(step.mentions, tx.refs(before))
            step.notes = notes + step.notes
            made.append(self._add(step, block.line + ln.line))
            if reading.outputs.get(n):
                self.out.expected.append((made[-1], reading.outputs[n], self.source(block.line + ln.end + 1)))
            if then_cd:
                cwd, note = resolve_dir(self.shared.index, line_cwd, then_cd.group(2), self.doc.folder, tuple(clones))
                folder = re.escape(then_cd.group(2).strip("'\""))
                made_here = re.search(rf"\bmkdir\b.*\s{folder}/?(\s|$)", text)
                notes += [note] if note and not made_here else []
            export = EXPORT.match(text)
            if export:
                env[export.group(1)] = export.group(2).strip().strip("'\"")
        if reading.lines and all(CD.match(ln.text) for ln in reading.lines):
            self.sticky[self.stack[-1][0] if self.stack else 0] = cwd
        self._after_block(made, after, block)

    def _after_block(self, made: list[RawStep], after: str, block: Block) -> None:
        scripts = {posixpath.basename(primary_file(r.step.inner) or "") for r in made} - {""}
        unpacks = any(r.step.kind == "data" for r in made)
        for weak in self.pending_weak:
            same = weak.script and posixpath.basename(weak.script) in scripts or unpacks and weak.step.kind == "data"
            if same and weak in self.out.steps:
                self.out.steps.remove(weak)
        self.pending_weak = []
        if made:
            self.last_block_steps = made
            work = [r for r in made if r.step.kind in ("workflow", "plot", "test", "data")]
            self.last_cwd = (work or made)[-1].step.cwd
            for match in PRINTS.finditer(after):
                self.out.expected.append((made[-1], match.group(1).strip(), self.source(block.line)))
            for match in PRINTS_LIST.finditer(after):  # "should find the following in the console output:" + bullets
                items = [re.sub(r"^\s*[-*+]\s+|`", "", ln).strip() for ln in match.group(1).splitlines()]
                self.out.expected.append((made[-1], "\n".join(i for i in items if i), self.source(block.line)))

    def _context(self, source: str, cwd: str, origin: str, before: str = "", after: str = "") -> Context:
        return Context(source=source, section=self.titles()[0] if self.stack else "", heading=self.heading(),
                       cwd=cwd, index=self.shared.index, block=0, origin=origin, before=before, after=after,
                       titles=self.titles(), knobs=self.shared.knobs)

    def _add(self, step: Step, line: int, weak: bool = False, script: str | None = None) -> RawStep:
        self.shared.seq += 1
        raw = RawStep(step, (self.doc.order, line, self.shared.seq), weak, script)
        self.out.steps.append(raw)
        return raw


def _mark_self_clone(made: list[RawStep]) -> None:
    clone = next((r.step for r in reversed(made) if r.step.kind == "download" and "clone" in r.step.inner), None)
    if clone is not None:
        clone.notes.append("clones the artifact itself (the next line enters the clone): skip it in an unpacked copy")


def extract(doc: DocInput, shared: Shared) -> DocExtract:
    return Walker(doc, shared).run()
