"""D5: the documented command on another input the artifact ships beside the one the documentation uses.

When the documented run reads `test_data/mushroom.data` and the same folder holds `car.data`, `nursery.data`, …, a
reviewer runs the same command on one of those (the smallest) twice. It shows the command is not tied to its one
example, so a transfer is concrete enough to try (D5.transfer_info) — but the authors' own inputs are not new
input, so it never validates a transfer by itself (D5.transfer_validated needs an input the artifact has not seen).
"""
from __future__ import annotations

from pathlib import Path, PurePosixPath

from ... import shell as sh
from ...tools import PhaseTools

CODE = (".py", ".sh", ".r", ".jl", ".m", ".js", ".java", ".jar", ".pl", ".rb", ".c", ".cpp", ".h", ".ipynb", ".md")
MAX_BYTES = 50_000_000


def _size(tools: PhaseTools, rel: str) -> int:
    try:
        return (Path(tools.ctx.root or ".") / rel).stat().st_size
    except OSError:
        return MAX_BYTES + 1


def sibling_case(tools: PhaseTools, runs: list[dict]) -> dict | None:
    """The first documented run that reads an artifact data file with siblings of the same kind (same folder, same
    suffix, not written by a run): the run, the argument's position, the input and its smallest sibling."""
    files = tools.list_files()
    known = set(files)
    written = {f for r in runs for f in (r.get("files_created") or []) + (r.get("files_modified") or [])}
    for run in runs:
        try:
            words = sh.split(run.get("script") or "")
        except ValueError:
            continue
        base = "" if run.get("cwd", ".") in ("", ".") else run["cwd"].rstrip("/") + "/"
        for i, word in enumerate(words[1:], 1):
            rel = f"{base}{word}".removeprefix("./")
            path = PurePosixPath(rel)
            if rel not in known or not path.suffix or path.suffix.lower() in CODE or rel in written:
                continue
            others = [f for f in files if f != rel and f not in written and PurePosixPath(f).parent == path.parent
                      and PurePosixPath(f).suffix == path.suffix and f not in words]
            others = [f for f in others if _size(tools, f) <= MAX_BYTES]
            if others:
                sibling = min(others, key=lambda f: (_size(tools, f), f))
                return {"run": run, "index": i, "input": rel, "sibling": sibling, "count": len(others)}
    return None


__all__ = ["sibling_case"]
