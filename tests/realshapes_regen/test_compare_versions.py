"""claims.regenerated: a committed result file against the version a run wrote, at printed precision."""
from __future__ import annotations

from artifactcopilot.claims.regenerated import compare_versions

COMMITTED = "queue,median_ms,max_ms\nkafka,4.20,9.90\nrabbit,2.50,7.25\n"


def test_raw_values_agree_at_the_committed_precision():
    new = "queue,median_ms,max_ms\nkafka,4.2000,9.9000\nrabbit,2.4999,7.2500\n"
    comp = compare_versions("results/summary.csv", COMMITTED, new)
    assert comp.verdict == "match", comp.cells
    assert comp.matched == comp.total == 6


def test_mismatch_is_listed_cell_by_cell():
    new = "queue,median_ms,max_ms\nkafka,4.70,9.90\nrabbit,2.50,8.00\n"
    comp = compare_versions("results/summary.csv", COMMITTED, new)
    assert comp.verdict == "mismatch"
    assert [(c.row, c.column, c.expected, c.produced) for c in comp.cells] == [
        ("row 1 (kafka)", "median_ms", "4.20", "4.70"), ("row 2 (rabbit)", "max_ms", "7.25", "8.00")]
    assert "2 of 6 values differ" in comp.line()


def test_columns_are_aligned_by_header_and_missing_rows_count():
    new = "max_ms,queue,median_ms\n9.9,kafka,4.2\n"
    comp = compare_versions("results/summary.csv", COMMITTED, new)
    assert comp.verdict == "mismatch"
    assert {c.row for c in comp.cells} == {"row 2 (rabbit)"} and all(c.produced is None for c in comp.cells)


def test_json_leaves_and_plain_text_lines():
    assert compare_versions("r.json", '{"acc": 0.91, "runs": [1, 2]}', '{"runs": [1, 2], "acc": 0.9123}').verdict \
        == "match"
    text = compare_versions("out.txt", "acc 0.91\nf1 0.80\n", "acc 0.912\nf1 0.85\n")
    assert text.verdict == "mismatch" and text.cells[0].expected == "0.80"


def test_empty_or_numberless_regeneration_is_never_a_match():
    assert compare_versions("results/summary.csv", COMMITTED, "").verdict == "mismatch"
    assert compare_versions("notes.txt", "see the paper\n", "see the paper\n").verdict == "not_comparable"
