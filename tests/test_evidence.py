"""Evidence store: append-only, content-hashed, atomic; working memory kept apart."""
from __future__ import annotations

import json

import pytest

from artifactcopilot.errors import EvidenceError, UsageError
from artifactcopilot.evidence import EvidenceStore
from artifactcopilot.models import Intervention, InterventionLevel, PhasePacket


def test_evidence_is_hashed_and_verified(tmp_path):
    store = EvidenceStore(tmp_path)
    ev = store.add("D3", "command", "run.log", "hello\n")
    assert store.verify(ev.id) is None
    (tmp_path / ev.path).write_text("tampered\n")
    assert "hash mismatch" in store.verify(ev.id)
    assert "does not exist" in store.verify("D9-999-nope")


def test_index_survives_reopen_and_ignores_torn_last_line(tmp_path):
    store = EvidenceStore(tmp_path)
    ids = [store.add("gate", "note", f"n{i}.txt", f"{i}").id for i in range(3)]
    with open(tmp_path / "evidence" / "index.jsonl", "a") as fh:
        fh.write('{"id": "torn')  # a crash mid-append
    again = EvidenceStore(tmp_path)
    assert [e.id for e in again.all()] == ids


def test_committed_packet_is_never_rewritten(tmp_path):
    store = EvidenceStore(tmp_path)
    store.commit_packet(PhasePacket(phase="D1", summary="first"))
    with pytest.raises(EvidenceError, match="refusing to rewrite"):
        store.commit_packet(PhasePacket(phase="D1", summary="second"))
    assert store.packets()["D1"].summary == "first"


def test_intervention_ledger_is_append_only(tmp_path):
    store = EvidenceStore(tmp_path)
    entry = Intervention(id=store.next_intervention_id(), phase="D3", action="python3 scripts/run.py", purpose="path",
                         level=InterventionLevel.I2, rule="path-or-command-fix", anticipated_impact="none")
    store.log_intervention(entry)
    with pytest.raises(EvidenceError):
        store.log_intervention(entry.model_copy(update={"level": InterventionLevel.I0}))
    assert [i.level for i in store.interventions()] == [InterventionLevel.I2]
    assert store.next_intervention_id() == "INT-002"


def test_run_dir_refuses_other_inputs_and_requires_resume(tmp_path):
    store = EvidenceStore(tmp_path)
    meta = store.init_run("paper.md", "art", resume=False)
    with pytest.raises(UsageError, match="already holds a review"):
        store.init_run("paper.md", "art", resume=False)
    with pytest.raises(UsageError, match="not of these inputs"):
        store.init_run("other.md", "art", resume=True)
    assert store.init_run("paper.md", "art", resume=True)["run_id"] == meta["run_id"]
    assert json.loads((tmp_path / "run.json").read_text())["paper"] == "paper.md"


def test_working_memory_is_not_evidence(tmp_path):
    store = EvidenceStore(tmp_path)
    (store.working("D3") / "scratch.txt").write_text("plan")
    assert store.all() == []
