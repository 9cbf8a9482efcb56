"""'Not established', in words: what was tried, what blocked it and what a reviewer with the resources would do,
read from the command logs a dimension's unmet items cite; and a confidence that reflects what ran."""
from __future__ import annotations

import json

import pytest
from report_trees import all_dimensions, command_log, dimension, report

from artifactcopilot.models import ChecklistItem, EvidenceLevel, PhasePacket, Score
from artifactcopilot.report.confidence import assess
from artifactcopilot.report.unestablished import find_cause, not_established_words
from artifactcopilot.rubric import default_rubric
from artifactcopilot.sandbox.commandlog import parse_log

CASES = [
    ("python3 train.py", 1, "AssertionError: Torch not compiled with CUDA enabled", False, "gpu", "CUDA GPU"),
    ("bash eval.sh", 127, "eval.sh: line 3: tmux: command not found", False, "program", "install tmux"),
    ("python3 fetch.py", 1, "urllib.error.URLError: <urlopen error [Errno -3] Temporary failure in name "
     "resolution>", False, "network", "network access"),
    ("python3 run.py", 1, "ModuleNotFoundError: No module named 'torch_geometric'", False, "module",
     "provides torch_geometric"),
    ("python3 run.py", 1, "FileNotFoundError: [Errno 2] No such file or directory: 'data/train.pkl'", False,
     "missing-file", "obtain data/train.pkl"),
    ("pip install -r requirements.txt", 1, "ERROR: No matching distribution found for tensorflow==1.15", False,
     "interpreter", "interpreter the pins"),
    ("python3 solve.py", 1, "gurobipy._exception.GurobiError: License expired 2026-11-23", False, "restricted",
     "holding that licence"),
    ("python3 list.py", 1, "FileNotFoundError: [Errno 2] No such file or directory: '/Bench/text/urls.txt'", False,
     "absolute-path", "where that path exists"),
    ("python3 x.py", 2, "python3: can't open file '/artifact/src/x.py': [Errno 2] No such file or directory", False,
     "missing-file", "obtain src/x.py"),
    ("mkdir -p .copilot/notebooks && /opt/copilot/venv/bin/python - analysis.ipynb .copilot/notebooks/analysis.ipynb "
     ". <<'PY'", 1, "\x1b[31mModuleNotFoundError\x1b[39m: No module named 'matplotlib'", False, "module",
     "provides matplotlib"),
    ("pip install -r requirements.txt", 1, "Collecting numpy==1.16.5\n  Preparing metadata (pyproject.toml): finished "
     "with status 'error'\nNameError: name 'CCompiler' is not defined\nerror: metadata-generation-failed", False,
     "build", "prebuilt wheel of numpy==1.16.5"),
    ("python3 simulate.py", None, "Day:342", True, "time", "more time"),
]


@pytest.mark.parametrize(("cmd", "code", "stderr", "cut", "cause", "next_words"), CASES)
def test_the_cause_is_read_from_the_failing_output(cmd, code, stderr, cut, cause, next_words):
    log = parse_log(command_log(cmd, code, stderr=stderr, timed_out=cut))
    found = find_cause([("D3-004-command", log)])
    assert found is not None and found.code == cause
    assert next_words in found.next or next_words in found.blocked


def _packet(dim: str, score: str, items: list[ChecklistItem], level: str = "E2") -> PhasePacket:
    return PhasePacket(phase=dim, score=Score(score), checklist=items, evidence=[e for c in items for e in c.evidence],
                       evidence_level=EvidenceLevel(level))


def test_dimensions_below_wa_get_sentences_not_item_ids():
    logs = {"D3-004-command": command_log("python3 run.py", 1, stderr="Traceback (most recent call last):\n"
                                          "FileNotFoundError: [Errno 2] No such file or directory: 'data/x.csv'"),
            "D3-006-command": command_log("python3 run.py", 1, stderr="FileNotFoundError: 'data/x.csv'")}
    violated = [ChecklistItem(item=i, status="violated", evidence=list(logs), note="exit 1") for i in ("RW3", "RW4")]
    packets = {"D1": _packet("D1", "WA", []), "D2": _packet("D2", "WA", []),
               "D3": _packet("D3", "WR", violated),
               "D4": _packet("D4", "R", [ChecklistItem(item="D4.executed", status="violated", evidence=[])], "E0"),
               "D5": _packet("D5", "R", [ChecklistItem(item="D5.functional_base", status="violated", evidence=[])])}
    words = not_established_words(packets, default_rubric(), logs.get)
    d3 = next(w for w in words if w.startswith("D3"))
    assert "ran “python3 run.py” 2 times (exit 1)" in d3
    assert "Blocked: a file it needs (data/x.csv) is not in the repository" in d3
    assert "would obtain data/x.csv" in d3
    d4 = next(w for w in words if w.startswith("D4"))
    assert "without a valid run of the workflow (D3)" in d4 and "data/x.csv" in d4
    assert not any("RW3" in w or "D4.executed" in w for w in words)


def test_documented_commands_that_were_not_run_say_why():
    selection = json.dumps({"attempts": [], "skipped": [
        {"cmd": "python main.py project_folder 8", "why": "not runnable: no concrete value for project_folder in the "
         "docs or the artifact"}]})
    item = ChecklistItem(item="RW3", status="violated", evidence=["D3-011-selection"], note="nothing could be run")
    packets = {"D3": _packet("D3", "R", [item], "E0")}
    words = not_established_words(packets, default_rubric(), {"D3-011-selection": selection}.get)
    d3 = next(w for w in words if w.startswith("D3"))
    assert "found “python main.py project_folder 8” (not run: no concrete value for project_folder" in d3
    assert "placeholder (project_folder)" in d3 and "choose a value of the documented form for project_folder" in d3


def test_a_review_whose_workflow_did_not_run_is_no_more_confident_than_its_gate(tmp_path):
    gate_only = assess(report([], gate={"GC1": dimension_gate(False)}), tmp_path).value
    dims = all_dimensions("WA", "E2", D3=dimension("WR", [], "E2"))
    conf = assess(report([], dimensions=dims, level="E2"), tmp_path)
    assert conf.value <= gate_only
    assert "nothing-ran" in {f.code for f in conf.factors}
    ran = assess(report([], dimensions=all_dimensions("WA", "E2"), level="E2"), tmp_path)
    assert ran.value > gate_only and "nothing-ran" not in {f.code for f in ran.factors}


def dimension_gate(passed: bool):
    from artifactcopilot.models import GateResult

    return GateResult(passed=passed)


def test_a_file_the_repository_has_elsewhere_is_looked_up_in_the_wrong_place_not_missing():
    text = {"gate-001-acquisition": json.dumps({"files": ["README.md", "ipp/constants.py", "run.sh"]}),
            "D3-009-command": command_log("bash run.sh", 2, stderr="run.sh: line 8: ipp/constants.py: No such file or "
                                          "directory").replace("# cwd: .", "# cwd: scripts")}
    gate = PhasePacket(phase="gate", evidence=["gate-001-acquisition"], gate={"GC1": True, "GC2": True, "GC3": True})
    item = ChecklistItem(item="RW3", status="violated", evidence=["D3-009-command"], note="exit 2")
    words = not_established_words({"gate": gate, "D3": _packet("D3", "WR", [item])}, default_rubric(), text.get)
    d3 = next(w for w in words if w.startswith("D3"))
    assert "looked up in the wrong place: the repository has ipp/constants.py, and the command ran in scripts" in d3
    assert "not in the repository" not in d3
