"""claims.roles: results tables vs tables that describe a data set or benchmark."""
from __future__ import annotations

import json

import pytest

from artifactcopilot.claims import table_role
from artifactcopilot.tables import Table, parse_tables

PAPER = r"""
Table 1: Overview of the data sets collected for the study

| Dataset | #Samples | Period | Size (GB) |
|---|---|---|---|
| Malheur | 3,131 | 2009-2010 | 1 |
| Drebin | 5,560 | 2010-2012 | 12 |
| VirusShare | 42,000,000 | 2018 | 900 |

Table 2: Precision, recall and F1 compared with the baselines

| Tool | Precision | Recall | F1 |
|---|---|---|---|
| Ours | 90.8 | 93.9 | 92.3 |
| Baseline [4] | 87.2 | 91.1 | 89.1 |
| Euphony [18] | 85.0 | 80.3 | 82.6 |

\begin{table}
\caption{Subject projects}
\label{tab:subjects}
\begin{tabular}{lrrr}
Project & LoC & Commits & Stars \\
\hline
requests & 11,204 & 6,112 & 51,000 \\
flask & 9,870 & 4,890 & 66,000 \\
\end{tabular}
\end{table}

\begin{table}
\caption{Execution time (s) and memory overhead of the analysis}
\begin{tabular}{lrr}
Project & Time (s) & Overhead \\
requests & 12.41 & 1.8x \\
flask & 8.02 & 1.3x \\
\end{tabular}
\end{table}
"""


@pytest.fixture(scope="module")
def tables() -> list[Table]:
    found = parse_tables(PAPER)
    assert len(found) == 4
    return found


def test_dataset_description_is_descriptive(tables):
    r = table_role(tables[0], PAPER)
    assert r.role == "descriptive", r.reason
    assert any("data set" in s for s in r.descriptive_signals)
    assert any("counts" in s for s in r.descriptive_signals)


def test_metrics_against_baselines_is_results(tables):
    r = table_role(tables[1], PAPER)
    assert r.role == "results", r.reason
    assert {"precision (caption/header)", "recall (caption/header)"} <= set(r.results_signals)
    assert any("method row" in s for s in r.results_signals)


def test_subject_projects_latex_table_is_descriptive(tables):
    r = table_role(tables[2], PAPER)
    assert r.role == "descriptive", r.reason


def test_measured_time_and_overhead_is_results(tables):
    r = table_role(tables[3], PAPER)
    assert r.role == "results", r.reason


def test_citing_sentence_helps():
    t = Table(label="Table 3", caption="", header=["", "A", "B"], rows=[["x", "0.91", "0.85"], ["y", "0.88", "0.80"]])
    assert table_role(t).role == "unknown"
    r = table_role(t, "Table 3 compares the accuracy of our approach with the baselines.")
    assert r.role == "results", r.reason


def test_no_signals_is_unknown_never_results():
    t = Table(header=["", "", ""], rows=[["a", "x", "y"], ["b", "z", "w"]])
    r = table_role(t)
    assert r.role == "unknown" and r.reason
    json.dumps(r.to_dict())


def test_mixed_signals_are_unknown():
    t = Table(caption="Dataset statistics and accuracy", header=["set", "size", "accuracy"],
              rows=[["a", "120", "0.91"], ["b", "130", "0.85"]])
    assert table_role(t).role == "unknown"
