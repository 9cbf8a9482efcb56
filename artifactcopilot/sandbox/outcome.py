"""What a run's output says about whether its work was done: a typed judgement with the reasons shown.

Exit 0 is not success. A run is *valid* only when what it printed and wrote shows the work: a traceback, a
program the shell could not find, per-item failure lines (`[Errno 2] No such file or directory`, `failed`,
`Warnings produced`, `error:`) for most items, result files that are empty or only NaN or only zeros, or an
output that is only a usage text make it *invalid*; failures for a minority of items make it *partial* (valid,
with the failing share stated). A run killed by its time limit whose output shows progress is *cut* ("started,
cut at N of M"), not a failure of the artifact. A test runner's own summary, on either stream (unittest writes
everything to stderr), decides a test run: "Ran 12 tests … OK" is valid, reported failures are not.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from ..claims.testsuite import read_test_summary
from ..models import CommandRecord
from .base import RunResult
from .echoes import echo_templates, is_echo

Verdict = Literal["valid", "partial", "invalid", "failed", "cut", "timed_out"]
VERDICTS = ("valid", "partial", "invalid", "failed", "cut", "timed_out")
# fmt: off
FAILURE = re.compile(
    r"Traceback \(most recent call last\)|\[Errno \d+\]|No such file or directory|command not found|"
    r"^\S+: (?:\d+: )?[\w.+-]+: not found$|Segmentation fault|core dumped|"
    r"\bwarnings? produced\b|\bfailed\b(?!\s+[a-z]+s\b)|\bfailure:|"
    r"^\s*(?:\[?(?:error|fatal|critical)\]?)\b[:\]]|\bError: |"
    r"^\s*\w*(?:Error|Exception): |cannot open|can't open|could not (?:open|find|load|connect)|Permission denied",
    re.I | re.M)
NOT_FAILURE = re.compile(r"\b(?:0|no|zero) (?:failed|failures|errors?)\b|\bfailed: 0\b|\berrors?: 0\b|"
                         r"\b(?:error|failure|fail|failed)\w*(?:[ _-]\w+){0,2}\s*[:=]\s*[-+]?\.?\d|"
                         r"\b[A-Z]\w*Warning: |warnings\.warn|DeprecationWarning|FutureWarning|"
                         r"^\s*\||\S\s*\|\s*\S.*\|", re.I)
"""Lines that name failure but report none ("0 failed") or measure it ("test error: 0.12", "failure rate = 3%"), table
rows ("| Project | Failed builds |"), and library warnings (noise, not a failure)."""
# fmt: on
SUITE_SUMMARY = re.compile(r"^Ran \d+ tests? in|^=*\s*\d+ passed\b", re.M)
USAGE = re.compile(r"^\s*usage:\s", re.I)
MISSING_PROGRAM = re.compile(r"(?:^|: )([\w.+-]+): (?:command )?not found\s*$|^which: no ([\w.+-]+) in ", re.M)
TELLING = re.compile(r"Errno|Error|Exception|not found|No such file|cannot|can't|could not|denied", re.I)
PROGRESS = re.compile(r"(?<![\d.])(\d+)\s*(?:/|of|out of)\s*(\d+)(?![\d.])", re.I)
COUNTER = re.compile(r"\b([A-Za-z][A-Za-z_ ]{1,20}?)\s*[:=#]\s*(\d+)(?![.\d])")
TEMPLATE_TOKENS = re.compile(r"'[^']*'|\"[^\"]*\"|\S*/\S*|\d+(?:\.\d+)?")
RESULT_EXT = (".csv", ".tsv", ".json", ".txt", ".out", ".dat", ".res")
NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|nan|NaN|inf)(?![\w.])")
MIN_NUMBERS = 3
MAX_RESULT_FILES, MAX_RESULT_BYTES = 20, 2_000_000


class RunOutcome(BaseModel):
    """The judgement of one run: what its output shows, with the reasons a committee member would read."""

    verdict: Verdict = Field(description="valid, partial (valid with failing items), invalid (exit 0 but the output "
                                         "shows the work was not done), failed (non-zero exit), cut (killed by the "
                                         "time limit with progress shown), timed_out (killed, no progress shown).")
    reasons: list[str] = Field(default_factory=list, description="What in the output led to the verdict.")
    failed_items: int = Field(0, description="Items the output reports as failing (per-item failure lines).")
    items: int = Field(0, description="Items the output shows (0 when it shows no per-item structure).")
    progress: str = Field("", description="For a cut run: how far it got ('342 of 365', 'Day 342').")
    missing_program: str = Field("", description="A program the shell could not find, when the output says so.")

    @property
    def valid(self) -> bool:
        return self.verdict in ("valid", "partial")

    @property
    def started(self) -> bool:
        """Killed by its budget after showing progress: the workflow started (E1), not a failure."""
        return self.verdict == "cut"

    def header(self) -> str:
        """The command log's `# outcome:` line: the verdict, then its reasons (or the progress of a cut run)."""
        detail = self.progress if self.verdict == "cut" else "; ".join(self.reasons)
        return f"{self.verdict}: {detail}" if detail else self.verdict

    @classmethod
    def from_header(cls, text: str) -> RunOutcome | None:
        """Read back a `# outcome:` line (None when there is none or it is not one)."""
        verdict, _, detail = text.partition(": ")
        if verdict not in VERDICTS:
            return None
        if verdict == "cut":
            return cls(verdict="cut", progress=detail)
        return cls(verdict=verdict, reasons=[r for r in detail.split("; ") if r])

    def line(self, exit_code: int | None = None) -> str:
        """The report line: exit status and, beyond a plain valid run, the verdict and its reasons."""
        if self.verdict == "cut":
            return f"started, cut at {self.progress} by the time limit"
        if self.verdict == "timed_out":
            return "timed out"
        status = f"exit {exit_code}"
        if self.verdict in ("valid", "failed"):  # the exit status says it all; the log has the error
            return status
        word = "partially valid" if self.verdict == "partial" else "invalid"
        return f"{status}, {word}: {'; '.join(self.reasons[:3])}"


