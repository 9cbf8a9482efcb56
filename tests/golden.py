"""Golden reports: the review's verdicts and evidence trail, with times, ids and host details removed.

A refactoring must leave these unchanged; a deliberate change in review behaviour regenerates them
with `COPILOT_UPDATE_GOLDEN=1 python -m pytest tests/test_corpus.py` and the diff is reviewed like code.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent / "fixtures" / "golden"
# Flags that depend on the machine or backend, not on the artifact.
HOST_FLAGS = {"weaker-isolation", "network-enabled", "sandbox-limit", "sandbox-isolation", "sandbox-fallback"}
SECONDS = re.compile(r"\d+(\.\d+)?\s?s\b")
PYVER = re.compile(r"Python 3\.\d+\.\d+")
CHARS = re.compile(r"\d+ chars of output")


ROOT = str(Path(__file__).resolve().parent.parent)


def _text(value: str, run_dir: str) -> str:
    value = value.replace(run_dir, "<run>").replace(ROOT, "<repo>")
    value = SECONDS.sub("<t>", value)
    value = PYVER.sub("Python <v>", value)
    return CHARS.sub("<n> chars of output", value)


def normalize(report: dict, run_dir: Path) -> dict:
    """What a reviewer reads in report.json, minus what varies between runs and machines."""
    root = str(run_dir)
    t = lambda s: _text(s or "", root)  # noqa: E731
    return {
        "badge": report["badge"],
        "badges": report["badges"],
        "status": report["status"],
        "gate": report["gate"],
        "evidence_level": report["evidence_level"],
        "dimensions": {
            d: {"score": r["score"], "evidence_level": r["evidence_level"], "evidence": r["evidence"],
                "checklist": [[c["item"], c["status"], t(c["note"]), c["evidence"]] for c in r["checklist"]],
                "summary": t(r["summary"])}
            for d, r in report["dimensions"].items()},
        "interventions": [[i["id"], i["phase"], t(i["action"]), i["level"], i["rule"], i["evidence"]]
                          for i in report["interventions"]],
        "derivation": [[s["rule"], s["condition"], s["value"], s["result"], s["evidence"]]
                       for s in report["derivation"]],
        "flags": sorted([f["severity"], f["code"], t(f["message"])]
                        for f in report["flags"] if f["code"] not in HOST_FLAGS),
        "evidence": [[e["id"], e["phase"], e["kind"], e["level"], t(e["summary"])] for e in report["evidence"]],
        "not_established": report["not_established"],
        "next_badge": report["next_badge"],
    }


def check_golden(name: str, run_dir: Path) -> None:
    """Compare the run's report with the stored golden one (or store it when regenerating)."""
    got = normalize(json.loads((run_dir / "report.json").read_text(encoding="utf-8")), run_dir)
    path = GOLDEN / f"{name}.json"
    if os.environ.get("COPILOT_UPDATE_GOLDEN") == "1" or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        return
    want = json.loads(path.read_text(encoding="utf-8"))
    for key in want:
        assert got.get(key) == want[key], f"{name}: report section '{key}' differs from {path.name}"
