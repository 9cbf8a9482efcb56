"""Helpers shared by the batch tests: corpus manifests and running `copilot batch` as users do."""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import corpus_cases, load_case

CASES = {c.name: c for c in corpus_cases()}
DIMS = ("D1", "D2", "D3", "D4", "D5")
# Quick fixtures covering every badge, for runs where the whole corpus is not the point.
SMALL = ["gate-no-readme", "available-crash", "functional-basic", "reusable-full"]


def corpus_row(name: str, human_badge: str | None = None) -> dict:
    expected, paper, artifact = load_case(CASES[name])
    if not Path(artifact).exists():  # reviewed as unreachable on purpose: a URL, not a typo in a path
        artifact = Path(artifact).resolve().as_uri()
    row = {"id": name, "paper": str(paper), "artifact": artifact, "human_badge": human_badge or expected["badge"],
           "timeout": expected.get("review_timeout", "")}
    row.update({f"human_{d}": expected["dimensions"][d] or "" for d in DIMS})
    return row


def write_manifest(path: Path, names: list[str], rows: list[dict] | None = None) -> Path:
    rows = [corpus_row(n) for n in names] + list(rows or [])
    fields = ["id", "paper", "artifact", "human_badge"] + [f"human_{d}" for d in DIMS] + ["timeout"]
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: row.get(k, "") for k in fields})
    return path


def expected_badge(name: str) -> str:
    return load_case(CASES[name])[0]["badge"]


def copilot_env() -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI")}
    env["RAY_USAGE_STATS_ENABLED"] = "0"
    env["RAY_AUTH_MODE"] = "disabled"  # a token left in ~/.ray by another cluster must not lock these tests out
    return env


def _local(args: tuple[str, ...]) -> list[str]:
    # The local sandbox keeps each artifact command in this process tree, where the tests can watch it.
    return [*args, "--sandbox", "local"] if args and args[0] == "batch" else list(args)


def copilot(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "artifactcopilot.cli", *_local(args)], capture_output=True, text=True,
                          env=copilot_env(), timeout=timeout, stdin=subprocess.DEVNULL)


def start_batch(*args: str, **kw) -> subprocess.Popen:
    """`copilot batch` in its own session, as a terminal would run it (Ctrl-C reaches the whole group)."""
    return subprocess.Popen([sys.executable, "-m", "artifactcopilot.cli", *_local(("batch", *args))],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=copilot_env(),
                            stdin=subprocess.DEVNULL, start_new_session=True, **kw)


def outcomes(root: Path) -> dict[str, dict]:
    return {p.parent.relative_to(root).as_posix(): json.loads(p.read_text())
            for p in root.rglob("outcome.json") if ".work" not in p.parts}


def badges(root: Path) -> dict[str, str]:
    return {key: o.get("badge") for key, o in outcomes(root).items()}


def _proc_table() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) of every process visible now."""
    table = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_bytes().rsplit(b")", 1)[1].split()[1])
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except (OSError, IndexError, ValueError):
            continue
        table[int(entry.name)] = (ppid, cmdline)
    return table


def descendants(root: int) -> dict[int, str]:
    """Processes below `root` in the process tree (only what this test started), pid -> command line."""
    table = _proc_table()
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    found, stack = {}, list(children.get(root, []))
    while stack:
        pid = stack.pop()
        found[pid] = table[pid][1]
        stack += children.get(pid, [])
    return found


def alive(pids) -> list[int]:
    table = _proc_table()
    return [p for p in pids if p in table and table[p][1]]  # a zombie has an empty command line