def _lines(text: str) -> list[str]:
    return [ln.rstrip() for ln in text.splitlines() if ln.strip()]


def _template(line: str) -> str:
    return " ".join(TEMPLATE_TOKENS.sub("#", line).split())


def is_failure(line: str) -> bool:
    return bool(FAILURE.search(line)) and not NOT_FAILURE.search(line)


def _events(lines: list[str]) -> list[str]:
    """Failure events: a run of adjacent failure lines (a traceback and its message) counts once; the event's
    text is its most telling line (the last one)."""
    events, current = [], ""
    for ln in lines:
        if is_failure(ln) or current and ln.startswith((" ", "\t")):
            if is_failure(ln) and (not current or TELLING.search(ln) or not TELLING.search(current)):
                current = ln.strip()
        elif current:
            events.append(current)
            current = ""
    return events + ([current] if current else [])


def _lead(template: str) -> list[str]:
    """The first two words of a line template that have letters (timestamps and counters skipped)."""
    return [w for w in template.split() if re.search(r"[A-Za-z]", w)][:2]


def _items(lines: list[str]) -> tuple[int, int]:
    """(items, failing items) when the output repeats a line per item: the most frequent non-failure line template
    that occurs at least twice starts each item's block, and a block with a failure line failed. A failure line that
    begins as that template does ("project p9: error: ...") is an item of its own."""
    counts = Counter(_template(ln) for ln in lines if not is_failure(ln))
    header, n = counts.most_common(1)[0] if counts else ("", 0)
    if n < 2:
        return 0, 0
    lead = _lead(header)
    blocks: list[bool] = []  # per item: did it fail
    for ln in lines:
        if _template(ln) == header:
            blocks.append(False)
        elif is_failure(ln) and _lead(_template(ln)) == lead:
            blocks.append(True)
        elif is_failure(ln) and blocks:
            blocks[-1] = True
    return len(blocks), sum(blocks)


