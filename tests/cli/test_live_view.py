"""The live view: its state from progress events, the plain lines, and the real thing in a pseudo-terminal,
updating while a slow artifact command runs."""
from __future__ import annotations

import fcntl
import io
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time

from rich.console import Console
from test_review_console import slow_artifact

from artifactcopilot.live import LiveView, PhaseRow, PlainView, ReviewProgress

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _progress(clock: Clock, gate: bool | None = None) -> ReviewProgress:
    rows = [PhaseRow("gate", "Availability gate"), PhaseRow("D1", "D1 documentation"), PhaseRow("D2", "D2 environment"),
            PhaseRow("D3", "D3 execution")]
    return ReviewProgress(rows, gate_outcome=lambda: gate, clock=clock)


def _text(view: LiveView) -> str:
    console = Console(file=io.StringIO(), width=120, color_system=None)
    console.print(view.render())
    return console.file.getvalue()


def test_marks_follow_the_score_not_just_completion():
    clock = Clock()
    progress = _progress(clock, gate=False)
    for phase, score in (("gate", ""), ("D1", "A"), ("D2", "WR"), ("D3", "R")):
        progress.handle(phase, "start", "attempt 1")
        clock.now += 2
        progress.handle(phase, "committed", score)
    marks = {r.id: (r.mark, r.result) for r in progress.phases}
    assert marks == {"gate": ("✗", "failed"), "D1": ("✓", "A"), "D2": ("!", "WR"), "D3": ("✗", "R")}
    assert _progress(clock, gate=True).mark("gate", "") == ("✓", "passed")


def test_the_view_shows_the_running_command_its_time_and_last_line_and_a_model_call():
    clock = Clock()
    progress = _progress(clock)
    view = LiveView(progress, Console(file=io.StringIO()))
    progress.handle("gate", "start", "attempt 1")
    progress.handle("gate", "committed", "")
    progress.handle("D1", "start", "attempt 2")
    progress.handle("D1", "rejected", "D1.setup cites no evidence")
    progress.handle("D1", "command", "python3 train.py --epochs 3")
    clock.now += 75
    progress.handle("D1", "output", "epoch 2/3 loss 0.41")
    text = _text(view)
    assert "$ python3 train.py --epochs 3   (running 1m 15s)" in text and "│ epoch 2/3 loss 0.41" in text
    assert "attempt 2" in text and "packet rejected, revising: D1.setup cites no evidence" in text
    progress.handle("D1", "command-done", "exit 0")
    progress.handle("D1", "model", "qwen2.5-7b")
    clock.now += 12
    text = _text(view)
    assert "model call in flight: qwen2.5-7b (12s)" in text and "last command: python3 train.py" in text
    progress.handle("D1", "model-done", "")
    progress.handle("D1", "verifier", "turn 2 of 5")  # an event the view does not know yet: still shown
    assert "verifier: turn 2 of 5" in _text(view) and "model call" not in _text(view)


def test_plain_lines_and_a_heartbeat_for_a_long_command():
    clock, out = Clock(), io.StringIO()
    view = PlainView(_progress(clock), out, tick_s=0)
    view.handle("D1", "start", "attempt 1")
    view.handle("D1", "command", "make all")
    view.tick()  # nothing yet: the command just started
    for _ in range(3):
        clock.now += 45
        view.handle("D1", "output", "compiling module 7")
        view.tick()
    view.handle("D1", "command-done", "timed out")
    view.handle("D1", "model", "qwen2.5-7b")
    clock.now += 61
    view.tick()
    view.handle("D1", "model-done", "")
    view.handle("D1", "rejected", "D1.setup cites no evidence")
    view.handle("D1", "start", "attempt 2")
    view.handle("D1", "committed", "WR")
    assert out.getvalue().splitlines() == [
        "… D1 documentation",
        "  … still running after 1m 30s: $ make all — compiling module 7",  # once a minute, not per line
        "  … still running after 1m 01s: model qwen2.5-7b",
        "↻ D1 documentation: packet rejected, revising (D1.setup cites no evidence)",
        "… D1 documentation (attempt 2)",
        "! D1 documentation: WR (0.0s)"]


def test_quiet_writes_phase_lines_only():
    clock, out = Clock(), io.StringIO()
    with PlainView(_progress(clock), out, quiet=True) as view:
        assert view._ticker is None
        view.handle("D1", "start", "")
        view.handle("D1", "command", "make all")
        clock.now += 600
        view.handle("D1", "committed", "A")
    assert out.getvalue() == "… D1 documentation\n✓ D1 documentation: A (600.0s)\n"


def _read_pty(proc: subprocess.Popen, master: int, deadline: float) -> bytes:
    data = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed its side
                break
            if not chunk:
                break
            data += chunk
        elif proc.poll() is not None:
            break
    return data


def test_live_view_updates_in_a_terminal_while_a_slow_command_runs(tmp_path):
    paper, art = slow_artifact(tmp_path, ticks=3)
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI") and k not in ("COLUMNS", "LINES")}
    env.update(TERM="xterm-256color")
    proc = subprocess.Popen([sys.executable, "-m", "artifactcopilot.cli", "review", str(paper), str(art), "--out",
                             str(tmp_path / "r"), "--sandbox", "local"], stdin=slave, stdout=slave, stderr=slave,
                            env=env, close_fds=True)
    os.close(slave)
    try:
        raw = _read_pty(proc, master, time.monotonic() + 300)
    finally:
        os.close(master)
        proc.wait(timeout=60)
    screen = ANSI.sub("", raw.decode("utf-8", "replace"))
    assert proc.returncode == 0, screen[-3000:]
    assert "starting: loading the reviewer" in screen  # something on screen before the heavy imports end
    running = [m.group(1) for m in re.finditer(r"\$ sh run\.sh\s+\(running ([0-9.]+)s\)", screen)]
    assert len(set(running)) >= 3, running  # the command's elapsed time moved on while it ran
    ticks = [m.group(1) for m in re.finditer(r"│ tick (\d)", screen)]
    assert {"1", "2", "3"} <= set(ticks) and ticks.index("1") < ticks.index("3")  # each new line replaced the last
    assert re.search(r"✓\s+Availability gate\s+passed", screen)
    assert "badge: " in screen and "report: " in screen
