"""`copilot repro` and `copilot judge` as users run them: files written, JSON verdicts, one-line errors."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAG = ROOT / "tests" / "fixtures" / "corpus" / "reusable-full"
FUZZ = ROOT / "tests" / "fixtures" / "repro" / "fuzzbench"


def copilot(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI")}
    return subprocess.run([sys.executable, "-m", "artifactcopilot.cli", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=300, stdin=subprocess.DEVNULL)


def one_line_error(proc: subprocess.CompletedProcess, code: int, needle: str) -> None:
    assert proc.returncode == code, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert "Traceback" not in proc.stderr and len(lines) == 1 and needle in lines[0], proc.stderr


def test_repro_writes_a_script_that_passes_offline(tmp_path):
    out = tmp_path / "out"
    proc = copilot("repro", str(LAG / "paper.md"), str(LAG / "artifact"), "--table", "Table 2", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "Table 2: success (full reproduction), 12/12 cells" in proc.stdout
    verdict = json.loads((out / "verdict.json").read_text())
    assert {k: verdict[k] for k in ("category", "method", "matched", "total")} == \
        {"category": "success", "method": "full", "matched": 12, "total": 12}
    assert verdict["feedback"].startswith("accepted")
    assert "| npm | 12 | 83.3 | 33.3 | 211.5 |" in (out / "table.md").read_text()
    assert (out / "logs" / "repro.log").read_text() and (out / "logs" / "attempt-01.sh").exists()
    # The script is the deliverable: run from a clean copy of the artifact it regenerates the table.
    copy = tmp_path / "copy"
    shutil.copytree(LAG / "artifact", copy)
    run = subprocess.run(["bash", str(out / "repro.sh")], cwd=copy, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and "| npm | 12 | 83.3 | 33.3 | 211.5 |" in run.stdout


def test_repro_unknown_table_is_a_usage_error(tmp_path):
    proc = copilot("repro", str(LAG / "paper.md"), str(LAG / "artifact"), "--table", "7", "--out", str(tmp_path / "o"))
    one_line_error(proc, 2, "has no table")
    assert "Table 2" in proc.stderr
    proc = copilot("repro", str(tmp_path / "missing.md"), str(LAG / "artifact"), "--table", "2")
    one_line_error(proc, 2, "does not exist")


def test_judge_table_prints_a_json_verdict_and_exits_like_diff(tmp_path):
    produced = tmp_path / "out.csv"
    produced.write_text("fuzzer,branches,bugs,crash_rate\nafl,1307.04,8.2,0.433\nhonggfuzz,1398.4,5.6,0.3\nlibfuzzer,1264.8,5.6,0.31\n")
    proc = copilot("judge", "table", str(FUZZ / "paper.md"), str(produced), "--table", "2", "--json")
    assert proc.returncode == 1, proc.stderr  # like diff: 1 on a mismatch
    verdict = json.loads(proc.stdout)
    assert (verdict["category"], verdict["matched"], verdict["total"]) == ("mismatch", 8, 9)
    wrong = [c for c in verdict["cells"] if not c["matched"]]
    assert wrong == [{"row": "libfuzzer", "column": "Crash rate (%)", "expected": "0.30", "produced": "0.31",
                      "matched": False, "kind": "rounding"}]


def test_judge_method_static_and_with_a_run(tmp_path):
    script = tmp_path / "repro.sh"
    script.write_text("python3 campaign.py --out runs\npython3 summarize.py runs --out results/table2.md\n"
                      "cat results/table2.md\n")
    static = json.loads(copilot("judge", "method", str(script), "--json").stdout)
    assert static["executed"] is False
    ran = copilot("judge", "method", str(script), "--artifact", str(FUZZ / "artifact"), "--run",
                  "--expected", str(FUZZ / "paper.md"), "--table", "2", "--json")
    verdict = json.loads(ran.stdout)
    assert verdict["method"] == "full" and verdict["accepted"] and verdict["output"]["category"] == "success"
    assert "results/table2.md" in verdict["detail"]["regenerated"]
    script.write_text("cat results/table2.md\n")
    verdict = json.loads(copilot("judge", "method", str(script), "--artifact", str(FUZZ / "artifact"), "--run",
                                 "--json").stdout)
    assert verdict["method"] == "copy" and not verdict["accepted"]
    one_line_error(copilot("judge", "method", str(script), "--run"), 2, "--run needs --artifact")