def result_file_problem(name: str, text: str) -> str | None:
    """Why a written result file shows no result: empty, or every number in it NaN or zero."""
    if not text.strip():
        return f"{name} is empty"
    values = []
    for token in NUMBER.findall(text):
        try:
            values.append(float(token))
        except ValueError:
            continue
    if len(values) < MIN_NUMBERS:
        return None
    if all(math.isnan(v) for v in values):
        return f"every number in {name} is NaN"
    if all(v == 0 or math.isnan(v) for v in values):
        return f"every number in {name} is zero" + (" or NaN" if any(math.isnan(v) for v in values) else "")
    return None


def progress_of(text: str) -> str:
    """How far a run got, from the last progress mark in its output ('342 of 365', 'Day 342'), or ''."""
    tail = text[-20000:]
    marks = [(int(a), int(b)) for a, b in PROGRESS.findall(tail) if 0 < int(a) <= int(b) and int(b) > 1]
    if marks:
        return f"{marks[-1][0]} of {marks[-1][1]}"
    counters: dict[str, list[int]] = {}
    for key, value in COUNTER.findall(tail):
        counters.setdefault(key.strip(), []).append(int(value))
    rising = [(k, v) for k, v in counters.items() if len(v) >= 3 and v == sorted(v) and v[-1] > v[0]]
    steady = [(k, v) for k, v in rising if len({b - a for a, b in zip(v, v[1:])}) == 1]  # a counter, not a measure
    key, values = (steady or rising or [("", [0])])[0]
    return f"{key} {values[-1]}" if key else ""


def judge(exit_code: int | None, timed_out: bool, stdout: str, stderr: str,
          results: Mapping[str, str] | None = None, wrote: bool = False,
          echoes: list[re.Pattern[str]] | None = None) -> RunOutcome:
    """Judge one run from its exit status, its output and the text of the result files it wrote (name -> text);
    `wrote`: it created or changed some file (results or not); `echoes`: templates of the lines the command's own
    text prints (sandbox/echoes.py), which show nothing."""
    text = f"{stdout}\n{stderr}"
    lines = _lines(text)
    missing = MISSING_PROGRAM.search(text)
    program = (missing.group(1) or missing.group(2)) if missing else ""
    if timed_out:
        progress = progress_of(text)
        if progress:
            return RunOutcome(verdict="cut", progress=progress, reasons=[f"progress shown up to {progress}"])
        return RunOutcome(verdict="timed_out", missing_program=program)
    events = _events(lines)
    if exit_code != 0:
        return RunOutcome(verdict="failed", reasons=[_quote(events[-1])] if events else [], missing_program=program)
    reasons: list[str] = []
    bad_files = [p for name, body in (results or {}).items() if (p := result_file_problem(name, body))]
    good_files = len(results or {}) - len(bad_files)
    work = [ln for ln in lines if not is_failure(ln)]
    suite = read_test_summary(stdout, stderr, exit_code)
    if suite.runner == "summary line":  # a free-form "all tests passed" is judged as any other output
        suite = suite.model_copy(update={"verdict": "not_established"})
    if suite.verdict == "passed" and missing and missing.group(1):
        return RunOutcome(verdict="invalid", missing_program=program,
                          reasons=[f"the test runner reports a pass ({suite.reason}), but `{program}` is not "
                                   "installed (command not found): what needs it did not run"])
    if suite.verdict == "passed" and not _traceback_after_summary(text):  # unittest writes it all to stderr
        return RunOutcome(verdict="valid", reasons=[f"test runner: {suite.reason}"])
    if suite.verdict == "failed":
        return RunOutcome(verdict="invalid", reasons=[f"the test runner reports failures: {suite.reason}"],
                          failed_items=suite.failed, items=suite.passed + suite.failed)
    if not stdout.strip() and not wrote:
        return RunOutcome(verdict="invalid", reasons=["nothing on standard output and no file written"])
    if lines and USAGE.match(lines[0]) and not wrote and len(lines) < 60:
        return RunOutcome(verdict="invalid", reasons=["it printed only a usage text"])
    hollow = _hollow(lines, echoes or [])
    if hollow and not wrote:
        return RunOutcome(verdict="invalid", reasons=[hollow], missing_program=program)
    if program:
        reasons.append(f"`{program}` is not installed (command not found)")
    if re.search(r"Traceback \(most recent call last\)", stderr):
        reasons.append("a Python traceback: " + _quote(next((e for e in reversed(events)), "exception")))
    items, failing = _items(lines)
    if events and items and failing:
        share = f"{failing} of {items} items failed ({_quote(events[-1])})"
        (reasons.append(share) if 2 * failing > items else reasons.insert(0, share))
        if 2 * failing <= items and not program and not reasons[1:] and not bad_files:
            return RunOutcome(verdict="partial", reasons=[share], failed_items=failing, items=items)
    elif events and not reasons:
        reasons.append(f"{len(events)} failure line{'s' if len(events) > 1 else ''} ({_quote(events[-1])})")
    reasons += bad_files
    if not reasons:
        return RunOutcome(verdict="valid")
    decisive = (program or "traceback" in " ".join(reasons) or items and 2 * failing > items
                or events and not work and not good_files or bad_files and not good_files and not _numbers(work))
    return RunOutcome(verdict="invalid" if decisive else "partial", reasons=reasons, failed_items=failing,
                      items=items, missing_program=program)


