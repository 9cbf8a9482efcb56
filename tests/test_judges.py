"""Output judge and method judge on labelled corpora: accuracy floors, and each verdict a chair relies on.

Corpora: tests/fixtures/tables/pairs.yaml (expected/produced table pairs) for the output judge and
tests/fixtures/repro/scripts.yaml (scripts labelled full / last_mile / copy) for the method judge.
Every script is really run in a fresh local sandbox copy of its artifact.
"""
from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

from artifactcopilot.acquire.paper import load_paper
from artifactcopilot.repro.judges import execute, judge_method, judge_output, judge_submission, static_error
from artifactcopilot.sandbox.base import Limits
from artifactcopilot.sandbox.local import LocalSandbox
from artifactcopilot.tables import parse_tables

FIXTURES = Path(__file__).parent / "fixtures"
REPRO = FIXTURES / "repro"
PAIRS = yaml.safe_load((FIXTURES / "tables" / "pairs.yaml").read_text(encoding="utf-8"))
SCRIPTS = yaml.safe_load((REPRO / "scripts.yaml").read_text(encoding="utf-8"))
FUZZ = REPRO / "fuzzbench"
FUZZ_TABLE = load_paper(FUZZ / "paper.md").tables[0]
LABELS = ("full", "last_mile", "copy", "undetermined")


@pytest.fixture
def sandbox(tmp_path):
    return LocalSandbox(tmp_path / "scratch", Limits(timeout_s=60))


def _parallel(tmp_path: Path, items: list, judge) -> list:
    """judge(item, sandbox) over items on 4 threads (runs mostly wait on subprocesses); one sandbox per thread."""
    local = threading.local()

    def work(item):
        if not hasattr(local, "sandbox"):
            local.sandbox = LocalSandbox(tmp_path / f"scratch-{threading.get_ident()}", Limits(timeout_s=60))
        return judge(item, local.sandbox)
    with ThreadPoolExecutor(4) as pool:
        return list(pool.map(work, items))


def _heredoc(text: str) -> str:
    return "cat <<'__OUT__'\n" + text + ("" if text.endswith("\n") else "\n") + "__OUT__\n"


def _case(entry: dict) -> tuple[Path, object]:
    case = (REPRO / entry["case"]).resolve()
    table = next(t for t in load_paper(case / "paper.md").tables if t.label == "Table 2")
    return case / "artifact", table


def _report(name: str, confusion: Counter) -> float:
    total = sum(confusion.values())
    right = sum(n for (a, p), n in confusion.items() if a == p)
    print(f"\n{name}: {right}/{total} = {right / total:.1%}")
    print("actual \\ predicted  " + "  ".join(f"{p:>9}" for p in LABELS))
    for a in LABELS[:3]:
        print(f"{a:>18}  " + "  ".join(f"{confusion[(a, p)]:>9}" for p in LABELS))
    return right / total


# ---------------------------------------------------------------------------------- corpora

def test_corpora_are_large_enough():
    assert len(PAIRS) >= 40 and sum(not p["should_match"] for p in PAIRS) >= 10
    counts = Counter(e["label"] for e in SCRIPTS)
    assert len(SCRIPTS) >= 70 and all(counts[label] >= 15 for label in LABELS[:3]), counts
    notes = " ".join(e["note"] for e in SCRIPTS)
    for kind in ("base64", "notebook", "pdftotext", "Fig. 10", "pickle", "npy", "SQLite", "pdfplumber", "PyMuPDF",
                 "pymupdf4llm", "R ", "logs", "make target", "hard-coded", "docker compose"):
        assert kind in notes, kind


@pytest.mark.slow
def test_output_judge_accuracy_on_table_pairs(tmp_path):
    artifact = tmp_path / "artifact"
    artifact.mkdir()
    (artifact / "README.md").write_text("prints results\n")

    def judge(pair, sandbox):
        verdict, _ = judge_output(_heredoc(pair["produced"]), artifact, parse_tables(pair["expected"])[0], sandbox, 30)
        return verdict.category
    categories = _parallel(tmp_path, PAIRS, judge)
    wrong = [(p["note"], c) for p, c in zip(PAIRS, categories) if (c == "success") != p["should_match"]]
    accuracy = 1 - len(wrong) / len(PAIRS)
    print(f"\noutput judge on {len(PAIRS)} table pairs: {accuracy:.1%}")
    assert accuracy == 1.0, wrong


def _method_confusion(tmp_path: Path, trace: bool | None) -> Counter:
    def judge(entry, sandbox):
        artifact, table = _case(entry)
        run = execute(entry["script"], artifact, sandbox, 60, trace=trace)
        assert trace is not False or run.provenance.method == "snapshot"

        def rerun(withheld):
            return execute(entry["script"], artifact, sandbox, 60, withheld=withheld, trace=trace).outputs

        return judge_method(entry["script"], artifact, table, run, rerun).method
    return Counter(zip((e["label"] for e in SCRIPTS), _parallel(tmp_path, SCRIPTS, judge)))


@pytest.mark.slow
def test_method_judge_accuracy_with_run_provenance(tmp_path):
    confusion = _method_confusion(tmp_path, None)
    assert _report("method judge (run + strace provenance where available)", confusion) >= 0.9
    assert sum(n for (a, p), n in confusion.items() if a == "copy" and p in ("full", "last_mile")) == 0  # none accepted


