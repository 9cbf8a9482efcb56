"""claims.expected: a README's documented output block against what a run printed."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from artifactcopilot.claims import match_expected_output

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "claims"


def _blocks(readme: str) -> list[str]:
    """Unlabelled fenced blocks of a README, the way documentation shows expected output."""
    return [t.content for t in MarkdownIt().parse(readme) if t.type == "fence" and not t.info.strip()]


@pytest.fixture(scope="module")
def blocks() -> list[str]:
    return _blocks((FIXTURES / "README.md").read_text(encoding="utf-8"))


def test_readme_block_found_despite_prompt_elision_alignment_order_and_paths(blocks):
    r = match_expected_output(blocks[0], (FIXTURES / "run_stdout.txt").read_text(encoding="utf-8"))
    assert r.verdict == "match", r.reason
    assert (r.lines_total, r.lines_matched) == (2, 2)
    assert (r.numbers_total, r.numbers_matched) == (2, 2)
    assert r.ignored_kinds == {"prompt": 1, "elision": 1}
    assert r.missing == []


def test_readme_block_with_run_dependent_tokens_and_raw_numbers(blocks):
    r = match_expected_output(blocks[1], (FIXTURES / "run_eval.txt").read_text(encoding="utf-8"))
    assert r.verdict == "match", r.reason
    assert r.numbers_matched == r.numbers_total == 4  # "2" and three metrics at the documented precision
    assert r.ignored_kinds["duration"] == 1 and r.ignored_kinds["timestamp"] == 1 and r.ignored_kinds["resource"] == 1
    assert "left out" in r.reason


def test_exact_block():
    r = match_expected_output("alpha 1\nbeta 2\n", "alpha 1\nbeta 2\n")
    assert r.verdict == "match" and r.lines_matched == 2 and r.numbers_matched == 2


def test_reordered_lines_and_extra_output_still_match():
    r = match_expected_output("alpha 1\nbeta 2\ngamma 3", "loading...\ngamma   3\nalpha\t1\nbeta 2\ndone")
    assert r.verdict == "match", r.reason


def test_partial_block_names_missing_line_and_near_miss():
    doc = "Calculating scores\n120 out of 120\nPrecision: 90.81  Recall: 93.95"
    out = "Calculating scores\n119 out of 120\nPrecision: 90.8149 Recall: 93.9512"
    r = match_expected_output(doc, out)
    assert r.verdict == "partial"
    assert r.lines_matched == 2 and r.lines_total == 3
    assert r.missing == ["120 out of 120"]
    assert r.numbers_matched == 3 and r.numbers_total == 4  # 119 is not 120
    assert r.near_misses and r.near_misses[0].produced == "119 out of 120"


def test_number_off_at_printed_precision_is_not_a_match():
    r = match_expected_output("F1: 92.35", "F1: 92.3")
    assert r.verdict == "mismatch"
    assert r.near_misses[0].numbers_matched == 0


def test_mismatch_when_nothing_documented_appears():
    r = match_expected_output("zeroaccess 52\nwinwebsec 39", "Traceback (most recent call last):\nKeyError: 'x'")
    assert r.verdict == "mismatch"
    assert r.lines_matched == 0 and len(r.missing) == 2


def test_block_without_meaningful_content_is_not_established():
    r = match_expected_output("$ python run.py\n...\n-----\n", "anything")
    assert r.verdict == "not_established"
    assert "no comparable content" in r.reason
    assert r.ignored == 3


def test_no_produced_output_is_not_established():
    r = match_expected_output("accuracy 0.91", "   \n")
    assert r.verdict == "not_established" and "no produced output" in r.reason


def test_long_block_tolerates_a_drifting_line():
    doc = "\n".join(f"item{i} {i * 3}" for i in range(20))
    out = doc.replace("item7 21", "item7 22")
    r = match_expected_output(doc, out)
    assert r.verdict == "match" and r.lines_matched == 19


def test_run_dependent_tokens_are_ignored_and_counted():
    doc = ("[2021-01-02 10:11:12] wrote /home/alice/exp/out.csv\n"
           "object at 0x7f3a2b1c9d40 done\n"
           " 45%|████▌     | 45/100 [00:01<00:02, 30.12it/s]\n"
           "elapsed time: 12.5\n")
    out = ("[2025-06-07 01:02:03] wrote /tmp/run42/exp/out.csv\n"
           "object at 0x55d0c0ffee00 done\n"
           "elapsed time: 3.9\n")
    r = match_expected_output(doc, out)
    assert r.verdict == "match", r.reason
    assert r.ignored_kinds == {"timestamp": 1, "path": 1, "address": 1, "progress": 1, "duration": 1}


def test_percent_and_thousands_follow_table_semantics():
    assert match_expected_output("accuracy 45.2%", "accuracy 0.4523").verdict == "match"
    assert match_expected_output("links 9,654,702", "links 9654702").verdict == "match"


def test_numpy2_scalar_repr_equals_numpy1_repr():
    assert match_expected_output("(-200.0, 200.0)", "(np.float64(-200.0), np.float64(200.0))").verdict == "match"


def test_hostile_input_never_raises():
    for doc, out in [("\x00\x1b[31mred\x1b[0m 1", "red 1"), ("a " * 10_000, "a"), (None, None), ("1\r2\r3", "3")]:
        r = match_expected_output(doc, out)  # type: ignore[arg-type]
        assert r.verdict in ("match", "partial", "mismatch", "not_established")
        json.dumps(r.to_dict())


def test_large_output_stays_fast():
    out = "\n".join(f"epoch {i} loss {i / 7:.4f} acc {(i % 97) / 97:.4f}" for i in range(5_000))
    r = match_expected_output("epoch 4999 loss 714.1429 acc 0.5361\nepoch 5 loss 0.7143", out)
    assert r.verdict == "match", r.reason
