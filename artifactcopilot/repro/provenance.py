"""Run provenance: which artifact files a run read and wrote, in what order, and how much it computed.

With `strace` inside the sandbox every open/exec/rename is traced, so we know whether the file a
table came from was written by this run before it was read (regenerated) or only read (copied).
Without it, the before/after snapshot of the sandbox (files created/modified) stands in, and the
method judge relies on withheld-file reruns and the script's text instead.
"""
from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from ..sandbox.base import RunResult, Session

TRACE_DIR = ".repro-trace"
_TRACE_CALLS = "openat,open,creat,execve,rename,renameat,renameat2"
_OPEN = re.compile(r'^(\d+)\s+(openat|open|creat)\((?:AT_FDCWD[^,]*,\s*|\d+<[^>]*>,\s*)?"((?:[^"\\]|\\.)*)"'
                   r'(?:,\s*([A-Z_|]+))?.*\)\s*=\s*(-?\d+)(?:<([^>]*)>)?')
_EXEC = re.compile(r'^(\d+)\s+execve\("((?:[^"\\]|\\.)*)",\s*\[(.*?)\](?:\.\.\.)?,.*\)\s*=\s*(-?\d+)')
_RENAME = re.compile(r'^(\d+)\s+rename(?:at2?)?\((?:AT_FDCWD<([^>]*)>,\s*)?"((?:[^"\\]|\\.)*)",\s*'
                     r'(?:AT_FDCWD<([^>]*)>,\s*)?"((?:[^"\\]|\\.)*)".*\)\s*=\s*(-?\d+)')
_WRITE_FLAGS = ("O_WRONLY", "O_TRUNC", "O_APPEND")
# O_RDWR without O_TRUNC (sqlite3.connect, h5py in r+ mode) reads what is there first: the checked-in content.
_TIMES = re.compile(r"(\d+)m([\d.]+)s")


class RunProvenance(BaseModel):
    """What one run touched inside the artifact copy (paths relative to the artifact root)."""

    method: Literal["strace", "snapshot"] = Field(
        description="strace: traced syscalls; snapshot: before/after file listing only.")
    exit_code: int | None = Field(None, description="Exit status of the run; None when it was killed.")
    wall_s: float = Field(0.0, description="Wall-clock seconds.")
    cpu_s: float | None = Field(None, description="User+system CPU seconds of the run's processes (None if unknown).")
    read_first: list[str] = Field(
        default_factory=list,
        description="Pre-existing files whose checked-in content the run read (read before any write).")
    written: list[str] = Field(default_factory=list, description="Files the run created or rewrote.")
    read_after_write: list[str] = Field(
        default_factory=list, description="Files the run generated and then read (its own intermediates/outputs).")
    programs: list[str] = Field(
        default_factory=list, description="Executables the run started (basenames, first use order).")
    commands: list[list[str]] = Field(default_factory=list, description="argv of each exec (strings truncated).")

    def summary(self) -> str:
        cpu = f"{self.cpu_s:.2f}s CPU" if self.cpu_s is not None else "CPU unknown"
        return (f"{self.method}: read {len(self.read_first)} checked-in files, wrote {len(self.written)}, "
                f"re-read {len(self.read_after_write)} of its own; {cpu}; "
                f"programs: {', '.join(self.programs[:8]) or 'none'}")


def _wrapped(script: str, use_strace: bool | None) -> str:
    """One shell command: records the root as seen inside, traces when strace works there, keeps CPU times."""
    body = f'{script}\n__rc=$?\ntimes > "$REPRO_TRACE_DIR/times"\nexit $__rc\n'
    plain = f"bash -c {shlex.quote(body)}"
    traced = (f'echo strace > "$REPRO_TRACE_DIR/mode"; strace -f -qq -y -s 200 -e trace={_TRACE_CALLS} -e signal=none '
              f'-o "$REPRO_TRACE_DIR/trace" -- {plain}')
    # ptrace may be forbidden
    check = "command -v strace >/dev/null 2>&1 && strace -f -qq -o /dev/null true 2>/dev/null"
    head = f'mkdir -p {TRACE_DIR} && export REPRO_TRACE_DIR="$PWD/{TRACE_DIR}" && pwd > "$REPRO_TRACE_DIR/root" && '
    if use_strace is False:
        return head + plain
    return head + f"if {check}; then {traced}; else {plain}; fi"


def _unescape(s: str) -> str:
    return s.encode("latin-1", "backslashescape").decode("unicode_escape", "replace") if "\\" in s else s


_UNFINISHED = re.compile(r"^(\d+)\s+(.*?)\s*<unfinished \.\.\.>\s*$")
_RESUMED = re.compile(r"^(\d+)\s+<\.\.\. \w+ resumed>\s*(.*)$")


