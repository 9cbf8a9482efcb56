"""Result tables as Markdown papers print them: captions over a note, empty and multi-row headers, two label
columns, thousands separators, percentages, ±, shares in parentheses; compared at printed precision; the table
the paper calls its main results."""
from __future__ import annotations

from artifactcopilot.claims.roles import table_role
from artifactcopilot.tables import parse_tables
from artifactcopilot.tables.compare import best_match
from artifactcopilot.tables.numbers import parse_number

PAPER = """
**Table 1: Collected repositories and links**

Per language: candidate repositories and links found in their comments.

| language | # repos | # links | share |
|---|---|---|---|
| C | 2,771 | 1,405,525 | (27.69%) |
| Java | 4,995 | 2,925,909 | (72.31%) |

**Table 2: Comparison of the settings.**

The rows give the original and the measured values.

| | | | |
|---|---|---|---|
| Original ε used | 4 | 2 | 1 |
| Empirical ε | 4.00 | 2.00 | 1.03 |

**Table 3: Accuracy of each approach**

| Approach | Trace | Top-1 | Top-5 |
|---|---|---|---|
| | | acc | acc |
| Existing | Rand | 0.71±0.02 | 0.90±0.01 |
| Existing | RR | 0.75±0.01 | 0.92±0.01 |
| Ours | Split | 0.81±0.01 | 0.95±0.00 |

Table 3 shows our main results: Split beats both baselines.
"""


def test_markdown_result_tables_are_read_with_captions_headers_and_labels():
    t1, t2, t3 = parse_tables(PAPER)
    assert (t1.label, t2.label, t3.label) == ("Table 1", "Table 2", "Table 3")  # captions over a note paragraph
    assert t2.header[:2] == ["Original ε used", "4"] and t2.rows[0][0] == "Empirical ε"  # empty header row
    assert t3.header == ["Approach Trace", "Top-1 acc", "Top-5 acc"]  # second header row merged
    assert [r[0] for r in t3.rows] == ["Existing Rand", "Existing RR", "Ours Split"]  # two label columns


def test_numbers_as_printed():
    assert parse_number("1,405,525").value == 1405525
    pct = parse_number("27.69%")
    assert pct.percent and pct.decimals == 2 and pct.value == 27.69
    assert parse_number("0.92±0.01").decimals == 2
    assert parse_number("(81.2%)").value == 81.2


def test_compared_at_printed_precision():
    t1, _, t3 = parse_tables(PAPER)
    ok = best_match(t3, "approach,top1,top5\nRand,0.7149,0.9012\nRR,0.7521,0.9150\nSplit,0.8098,0.9540\n")
    assert ok is not None and ok.success
    off = best_match(t3, "approach,top1,top5\nRand,0.7149,0.9012\nRR,0.7521,0.9150\nSplit,0.8151,0.9540\n")
    assert off is not None and not off.success and off.matched == 5
    links = best_match(t1, "language repos links share\nC 2771 1405525 0.2769\nJava 4995 2925909 0.7231\n")
    assert links is not None and links.success


def test_the_main_results_table_is_the_one_the_paper_names():
    from artifactcopilot.claims.roles import main_results_table

    tables = parse_tables(PAPER)
    main = main_results_table(tables, PAPER)
    assert main is not None and main.label == "Table 3" and "Table 3 shows our main results" in main.reason
    caption = "**Table 1. Summary of our experimental evaluation.**\n\n| Approach | A | B |\n|---|---|---|\n" \
              "| X | 1.5 | 2.5 |\n| Y | 3.5 | 4.5 |\n"
    t = parse_tables(caption)
    assert table_role(t[0]).role == "results"
    assert main_results_table(t, caption).label == "Table 1"
    assert main_results_table(tables[:2], PAPER) is None  # the paper names no other table as its main results
