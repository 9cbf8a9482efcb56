"""The verifier's rule stage: which runs ground a claim that the workflow ran, matched or transferred,
and what the checker commits when a packet is still disputed on its last attempt."""

from __future__ import annotations

import pytest

from artifactcopilot.evidence import EvidenceStore
from artifactcopilot.models import ChecklistItem, CommandRecord, EvidenceLevel, PhasePacket, Score
from artifactcopilot.rubric import default_rubric
from artifactcopilot.sandbox.commandlog import format_log
from artifactcopilot.verifier import claims_above, disputed_in, ground, grounding_problems, tool_facts
from artifactcopilot.verifier.checker import PacketChecker
from artifactcopilot.verifier.runs import ArtifactFiles, is_display, runs_artifact_code

RUBRIC = default_rubric()
FILES = ArtifactFiles(
    [
        "README.md",
        "run.py",
        "src/fastsum/__init__.py",
        "src/fastsum/cli.py",
        "scripts/all.sh",
        "results/table2.md",
        "Makefile",
        "notebooks/table2.ipynb",
    ]
)
TABLE = "| n | fastsum |\n|---|---|\n| 1000 | 412.5 |"


@pytest.mark.parametrize(
    "script",
    [
        "python3 run.py",
        "cd src && python -m fastsum.cli --n 1000",
        "bash scripts/all.sh",
        "./scripts/all.sh",
        "make all",
        "uv run python run.py",
        "FAST=1 timeout 600 python3 run.py > out.txt 2>&1",
        "python -c 'import fastsum; fastsum.main()'",
        "jupyter nbconvert --to notebook --execute notebooks/table2.ipynb",
        "fastsum-bench --n 1000",
        "bash -c 'python3 run.py'",
        "cd scripts && find . -name '*.sh' -exec bash {} \\;",
        "npm test",
    ],
)
def test_commands_that_run_the_artifacts_own_code(script):
    assert runs_artifact_code(script, FILES)


@pytest.mark.parametrize(
    "script",
    [
        "echo ok",
        f"printf '{TABLE}\\n'",
        "true",
        "cat results/table2.md",
        "python3 -c \"print('| 1000 | 412.5 |')\"",
        "python3 --version",
        "pip install -r requirements.txt",
        "python -m pip install -e .",
        "make --version",
        "echo done &> run.py",
        f"cat > t.md <<EOF\n{TABLE}\nEOF",
        "bash -c 'cat results/table2.md'",
        "sed -i s/a/b/ run.py",
        "uv pip check",
        "poetry install",
        "npm install",
        "find results -name '*.md'",
    ],
)
def test_commands_that_only_display_or_prepare(script):
    assert not runs_artifact_code(script, FILES)


def test_output_that_repeats_the_command_is_display():
    assert is_display("| 1000 | 412.5 |", "python3 run.py --show '| 1000 | 412.5 |'", wrote_files=False)
    assert is_display("n=1000 t=412.5", "python3 run.py --n 1000 --expect 412.5", wrote_files=False)
    assert not is_display("| 1000 | 409.8 |", "python3 run.py --n 1000", wrote_files=False)
    assert not is_display("", "python3 run.py", wrote_files=False)
    assert not is_display("wrote 1000 rows", "python3 run.py --n 1000", wrote_files=True)  # its output is in files


# ---- a run directory with tool-written evidence ------------------------------------------------
@pytest.fixture
def store(tmp_path):
    store = EvidenceStore(tmp_path / "run")
    store.add_json("gate", "acquisition", "acquisition", {"file_count": 8, "files": sorted(FILES.files), "error": None})
    return store


def run(
    store: EvidenceStore,
    script: str,
    stdout: str = "",
    invocation: str = "documented",
    exit_code: int = 0,
    kind: str = "command",
    phase: str = "D3",
    created: list[str] | None = None,
) -> str:
    rec = CommandRecord(cmd=script, exit_code=exit_code, duration_s=0.1, files_created=created or [])
    return store.add(phase, kind, "run.log", format_log(script, rec, stdout, "", invocation=invocation)).id


