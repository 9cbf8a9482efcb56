"""Outputs the documentation describes in words, checked on the text of the file a run wrote."""
from __future__ import annotations

import json

from artifactcopilot.claims.described import Description, read_descriptions
from artifactcopilot.claims.describedcheck import check_described

INPUT = "".join(f"a{i},b{i % 3},c\n" for i in range(6))


def test_shape_phrases_are_read_from_the_sentences_about_the_output():
    text = ("- input file must be a CSV file with one element per line\n"
            "- output file is a CSV file, same shape as the input file plus one column holding the cluster index\n\n"
            "The script writes `scores.tsv`, a TSV with columns id, name and score.\n\n"
            "It saves a JSON file with keys precision, recall and f1.\n\n"
            "This tool is fast and has no output worth describing.")
    got = read_descriptions("README.md", text)
    assert [(d.format, d.same_rows, d.extra_columns, d.extra_kind) for d in got][0] == ("csv", True, 1, "integer")
    assert (got[1].format, got[1].columns, got[1].file) == ("tsv", ["id", "name", "score"], "scores.tsv")
    assert (got[2].format, got[2].keys) == ("json", ["precision", "recall", "f1"])
    assert len(got) == 3  # the input line and the sentence without a shape are not descriptions


def test_a_data_frame_writer_header_and_row_index_are_not_extra_columns():
    desc = Description(source="README.md", sentence="", format="csv", same_rows=True, extra_columns=1,
                       extra_kind="integer")
    rows = INPUT.splitlines()
    written = ",0,1,2,3\n" + "".join(f"{i},{r},{i % 2}\n" for i, r in enumerate(rows[1:]))  # pandas' to_csv
    res = check_described(desc, "out.csv", written, "in.csv", INPUT)
    assert res.verdict == "match", res.reason
    assert "a row-index column" in res.reason


def test_columns_and_keys_are_looked_up():
    cols = Description(source="R", sentence="", format="csv", columns=["id", "score"])
    assert check_described(cols, "o.csv", "id,score\n1,0.5\n2,0.7\n").verdict == "match"
    res = check_described(cols, "o.csv", "id,value\n1,0.5\n2,0.7\n")
    assert (res.verdict, res.reason) == ("mismatch", "columns id, score (missing: score)")
    keys = Description(source="R", sentence="", format="json", keys=["recall", "f1"])
    assert check_described(keys, "o.json", json.dumps({"m": {"recall": 0.5, "f1": 0.4}})).verdict == "match"
    assert check_described(keys, "o.json", "not json").verdict == "mismatch"


def test_nothing_checkable_is_not_established_and_an_empty_file_is_a_mismatch():
    desc = Description(source="R", sentence="", format="csv", same_rows=True)
    res = check_described(desc, "o.csv", "x,1\ny,2\n")  # no input to count rows against
    assert res.verdict == "not_established" and "input could not be read" in res.reason
    truncated = check_described(desc, "o.csv", "x,1\ny,2\n", "in.csv", "x,1\ny,2\n", truncated=True)
    assert truncated.verdict == "not_established"
    assert check_described(desc, "o.csv", "  \n").verdict == "mismatch"
    assert check_described(desc, "o.csv", "one line of prose\n", "in.csv", INPUT).verdict == "mismatch"


def test_a_stated_number_of_lines_is_counted_and_file_names_are_not_formats():
    text = "The output, out.txt, will have 4 lines: 3 samples from a.json and 1 from b.csv."
    (desc,) = read_descriptions("README.md", text)
    assert (desc.format, desc.file, desc.lines) == ("", "out.txt", 4)
    assert check_described(desc, "out.txt", "s1 x\ns2 y\ns3 x\ns4 z\n").verdict == "match"
    res = check_described(desc, "out.txt", "s1 x\ns2 y\n")
    assert (res.verdict, res.reason) == ("mismatch", "2 lines, the documentation says 4")


def test_output_and_input_options_are_told_apart():
    from artifactcopilot.agents.heuristic.claimsdescribed import _options

    words = "-input_cnf_path x.cnf -output_testcase_path y.txt -k 3 --outfile=z.csv -i a -o b extra".split()
    assert _options(words) == (["y.txt", "z.csv", "b"], ["x.cnf", "a"], ["3", "extra"])


def test_an_example_line_after_an_output_sentence_ties_values_to_options_only_when_the_counts_agree():
    text = ("The output consists of lines, each a configuration. For a system with 3 options, a line `0 1 0` means "
            "x=0, y=1, z=0.\n\nFor a system with 4 options, a line `0 1` is shown.\n\n"
            "Input: a line `1 2 3` per clause.")
    got = read_descriptions("README.md", text)
    assert [(d.line_example, d.per_unit) for d in got] == [("0 1 0", "options")]  # no output word, no context: not read
    ok = check_described(got[0], "o.txt", "0 1 1\n1 1 0\n", "in.cnf", "p cnf 3 2\n1 -2 0\n2 3 0\n")
    assert ok.verdict == "match", ok.reason
    bad = check_described(got[0], "o.txt", "0 1 1\n1 2 0\n", "in.cnf", "p cnf 3 2\n1 -2 0\n")
    assert bad.verdict == "mismatch" and "not all 0/1" in bad.reason


def test_a_stated_count_belongs_to_the_command_it_follows():
    from artifactcopilot.agents.heuristic.claimsdescribed import _nearest

    (desc,) = read_descriptions("README.md", "# t\n\nRun it.\n\nThe output.txt will have 4 lines.\n")
    assert desc.line == 5
    steps = [{"source": "README.md:1"}, {"source": "README.md:7"}, {"source": "docs/x.md:5"}]
    assert _nearest(desc, steps) == "README.md:7"
    assert _nearest(desc, [{"source": "docs/x.md:5"}]) is None
