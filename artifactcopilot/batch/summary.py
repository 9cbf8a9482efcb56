"""Gather every outcome in a batch directory into summary.json (validated) and summary.md."""
from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import jsonschema

from .. import __version__
from ..fileio import atomic_write
from ..models import utcnow
from ..phases import registry
from ..resources import data_dir
from . import metrics
from .manifest import ManifestRow
from .runners import job_key, read_outcome
from .summary_model import BatchSummary, summary_schema

LOW_CONFIDENCE = 0.6


def _attention(row: dict, runs: list[dict]) -> tuple[list[str], int]:
    reasons, priority = [], 0
    if row["status"] == "failed":
        kinds = sorted({r.get("kind", "error") for r in runs if r.get("status") != "ok"})
        reasons.append(f"review failed ({', '.join(kinds)})")
        priority += 100
    elif row["status"] == "missing":
        return ["not reviewed yet"], 1
    if row["agent_failed"]:
        reasons.append("the agent failed: " + "; ".join(f"{p} ({why[:80]})" for p, why in row["agent_failed"].items()))
        priority += 60
    if row["human"] and row["predicted"] and row["human"] != row["predicted"]:
        reasons.append(f"predicted {row['predicted']}, human {row['human']}")
        priority += 50
    if row["flags"].get("high"):
        reasons.append(f"{row['flags']['high']} high-severity flag(s): {', '.join(row['flag_codes'][:4])}")
        priority += 20
    if row["confidence"] is not None and row["confidence"] < LOW_CONFIDENCE:
        reasons.append(f"low confidence {row['confidence']:.2f}")
        priority += 10
    badges = {b for b in row["runs"] if b}
    if len(badges) > 1:
        reasons.append(f"runs disagree: {', '.join(b or 'failed' for b in row['runs'])}")
        priority += 10
    return reasons, priority


def _artifact_row(entry: ManifestRow, runs: list[dict | None], keys: list[str]) -> dict:
    ok = [(r, k) for r, k in zip(runs, keys) if r and r.get("status") == "ok"]
    first, first_key = ok[0] if ok else (None, None)
    recorded = [r for r in runs if r]
    row = {
        "id": entry.id, "status": "ok" if ok else ("failed" if recorded else "missing"),
        "predicted": metrics.majority_badge([r["badge"] for r, _ in ok]), "human": entry.human_badge,
        "report": f"{first_key}/report.html" if first_key else None,
        "reproduced": first["reproduced"] if first else None,
        "runs": [r.get("badge") if r and r.get("status") == "ok" else None for r in runs],
        "dimensions": dict(first["dimensions"]) if first else {},
        "human_dimensions": entry.human_dimensions,
        "confidence": first["confidence"] if first else None,
        "flags": dict(first.get("flags", {})) if first else {},
        "flag_codes": list(first.get("flag_codes", [])) if first else [],
        "cost_usd": round(sum(float(r.get("cost_usd") or 0) for r in recorded), 6),
        "time_s": round(sum(float(r.get("time_s") or 0) for r in recorded), 3),
        "agent_failed": dict(first.get("agent_failed") or {}) if first else {},
        "agent_fallback": list(first.get("agent_fallback") or []) if first else [],
    }
    row["attention"], row["priority"] = _attention(row, [r for r in runs if r])
    return row


def _dimension_labelled(entry: ManifestRow) -> bool:
    # Blank human D-columns mean "not labelled", except for a 'none' badge: there the gate failed and
    # no dimension was assessed, which is itself the label.
    return any(entry.human_dimensions.values()) or entry.human_badge == "none"


def _run_metrics(entries: list[ManifestRow], outcomes: dict[str, list[dict | None]], run: int) -> dict:
    pairs: list[tuple[str, str]] = []
    dims: dict[str, list[tuple[str | None, str | None]]] = {d: [] for d in registry().dimensions}
    for entry in entries:
        outcome = outcomes[entry.id][run - 1]
        if not entry.human_badge or not outcome or outcome.get("status") != "ok" or not_a_verdict(outcome):
            continue  # a badge capped by an agent failure is no prediction: counted under agent_failures
        pairs.append((outcome["badge"], entry.human_badge))
        if _dimension_labelled(entry):
            for d in registry().dimensions:
                dims[d].append((outcome["dimensions"].get(d), entry.human_dimensions[d]))
    badge = metrics.badge_metrics(pairs)
    return {**badge, "gate": metrics.gate_metrics(pairs), "dimensions": metrics.dimension_metrics(dims)}


