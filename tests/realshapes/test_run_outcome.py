"""Exit 0 is not success: a run is valid only when its output and the files it wrote show the work was done."""
from __future__ import annotations

from artifactcopilot.sandbox.outcome import RunOutcome, judge, progress_of, result_file_problem
from artifactcopilot.verifier.runs import ArtifactFiles, RunView

from .shapes import write_artifact, write_paper

PER_ITEM = "\n".join(f"Evaluating project p{i}\n[Errno 2] No such file or directory: '/tmp/ls-{i}.sock'\n"
                     "Warnings produced" for i in range(8))


def test_exit_0_with_a_failure_for_every_item_is_invalid_and_says_how_many():
    outcome = judge(0, False, PER_ITEM, "")
    assert outcome.verdict == "invalid" and (outcome.failed_items, outcome.items) == (8, 8)
    assert "8 of 8 items failed" in outcome.line(0) and "No such file or directory" in outcome.line(0)


def test_a_failure_for_a_minority_of_items_is_partially_valid_with_the_share_stated():
    lines = [f"project p{i}: 3 errors, precision 0.{i + 1}" for i in range(9)] + ["project p9: error: cannot parse"]
    outcome = judge(0, False, "\n".join(lines), "")
    assert outcome.valid and outcome.verdict == "partial"
    assert "1 of 10 items failed" in outcome.line(0)


def test_a_program_the_shell_could_not_find_makes_an_exit_0_run_invalid_and_is_named():
    for text in ("bash: line 3: tmux: command not found\nstarted", "sh: 1: tmux: not found\nstarted",
                 "which: no tmux in (/usr/bin:/bin)\nstarted"):
        outcome = judge(0, False, text, "")
        assert outcome.verdict == "invalid" and outcome.missing_program == "tmux", text


def test_usage_text_empty_output_and_tracebacks_are_not_runs():
    assert judge(0, False, "usage: eval.py [-h] --input FILE\neval.py: error: required", "").verdict == "invalid"
    assert judge(0, False, "", "").verdict == "invalid"
    tb = 'Traceback (most recent call last):\n  File "x.py", line 3\nKeyError: 1\n'
    assert judge(0, False, "loading\n", tb).verdict == "invalid"


def test_result_files_that_are_empty_nan_or_all_zero_show_no_result():
    assert result_file_problem("r.csv", "") == "r.csv is empty"
    assert "NaN" in (result_file_problem("r.csv", "a,b\nnan,nan\nnan,nan\n") or "")
    assert "zero" in (result_file_problem("r.csv", "a,b\n0,0\n0.0,0\n") or "")
    assert result_file_problem("r.csv", "a,b\n0,1\n0.5,0\n") is None
    assert judge(0, False, "done", "", {"out/r.csv": "x,y\n0,0\n0,0\n"}, True).verdict == "invalid"
    assert judge(0, False, "done", "", {"out/r.csv": "x,y\n0.3,1\n2,0\n"}, True).verdict == "valid"


def test_library_warnings_and_zero_failure_summaries_are_not_failures():
    assert judge(0, False, "12 passed, 0 failed in 3.1s", "").verdict == "valid"
    tf = "\n".join(["2024-01-02 10:00:01.5: W tf/stream.cc:1] Could not load dynamic library 'libcudart.so.11'; "
                    "dlerror: No such file or directory"] * 3 + [f"2024-01-02 10:00:0{i}.5: I tf/x.cc:2] epoch {i} "
                                                                  f"accuracy 0.9{i}" for i in range(5)])
    assert judge(0, False, "accuracy 0.93", tf).valid
    table = "| Project | Failed builds | Test (%) |\n|---|---|---|\n| flask | 12 | 40.0 |\n| django | 7 | 31.5 |"
    assert judge(0, False, table, "").verdict == "valid"
    metrics = "Test error: 0.12\nMean squared error = 3.4\nfailure rate: 0.05\nError rate 4%"
    assert judge(0, False, metrics, "").verdict == "valid"
    noise = "/x/y.py:3: FutureWarning: the default failed to change\n  warnings.warn(msg)\n"
    assert judge(0, False, "accuracy 0.93 0.91 0.88", noise).verdict == "valid"


def test_a_run_cut_by_its_budget_with_progress_is_started_not_failed():
    days = "\n".join(f"Day:{d} infected={d * 3}" for d in range(1, 343))
    outcome = judge(None, True, days, "")
    assert outcome.verdict == "cut" and outcome.started and outcome.progress == "Day 342"
    assert outcome.line() == "started, cut at Day 342 by the time limit"
    assert progress_of("trial 12/40 done") == "12 of 40"
    assert judge(None, True, "", "").verdict == "timed_out"


def test_the_log_header_carries_the_judgement_to_the_verifier():
    outcome = judge(0, False, PER_ITEM, "")
    back = RunOutcome.from_header(outcome.header())
    assert back is not None and back.verdict == "invalid" and back.reasons == outcome.reasons


def test_a_run_whose_output_shows_failure_grounds_no_claim(tmp_path):
    from artifactcopilot.evidence import EvidenceStore
    from artifactcopilot.models import CommandRecord
    from artifactcopilot.sandbox.commandlog import format_log, parse_log

    rec = CommandRecord(cmd="python evaluate.py", exit_code=0, duration_s=1.0, stdout=PER_ITEM)
    store = EvidenceStore(tmp_path / "ev")
    text = format_log("python evaluate.py", rec, PER_ITEM, "", invocation="documented")
    ev = store.add("D3", "command", "evaluate.log", text, "evaluate")
    view = RunView(ev, parse_log(text), "python evaluate.py", ArtifactFiles(["evaluate.py"]))
    assert not view.grounds and "work was not done" in view.why_not()


EVALUATE = """import os
projects = [f"p{i}" for i in range(8)]
for p in projects:
    print(f"Evaluating project {p}")
    try:
        open(f"/tmp/no-language-server-{p}.sock").read()
    except OSError as exc:
        print(exc)
        print("Warnings produced")
"""


def test_a_documented_script_that_exits_0_while_every_item_fails_does_not_pass_d3(tmp_path, review):
    artifact = write_artifact(tmp_path / "artifact", "# Checker\n\nRun the evaluation (Table 1):\n\n"
                              "```\npython3 evaluate.py\n```\n", {"evaluate.py": EVALUATE})
    report, run_dir = review(write_paper(tmp_path / "paper.md"), artifact, timeout=60, sandbox_name="local")
    d3 = report.dimensions["D3"]
    assert d3.score not in ("A", "WA")
    rw3 = next(i for i in d3.checklist if i.item == "RW3")
    assert rw3.status != "satisfied" and "8 of 8 items failed" in rw3.note
    shown = (run_dir / "report.md").read_text(encoding="utf-8")
    assert "8 of 8 items failed" in shown  # the command's report line says why exit 0 was not success
