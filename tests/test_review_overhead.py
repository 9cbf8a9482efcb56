"""What keeps the review's own cost down without loosening its guarantees: evidence made durable by group commit
(before the commit line that vouches for it), and the sandbox session started in the background once the artifact
is here (taken by the first command, closed if nothing took it, its error raised where it is needed)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from artifactcopilot import fileio
from artifactcopilot.acquire.paper import load_paper
from artifactcopilot.evidence import EvidenceStore
from artifactcopilot.models import PhasePacket
from artifactcopilot.sandbox import bwrap
from artifactcopilot.sandbox.base import Limits
from artifactcopilot.sandbox.local import LocalSandbox
from artifactcopilot.tools import ReviewContext
from artifactcopilot.tools.running import ensure_session

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "wordfreq"


@pytest.fixture
def synced(monkeypatch):
    """Every fsync, in order, as the path it was on (and each line appended to commits.jsonl as 'COMMIT')."""
    events: list[str] = []
    real_fsync, real_append = os.fsync, fileio.append_line

    def fsync(fd: int) -> None:
        events.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    def append_line(path: Path, record: dict, sync: bool = True) -> None:
        if path.name == "commits.jsonl":
            events.append("COMMIT")
        real_append(path, record, sync)

    monkeypatch.setattr(fileio.os, "fsync", fsync)
    monkeypatch.setattr("artifactcopilot.evidence.append_line", append_line)
    return events


def test_evidence_is_durable_before_the_commit_line_and_not_fsynced_one_by_one(tmp_path, synced):
    store = EvidenceStore(tmp_path)
    evidence = [store.add("D1", "note", f"n{i}.txt", f"note {i}\n") for i in range(3)]
    assert synced == []  # nothing fsynced while the phase works
    store.commit_packet(PhasePacket(phase="D1", summary="done", evidence=[e.id for e in evidence]))
    commit = synced.index("COMMIT")
    before = synced[:commit]
    for ev in evidence:
        assert before.count(str(tmp_path / ev.path)) == 1
    assert str(tmp_path / "evidence" / "index.jsonl") in before
    assert str(tmp_path / "evidence") in before  # the folder holding the new names
    after = synced[commit:]  # the commit line itself, then the packet file (written via a temp file) and its folder
    assert after[1] == str(tmp_path / "commits.jsonl") and str(tmp_path / "packets") in after
    assert EvidenceStore.load_verified(tmp_path).packets()["D1"].evidence == [e.id for e in evidence]


def test_sync_files_skips_a_file_moved_away(tmp_path, synced):
    kept, gone = tmp_path / "kept.txt", tmp_path / "gone.txt"
    for path in (kept, gone):
        fileio.atomic_write(path, "x", sync=False)
    gone.unlink()
    fileio.sync_files([kept, gone])
    assert synced == [str(kept), str(tmp_path)]


class _Refusing:
    name, capabilities = "refusing", frozenset()

    def start(self, workdir: Path):
        raise RuntimeError("engine went away")


def _context(tmp_path: Path, sandbox) -> ReviewContext:
    ctx = ReviewContext(store=EvidenceStore(tmp_path / "run"), paper=load_paper(EXAMPLE / "paper.md"),
                        source=str(EXAMPLE / "artifact"), sandbox=sandbox)
    assert ctx.acquire().ok
    return ctx


def test_a_session_that_failed_to_start_in_the_background_fails_where_it_is_needed(tmp_path):
    ctx = _context(tmp_path, _Refusing())
    ctx.prestart()
    with pytest.raises(RuntimeError, match="engine went away"):
        ensure_session(ctx, "D2")
    ctx.close()


@pytest.mark.skipif(bwrap.probe() is not None, reason=f"no local sandbox here: {bwrap.probe()}")
def test_a_session_started_in_the_background_is_taken_once_or_closed(tmp_path):
    sandbox = LocalSandbox(tmp_path / "scratch", Limits(timeout_s=30))
    try:
        ctx = _context(tmp_path, sandbox)
        ctx.prestart()
        ctx.prestart()  # once per review
        session = ensure_session(ctx, "D2")
        assert session.run("test -f wordfreq.py").record.exit_code == 0
        assert ensure_session(ctx, "D3") is session
        ctx.close()
        assert not any((tmp_path / "scratch").glob("artifact-*"))

        unused = _context(tmp_path / "second", sandbox)
        unused.prestart()
        unused.close()  # never taken: waited for and closed, its copy removed
        assert unused.session is None
        assert not any((tmp_path / "scratch").glob("artifact-*"))
    finally:
        sandbox.close()