def not_a_verdict(outcome: dict) -> bool:
    """The review's badge is a lower bound: a badge was not established because its agent failed."""
    return bool(outcome.get("agent_failed") and outcome.get("badges_not_established"))


def _agent_failures(rows: list[dict], outcomes: dict[str, list[dict | None]]) -> dict:
    phases: dict[str, int] = {}
    for row in rows:
        for phase in row["agent_failed"]:
            phases[phase] = phases.get(phase, 0) + 1
    firsts = [next((o for o in runs if o and o.get("status") == "ok"), None) for runs in outcomes.values()]
    return {"reviews": sum(1 for r in rows if r["agent_failed"]),
            "not_a_verdict": sum(1 for o in firsts if o and not_a_verdict(o)),
            "fallback": sum(1 for r in rows if r["agent_fallback"]), "phases": phases}


def build_summary(entries: list[ManifestRow], root: Path, repeat: int, manifest: str,
                  stopped: str | None = None) -> dict:
    keys = {e.id: [job_key(e.id, k, repeat) for k in range(1, repeat + 1)] for e in entries}
    outcomes = {e.id: [read_outcome(root, key) for key in keys[e.id]] for e in entries}
    rows = [_artifact_row(e, outcomes[e.id], keys[e.id]) for e in entries]
    rows.sort(key=lambda r: (-r["priority"], r["confidence"] if r["confidence"] is not None else 2.0, r["id"]))
    per_run = [_run_metrics(entries, outcomes, k) for k in range(1, repeat + 1)]
    agreement = metrics.mean_of(per_run)
    done = [o for runs in outcomes.values() for o in runs if o and o.get("status") == "ok"]
    failures = [{"id": o["id"], "run": o.get("run", 1), "kind": o.get("kind", "error"), "message": o.get("message", "")}
                for runs in outcomes.values() for o in runs if o and o.get("status") != "ok"]
    total_usd = sum(float(o.get("cost_usd") or 0) for runs in outcomes.values() for o in runs if o)
    total_s = sum(float(o.get("time_s") or 0) for runs in outcomes.values() for o in runs if o)
    summary = {
        "schema_version": "1", "tool_version": __version__, "created_at": utcnow(), "manifest": manifest,
        "n": len(entries), "completed": sum(r["status"] == "ok" for r in rows),
        "labelled": sum(1 for r in rows if r["status"] == "ok" and r["human"]), "repeat": repeat,
        "exact_match": agreement["exact_match"], "macro_precision": agreement["macro_precision"],
        "macro_recall": agreement["macro_recall"], "macro_f1": agreement["macro_f1"],
        "per_class": agreement["per_class"], "gate": agreement["gate"],
        "functional_separator": agreement["gate"]["functional"], "dimensions": agreement["dimensions"],
        "confusion": per_run[0]["confusion"],
        "stability": metrics.stability({e.id: [o for o in outcomes[e.id] if o] for e in entries}, repeat)
        if repeat > 1 else None,
        "cost": {"reviews": len(done), "total_usd": round(total_usd, 6),
                 "mean_usd": total_usd / len(done) if done else None,
                 "total_s": round(total_s, 3), "mean_s": total_s / len(done) if done else None},
        "failures": failures,
        "agent_failures": _agent_failures(rows, outcomes),
        "stopped": {"reason": stopped,
                    "not_started": [k for e in entries for k, o in zip(keys[e.id], outcomes[e.id]) if o is None]},
        "artifacts": rows,
    }
    return BatchSummary.model_validate(summary).model_dump(mode="json")


@cache
def _validator() -> jsonschema.Draft202012Validator:
    path = data_dir("schemas") / "batch-summary.schema.json"
    schema = json.loads(path.read_text(encoding="utf-8")) if path.exists() else summary_schema()
    return jsonschema.Draft202012Validator(schema)


def write_summary(summary: dict, root: Path) -> dict[str, Path]:
    """summary.json (checked against the shipped schema), summary.md and the dashboard index.html."""
    from .dashboard import render_dashboard
    from .summary_md import render_summary_md

    _validator().validate(summary)
    paths = {"json": root / "summary.json", "md": root / "summary.md", "html": root / "index.html"}
    atomic_write(paths["json"], json.dumps(summary, indent=2) + "\n")
    atomic_write(paths["md"], render_summary_md(summary))
    atomic_write(paths["html"], render_dashboard(summary))
    return paths
