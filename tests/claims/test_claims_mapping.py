"""Mapping by structure: labels as a paper and a program spell them, values compared on one scale, orderings."""
from __future__ import annotations

import pytest

from artifactcopilot.claims.labels import align_labels, same_label
from artifactcopilot.claims.mapping import map_structure
from artifactcopilot.claims.paperobjects import named_objects, paper_objects, tied_objects
from artifactcopilot.tables import Table


@pytest.mark.parametrize(("a", "b"), [
    ("Fairness ↑", "Fairness increases"), ("Performance ↓", "Performance decreases"), ("Acc", "Accuracy"),
    ("RF", "Random Forest"), ("Datasets", "dataset"), ("Precision (%)", "precision"), ("Fairness ↑", "Fairness"),
    ("F1-score", "f1 score"), ("**Ours**", "ours"),
])
def test_the_same_label(a, b):
    assert same_label(a, b)


@pytest.mark.parametrize(("a", "b"), [
    ("Fairness ↑", "Performance ↑"), ("Fairness ↑", "Fairness ↓"), ("0.5", "0.5"), ("Mean", "mean"), ("", ""),
    ("Pre", "Precision or Prediction"),
])
def test_not_the_same_label(a, b):
    assert not same_label(a, b)


def test_labels_align_one_to_one_exact_first():
    assert align_labels(["Acc", "Accuracy"], ["accuracy", "acc"]) == {0: 1, 1: 0}
    assert align_labels(["Pre"], ["precision", "prediction"]) == {}


PAPER = Table(label="Table 2", caption="Fairness and performance changes (%)",
              header=["", "FedAvg", "q-FFL", "Ours"],
              rows=[["Fairness ↑", "33.3", "54.0", "92.9"], ["Performance ↓", "96.8", "40.5", "11.9"]])


def test_fractions_against_percentages_close_with_the_ordering_intact():
    out = "\tFedAvg\tq-FFL\tOurs\nFairness increases\t0.333333\t0.523810\t0.904762\n" \
          "Performance decreases\t0.952381\t0.428571\t0.142857\n"
    m = map_structure(PAPER, out, "table2_result")
    assert m is not None and m.verdict == "close" and m.scale.startswith("the output's fractions")
    assert m.counts() == {"equal": 1, "close": 5, "far": 0} and m.ordering_holds
    assert "Performance ↓ / q-FFL: 0.428571 against paper 40.5, differs by 2.4 points" in m.describe()


def test_far_off_with_the_ordering_reversed_contradicts_unless_reduced():
    out = "\tFedAvg\tq-FFL\tOurs\nFairness increases\t0.90\t0.5\t0.1\nPerformance decreases\t0.1\t0.5\t0.9\n"
    assert map_structure(PAPER, out, "x").verdict == "contradicts"
    assert map_structure(PAPER, out, "x", reduced=True).verdict == "differs"


def test_far_off_with_the_ordering_kept_contradicts_whatever_the_ordering():
    out = "\tFedAvg\tq-FFL\tOurs\nFairness increases\t0.10\t0.2\t0.5\nPerformance decreases\t0.7\t0.2\t0.1\n"
    m = map_structure(PAPER, out, "x")
    assert m.verdict == "contradicts" and m.ordering_holds
    assert map_structure(PAPER, out, "x", reduced=True).verdict == "differs"


def test_close_values_with_a_broken_ordering_differ():
    paper = Table(label="Table 3", caption="Accuracy (%)", header=["", "A", "B", "C"],
                  rows=[["Adult", "50.0", "51.0", "52.0"], ["Census", "60.0", "61.0", "62.0"]])
    out = "\tA\tB\tC\nAdult\t0.52\t0.51\t0.50\nCensus\t0.62\t0.61\t0.60\n"
    m = map_structure(paper, out, "x")
    assert m.verdict == "differs" and m.ordering_holds is False and m.counts()["far"] == 0


def test_one_row_of_named_values_is_held_against_the_closest_paper_row():
    paper = Table(label="Table 2", header=["Method", "Precision", "Recall", "F1"],
                  rows=[["Ours", "0.91", "0.88", "0.89"], ["Baseline", "0.75", "0.70", "0.72"]])
    m = map_structure(paper, '{"precision": 0.31, "recall": 0.42, "f1": 0.35}', "out/results.json")
    assert m.closest_row == "Baseline" and m.rows == [] and m.verdict == "contradicts"
    assert "Baseline / Precision: 0.31 against paper 0.75, differs by 44.0 points" in m.describe()
    m = map_structure(paper, "precision: 0.90\nrecall: 0.87\nf1: 0.89\n", "stdout")
    assert m.closest_row == "Ours" and m.verdict == "close"


def test_one_shared_label_or_other_labels_map_to_nothing():
    assert map_structure(PAPER, "\tAlpha\tBeta\nFairness increases\t0.3\t0.5\n", "x") is None
    assert map_structure(PAPER, "run  alpha  beta\nA  1.0  2.0\nB  3.0  4.0\n", "x") is None
    descriptive = Table(label="Table 1", header=["Data set", "Rows"], rows=[["Adult", "48842"]])
    assert map_structure(descriptive, "Data set  Laplace  Ours\nadult  8.08  2.48\n", "x") is None


def test_paper_objects_and_names():
    assert named_objects("python reproduction/fig_7a.py --fast") == ["Figure 7"]
    assert named_objects("bash rq1.sh") == ["RQ1"] and named_objects("python config2.py") == []
    objects = paper_objects(["TABLE II"], ["Figure 7: latency"], "We answer RQ1.")
    assert objects == {"Table 2", "Figure 7", "RQ1"}
    assert tied_objects("python table2.py", [], objects) == ["Table 2"]
    assert tied_objects("python table3.py", [], objects) == []  # the paper has no Table 3
