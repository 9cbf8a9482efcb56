"""What a review shows while it runs, built on its progress events `(phase, event, detail)`:

    start (detail 'attempt N'), committed (detail = score, '' for the gate), rejected (the checker's reasons),
    command (a sandboxed command line), output (its latest output line), command-done ('exit N' / 'timed out'),
    model (a model call in flight, detail = model name), model-done; any other event is shown as it comes.

`LiveView` redraws one block on a terminal (rich): every phase with a mark that reflects its result
(✓ WA/A or gate passed, ! WR, ✗ R or gate failed), the phase running with its attempt and elapsed time, the
command running with its elapsed time and last output line, a model call in flight with its elapsed time.
`PlainView` writes one line per phase event for logs and pipes (and a "still running" line for a long command).
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from typing_extensions import Self

SCORE_MARKS = {"A": "✓", "WA": "✓", "WR": "!", "R": "✗"}
MARK_STYLE = {"✓": "green", "!": "yellow", "✗": "red", "·": "dim"}
HEARTBEAT_S = 60.0
"""Plain output: how often a long-running command gets a 'still running' line (when it prints anything)."""
GateOutcome = Callable[[], "bool | None"]


def elapsed(seconds: float) -> str:
    if seconds < 10:
        return f"{max(0.0, seconds):.1f}s"
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    return f"{minutes}m {seconds:02d}s" if minutes < 60 else f"{minutes // 60}h {minutes % 60:02d}m"


@dataclass
class Activity:
    """Something in flight inside a phase: a command or a model call."""

    kind: str
    label: str
    started: float
    last: str = ""
    """The latest output line (commands)."""
    beat: float = 0.0


@dataclass
class PhaseRow:
    id: str
    title: str
    state: str = "pending"
    """pending, running, done."""
    mark: str = "·"
    result: str = ""
    started: float = 0.0
    seconds: float = 0.0
    attempt: str = ""
    note: str = ""


@dataclass
class ReviewProgress:
    """The state a view draws, updated by `handle` (safe to call from several threads)."""

    phases: list[PhaseRow]
    gate_phase: str = "gate"
    gate_outcome: GateOutcome = lambda: None
    clock: Callable[[], float] = time.monotonic
    started: float = 0.0
    status: str = "starting: loading the reviewer"
    activities: dict[str, Activity] = field(default_factory=dict)
    last_command: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.started = self.started or self.clock()

    def row(self, phase: str) -> PhaseRow | None:
        return next((r for r in self.phases if r.id == phase), None)

    def handle(self, phase: str, event: str, detail: str) -> None:
        with self.lock:
            self._handle(phase, event, str(detail or ""))

    def _handle(self, phase: str, event: str, detail: str) -> None:
        now, row = self.clock(), self.row(phase)
        if event == "start":
            self.activities.clear()
            if row is None:
                self.status = "writing the report" if phase == "report" else f"{phase}: started"
                return
            row.state, row.started, row.note = "running", now, ""
            row.attempt = "" if detail in ("", "attempt 1") else detail
            self.status = row.title + (f" ({row.attempt})" if row.attempt else "")
        elif event == "committed" and row is not None:
            row.state, row.seconds = "done", now - (row.started or now)
            row.mark, row.result = self.mark(phase, detail)
            self.activities.clear()
        elif event == "rejected" and row is not None:
            row.note = f"packet rejected, revising: {detail[:120]}"
        elif event in ("command", "model"):
            self.activities[event] = Activity(event, detail, now, beat=now)
        elif event == "output" and "command" in self.activities:
            self.activities["command"].last = detail[:200]
        elif event in ("command-done", "model-done"):
            done = self.activities.pop(event.removesuffix("-done"), None)
            if done is not None and event == "command-done":
                self.last_command = f"{done.label[:80]} → {detail} ({elapsed(now - done.started)})"
        else:
            self.activities[event] = Activity(event, detail, now, beat=now)

    def mark(self, phase: str, detail: str) -> tuple[str, str]:
        if detail in SCORE_MARKS:
            return SCORE_MARKS[detail], detail
        if detail == "agent failed":  # not established: neither passed nor failed, no score
            return "!", "not established — the agent failed"
        if phase == self.gate_phase:
            passed = self.gate_outcome()
            if passed is not None:
                return ("✓", "passed") if passed else ("✗", "failed")
        return "·", detail or "done"


class LiveView:
    """A rich Live block on a terminal, redrawn a few times a second."""

    def __init__(self, progress: ReviewProgress, console):
        from rich.live import Live

        self.progress, self.console = progress, console
        self.live = Live(console=console, get_renderable=self.render, refresh_per_second=4, transient=False)

    def __enter__(self) -> Self:
        self.live.start()
        return self

    def __exit__(self, *exc) -> None:
        failed = bool(exc and exc[0] is not None)
        with self.progress.lock:
            self.progress.status = "stopped" if failed else "done"
            self.progress.activities.clear()
        if failed and not any(r.state != "pending" for r in self.progress.phases):
            self.live.transient = True  # nothing ran (e.g. an unreadable paper): leave only the error line
        self.live.stop()

    def handle(self, phase: str, event: str, detail: str) -> None:
        self.progress.handle(phase, event, detail)

    def render(self):
        from rich.console import Group
        from rich.table import Table
        from rich.text import Text

        p = self.progress
        with p.lock:
            now = p.clock()
            grid = Table.grid(padding=(0, 2))
            for _ in range(3):
                grid.add_column()
            for row in p.phases:
                grid.add_row(*self._row(row, now))
            lines = [Text(f"ArtifactCopilot review · {elapsed(now - p.started)} · {p.status}", style="bold"), grid]
            for act in p.activities.values():
                lines += self._activity(act, now)
            if p.last_command and "command" not in p.activities:
                lines.append(Text(f"  last command: {p.last_command}", style="dim"))
        return Group(*lines)

    @staticmethod
    def _row(row: PhaseRow, now: float):
        from rich.text import Text

        if row.state == "running":
            detail = f"running {elapsed(now - row.started)}" + (f" · {row.attempt}" if row.attempt else "")
            return (Text("…", style="cyan"), Text(row.title, style="bold"),
                    Text(detail + (f" · {row.note}" if row.note else ""), style="cyan"))
        if row.state == "done":
            return (Text(row.mark, style=MARK_STYLE.get(row.mark, "")), Text(row.title),
                    Text(f"{row.result}  {row.seconds:.1f}s", style=MARK_STYLE.get(row.mark, "")))
        return Text("·", style="dim"), Text(row.title, style="dim"), Text("")

    @staticmethod
    def _activity(act: Activity, now: float) -> list:
        from rich.text import Text

        took = elapsed(now - act.started)
        if act.kind == "command":
            out = [Text(f"  $ {act.label[:160]}   (running {took})", style="yellow")]
            return out + [Text(f"    │ {act.last}", style="dim")] if act.last else out
        if act.kind == "model":
            return [Text(f"  model call in flight: {act.label or 'model'} ({took})", style="magenta")]
        return [Text(f"  {act.kind}: {act.label[:160]} ({took})", style="dim")]


class PlainView:
    """Plain lines for logs and pipes: one when a phase starts, one when it commits (with its mark), one when a
    packet is sent back; and, unless quiet, a 'still running' line every minute for a command or a model call
    that takes long, so a log never looks frozen."""

    def __init__(self, progress: ReviewProgress, stream: TextIO, quiet: bool = False, tick_s: float = 5.0):
        self.progress, self.stream, self.quiet, self.tick_s = progress, stream, quiet, tick_s
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    def __enter__(self) -> Self:
        if not self.quiet and self.tick_s > 0:
            self._ticker = threading.Thread(target=self._run_ticker, name="progress-ticker", daemon=True)
            self._ticker.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(timeout=2)
        self.stream.flush()

    def _run_ticker(self) -> None:
        while not self._stop.wait(self.tick_s):
            self.tick()

    def _write(self, line: str | None) -> None:
        if line:
            self.stream.write(line + "\n")
            self.stream.flush()

    def handle(self, phase: str, event: str, detail: str) -> None:
        self.progress.handle(phase, event, detail)
        self._write(self._line(phase, event, str(detail or "")))

    def _line(self, phase: str, event: str, detail: str) -> str | None:
        row = self.progress.row(phase)
        title = row.title if row else phase
        if event == "start":
            if phase == "report":
                return "… writing the report"
            return f"… {title}" + (f" ({row.attempt})" if row and row.attempt else "")
        if event == "committed" and row is not None:
            return f"{row.mark} {title}: {row.result} ({row.seconds:.1f}s)"
        if event == "rejected":
            return f"↻ {title}: packet rejected, revising ({detail[:160]})"
        return None

    def tick(self) -> None:
        """A 'still running' line for each activity running a minute or more since its last line."""
        p = self.progress
        with p.lock:
            now, lines = p.clock(), []
            for act in p.activities.values():
                if now - act.beat < HEARTBEAT_S:
                    continue
                act.beat = now
                what = f"$ {act.label[:120]}" if act.kind == "command" else f"{act.kind} {act.label[:120]}".strip()
                lines.append(f"  … still running after {elapsed(now - act.started)}: {what}"
                             + (f" — {act.last[:120]}" if act.last else ""))
        for line in lines:
            self._write(line)
