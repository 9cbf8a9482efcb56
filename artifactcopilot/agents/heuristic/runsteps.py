"""Which documented commands D3 runs, in what order, as what command line — and what came of each."""
from __future__ import annotations

import posixpath
import re
import shlex
from dataclasses import dataclass, field

from ... import shell as sh
from ...claims.paperobjects import named_objects, paper_objects, tied_objects
from ...discovery import Step
from ...discovery.reduce import find_reduction
from ...interventions import Action
from ...tools import CommandResult, PhaseTools
from .fixes import outcome_of, valid_output

RUNNABLE_KINDS = ("workflow", "plot", "test")
PAPER_SECTION = re.compile(r"reproduc|replicat|experiment|evaluat|result|paper|table|figure", re.I)
RESULTS_WORDS = re.compile(r"reproduc|replicat|main[ _-]?results?|paper[ _-]?results?", re.I)
ENGINE = re.compile(r"^(sudo\s+)?(docker|docker-compose|podman|singularity|apptainer)\b")
ENVIRONMENT_RUNNERS = ("uv", "poetry", "pipenv", "conda")
TEXT_FILE = (".txt", ".csv", ".tsv", ".md", ".json", ".log", ".tex", ".out", ".dat")


@dataclass
class Attempt:
    """One documented command (or notebook) and the runs it took, fixes included."""

    step: Step
    script: str
    env: dict[str, str]
    runs: list[CommandResult] = field(default_factory=list)
    note: str | None = None
    """Why it was not run, when it was not."""
    executed: str | None = None
    """For a notebook: the executed copy (relative to the artifact root)."""
    displayed: str | None = None
    """The checked-in file the command only printed (display, not a computation)."""
    cwd: str | None = None
    """The folder it ran in (the step's, unless a path fix moved it)."""
    blocker: str | None = None
    """What stopped it that the review could not fix (a program no Debian package ships, an install that failed)."""
    reduced: str | None = None
    """RW5-reduced: how the run was made smaller (the knob, its full and reduced values), when it was."""
    partial: list[str] = field(default_factory=list)
    """Result files the run wrote before its time limit cut it (E2 output, stated as partial)."""

    @property
    def folder(self) -> str:
        return self.step.cwd if self.cwd is None else self.cwd

    @property
    def valid(self) -> bool:
        return bool(self.runs) and (valid_output(self.runs[-1]) or bool(self.partial))

    def weight(self) -> int:
        s = self.step
        return (3 * bool(s.mentions or named_objects(s.inner)) + 2 * bool(PAPER_SECTION.search(s.section))
                + 2 * bool(re.search(r"reproduc", s.cmd, re.I))
                + 2 * s.documented + (s.kind == "workflow") - 2 * (s.kind == "test") + (s.origin == "fence"))

    def rank(self) -> tuple[int, int]:
        return (-self.weight(), self.step.order)

    def outcome(self, tools=None) -> str:
        if not self.runs:
            return f"`{self.step.cmd}`: {self.note}"
        last = self.runs[-1]
        partial = (f"; partial output before the limit: {', '.join(self.partial[:4])}" if self.partial else "")
        return (f"`{self.step.cmd}` -> " + outcome_of(last).line(last.record.exit_code) + partial
                + (f" — {self.blocker}" if self.blocker else ""))

    def summary(self) -> dict:
        return {"cmd": self.step.cmd, "source": self.step.source, "cwd": self.folder, "kind": self.step.kind,
                "script": self.script, "runs": [r.evidence.id for r in self.runs], "valid": self.valid,
                "note": self.note, "executed": self.executed, "blocker": self.blocker,
                "reduced": self.reduced, "partial": self.partial,
                "seconds": round(sum(r.record.duration_s for r in self.runs), 1)}

    def fact(self) -> dict:
        last = self.runs[-1] if self.runs else None
        rec = last.record if last else None
        return {"script": self.script, "cmd": self.step.cmd, "cwd": self.folder, "env": self.env,
                "kind": self.step.kind, "section": self.step.section, "mentions": self.step.mentions,
                "quick": self.step.quick or bool(self.reduced), "reduced": self.reduced,
                "step_order": self.step.order, "source": self.step.source, "documented": self.step.documented,
                "notebook": self.step.notebook, "executed": self.executed,
                "evidence": last.evidence.id if last else None,
                "files_created": rec.files_created if rec else [], "files_modified": rec.files_modified if rec else [],
                "figures_shown": rec.figures_shown if rec else [], "figure_evidence": last.figures if last else [],
                "duration_s": rec.duration_s if rec else 0.0, "partial": self.partial}


