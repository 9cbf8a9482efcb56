"""Evidence store: append-only, content-hashed, atomic, tamper-evident; working memory kept apart."""
from __future__ import annotations

import hashlib
import json

import pytest

from artifactcopilot.errors import EvidenceError, UsageError
from artifactcopilot.evidence import EvidenceStore, RunDirTampered
from artifactcopilot.models import Intervention, InterventionLevel, PhasePacket


def test_evidence_is_hashed_and_verified(tmp_path):
    store = EvidenceStore(tmp_path)
    ev = store.add("D3", "command", "run.log", "hello\n")
    assert store.verify(ev.id) is None
    (tmp_path / ev.path).write_text("tampered\n")
    assert "hash mismatch" in store.verify(ev.id)
    assert "does not exist" in store.verify("D9-999-nope")


def test_index_survives_reopen_and_a_torn_line_is_a_problem(tmp_path):
    store = EvidenceStore(tmp_path)
    ids = [store.add("gate", "note", f"n{i}.txt", f"{i}").id for i in range(3)]
    with open(tmp_path / "evidence" / "index.jsonl", "a") as fh:
        fh.write('{"id": "torn')
    again = EvidenceStore(tmp_path)  # opening never raises
    assert [e.id for e in again.all()] == ids
    assert again.verify_run() == ["evidence/index.jsonl line 4 does not parse"]


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


# ---- tamper evidence ---------------------------------------------------------------------------------


def committed_run(root) -> EvidenceStore:
    """A run with the gate and D1 committed and D2 in flight."""
    store = EvidenceStore(root)
    store.init_run("paper.md", "artifact", resume=False)
    gate = [store.add("gate", "listing", "files.txt", "README.md\n").id,
            store.add("gate", "readme", "README.md", "# x\n").id]
    store.commit_packet(PhasePacket(phase="gate", gate={"GC1": True, "GC2": True, "GC3": True}, evidence=gate))
    d1 = store.add("D1", "analysis", "docs.json", "{}").id
    store.commit_packet(PhasePacket(phase="D1", summary="documented", evidence=[d1]))
    store.add("D2", "command", "pip-install.log", "Successfully installed\n")
    return store


def problems_after(tmp_path, tamper) -> list[str]:
    committed_run(tmp_path)
    tamper(tmp_path)
    return EvidenceStore(tmp_path).verify_run()


def _append(path, text: str) -> None:
    with open(path, "a") as fh:
        fh.write(text)


def _edit(path, old: str, new: str) -> None:
    path.write_text(path.read_text().replace(old, new))


def test_commit_line_pins_packet_and_every_evidence_file_of_the_phase(tmp_path):
    store = committed_run(tmp_path)
    lines = [json.loads(line) for line in (tmp_path / "commits.jsonl").read_text().splitlines()]
    assert [(c["phase"], c["index_len"], sorted(c["files"])) for c in lines] == [
        ("gate", 2, ["evidence/gate-001-listing-files.txt", "evidence/gate-002-readme-README.md"]),
        ("D1", 3, ["evidence/D1-003-analysis-docs.json"])]
    assert lines[0]["files"]["evidence/gate-001-listing-files.txt"] == store.get("gate-001-listing").sha256
    assert store.verify_run() == [] and EvidenceStore(tmp_path).verify_run() == []
    assert store.committed_phases() == ["gate", "D1"] and list(store.packets()) == ["D1", "gate"]