@pytest.mark.slow
def test_method_judge_accuracy_without_strace(tmp_path):
    assert _report("method judge (run, snapshot provenance only)", _method_confusion(tmp_path, False)) >= 0.9


def test_method_judge_accuracy_static_only():
    confusion: Counter = Counter()
    for entry in SCRIPTS:
        artifact, table = _case(entry)
        confusion[(entry["label"], judge_method(entry["script"], artifact, table).method)] += 1
    # Without running, a checked-in file the script regenerates cannot be told from a copy (Artisan Fig. 10).
    assert _report("method judge (static analysis only)", confusion) >= 0.9
    assert sum(n for (a, p), n in confusion.items() if a == "copy" and p in ("full", "last_mile")) == 0


def test_method_judge_static_without_artifact_accepts_no_copy():
    """A script handed in alone: no file list, no expected table. Opaque scripts are undetermined, never full."""
    confusion: Counter = Counter()
    for entry in SCRIPTS:
        confusion[(entry["label"], judge_method(entry["script"], None).method)] += 1
    print(f"\nundetermined: {sum(n for (a, p), n in confusion.items() if p == 'undetermined')}")
    assert _report("method judge (script alone, static)", confusion) >= 0.8
    assert sum(n for (a, p), n in confusion.items() if a == "copy" and p in ("full", "last_mile")) == 0


# ---------------------------------------------------------------------------------- output judge

def test_static_errors_are_caught_before_running(sandbox):
    assert static_error("") and "empty" in static_error("   \n")
    assert "syntax error" in static_error("if then fi (\n")
    assert "syntax error" in static_error("#!/usr/bin/env python3\nprint(\n")
    verdict, run = judge_output("for x in; do\n", FUZZ / "artifact", FUZZ_TABLE, sandbox)
    assert verdict.category == "static_error" and run is None


def test_runtime_errors_report_the_failure(sandbox):
    verdict, _ = judge_output("python3 summarize.py no-such-folder\n", FUZZ / "artifact", FUZZ_TABLE, sandbox)
    assert verdict.category == "runtime_error" and "no trial CSV files" in verdict.feedback
    verdict, _ = judge_output("python3 -c 'import nosuchmodule'; echo done\n", FUZZ / "artifact", FUZZ_TABLE, sandbox)
    assert verdict.category == "runtime_error" and "ModuleNotFoundError" in verdict.feedback


def test_mismatch_feedback_reveals_only_reproduced_cells(sandbox):
    produced = ("| Fuzzer | Branches | Bugs | Crash rate (%) |\n|---|---|---|---|\n"
                "| afl | 1307.0 | 8.2 | 0.43 |\n| honggfuzz | 1398.4 | 5.6 | 0.30 |\n"
                "| libfuzzer | 1111.1 | 5.6 | 0.30 |\n")
    verdict, _ = judge_output(_heredoc(produced), FUZZ / "artifact", FUZZ_TABLE, sandbox)
    assert verdict.category == "mismatch" and (verdict.matched, verdict.total) == (8, 9)
    assert "1398.4" in verdict.feedback and "1264.8" not in verdict.feedback and "????.?" in verdict.feedback


def test_success_from_a_file_the_script_writes(sandbox):
    script = "python3 campaign.py --out runs >/dev/null\npython3 summarize.py runs --format csv --out repro.csv\n"
    verdict, run = judge_output(script, FUZZ / "artifact", FUZZ_TABLE, sandbox)
    assert verdict.category == "success" and verdict.source == "repro.csv"
    assert run.provenance.cpu_s is not None and "python3" in run.provenance.programs


def test_submission_of_copied_results_is_rejected(sandbox):
    verdict, _ = judge_submission("cat results/table2.md\n", FUZZ / "artifact", FUZZ_TABLE, sandbox)
    assert verdict.category == "copied" and verdict.method == "copy"
    assert "results/table2.md" in verdict.feedback
    verdict, _ = judge_submission("python3 summarize.py results/raw\n", FUZZ / "artifact", FUZZ_TABLE, sandbox)
    assert verdict.category == "success" and verdict.method == "last_mile"


def test_fig10_cat_of_a_regenerated_file_is_full(sandbox):
    script = ("python3 campaign.py --out runs\npython3 summarize.py runs --out results/table2.md\n"
              "cat results/table2.md\n")
    verdict, _ = judge_submission(script, FUZZ / "artifact", FUZZ_TABLE, sandbox)
    assert verdict.category == "success" and verdict.method == "full"
    assert "results/table2.md" in verdict.method_verdict.regenerated


def test_method_without_expected_table_uses_the_runs_own_table(sandbox):
    artifact = FUZZ / "artifact"
    run = execute("cat results/table2.md\n", artifact, sandbox)
    assert judge_method("cat results/table2.md\n", artifact, None, run).method == "copy"
    run = execute("python3 campaign.py --out runs && python3 summarize.py runs\n", artifact, sandbox)
    assert judge_method("python3 campaign.py --out runs && python3 summarize.py runs\n",
                        artifact, None, run).method == "full"
