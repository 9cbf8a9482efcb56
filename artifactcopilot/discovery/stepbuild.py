"""Build a `Step` from one documented command line and what surrounds it (section, prose, comments)."""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from ..shell import compound, simple_commands, split_env, split_runner, words
from . import text as tx
from .classify import HEAD_REUSE, classify, is_interactive
from .cwd import locate
from .model import Step
from .placeholders import OUTPUT_FLAGS, detect
from .view import FileIndex, join

REDUCE_KNOB = re.compile(r"(RUN|ROUND|TRIAL|ITER|EPOCH|SAMPLE|REPEAT|REP|SEED|STEP|SIZE|N_|NUM|COUNT|QUICK|FAST|SMALL)",
                         re.IGNORECASE)


OPTIONAL = re.compile(r"(^|[.:]\s+)(if you (want|wish|intend|need|prefer|would like|plan)|optionally|alternatively)\b|"
                      r"\boptional\b", re.IGNORECASE)


WORK_KINDS = ("workflow", "plot", "test", "data")


@dataclass
class Context:
    """What a step is built from besides its own text."""

    source: str
    section: str
    heading: str
    """The nearest heading that says what the section is about (used to refine the kind)."""
    cwd: str
    index: FileIndex
    block: int
    origin: str = "fence"
    env: dict[str, str] = field(default_factory=dict)
    known_vars: set[str] = field(default_factory=set)
    described: set[str] = field(default_factory=set)
    before: str = ""
    """Prose and comments right before the command."""
    after: str = ""
    """Prose right after the block."""
    titles: list[str] = field(default_factory=list)
    """Heading titles from the nearest outwards."""
    knobs: set[str] = field(default_factory=set)
    """Environment variables the docs describe as reducing the work (number of runs, rounds, ...)."""
    single: bool = True
    """The block has a single workflow command (stated durations then belong to it)."""


REMARK = re.compile(r"^(?P<cmd>.*?\S)\s+\((?P<remark>[A-Za-z][^()$`;&|<>]*\s[^()$`;&|<>]*)\)\s*$")
"""A remark in parentheses after a command (`python b.py (depends on files made by a.py)`): words, not shell."""


def build_step(cmd: str, ctx: Context) -> Step:
    remark = REMARK.match(cmd) if "\n" not in cmd else None
    if remark is not None and len(remark.group("remark").split()) >= 2:
        step = build_step(remark.group("cmd"), ctx)
        step.notes.append(f"the words in parentheses after the command are a remark, not part of it: "
                          f"\"{remark.group('remark')}\"")
        return step
    shape = compound(cmd)
    if shape is not None:
        return _statement_step(cmd, shape, ctx)
    inline_env, rest = split_env(cmd)
    runner, inner = split_runner(rest)
    if runner is None and inline_env:
        runner, inner = split_runner(inner)
    env = {**ctx.env, **inline_env}
    kind = classify(inner, ctx.heading)
    cwd, note = locate(ctx.index, ctx.cwd, inner)
    if kind in ("install", "download") and note and "not in the artifact" in note:
        note = None
    step = Step(cmd=cmd, inner=inner, runner=runner, kind=kind, source=ctx.source, section=ctx.section, cwd=cwd,
                env=env, block=ctx.block, origin=ctx.origin)
    if note:
        step.notes.append(note)
    first = words(inner)[:1]
    if (runner is None and first and "/" not in first[0] and first[0].endswith((".sh", ".py"))
            and ctx.index.is_file(join(cwd, first[0]))):
        step.notes.append(f"{first[0]} is written without ./ or an interpreter: run it as ./{first[0]} or "
                          f"{'bash' if first[0].endswith('.sh') else 'python3'} {first[0]}")
    step.notebook = _notebook(inner, cwd, ctx.index)
    step.interactive = is_interactive(inner)
    step.reuse = bool(ctx.titles) and bool(HEAD_REUSE.search(ctx.titles[0]))  # its own heading, not the document title
    step.optional = bool(OPTIONAL.search(" ".join(tx.sentences(ctx.before)[-2:]))) or any(
        re.search(r"\boptional\b", t, re.IGNORECASE) for t in ctx.titles[:2])
    near = f"{ctx.before}\n{ctx.after}"
    if kind in WORK_KINDS:
        step.mentions = tx.merge(tx.refs(" ".join(ctx.titles[:2])), tx.refs(near), tx.refs(inner))
    step.quick = tx.is_quick(ctx.titles[0] if ctx.titles else "") or tx.is_quick(ctx.before) or tx.is_quick(inner) \
        or _knob_reduced(inline_env, ctx.knobs)
    if kind in WORK_KINDS:
        hint = tx.duration_s(ctx.before) or tx.duration_s(ctx.after)
        step.duration_hint_s = hint
        step.long = bool(hint and hint >= 3600) or tx.is_long(ctx.before)
    step.placeholders = detect(inner, kind, cwd, ctx.index, ctx.known_vars | set(env), ctx.described)
    if kind in WORK_KINDS:
        step.notes += _missing_inputs(inner, cwd, ctx.index, {p.index for p in step.placeholders})
    return step