def not_runnable(step: Step, why: str) -> dict:
    return {"cmd": step.cmd, "source": step.source, "why": why}


def paper_ties(step: Step, objects: set[str]) -> list[str]:
    """What ties a command to the paper's results: the paper objects the documentation names beside it or its
    program's name states (`table2.py`, `reproduction/fig_7a.py`, `rq1.sh`, where the paper has them), and words
    of reproduction ("reproduce", "main results") in the command or its section."""
    ties = tied_objects(step.inner or step.cmd, step.mentions, objects)
    if RESULTS_WORDS.search(step.cmd) or RESULTS_WORDS.search(step.section):
        ties.append("reproduction")
    return ties


def candidates(steps: list[Step], has_engine: bool, objects: set[str] | None = None) -> tuple[list[Step], list[dict]]:
    """The documented commands to run and those left out. A committee member runs first what the paper's tables and
    figures come from (`paper_ties`), then the rest in documentation order; long and optional ones last."""
    chosen, skipped = [], []
    quick_targets = {_target(s) for s in steps if s.quick}
    main = [s for s in steps if s.kind in RUNNABLE_KINDS and not s.reuse]
    for step in steps:
        if step.kind not in RUNNABLE_KINDS or step.reuse and main:  # reuse examples are D5's transfer cases
            continue
        why = _why_not(step, has_engine, quick_targets)
        if why:
            skipped.append(not_runnable(step, why))
        else:
            chosen.append(step)
    tied = {id(s) for s in chosen if paper_ties(s, objects or set())}
    chosen.sort(key=lambda s: (s.long, s.optional, not s.documented, id(s) not in tied, s.order))
    return chosen, skipped


def _why_not(step: Step, has_engine: bool, quick_targets: set[str]) -> str | None:
    if step.interactive:
        return "waits for a user (interactive)"
    if ENGINE.match(step.inner) and not has_engine:
        return "needs a container engine inside the sandbox"
    if not step.runnable:
        open_ = [p.token for p in step.placeholders if not p.resolved]
        return f"not runnable: no concrete value for {', '.join(open_)} in the docs or the artifact"
    if step.long and not step.quick and _target(step) in quick_targets:
        return "the documented quick mode of the same command is run instead"
    return None


def _target(step: Step) -> str:
    """The program and script a command runs, without options (to pair a quick mode with its full run)."""
    words = [w for w in step.inner.split() if not w.startswith("-") and "=" not in w]
    return " ".join(words[:2])


MOVED = re.compile(r"^(\S+) is not in (\S+?)/?; found at (\S+): runs from (\S+?)/?$")


def _relocated(step: Step, script: str, note: str) -> tuple[str, str] | None:
    """A script the docs run from a folder it is not in: run it from that folder by its real path (the path fix a
    reviewer makes), with relative arguments rewritten to stay the same files. (script, cwd) or None."""
    match = MOVED.match(note)
    if not match:
        return None
    wanted, documented, found, moved_to = match.groups()
    if sh.compound(script) is not None:  # a loop or chain runs whole, as written, in the folder found
        return None
    try:
        words = sh.split(script)
    except ValueError:
        return None
    for i, word in enumerate(words):
        if word in (wanted, f"./{wanted.removeprefix('./')}"):
            words[i] = posixpath.relpath(found, documented)
        elif i and not word.startswith("-") and ("/" in word or word.startswith("..")) and not word.startswith("/"):
            words[i] = posixpath.relpath(posixpath.normpath(posixpath.join(moved_to, word)), documented)
    return shlex.join(words), documented


def _in_environment(script: str) -> str:
    """What `uv run X` / `poetry run X` runs, in the review's environment: a Python file with its python, `uv pip`
    with the environment's pip."""
    words = script.split(maxsplit=1)
    if words and words[0].endswith(".py"):
        return f"python {script}"
    if words and words[0] == "pip":
        return f"python -m {script}"
    return script


