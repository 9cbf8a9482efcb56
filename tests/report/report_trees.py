"""Small run directories for the report tests: evidence files written the way a review writes them."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from artifactcopilot.models import (
    ChecklistItem,
    DimensionResult,
    Evidence,
    EvidenceLevel,
    Flag,
    GateResult,
    Report,
    Score,
)

NO_BADGES = {"available": False, "functional": False, "reusable": False, "reproduced": False}


def evidence(run: Path, ev_id: str, name: str, body: str | dict, level: str = "E0") -> Evidence:
    text = json.dumps(body) if isinstance(body, dict) else body
    rel = f"evidence/{ev_id}-{name}"
    (run / rel).parent.mkdir(parents=True, exist_ok=True)
    (run / rel).write_text(text)
    phase, _, kind = ev_id.split("-", 2)
    return Evidence(id=ev_id, phase=phase, kind=kind, path=rel, sha256=hashlib.sha256(text.encode()).hexdigest(),
                    size=len(text), summary=f"{name} captured", level=EvidenceLevel(level))


def command_log(script: str, exit_code: int | None, stdout: str = "", stderr: str = "", timed_out: bool = False) -> str:
    return (f"$ {script}\n# cwd: .  exit: {exit_code}  duration: 1.5s  timed_out: {timed_out}\n"
            "# network: off  limits hit: none\n# files created: none\n# files modified: none\n# files deleted: none\n"
            f"# invocation: documented\n----- stdout -----\n{stdout}\n----- stderr -----\n{stderr}\n")


def report(evidence_records: list[Evidence], *, gate: dict[str, GateResult] | None = None,
           dimensions: dict[str, DimensionResult] | None = None, flags: list[Flag] | None = None,
           level: str = "E0", status: str = "complete") -> Report:
    return Report(tool_version="0.1.0", run_id="r1", paper="paper.md", artifact="artifact", agent="heuristic",
                  sandbox="local", status=status, badge="none", badges=dict(NO_BADGES),
                  gate=gate if gate is not None else {gc: GateResult(passed=True) for gc in ("GC1", "GC2", "GC3")},
                  dimensions=dimensions or {}, evidence_level=EvidenceLevel(level), flags=flags or [],
                  confidence=0.5, evidence=evidence_records)


def dimension(score: str | None, evidence_ids: list[str], level: str = "E0",
              checklist: list[ChecklistItem] | None = None) -> DimensionResult:
    return DimensionResult(score=Score(score) if score else None, evidence=evidence_ids,
                           evidence_level=EvidenceLevel(level), checklist=checklist or [])


def all_dimensions(score: str = "WA", level: str = "E2", **overrides: DimensionResult) -> dict[str, DimensionResult]:
    dims = {d: dimension(score, [], level) for d in ("D1", "D2", "D3", "D4", "D5")}
    dims.update(overrides)
    return dims