USAGE_BODY = re.compile(r"^\s|^(?:positional arguments|optional arguments|options|arguments|commands):?\s*$|^-", re.I)


def _hollow(lines: list[str], echoes: list[re.Pattern[str]]) -> str:
    """Why output with lines has no substance — every line an error, a usage text or an echo of the command's own
    text ('' when some line is output of the work)."""
    kinds: Counter[str] = Counter()
    in_usage = False
    for ln in lines:
        in_usage = bool(USAGE.match(ln)) or in_usage and bool(USAGE_BODY.match(ln))
        kind = ("usage" if in_usage else "error" if is_failure(ln) else "echo" if is_echo(ln, echoes)
                else "indented" if kinds["error"] and ln.startswith((" ", "\t")) else "")
        if not kind:
            return ""
        kinds[kind] += 1
    if not kinds:
        return ""
    error = next((e for e in reversed(_events(lines))), "")
    parts = ([f"{kinds['error']} error line{'s' if kinds['error'] > 1 else ''} ({_quote(error)})"] if error else []) \
        + (["a usage text"] if kinds["usage"] else []) \
        + ([f"{kinds['echo']} line{'s' if kinds['echo'] > 1 else ''} echoing the command's own text"]
           if kinds["echo"] else [])
    return "its only output is " + " and ".join(parts) + ", and it wrote no file"


def _traceback_after_summary(text: str) -> bool:
    """A traceback after the test runner's last summary line: the run went on after its tests, and failed."""
    marks = list(SUITE_SUMMARY.finditer(text))
    return bool(marks) and "Traceback (most recent call last)" in text[marks[-1].end():]


def _numbers(lines: list[str]) -> bool:
    return sum(len(NUMBER.findall(ln)) for ln in lines) >= MIN_NUMBERS


def _quote(line: str) -> str:
    line = " ".join(line.split())
    return f"`{line[:100]}{'…' if len(line) > 100 else ''}`"



def result_texts(root: Path | None, paths: list[str]) -> dict[str, str]:
    """The text of the result files (tables, logs, JSON) a run wrote under `root`, within size bounds."""
    texts: dict[str, str] = {}
    if root is None:
        return texts
    for rel in [p for p in paths if p.lower().endswith(RESULT_EXT) and not p.startswith(".copilot/")]:
        path = root / rel
        try:
            if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_RESULT_BYTES:
                continue
            texts[rel] = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if len(texts) >= MAX_RESULT_FILES:
            break
    return texts


def judge_record(rec: CommandRecord, root: Path | None = None, stdout: str | None = None,
                 stderr: str | None = None) -> RunOutcome:
    """Judge a command record (its whole output when given, else the record's heads; result files under `root`)."""
    written = rec.files_created + rec.files_modified
    return judge(rec.exit_code, rec.timed_out, rec.stdout if stdout is None else stdout,
                 rec.stderr if stderr is None else stderr, result_texts(root, written), bool(written),
                 echo_templates(rec.cmd, root, rec.cwd))


def judge_run(root: Path | None, result: RunResult) -> RunOutcome:
    return judge_record(result.record, root, result.stdout_full.decode("utf-8", "replace"),
                        result.stderr_full.decode("utf-8", "replace"))