def compare(store: EvidenceStore, source: str, success: bool = True, method: str = "full", **extra) -> str:
    record = {
        "method": method,
        "method_accepted": method not in ("copy", "undetermined"),
        **extra,
        "table": "Table 2",
        "source": source,
        "source_kind": "run-output",
        "matched": 4 if success else 1,
        "total": 4,
        "success": success,
        "cells": [],
    }
    return store.add_json("D4", "comparison", "compare-Table-2", record).id


def d3(store: EvidenceStore, runs: list[str], score: Score = Score.A) -> PhasePacket:
    sel = store.add("D3", "selection", "sel.txt", "python3 run.py").id
    items = [ChecklistItem(item=i, status="satisfied", evidence=[sel]) for i in ("RW1", "RW2", "RW4", "RW5")]
    items += [
        ChecklistItem(item="RW3", status="satisfied", evidence=runs[:1]),
        ChecklistItem(item="D3.stable", status="satisfied", evidence=runs),
    ]
    return PhasePacket(phase="D3", score=score, checklist=items, evidence=[sel, *runs], evidence_level=EvidenceLevel.E2)


def test_two_documented_runs_of_the_artifact_ground_d3(store):
    runs = [run(store, "python3 run.py", "| 1000 | 409.8 |") for _ in range(2)]
    assert grounding_problems(d3(store, runs), store, RUBRIC) == []


@pytest.mark.parametrize(
    ("script", "stdout", "invocation", "why"),
    [
        ("echo ok", "ok", "undocumented", "echo"),
        (f"printf '{TABLE}\\n'", TABLE, "undocumented", "printf of the paper table"),
        ("true", "", "probe", "probe true"),
        ("cat results/table2.md", TABLE, "documented", "documented cat of checked-in results"),
        ("python3 run.py", "| 1000 | 409.8 |", "undocumented", "an undocumented command"),
        ("python3 run.py", "Traceback ...", "documented", "exit 1"),
    ],
)
def test_trivial_or_undocumented_runs_ground_nothing(store, script, stdout, invocation, why):
    runs = [run(store, script, stdout, invocation, exit_code=1 if "Traceback" in stdout else 0) for _ in range(2)]
    packet = d3(store, runs)
    problems = grounding_problems(packet, store, RUBRIC)
    assert any(p.startswith("grounding: RW3 ") for p in problems), why
    assert any(p.startswith("grounding: D3.stable ") for p in problems), why
    grounded = ground(packet, store, RUBRIC)
    assert grounded.item("RW3").status == "violated" and grounded.item("RW3").note.startswith("withdrawn: ")
    assert grounded.score.rank <= Score.WR.rank and grounded.evidence_level == EvidenceLevel.E1


def test_a_match_counts_only_on_the_output_of_a_grounding_run(store):
    good = run(store, "python3 run.py", TABLE, created=["out/table2.md"])
    shown = run(store, f"printf '{TABLE}\\n'", TABLE, "undocumented")
    for source, reproduced in ((good, True), ("out/table2.md", True), (shown, False), ("results/table2.md", False)):
        comp = compare(store, source)
        items = [ChecklistItem(item="D4.main_result", status="satisfied", evidence=[comp])]
        packet = PhasePacket(
            phase="D4",
            score=Score.WR,
            checklist=items,
            evidence=[comp],
            evidence_level=EvidenceLevel.E3,
            facts={"table_reproduced": True, "copied_results": True},
        )
        assert (grounding_problems(packet, store, RUBRIC) == []) is reproduced, source
        # not the model's to set: reproduced only with a grounded comparison, copied only with a tool verdict
        assert tool_facts(packet, store, RUBRIC) == {"table_reproduced": reproduced, "copied_results": False}