def _statement_step(cmd: str, shape: str, ctx: Context) -> Step:
    """A statement over several lines (a loop, `if … fi`, a `&&` chain, a here-document) is one step, run whole as
    written; what it is (its kind, folder, mentions, placeholders) is read from the first command in it that does
    work."""
    lead = _lead(cmd)
    step = build_step(lead, ctx) if lead != cmd else None
    kind = step.kind if step is not None else classify(cmd, ctx.heading)
    statement = Step(cmd=cmd, inner=cmd, runner=None, kind=kind, source=ctx.source, section=ctx.section,
                     cwd=step.cwd if step is not None else ctx.cwd, env=dict(ctx.env), block=ctx.block,
                     origin=ctx.origin)
    if step is not None:
        for name in ("notebook", "interactive", "reuse", "optional", "mentions", "quick", "long", "duration_hint_s",
                     "notes"):
            setattr(statement, name, getattr(step, name))
        statement.placeholders = [p for p in step.placeholders if not p.resolved]
    statement.notes.append(f"one statement over {len(cmd.splitlines())} lines ({shape}): run whole, as written")
    return statement


def _lead(cmd: str) -> str:
    """The first command of a statement that does work (not `cd`, `echo`, `mkdir`, an assignment): it says what the
    statement is. The statement itself when none does."""
    found = simple_commands(cmd)
    for simple in found:
        if classify(simple.text, "") not in ("trivial", "env") and simple.words[0] not in ("mkdir", "test", "["):
            return simple.text
    return found[0].text if found else cmd


def _missing_inputs(inner: str, cwd: str, index: FileIndex, placeholders: set[int]) -> list[str]:
    """Input files a command names in an artifact folder that the artifact does not hold."""
    parts = words(inner)
    notes = []
    for i, word in enumerate(parts[1:], 1):
        value = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
        if i in placeholders or parts[i - 1] in OUTPUT_FLAGS or "/" not in value or "$" in value or "*" in value \
                or "://" in value or not re.search(r"\.[A-Za-z][\w]{0,5}$", value) or value.startswith(("/", "~")):
            continue
        path = join(cwd, value)
        if not index.exists(path) and index.is_dir(posixpath.dirname(path) or "."):
            notes.append(f"{value} is not in the artifact")
    return notes


def _knob_reduced(env: dict[str, str], knobs: set[str]) -> bool:
    for name, value in env.items():
        if (name in knobs or REDUCE_KNOB.search(name)) and re.fullmatch(r"\d+", value) and int(value) <= 10:
            return True
        if re.search(r"QUICK|FAST|SMALL|DEMO|SMOKE", name) and value.lower() in ("1", "true", "yes"):
            return True
    return False


def _notebook(inner: str, cwd: str, index: FileIndex) -> str | None:
    if not re.match(r"^(jupyter|papermill|ipython|python[\d.]*\s+-m\s+(jupyter|nbconvert|papermill))\b", inner):
        return None
    for word in words(inner):
        if word.endswith(".ipynb"):
            return join(cwd, word)
    return None
