"""Agreement metrics against values worked out by hand on a small labelled table."""
from __future__ import annotations

import pytest

from artifactcopilot.batch import metrics

# (predicted, human) for six artifacts:
#   a1 none/none  a2 available/none  a3 available/available  a4 functional/available
#   a5 functional/functional  a6 functional/reusable
PAIRS = [("none", "none"), ("available", "none"), ("available", "available"), ("functional", "available"),
         ("functional", "functional"), ("functional", "reusable")]


def test_badge_level_by_hand():
    m = metrics.badge_metrics(PAIRS)
    assert m["exact_match"] == pytest.approx(3 / 6)
    # per class: none P=1/1 R=1/2; available P=1/2 R=1/2; functional P=1/3 R=1/1; reusable P=0 (never predicted) R=0/1
    pc = m["per_class"]
    assert (pc["none"]["precision"], pc["none"]["recall"]) == (1.0, 0.5)
    assert (pc["available"]["precision"], pc["available"]["recall"]) == (0.5, 0.5)
    assert pc["functional"]["precision"] == pytest.approx(1 / 3) and pc["functional"]["recall"] == 1.0
    assert (pc["reusable"]["precision"], pc["reusable"]["recall"], pc["reusable"]["f1"]) == (0.0, 0.0, 0.0)
    assert m["macro_precision"] == pytest.approx((1 + 0.5 + 1 / 3 + 0) / 4)
    assert m["macro_recall"] == pytest.approx((0.5 + 0.5 + 1 + 0) / 4)
    f1 = [2 * 1 * 0.5 / 1.5, 0.5, 2 * (1 / 3) * 1 / (4 / 3), 0.0]
    assert m["macro_f1"] == pytest.approx(sum(f1) / 4)
    # rows human, columns predicted
    assert m["confusion"]["matrix"] == [[1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 0], [0, 0, 1, 0]]


def test_gate_level_is_nested_by_hand():
    g = metrics.gate_metrics(PAIRS)
    # Available: predicted positive a2..a6 (5), human positive a3..a6 (4): tp 4, fp 1 (a2), fn 0, tn 1
    assert (g["available"]["tp"], g["available"]["fp"], g["available"]["fn"], g["available"]["tn"]) == (4, 1, 0, 1)
    assert g["available"]["precision"] == pytest.approx(0.8) and g["available"]["recall"] == 1.0
    assert g["available"]["f1"] == pytest.approx(2 * 0.8 / 1.8)
    # Functional: predicted a4,a5,a6; human a5,a6 -> P 2/3, R 1, accuracy 5/6 (the binary separator)
    assert g["functional"]["precision"] == pytest.approx(2 / 3) and g["functional"]["recall"] == 1.0
    assert g["functional"]["accuracy"] == pytest.approx(5 / 6)
    # Reusable: never predicted, human a6 -> precision undefined (None), recall 0
    assert g["reusable"]["precision"] is None and g["reusable"]["recall"] == 0.0 and g["reusable"]["f1"] is None


def test_dimension_level_by_hand():
    pairs = {"D1": [("A", "A"), ("WA", "A"), ("WR", "WA"), ("R", "R"), (None, None)],
             "D3": [("WA", None), (None, "WR")]}
    d = metrics.dimension_metrics(pairs)
    # D1: the (None, None) pair is left out; 4-class 2/4; binarised: pred + = a,b; human + = a,b,c -> P 1, R 2/3
    assert d["D1"]["n"] == 4 and d["D1"]["accuracy"] == 0.5
    assert d["D1"]["precision"] == 1.0 and d["D1"]["recall"] == pytest.approx(2 / 3)
    assert d["D1"]["f1"] == pytest.approx(0.8)
    # D3: one side missing counts as a mismatch and as negative: fp 1, no human positive -> recall None
    assert d["D3"]["accuracy"] == 0.0 and d["D3"]["precision"] == 0.0 and d["D3"]["recall"] is None
    assert d["D2"]["n"] == 0 and d["D2"]["accuracy"] is None
    assert d["mean"]["accuracy"] == pytest.approx(0.25)  # mean over the dimensions that have a value


def test_stability_by_hand():
    ok = lambda b, cost=0.1: {"status": "ok", "badge": b, "cost_usd": cost}  # noqa: E731
    runs = {"same": [ok("functional"), ok("functional"), ok("functional")],
            "adjacent": [ok("functional"), ok("reusable"), ok("functional")],
            "spread": [ok("none"), ok("available"), ok("reusable", 0.4)],
            "broken": [ok("available"), {"status": "failed", "kind": "timeout"}, ok("available")]}
    s = metrics.stability(runs, 3)
    assert (s["consistent"], s["divergent"], s["functional_agreement"]) == (2, 1, 3)
    assert s["failure_rate"] == pytest.approx(1 / 12)
    assert s["mean_cost_usd"] == pytest.approx((10 * 0.1 + 0.4) / 11)  # completed runs only


def test_three_run_means_and_majority():
    one, two = metrics.badge_metrics(PAIRS), metrics.badge_metrics([(h, h) for _, h in PAIRS])
    mean = metrics.mean_of([one, two])
    assert mean["exact_match"] == pytest.approx((0.5 + 1.0) / 2)
    assert mean["n"] == 12
    assert metrics.majority_badge(["functional", "reusable", "functional"]) == "functional"
    assert metrics.majority_badge(["reusable", "available"]) == "available"  # a tie takes the lower badge
    assert metrics.majority_badge([]) is None