@pytest.mark.parametrize("method", ["copy", "undetermined"])
def test_a_table_the_method_judge_did_not_accept_is_not_reproduced(store, method):
    good = run(store, "python3 run.py", TABLE)
    extra = {"copied_tables": ["Table 2"]} if method == "copy" else {}
    comp = compare(store, good, method=method, **extra)
    items = [ChecklistItem(item="D4.main_result", status="satisfied", evidence=[comp])]
    packet = PhasePacket(phase="D4", score=Score.WR, checklist=items, evidence=[comp],
                         evidence_level=EvidenceLevel.E3, facts={"table_reproduced": True, "copied_results": False})
    assert any("table_reproduced" in r for r in grounding_problems(packet, store, RUBRIC))
    assert tool_facts(packet, store, RUBRIC) == {"table_reproduced": False, "copied_results": method == "copy"}


def test_transfer_claims_need_documented_transfer_runs(store):
    echo = run(store, "echo transfer ok", "transfer ok", "undocumented", kind="transfer", phase="D5")
    items = [ChecklistItem(item="D5.transfer_validated", status="satisfied", evidence=[echo])]
    packet = PhasePacket(
        phase="D5", score=Score.WA, checklist=items, evidence=[echo], facts={"transfer_validated": True}
    )
    problems = grounding_problems(packet, store, RUBRIC)
    assert any("D5.transfer_validated" in p for p in problems) and any(
        "transfer_validated is claimed" in p for p in problems
    )
    grounded = ground(packet, store, RUBRIC)
    assert grounded.facts["transfer_validated"] is False and grounded.score == Score.R


def test_last_attempt_withdraws_the_items_the_reasons_name_and_caps_the_score(store):
    runs = [run(store, "python3 run.py", "| 1000 | 409.8 |") for _ in range(2)]
    packet = d3(store, runs)
    checker = PacketChecker(store, RUBRIC)
    reasons = ["verifier: D3.stable: the second run printed a different table", "verifier: RW2: only a smoke test"]
    assert set(disputed_in(packet, reasons)) == {"D3.stable", "RW2"}
    down = checker.downgrade(packet, reasons)
    assert down.item("D3.stable").note == "withdrawn: verifier: D3.stable: the second run printed a different table"
    assert down.item("RW2").status == "violated" and down.item("RW3").status == "satisfied"
    assert down.score == Score.WR  # WA needs RW2
    assert down.flags[-1].code == "checker-downgrade" and "D3.stable" in down.flags[-1].message


def test_an_unavailable_verifier_leaves_nothing_above_wr(store):
    runs = [run(store, "python3 run.py", "| 1000 | 409.8 |") for _ in range(2)]
    packet = d3(store, runs)
    assert set(claims_above(packet, RUBRIC)) == {"RW2", "RW3", "D3.stable"}  # WR needs RW1 only
    reasons = [
        f"verifier: {i}: not confirmed: verifier unavailable (no verdict within 5 turns)"
        for i in claims_above(packet, RUBRIC)
    ]
    down = PacketChecker(store, RUBRIC).downgrade(packet, reasons)
    assert down.score == Score.WR and down.item("RW1").status == "satisfied"
    assert down.item("RW3").note.startswith("withdrawn: verifier: RW3: not confirmed: verifier unavailable")
    assert [f.code for f in down.flags] == ["checker-downgrade", "verifier-unavailable"]


def test_a_downgraded_gate_fails_the_checks_it_withdrew(store):
    acq = store.all()[0].id
    items = [ChecklistItem(item=gc, status="satisfied", evidence=[acq]) for gc in ("GC1", "GC2", "GC3")]
    gate = PhasePacket(phase="gate", gate=dict.fromkeys(("GC1", "GC2", "GC3"), True), checklist=items, evidence=[acq])
    down = PacketChecker(store, RUBRIC).downgrade(gate, ["verifier: GC3: the artifact is about something else"])
    assert down.gate == {"GC1": True, "GC2": True, "GC3": False}
