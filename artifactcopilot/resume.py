"""Continuing a review from its run directory: check it, drop the unfinished phase's evidence, say where to go on."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from .evidence import EvidenceStore
from .models import PhasePacket
from .sandbox.reaper import reap
from .sandbox.registry import SCRATCH_PREFIX
from .tools import ReviewContext

ALREADY_COMPLETE = object()
"""prepare_resume's answer when the review had already finished: nothing to run."""


SCRATCH_NOTE = "scratch.txt"
"""working/scratch.txt: where the review's sandbox copies live (outside the run directory), for cleanup on resume."""


def note_scratch(store: EvidenceStore, scratch: Path | None) -> None:
    if scratch is not None:
        (store.working_dir / SCRATCH_NOTE).write_text(str(scratch), encoding="utf-8")


def scratch_of(store: EvidenceStore) -> Path | None:
    note = store.working_dir / SCRATCH_NOTE
    text = note.read_text(encoding="utf-8").strip() if note.is_file() else ""
    return Path(text) if text else None


def clean_previous_scratch(store: EvidenceStore) -> None:
    """Kill what a killed review left running in its sandbox copies and remove them."""
    old = scratch_of(store)
    if old is not None and old.name.startswith(SCRATCH_PREFIX):  # only ever a folder the review made itself
        reap(old)
        shutil.rmtree(old, ignore_errors=True)


def fresh_input(paper: Path | str, artifact: str) -> dict:
    return {"paper": str(paper), "artifact": artifact}


def prepare_resume(graph, config: dict, store: EvidenceStore, ctx: ReviewContext):
    """Check the run directory, drop the unfinished phase's evidence, and return the graph input to continue with."""
    store.check_run()  # RunDirTampered (exit 2) when a file was changed, added or cannot be read
    state = graph.get_state(config)
    if state.values and not state.next and (store.root / "report.json").exists():
        return ALREADY_COMPLETE
    pending = PhasePacket.model_validate(state.values["pending"]) if state.values.get("pending") else None
    keep = set(pending.evidence) | {e for c in pending.checklist for e in c.evidence} if pending else set()
    discarded = store.discard_uncommitted(keep)
    store.log(f"resume: committed {', '.join(store.committed_phases()) or 'nothing'}; "
              f"discarded {len(discarded)} uncommitted evidence files")
    if store.committed_phases():
        ctx.acquire()  # acquire again (cached or local) without new evidence
    # With a checkpoint, invoke(None) continues from it; without one (killed before the first), start over.
    if state.values:
        return None
    meta = json.loads((store.root / "run.json").read_text(encoding="utf-8"))
    return fresh_input(meta["paper"], meta["artifact"])
