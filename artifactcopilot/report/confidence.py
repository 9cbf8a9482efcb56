"""Confidence: how far a reader can trust a review's verdict without checking it, computed from its evidence.

It starts at 1.0 and each finding below takes something off; the report lists every finding that applied
(`assess` returns them), so the number is never unexplained. Confidence never changes a badge.

- the review did not finish, or phases have no committed packet;
- the strongest evidence is weak: nothing ran (E0) or only setup and probes ran (E1); a review that
  stopped at the gate assessed availability only, and a review whose workflow produced no valid output (D3
  below WA) is never more confident than one that stopped at the gate;
- the artifact could not be fetched for a reason that may pass (network, host error);
- the environment setup failed for reasons of the review's infrastructure (network, disk, memory, image,
  time budget) rather than of the artifact;
- a limit was hit: an agent's step, cost or time limit, a sandbox limit, a command timeout, a phase's time budget;
- the packet checker or its verifier disagreed with an agent: packets rejected and revised, downgraded
  at the last attempt, or claims withdrawn;
- reviewer interventions (the higher the level, the less the run is the authors' own) and other warnings.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..models import Report, Score
from ..phases import registry

FLOOR = 0.05
GATE_ONLY = 0.25
"""What a review that stopped at the availability gate loses: it assessed availability only."""
LEVEL_PENALTY = {"E0": 0.45, "E1": 0.3, "E2": 0.1, "E3": 0.0}
INFRA_TEXT = re.compile(
    r"Temporary failure in name resolution|Could not resolve host|Name or service not known|Network is unreachable"
    r"|Failed to establish a new connection|Connection (?:refused|reset|timed out)|Could not fetch URL|ProxyError"
    r"|SSLError|CERTIFICATE_VERIFY_FAILED|No space left on device|Read-only file system|MemoryError"
    r"|Cannot allocate memory|\bKilled\b"
    r"|Cannot connect to the Docker daemon|pull access denied|manifest unknown|image could not be used"
    r"|time budget was used up|timed out|out of memory|OOM", re.IGNORECASE)
TRANSIENT_FETCH = re.compile(r"HTTP (?:408|429|5\d\d)|failed after \d+ attempts|timed out|Connection|resolution"
                             r"|unreachable|rate limit", re.IGNORECASE)
LIMIT_FLAGS = re.compile(r"^llm-[a-z]+-limit$")
VERIFIER_FLAGS = {"checker-downgrade": 0.15, "llm-claims-withdrawn": 0.1}
Reader = Callable[[str], "str | None"]


@dataclass
class Factor:
    """One finding that lowered the confidence."""

    code: str
    """Stable name, e.g. 'evidence-level', 'setup-infrastructure', 'limit-hit', 'verifier-disagreed'."""
    penalty: float
    """How much it took off (before the floor of 0.05)."""
    reason: str
    """What was found, in words, for the report."""


@dataclass
class Confidence:
    value: float
    factors: list[Factor] = field(default_factory=list)


def assess(report: Report, run_dir: Path | None = None, read: Reader | None = None) -> Confidence:
    """The confidence of `report` and the findings behind it. `run_dir` (or `read`, an evidence id -> text
    function) lets it read packets and logs; without them only what report.json holds is used."""
    if read is None:
        from .reading import run_dir_reader

        read = run_dir_reader(report, run_dir) if run_dir else (lambda _id: None)
    factors = (_completeness(report) + _level(report) + _fetch(report, read) + _setup(report, read)
               + _limits(report) + _verifier(report, run_dir) + _burden(report))
    factors += _nothing_ran(report, 1.0 - sum(f.penalty for f in factors))
    value = 1.0 - sum(f.penalty for f in factors)
    return Confidence(round(max(FLOOR, min(1.0, value)), 2), factors)


def _nothing_ran(report: Report, value: float) -> list[Factor]:
    """A review whose workflow produced no valid output (its D3 below WA) established its gate and what it read,
    no more: it cannot be more confident than a review that stopped at the gate."""
    workflow = report.dimensions.get(registry().workflow_phases[0]) if registry().workflow_phases else None
    if _gate_failed(report) or workflow is None or workflow.score is None or workflow.score >= Score.WA:
        return []
    cap = 1.0 - GATE_ONLY
    if value <= cap:
        return []
    return [Factor("nothing-ran", round(value - cap, 3), "no documented command of the workflow produced valid "
                   f"output ({registry().workflow_phases[0]} {workflow.score.value}): beyond its availability gate the "
                   "review rests on reading, so it is no more certain than a review that stopped at the gate")]


def _gate_failed(report: Report) -> bool:
    return bool(report.gate) and not all(g.passed for g in report.gate.values())


def _completeness(report: Report) -> list[Factor]:
    reg = registry()
    if not report.gate:
        return [Factor("incomplete", 0.6, "the availability gate was not decided")]
    if _gate_failed(report):
        return []
    missing = [d for d in reg.dimensions if (report.dimensions.get(d) is None or report.dimensions[d].score is None)]
    out = []
    if missing:
        share = len(missing) / max(1, len(reg.dimensions))
        out.append(Factor("incomplete", round(0.5 * share, 3), f"no committed result for {', '.join(missing)}"))
    if report.status == "incomplete":
        out.append(Factor("interrupted", 0.1, "the review was stopped before it finished"))
    return out


def _level(report: Report) -> list[Factor]:
    if _gate_failed(report):
        return [Factor("gate-only", GATE_ONLY, "the review stopped at the availability gate: nothing beyond "
                                               "availability was assessed")]
    level = report.evidence_level.value
    penalty = LEVEL_PENALTY.get(level, 0.0)
    if not penalty:
        return []
    words = {"E0": "nothing the review ran backs its scores (E0)",
             "E1": "only static reading, setup and probes back the scores; no workflow output (E1)",
             "E2": "the workflow ran but no paper result was regenerated by it (E2)"}
    return [Factor("evidence-level", penalty, words.get(level, f"evidence level {level}"))]


def _fetch(report: Report, read: Reader) -> list[Factor]:
    """A remote artifact that could not be fetched for a reason that may pass: the verdict may not hold tomorrow."""
    from .acquisition import acquisition_error

    error = acquisition_error(report, read)
    if error and TRANSIENT_FETCH.search(error):
        return [Factor("fetch-may-be-transient", 0.2, f"the artifact could not be fetched, possibly for a passing "
                                                      f"reason: {error[:160]}")]
    return []


def _setup(report: Report, read: Reader) -> list[Factor]:
    """D2's setup failed and its logs show the review's infrastructure at fault (network, disk, memory, image)."""
    d2 = report.dimensions.get("D2")
    item = next((c for c in d2.checklist if c.item == "D2.setup_ok"), None) if d2 else None
    if item is None or item.status != "violated":
        return []
    texts = [item.note] + [_tail(read(ev_id)) for ev_id in item.evidence[:12]]
    hit = next((m.group(0) for t in texts if t and (m := INFRA_TEXT.search(t))), None)
    if hit is None:
        return []
    return [Factor("setup-infrastructure", 0.2, f"the environment setup failed for a reason of the review's "
                                                f"infrastructure, not the artifact (\u201c{hit}\u201d)")]


def _tail(text: str | None) -> str:
    return text[-20_000:] if text else ""


def _limits(report: Report) -> list[Factor]:
    hits: list[str] = []
    for flag in report.flags:
        if LIMIT_FLAGS.match(flag.code) or flag.code == "sandbox-limit":
            hits.append(f"{flag.code}{f' in {flag.phase}' if flag.phase else ''}")
    notes = [c.note for d in report.dimensions.values() if d for c in d.checklist]
    if any("time budget was used up" in n for n in notes):
        hits.append("a phase's time budget was used up")
    if any(re.search(r"\btimed out\b", n) for n in notes):
        hits.append("a command timed out")
    if not hits:
        return []
    unique = list(dict.fromkeys(hits))
    return [Factor("limit-hit", min(0.3, 0.1 * len(unique)), "a limit was hit: " + "; ".join(unique[:6]))]


def _verifier(report: Report, run_dir: Path | None) -> list[Factor]:
    penalty, why = 0.0, []
    for flag in report.flags:
        if flag.code in VERIFIER_FLAGS:
            penalty += VERIFIER_FLAGS[flag.code]
            why.append(f"{flag.code}{f' in {flag.phase}' if flag.phase else ''}")
    revised = _revised_phases(run_dir)
    if revised:
        penalty += min(0.15, 0.05 * len(revised))
        why.append(f"packets rejected and revised in {', '.join(revised)}")
    if not why:
        return []
    return [Factor("verifier-disagreed", round(min(0.35, penalty), 3), "the packet checker disagreed with the agent: "
                   + "; ".join(why[:6]))]


def _revised_phases(run_dir: Path | None) -> list[str]:
    """Phases whose committed packet is not the first attempt (an earlier one was rejected)."""
    if run_dir is None:
        return []
    out = []
    for phase in registry().phase_ids:
        try:
            packet = json.loads((Path(run_dir) / "packets" / f"{phase}.json").read_text(encoding="utf-8"))
            attempt = packet.get("attempt", 1)
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(attempt, int) and attempt > 1:
            out.append(phase)
    return out


def _burden(report: Report) -> list[Factor]:
    out = []
    top = max((i.level.rank for i in report.interventions), default=0)
    if top:
        out.append(Factor("interventions", 0.05 * top, f"the review had to intervene (up to I{top}): the run is "
                                                       "not exactly the authors' own"))
    counted = {"interrupted", "sandbox-limit", "link-not-followed", *VERIFIER_FLAGS}
    other = [f for f in report.flags if f.code not in counted and not LIMIT_FLAGS.match(f.code)
             and f.severity in ("high", "medium")]
    if other:
        penalty = min(0.2, sum(0.05 if f.severity == "high" else 0.02 for f in other))
        codes = list(dict.fromkeys(f.code for f in other))
        out.append(Factor("warnings", round(penalty, 3), f"{len(other)} warning(s): {', '.join(codes[:6])}"))
    return out


__all__ = ["Confidence", "Factor", "assess"]