@pytest.mark.parametrize("tamper, problem", [
    (lambda run: _edit(run / "packets" / "D1.json", "documented", "excellent"),
     "packets/D1.json was changed after it was committed (hash mismatch)"),
    (lambda run: _edit(run / "evidence" / "gate-001-listing-files.txt", "README", "RUNME"),
     "evidence file evidence/gate-001-listing-files.txt was changed after it was recorded (hash mismatch)"),
    (lambda run: (run / "packets" / "D3.json").write_text(PhasePacket(phase="D3", summary="good").model_dump_json()),
     "packets/D3.json is not a committed packet"),
    (lambda run: (run / "packets" / "D2.json").write_text("\x00 not json"),
     "packets/D2.json is not a committed packet"),
    (lambda run: (run / "packets" / "notes.txt").write_text("x"), "packets/notes.txt is not a committed packet"),
    (lambda run: (run / "evidence" / "D3-009-command-run.log").write_text("accuracy 0.99\n"),
     "evidence/D3-009-command-run.log is not a recorded evidence file"),
    (lambda run: (run / "evidence" / "sub").mkdir(), "evidence/sub is not a recorded evidence file"),
    (lambda run: (run / "packets" / "D1.json").unlink(), "packets/D1.json is missing although it was committed"),
    (lambda run: (run / "evidence" / "gate-002-readme-README.md").unlink(),
     "evidence file evidence/gate-002-readme-README.md is missing"),
    (lambda run: _append(run / "evidence" / "index.jsonl", '{"id": "D2-0'),
     "evidence/index.jsonl line 5 does not parse"),
    (lambda run: _append(run / "commits.jsonl", "[1, 2]\n"), "commits.jsonl line 3 does not parse"),
    (lambda run: _append(run / "interventions.jsonl", '{"id": "INT-001"}\n'),
     "interventions.jsonl entry 1 is not an intervention"),
])
def test_tampered_run_directory_is_refused(tmp_path, tamper, problem):
    problems = problems_after(tmp_path, tamper)
    assert problems[0] == problem
    with pytest.raises(RunDirTampered) as info:
        EvidenceStore(tmp_path).packets()
    assert info.value.exit_code == 2 and str(info.value).startswith(f"cannot use run directory: {problem}")
    assert str(info.value).endswith("; start a new review in another --out") and "\n" not in str(info.value)


def test_index_and_commit_records_cannot_be_rewritten_to_match(tmp_path):
    def rewrite(run):  # change a committed evidence file and its index record together
        _edit(run / "evidence" / "D1-003-analysis-docs.json", "{}", '{"ok": 1}')
        digest = hashlib.sha256(b'{"ok": 1}').hexdigest()
        _edit(run / "evidence" / "index.jsonl", EvidenceStore(run).get("D1-003-analysis").sha256, digest)
    assert problems_after(tmp_path, rewrite) == [
        "evidence/index.jsonl changed the hash of evidence/D1-003-analysis-docs.json after D1 was committed"]


def test_evidence_added_to_a_committed_phase_or_outside_the_folder_is_refused(tmp_path):
    store = committed_run(tmp_path)
    record = store.get("D1-003-analysis").model_dump(mode="json")
    late = {**record, "id": "D1-009-analysis", "path": "evidence/D1-009-analysis-x.json"}
    (tmp_path / late["path"]).write_text("{}")
    outside = {**record, "id": "D2-010-x", "path": "evidence/../run.json"}
    with open(tmp_path / "evidence" / "index.jsonl", "a") as fh:
        fh.write(json.dumps(late) + "\n" + json.dumps(outside) + "\n")
    problems = EvidenceStore(tmp_path).verify_run()
    assert problems == ["evidence/index.jsonl record D2-010-x points outside the evidence folder",
                        "evidence/D1-009-analysis-x.json was added to phase D1 after it was committed"]


def test_live_store_notices_lines_it_did_not_write(tmp_path):
    store = committed_run(tmp_path)
    line = json.loads((tmp_path / "commits.jsonl").read_text().splitlines()[-1])
    packet = PhasePacket(phase="D2", summary="forged")
    (tmp_path / "packets" / "D2.json").write_text(packet.model_dump_json(indent=2))
    digest = hashlib.sha256((tmp_path / "packets" / "D2.json").read_bytes()).hexdigest()
    forged = {**line, "phase": "D2", "sha256": digest}
    with open(tmp_path / "commits.jsonl", "a") as fh:
        fh.write(json.dumps(forged) + "\n")
    assert store.verify_run()[0] == "commits.jsonl was changed outside this review"
    with pytest.raises(RunDirTampered):
        store.commit_packet(PhasePacket(phase="D2", summary="real"))


def test_a_packet_planted_before_its_phase_commits_is_refused_not_used(tmp_path):
    store = committed_run(tmp_path)
    (tmp_path / "packets" / "D2.json").write_text(PhasePacket(phase="D2", summary="planted").model_dump_json(indent=2))
    with pytest.raises(RunDirTampered, match="packets/D2.json is not a committed packet"):
        store.packets()
    with pytest.raises(RunDirTampered, match="packets/D2.json is not a committed packet"):
        store.commit_packet(PhasePacket(phase="D2", summary="planted"))  # even with the same content
    assert "D2" not in store.committed_phases()
    assert [json.loads(c)["phase"] for c in (tmp_path / "commits.jsonl").read_text().splitlines()] == ["gate", "D1"]


