"""Agreement with human adjudication, as in Tables III–V of the ArtifactCopilot paper.

- badge level: exact four-level match; macro precision/recall/F1 over the badge classes that occur
  in the human or the predicted labels (a class never predicted has precision 0, as usual);
- gate level: Available, Functional, Reusable as nested binary decisions (badge at or above it);
  Functional is also the artifact-level binary separator (with accuracy);
- dimension level: four-class accuracy on R/WR/WA/A and binarised precision/recall/F1 with WA/A
  positive. A dimension nobody scored (gate failed for both) is left out; scored on one side only,
  the missing side counts as a mismatch and as negative;
- stability over K runs: badge consistency (every completed run agrees), divergence (every run
  different), Functional agreement, failure rate and mean cost.
Undefined ratios (no positives at all) are None, never a made-up 0 or 1.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from statistics import mean

from ..phases import registry

POSITIVE_SCORES = {"WA", "A"}


def _ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def _f1(precision: float | None, recall: float | None) -> float | None:
    if precision is None or recall is None:
        return None
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def binary(pairs: Sequence[tuple[bool, bool]]) -> dict:
    """(predicted, human) booleans -> accuracy, precision, recall, f1 and the counts behind them."""
    tp = sum(p and h for p, h in pairs)
    fp = sum(p and not h for p, h in pairs)
    fn = sum(h and not p for p, h in pairs)
    tn = len(pairs) - tp - fp - fn
    precision, recall = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
    return {"n": len(pairs), "accuracy": _ratio(tp + tn, len(pairs)), "precision": precision, "recall": recall,
            "f1": _f1(precision, recall), "tp": tp, "fp": fp, "fn": fn, "tn": tn}


def at_least(badge: str, gate: str) -> bool:
    tiers = registry().tiers
    return tiers.index(badge) >= tiers.index(gate)


def confusion(pairs: Sequence[tuple[str, str]]) -> dict:
    """Rows are the human badge, columns the predicted one, in badge order."""
    counts = Counter(pairs)
    tiers = registry().tiers
    return {"labels": list(tiers), "matrix": [[counts[(p, h)] for p in tiers] for h in tiers]}


def badge_metrics(pairs: Sequence[tuple[str, str]]) -> dict:
    """(predicted, human) badges -> exact match, per-class and macro precision/recall/F1, confusion matrix."""
    if not pairs:
        return {"n": 0, "exact_match": None, "macro_precision": None, "macro_recall": None, "macro_f1": None,
                "per_class": {}, "confusion": confusion([])}
    classes = [b for b in registry().tiers if any(b in pair for pair in pairs)]
    per_class = {}
    for cls in classes:
        stats = binary([(p == cls, h == cls) for p, h in pairs])
        per_class[cls] = {"precision": stats["precision"] or 0.0, "recall": stats["recall"] or 0.0,
                          "f1": stats["f1"] or 0.0, "support": stats["tp"] + stats["fn"]}
    return {"n": len(pairs), "exact_match": sum(p == h for p, h in pairs) / len(pairs),
            "macro_precision": mean(c["precision"] for c in per_class.values()),
            "macro_recall": mean(c["recall"] for c in per_class.values()),
            "macro_f1": mean(c["f1"] for c in per_class.values()),
            "per_class": per_class, "confusion": confusion(pairs)}


def gate_metrics(pairs: Sequence[tuple[str, str]]) -> dict:
    return {g: binary([(at_least(p, g), at_least(h, g)) for p, h in pairs]) for g in registry().tiers[1:]}


def dimension_metrics(pairs: Mapping[str, Sequence[tuple[str | None, str | None]]]) -> dict:
    """Per dimension: four-class accuracy and binarised (WA/A positive) precision/recall/F1; plus their mean."""
    out = {}
    dims = registry().dimensions
    for dim in dims:
        scored = [(p, h) for p, h in pairs.get(dim, ()) if p is not None or h is not None]
        stats = binary([(p in POSITIVE_SCORES, h in POSITIVE_SCORES) for p, h in scored])
        out[dim] = {"n": len(scored), "accuracy": _ratio(sum(p == h for p, h in scored), len(scored)),
                    "precision": stats["precision"], "recall": stats["recall"], "f1": stats["f1"]}
    out["mean"] = {k: _mean(out[d][k] for d in dims) for k in ("accuracy", "precision", "recall", "f1")}
    return out


def _mean(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return mean(present) if present else None


def mean_of(runs: Sequence[dict]) -> dict:
    """Element-wise mean of metric dicts from several runs (the paper's three-run means); counts are summed."""
    if len(runs) == 1:
        return runs[0]
    out: dict = {}
    for key in dict.fromkeys(k for r in runs for k in r):
        values = [r.get(key) for r in runs if key in r]
        if any(isinstance(v, dict) for v in values):
            out[key] = mean_of([v for v in values if isinstance(v, dict)])
        elif key in ("n", "tp", "fp", "fn", "tn", "support") or isinstance(values[0], list):
            out[key] = values[0] if isinstance(values[0], list) else sum(v or 0 for v in values)
        else:
            out[key] = _mean(values)
    return out


def stability(runs_per_artifact: dict[str, list[dict]], repeat: int) -> dict:
    """Table V: per artifact, the outcomes of its K runs ({status, badge, cost_usd})."""
    consistent = divergent = functional_agreement = 0
    total = failed = 0
    costs = []
    for runs in runs_per_artifact.values():
        total += len(runs)
        failed += sum(r.get("status") != "ok" for r in runs)
        costs += [float(r.get("cost_usd") or 0.0) for r in runs if r.get("status") == "ok"]
        badges = [r["badge"] for r in runs if r.get("status") == "ok"]
        if len(badges) < 2:
            continue
        consistent += len(set(badges)) == 1
        divergent += len(set(badges)) == len(badges)
        functional_agreement += len({at_least(b, "functional") for b in badges}) == 1
    return {"repeat": repeat, "n": len(runs_per_artifact), "consistent": consistent, "divergent": divergent,
            "functional_agreement": functional_agreement, "runs": total, "failed_runs": failed,
            "failure_rate": _ratio(failed, total), "mean_cost_usd": mean(costs) if costs else None}


def majority_badge(badges: Sequence[str]) -> str | None:
    """Most frequent badge; a tie goes to the lower badge (the conservative reading)."""
    if not badges:
        return None
    counts = Counter(badges)
    top = max(counts.values())
    return min((b for b, c in counts.items() if c == top), key=registry().tiers.index)