def stitch(text: str) -> list[str]:
    """Join syscalls that `strace -f` split when another process ran in between:
    `PID call(args <unfinished ...>` + `PID <... call resumed>rest` -> `PID call(args rest`."""
    pending: dict[str, str] = {}
    lines = []
    for line in text.splitlines():
        if m := _UNFINISHED.match(line):
            pending[m.group(1)] = f"{m.group(1)} {m.group(2)}"
            continue
        if (m := _RESUMED.match(line)) and m.group(1) in pending:
            lines.append(pending.pop(m.group(1)) + m.group(2))
            continue
        lines.append(line)
    return lines + list(pending.values())


def parse_trace(text: str, root: str) -> tuple[list[tuple[str, str]], list[list[str]]]:
    """(path, 'read'|'write') events under `root` in order, and argv of each successful exec."""
    root = root.rstrip("/") + "/"
    events: list[tuple[str, str]] = []
    execs: list[list[str]] = []

    def rel(path: str | None, base: str | None = None) -> str | None:
        if not path:
            return None
        if not path.startswith("/"):
            path = (base or root).rstrip("/") + "/" + path
        path = str(Path(path))  # normalise ./ and //
        return path[len(root):] if path.startswith(root) else None

    for line in stitch(text):
        if m := _OPEN.match(line):
            _pid, call, raw, flags, ret, resolved = m.groups()
            if int(ret) < 0 or "O_DIRECTORY" in (flags or ""):
                continue
            path = rel(resolved or _unescape(raw))
            if path and not path.startswith((TRACE_DIR, ".sandbox-home/")):
                flag_set = set((flags or "").split("|"))
                writes = call == "creat" or any(f in flag_set for f in _WRITE_FLAGS) or (
                    "O_CREAT" in flag_set and "O_RDWR" not in flag_set)
                mode = "write" if writes else "read"
                events.append((path, mode))
        elif m := _EXEC.match(line):
            if int(m.group(4)) == 0:
                args = [_unescape(a) for a in re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(3))][:12]
                execs.append(args or [m.group(2)])
        elif m := _RENAME.match(line):
            _pid, cwd, _old, cwd2, new, ret = m.groups()
            target = rel(_unescape(new), cwd2 or cwd)
            if int(ret) == 0 and target and not target.startswith((TRACE_DIR, ".sandbox-home/")):
                events.append((target, "write"))
    return events, execs


def _cpu(times_text: str) -> float | None:
    lines = [ln for ln in times_text.splitlines() if ln.strip()]
    if len(lines) < 2:
        return None
    return round(sum(int(m) * 60 + float(s) for line in lines for m, s in _TIMES.findall(line)), 3)


def _fetch(session: Session, rel: str) -> str:
    path = session.root / rel
    if path.is_file():
        return path.read_text("utf-8", "replace")
    res = session.run(f"cat {shlex.quote(rel)} 2>/dev/null", timeout=60)
    return res.stdout_full.decode("utf-8", "replace")


def traced_run(session: Session, script: str, timeout: float | None = None, env: dict[str, str] | None = None,
               use_strace: bool | None = None) -> tuple[RunResult, RunProvenance]:
    """Run `script` (shell text) in `session` and record its provenance alongside its result."""
    result = session.run(_wrapped(script, use_strace), timeout=timeout, env=env)
    inside_root = _fetch(session, f"{TRACE_DIR}/root").strip() or str(session.root)
    use_strace = _fetch(session, f"{TRACE_DIR}/mode").strip() == "strace"
    rec = result.record
    rec.files_created = [p for p in rec.files_created if not p.startswith(TRACE_DIR)]
    rec.files_modified = [p for p in rec.files_modified if not p.startswith(TRACE_DIR)]
    events: list[tuple[str, str]] = []
    execs: list[list[str]] = []
    if use_strace:
        events, execs = parse_trace(_fetch(session, f"{TRACE_DIR}/trace"), inside_root)
    cpu = _cpu(_fetch(session, f"{TRACE_DIR}/times"))
    if (session.root / TRACE_DIR).is_dir():
        shutil.rmtree(session.root / TRACE_DIR, ignore_errors=True)
    else:
        session.run(f"rm -rf {TRACE_DIR}", timeout=30)
    first: dict[str, str] = {}
    reread: list[str] = []
    for path, mode in events:
        if path not in first:
            first[path] = mode
        elif mode == "read" and first[path] == "write" and path not in reread:
            reread.append(path)
    written = list(dict.fromkeys([p for p, m in first.items() if m == "write"] + rec.files_created +
                                 rec.files_modified))
    programs = list(dict.fromkeys(Path(argv[0]).name for argv in execs if argv))
    read_first = [p for p, m in first.items() if m == "read" and p not in rec.files_created]
    prov = RunProvenance(method="strace" if use_strace else "snapshot", exit_code=rec.exit_code, wall_s=rec.duration_s,
                         cpu_s=cpu, read_first=read_first,
                         written=written, read_after_write=reread, programs=programs, commands=execs[:200])
    return result, prov