def test_commit_replay_is_idempotent_and_a_cut_short_commit_completes(tmp_path):
    store = committed_run(tmp_path)
    packet = PhasePacket(phase="D2", summary="installed", evidence=["D2-004-command"])
    store.commit_packet(packet)
    store.commit_packet(packet)  # a resumed run replaying the commit step
    assert len((tmp_path / "commits.jsonl").read_text().splitlines()) == 3
    (tmp_path / "packets" / "D2.json").unlink()  # a crash between the commit line and the packet file
    again = EvidenceStore(tmp_path)
    assert again.verify_run() == [] and again.committed_phases() == ["gate", "D1"]
    again.commit_packet(packet)
    assert again.committed_phases() == ["gate", "D1", "D2"] and again.verify_run() == []
    assert len((tmp_path / "commits.jsonl").read_text().splitlines()) == 3


def test_resume_after_a_crash_between_index_line_and_file(tmp_path):
    store = committed_run(tmp_path)
    ev = store.add("D2", "command", "run.log", "partial")
    (tmp_path / ev.path).unlink()  # the file of the last record never landed
    (tmp_path / "evidence" / ".D2-006-x.log.abc123.tmp").write_text("half")  # nor its temp file was removed
    again = EvidenceStore(tmp_path)
    assert again.verify_run() == []
    assert again.discard_uncommitted() == ["D2-004-command", ev.id]
    assert again.verify_run() == [] and [e.phase for e in again.all()] == ["gate", "gate", "D1"]
    assert "evidence/index.jsonl lost the record of D2-004-command" in store.verify_run()  # the old store notices


def test_symlinked_packet_and_corrupt_run_json_are_refused(tmp_path):
    store = committed_run(tmp_path)
    target = tmp_path / "packets" / "D1.json"
    copy = tmp_path / "D1-copy.json"
    copy.write_bytes(target.read_bytes())
    target.unlink()
    target.symlink_to(copy)
    assert store.verify_run() == ["packets/D1.json is not a regular file"]
    (tmp_path / "run.json").write_text("{not json")
    with pytest.raises(RunDirTampered, match="run.json does not parse"):
        EvidenceStore(tmp_path).init_run("paper.md", "artifact", resume=True)
    other = tmp_path / "other"
    other.mkdir()
    (other / "packets").write_text("not a folder")
    with pytest.raises(RunDirTampered, match="packets is not a folder"):
        EvidenceStore(other)


def test_load_verified(tmp_path):
    committed_run(tmp_path)
    assert EvidenceStore.load_verified(tmp_path).committed_phases() == ["gate", "D1"]
    (tmp_path / "packets" / "D4.json").write_text("{}")
    (tmp_path / "evidence" / "extra.txt").write_text("x")
    with pytest.raises(RunDirTampered, match=r"packets/D4.json is not a committed packet \(and 1 more problem\)"):
        EvidenceStore.load_verified(tmp_path)


@pytest.mark.slow
def test_review_refuses_a_packet_written_into_the_run_directory_before_its_phase_commits(tmp_path, review):
    """What an artifact that can reach the run directory would do: plant D3's packet while D2 runs."""
    from pathlib import Path

    from artifactcopilot.agents.heuristic import HeuristicAgent
    from artifactcopilot.sandbox.base import Limits
    from artifactcopilot.sandbox.local import LocalSandbox

    example = Path(__file__).resolve().parent.parent / "examples" / "wordfreq"
    planted = PhasePacket(phase="D3", summary="every claim reproduced").model_dump_json(indent=2)

    class Planting(HeuristicAgent):
        def run(self, skill, context, tools):
            if context.phase == "D2":
                (tools.store.packets_dir / "D3.json").write_text(planted)
            return super().run(skill, context, tools)

    sandbox = LocalSandbox(tmp_path / "scratch", Limits(timeout_s=60))
    with pytest.raises(RunDirTampered, match="packets/D3.json is not a committed packet") as info:
        review(example / "paper.md", example / "artifact", agent=Planting(), sandbox=sandbox)
    assert info.value.exit_code == 2
    store = EvidenceStore(tmp_path / "run")
    assert store.committed_phases() == ["gate", "D1"] and not (tmp_path / "run" / "report.json").exists()
