"""`copilot judge table|method` as users and scripts run them: readable verdicts, --json, exit codes like diff."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

FUZZ = Path(__file__).resolve().parent.parent / "fixtures" / "repro" / "fuzzbench"


def copilot(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI")}
    return subprocess.run([sys.executable, "-m", "artifactcopilot.cli", *args], capture_output=True, text=True,
                          env={**base, **(env or {})}, timeout=300, stdin=subprocess.DEVNULL, check=False)


def test_judge_table_exit_codes_and_outputs(tmp_path):
    good = tmp_path / "good.csv"
    good.write_text("fuzzer,branches,bugs,crash_rate\nafl,1307.04,8.2,0.433\nhonggfuzz,1398.4,5.6,0.3\nlibfuzzer,1264.8,5.6,0.3\n")
    bad = tmp_path / "bad.csv"
    bad.write_text(good.read_text().replace("0.3\n", "0.31\n", 1)
                   .replace("libfuzzer,1264.8,5.6,0.3", "libfuzzer,1264.8,5.6,0.31"))
    ok = copilot("judge", "table", str(FUZZ / "paper.md"), str(good), "--table", "2")
    assert ok.returncode == 0 and ok.stdout.startswith("match: 9/9 cells of Table 2"), ok.stderr
    miss = copilot("judge", "table", str(FUZZ / "paper.md"), str(bad), "--table", "2")
    assert miss.returncode == 1 and miss.stdout.startswith("mismatch: ")
    assert "expected 0.30, produced 0.31 (rounding)" in miss.stdout
    data = json.loads(copilot("judge", "table", str(FUZZ / "paper.md"), str(bad), "--table", "2", "--json").stdout)
    assert data["category"] == "mismatch" and data["total"] == 9
    gone = copilot("judge", "table", str(FUZZ / "paper.md"), str(tmp_path / "missing.txt"), "--table", "2")
    assert gone.returncode == 2 and "cannot be read" in gone.stderr and "Traceback" not in gone.stderr
    assert copilot("judge", "table", str(good), str(good), "--table", "9").returncode == 2


def test_judge_method_readable_json_and_exit_codes(tmp_path):
    script = tmp_path / "repro.sh"
    script.write_text("cat results/table2.md\n")
    copied = copilot("judge", "method", str(script))
    assert copied.returncode == 1 and copied.stdout.startswith("copy (not accepted")
    assert "results/table2.md" in copied.stdout and "the script was not run" in copied.stdout
    script.write_text("python3 campaign.py --out runs\npython3 summarize.py runs\n")
    full = copilot("judge", "method", str(script), "--json")
    data = json.loads(full.stdout)
    assert full.returncode == 0 and data["method"] == "full" and data["accepted"] is True
    assert {"method", "accepted", "confidence", "signals", "reasons", "executed"} <= set(data)
    assert data["signals"][0]["source"] == "static" and data["executed"] is False
    script.write_text("./run.sh\n")
    opaque = copilot("judge", "method", str(script))
    assert opaque.returncode == 1 and opaque.stdout.startswith("undetermined (not accepted, low confidence)")


def test_judge_method_with_a_run(tmp_path):
    script = tmp_path / "repro.sh"
    script.write_text("python3 campaign.py --out runs\npython3 summarize.py runs --out results/table2.md\n"
                      "cat results/table2.md\n")
    ran = copilot("judge", "method", str(script), "--artifact", str(FUZZ / "artifact"), "--run",
                  "--expected", str(FUZZ / "paper.md"), "--table", "2", "--json")
    data = json.loads(ran.stdout)
    assert (ran.returncode == 0 and data["method"] == "full" and data["executed"]
            and data["output"]["category"] == "success")
    assert "results/table2.md" in data["detail"]["regenerated"]
    script.write_text("cat results/table2.md\n")
    copied = copilot("judge", "method", str(script), "--artifact", str(FUZZ / "artifact"), "--run")
    assert copied.returncode == 1 and copied.stdout.startswith("copy (not accepted, high confidence)")


def test_judge_method_could_not_judge(tmp_path):
    empty = tmp_path / "empty.sh"
    empty.write_text("  \n")
    for args, needle in ((["judge", "method", str(tmp_path / "missing.sh")], "cannot be read"),
                         (["judge", "method", str(empty)], "is empty"),
                         (["judge", "method", str(empty), "--run"], "--run needs --artifact"),
                         (["judge", "method", str(empty), "--artifact", str(tmp_path / "nope")], "is not a folder")):
        proc = copilot(*args)
        assert proc.returncode == 2 and needle in proc.stderr and "Traceback" not in proc.stderr, args


def test_an_unreachable_model_leaves_the_verdict_to_the_evidence(tmp_path):
    script = tmp_path / "repro.sh"
    script.write_text("cat results/table2.md\n")
    proc = copilot("judge", "method", str(script), "--json",
                   env={"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": "x"})
    assert proc.returncode == 1 and "no model opinion" in proc.stderr
    assert json.loads(proc.stdout)["method"] == "copy"