def command_of(step: Step) -> tuple[str, Action, str, str]:
    """The command line to run for a documented step, how it is classified, its purpose and the folder to run in."""
    script, notes, cwd = step.inner, [], step.cwd
    filled = [p for p in step.placeholders if p.resolved and p.fill]
    if filled:
        try:
            words = sh.split(step.inner)
            for p in filled:
                if p.fill and 0 <= p.index < len(words) and words[p.index] == p.token:
                    words[p.index] = p.fill
            script = shlex.join(words)
            notes.append("placeholders filled: " + ", ".join(f"{p.token} -> {p.fill} ({p.reason})" for p in filled))
        except ValueError:
            pass
    moved = next((n for n in step.notes if "runs from" in n), None)
    if moved:
        notes.append(moved)
        relocated = _relocated(step, script, moved)
        if relocated:
            script, cwd = relocated
    if step.runner in ENVIRONMENT_RUNNERS:
        script = _in_environment(script)
    purpose = f"documented {step.kind} ({step.source})" + (f"; {'; '.join(notes)}" if notes else "")
    if filled:
        return script, Action("command_fix", script), purpose, cwd
    if moved:  # the documented command does not find its script where the docs run it: run it where it is (I2)
        return script, Action("path_fix", f"run `{script}` from {cwd}/ ({moved})"), purpose, cwd
    if step.runner in ENVIRONMENT_RUNNERS:
        return (script, Action("version", f"{script}  (in the review's environment, for `{step.runner} run`)"),
                purpose, cwd)
    return script, Action("run", step.cmd, documented=step.documented), purpose, cwd


def write_inputs(tools, step: Step) -> None:
    """Write the inputs discovery made for the step's placeholders (a small project for a code-analysis tool whose
    docs name none) before the step runs; logged as a setup command."""
    files = {rel: text for p in step.placeholders if p.resolved for rel, text in p.written.items()}
    if not files:
        return
    script = " && ".join(f"mkdir -p {shlex.quote(posixpath.dirname(rel) or '.')} && printf '%s' {shlex.quote(text)} "
                         f"> {shlex.quote(rel)}" for rel, text in files.items())
    why = "; ".join(f"{p.token}: {p.reason}" for p in step.placeholders if p.written)
    tools.run_setup(script, Action("evaluate", script[:200]), f"an input written for the purpose ({why})",
                    network=False, timeout=60)


def done_so_far(progress: str) -> tuple[int, int] | None:
    """(done, total) of a cut run whose progress mark counts against a total ('342 of 365'), else None."""
    match = re.fullmatch(r"(\d+) of (\d+)", progress)
    return (int(match.group(1)), int(match.group(2))) if match else None


def reduce_run(tools, runner, step: Step, script: str, env: dict[str, str], cwd: str, timeout: float,
               done: tuple[int, int] | None = None) -> tuple[str, CommandResult, str] | None:
    """Run a documented command on less work (discovery/reduce.py): (script, run, RW5-reduced text), or None when
    its driver has no work-amount knob. `done`: how far a cut run got of how many, which bounds the reduced amount
    when the total is the knob's."""
    reduction = find_reduction(script, cwd, lambda rel: tools.read_file(rel, 2_000_000), done)
    if reduction is None:
        return None
    if reduction.setup:
        made = tools.run_setup(reduction.setup, Action("reduce", f"write {reduction.copy}: {reduction.text}",
                                                       target=reduction.copy), reduction.text, network=False)
        if not made.record.ok:
            return None
    res = runner(reduction.script, Action("reduce", reduction.script), f"{reduction.text} ({step.source})", env=env,
                 cwd=cwd, timeout=timeout)
    return reduction.script, res, reduction.text


def paper_objects_of(tools: PhaseTools) -> set[str]:
    paper = tools.ctx.paper
    return paper_objects([t.label or "" for t in paper.tables], paper.figures, paper.text)


def displayed_file(tools: PhaseTools, stdout: str, script: str, env: dict[str, str],
                   cwd: str) -> tuple[str | None, list[str]]:
    """The pre-existing file a run merely printed, and the provenance evidence behind that verdict.

    Output that *is* a checked-in file's text is display-only. Output that *contains* a checked-in
    file's text is rerun in a fresh copy without that file: if the text is gone, it was displayed,
    not computed (an artifact may legitimately ship the expected output it also computes).
    """
    shown = " ".join(stdout.split())
    if len(shown) < 40:
        return None, []
    for rel in tools.list_files()[:3000]:
        if not rel.lower().endswith(TEXT_FILE):
            continue
        text = " ".join((tools.read_file(rel, 1_000_000) or "").split())
        if len(text) < 40 or text not in shown:
            continue
        if shown in text or len(text) >= 0.9 * len(shown):
            return rel, []
        record, out, ev = tools.verify_provenance(script if cwd in ("", ".") else f"cd {cwd} && {script}", rel, env=env)
        if text not in " ".join(out.split()):
            return rel, [ev.id]
    return None, []
