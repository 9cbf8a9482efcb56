"""The command log: how one sandboxed command is persisted as evidence, written and read by this module only.

    $ <script>
    # cwd: <dir>  exit: <code>  duration: <s>s  timed_out: <bool>
    # network: on|off  limits hit: ...
    # files created: ...
    # files modified: ...
    # files deleted: ...
    # figures shown: ...            (optional: figures the review's headless display saved)
    # invocation: documented|fix|undocumented|probe   (how the review came to run it)
    # note: ...                      (optional, e.g. "rerun in a fresh copy without results/t.csv")
    # outcome: <verdict>: <reasons>  (optional: what the output shows, sandbox/outcome.py)
    ----- stdout -----
    ...
    ----- stderr -----
    ...
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..models import CommandRecord

STDOUT, STDERR = "----- stdout -----", "----- stderr -----"
_STATUS = re.compile(r"^# cwd: (?P<cwd>.*?)  exit: (?P<exit>-?\d+|None)  "
                     r"duration: (?P<dur>[\d.]+)s  timed_out: (?P<to>True|False)$", re.M)
_FIELD = re.compile(r"^# (?P<key>[a-z ]+): (?P<value>.*)$", re.M)


@dataclass
class CommandLog:
    """A parsed command log."""

    script: str = ""
    cwd: str = "."
    exit_code: int | None = None
    duration_s: float = 0.0
    timed_out: bool = False
    network: bool = False
    limits: list[str] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    modified: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    shown: list[str] = field(default_factory=list)
    invocation: str = ""
    """documented (as the docs give it), fix (a logged mechanical fix of a documented command), undocumented,
    probe; empty for logs that do not say."""
    note: str = ""
    outcome: str = ""
    """The recorded judgement of the output ('invalid: 8 of 8 items failed ...'); empty for logs that do not say."""
    stdout: str = ""
    stderr: str = ""

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out


def _listing(paths: list[str]) -> str:
    return ", ".join(paths[:50]) or "none"


def format_log(script: str, record: CommandRecord, stdout: bytes | str, stderr: bytes | str, note: str = "",
               invocation: str = "", outcome: str = "") -> str:
    out = stdout.decode("utf-8", "replace") if isinstance(stdout, bytes) else stdout
    err = stderr.decode("utf-8", "replace") if isinstance(stderr, bytes) else stderr
    lines = [f"$ {script}",
             f"# cwd: {record.cwd}  exit: {record.exit_code}  duration: {record.duration_s}s  "
             f"timed_out: {record.timed_out}",
             f"# network: {'on' if record.network else 'off'}  limits hit: {', '.join(record.limits_hit) or 'none'}",
             f"# files created: {_listing(record.files_created)}",
             f"# files modified: {_listing(record.files_modified)}",
             f"# files deleted: {_listing(record.files_deleted)}"]
    if record.figures_shown:
        lines.append(f"# figures shown: {_listing(record.figures_shown)}")
    if invocation:
        lines.append(f"# invocation: {invocation}")
    if note:
        lines.append(f"# note: {note}")
    if outcome:
        lines.append(f"# outcome: {' '.join(outcome.split())}")
    return "\n".join(lines) + f"\n{STDOUT}\n{out}\n{STDERR}\n{err}\n"


def parse_log(text: str) -> CommandLog:
    """Read a log written by `format_log`; a log of another shape yields what can be read (never raises)."""
    head, _, rest = text.partition(f"\n{STDOUT}\n")
    out, _, err = rest.partition(f"\n{STDERR}\n")
    log = CommandLog(stdout=out, stderr=err[:-1] if err.endswith("\n") else err)
    first = head.split("\n", 1)[0]
    log.script = first[2:] if first.startswith("$ ") else ""
    status = _STATUS.search(head)
    if status:
        log.cwd, log.timed_out = status["cwd"], status["to"] == "True"
        log.exit_code = None if status["exit"] == "None" else int(status["exit"])
        log.duration_s = float(status["dur"])
    for match in _FIELD.finditer(head):
        key, value = match["key"], match["value"]
        if key == "network":
            net, _, limits = value.partition("  limits hit: ")
            log.network = net == "on"
            log.limits = [] if limits in ("", "none") else limits.split(", ")
        elif key.startswith("files "):
            setattr(log, key.split()[1], [] if value == "none" else value.split(", "))
        elif key == "figures shown":
            log.shown = [] if value == "none" else value.split(", ")
        elif key == "note":
            log.note = value
        elif key == "invocation":
            log.invocation = value
        elif key == "outcome":
            log.outcome = value
    return log
