"""A phase added to the rubric as data only (phases.yaml, dimensions.yaml, a skill) runs in a review and a batch.

The registry is the only place phases are listed: the graph, the report, the batch manifest columns, the
summary models and the shipped schemas all pick the new phase up once the schemas are regenerated.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "wordfreq"
D6 = {
    "title": "Maintainability",
    "criteria": {"R": "No tests.", "WR": "Some tests.", "WA": "Tests run.", "A": "Tests run and cover the workflow."},
    "items": {"D6.tests": "The artifact ships tests.", "D6.tests_pass": "Its tests pass."},
    "levels": {"A": {"all_of": ["D6.tests", "D6.tests_pass"]}, "WA": {"all_of": ["D6.tests_pass"]},
               "WR": {"all_of": ["D6.tests"]}},
}
SKILL = """---
phase: D6
objective: Judge whether the artifact ships tests that pass (D6).
tool_scope: [list_files, read_file, record_evidence, submit_packet]
evidence_contract:
  checklist: [D6.tests, D6.tests_pass]
  evidence_kinds: [maintenance]
  score: true
completion_criteria:
  - Tests are found and run, or their absence recorded.
---
# D6 — Maintainability
Find the artifact's tests and run them.
"""


def copilot(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "artifactcopilot.cli", *args], capture_output=True, text=True,
                          env=env, timeout=600, stdin=subprocess.DEVNULL)


def data_with_d6(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    for name in ("rubric", "skills", "schemas", "prompts"):
        shutil.copytree(ROOT / name, data / name)
    phases = yaml.safe_load((data / "rubric" / "phases.yaml").read_text())
    phases["phases"].append({"id": "D6", "kind": "dimension", "title": "D6 maintainability"})
    (data / "rubric" / "phases.yaml").write_text(yaml.safe_dump(phases, sort_keys=False))
    dims = yaml.safe_load((data / "rubric" / "dimensions.yaml").read_text())
    dims["D6"] = D6
    (data / "rubric" / "dimensions.yaml").write_text(yaml.safe_dump(dims, sort_keys=False, allow_unicode=True))
    (data / "skills" / "D6.md").write_text(SKILL)
    return data


def test_a_phase_added_as_data_runs_in_review_and_batch(tmp_path):
    data = data_with_d6(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI")} | {"ARTIFACTCOPILOT_DATA_DIR": str(data)}
    proc = copilot("schema", "--write", str(data / "schemas"), env=env)  # what a developer adding a phase runs
    assert proc.returncode == 0, proc.stderr

    out = tmp_path / "review"
    proc = copilot("review", str(EXAMPLE / "paper.md"), str(EXAMPLE / "artifact"), "--out", str(out),
                   "--agent", "heuristic", "--sandbox", "local", "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert list(report["dimensions"]) == ["D1", "D2", "D3", "D4", "D5", "D6"]
    d6 = report["dimensions"]["D6"]
    assert d6["score"] == "R" and {c["item"] for c in d6["checklist"]} == {"D6.tests", "D6.tests_pass"}
    assert all(c["status"] == "violated" and "not established" in c["note"] for c in d6["checklist"])
    assert report["badge"] == "reusable"  # the badge rules do not name D6, so it changes nothing
    assert "D6 — Maintainability" in (out / "report.md").read_text()

    manifest = tmp_path / "m.csv"
    manifest.write_text("id,paper,artifact,human_badge,human_D6\n"
                        f"wordfreq,{EXAMPLE / 'paper.md'},{EXAMPLE / 'artifact'},reusable,WA\n")
    proc = copilot("batch", str(manifest), "--out", str(tmp_path / "batch"), "--sandbox", "local",
                   "--agent", "heuristic", env=env)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((tmp_path / "batch" / "summary.json").read_text())
    assert summary["dimensions"]["D6"]["n"] == 1 and summary["dimensions"]["D6"]["accuracy"] == 0.0
    assert summary["artifacts"][0]["human_dimensions"]["D6"] == "WA"
    assert "| Dimension | D6 | Maintainability" in (tmp_path / "batch" / "summary.md").read_text()
