"""The general rules behind the verdicts, one by one: the quantity a table holds, output with no substance, who
changed a file, documented claim ties, and a data set's recomputed statements."""
from __future__ import annotations

from artifactcopilot.claims.datasets import DataCheck, check_schema, documented_columns, recompute, statements
from artifactcopilot.claims.mapping import agreement, map_each, map_structure
from artifactcopilot.claims.quantity import incomparable, kinds
from artifactcopilot.discovery.claimties import definitions, keys_in, tie_claims
from artifactcopilot.discovery.model import Step
from artifactcopilot.sandbox.echoes import echo_templates
from artifactcopilot.sandbox.outcome import judge
from artifactcopilot.tables import Table
from artifactcopilot.tools.writes import artifact_wrote

SECONDS = Table(label="Table 4", caption="Execution time (in seconds)", header=["Pair", "Hadamard", "Ours"],
                rows=[["Adult–age", "2140.5", "1520.3"], ["Taxi–fare", "990.4", "745.0"]])
SHARES = Table(label="Table 2", caption="Share of cases beating the baseline (%)", header=["Pair", "Hadamard", "Ours"],
               rows=[["Adult–age", "52.0", "64.0"], ["Taxi–fare", "60.1", "80.3"]])
OUTPUT = "pair,Hadamard,Ours\nAdult–age,0.535,0.661\nTaxi–fare,0.619,0.789\n"


def test_the_kind_a_caption_states():
    assert kinds("Execution time (in seconds)") == {"time"}
    assert kinds("Number of respondents") == {"count"} and "rate" in kinds("Precision (%)")
    assert kinds("error rate") == {"error", "rate"} and kinds("Adult Census Ours") == set()
    assert "holds time, the output rate" in incomparable({"time"}, {"rate"}, [1.0], [1.0])
    assert incomparable({"error", "rate"}, {"rate"}, [0.3], [0.4]) == ""


def test_shares_are_not_compared_with_seconds_but_with_the_shares_table():
    unlike = map_structure(SECONDS, OUTPUT, "results/beats_baseline.csv")
    assert unlike is not None and unlike.verdict == "not comparable" and not unlike.cells
    assert "another scale" in unlike.comparable and "not its quantity" in unlike.short()
    like = map_structure(SHARES, OUTPUT, "results/beats_baseline.csv")
    assert like.verdict == "close" and agreement(like) > agreement(unlike)
    assert map_structure(SECONDS, OUTPUT.replace("pair,", "pair,").replace("0.", "0."), "time_s.csv").comparable


def test_far_off_run_times_with_their_ordering_kept_only_differ():
    out = "pair,Hadamard,Ours\nAdult–age,4300.0,3100.2\nTaxi–fare,2200.9,1400.1\n"
    m = map_structure(SECONDS, out, "runtime.csv")
    assert m.counts()["far"] == 4 and m.ordering_holds and m.verdict == "differs"


def test_each_table_in_an_output_is_paired_on_its_own():
    text = OUTPUT + "\n\n" + OUTPUT.replace("0.5", "0.9")
    assert [m.output for m in map_each(SHARES, text, "stdout")] == [0, 1]


def test_cells_on_one_scale_with_a_signed_difference():
    m = map_structure(SHARES, OUTPUT, "x")
    cell = next(c for c in m.cells if c.row == "Adult–age" and c.column == "Hadamard")
    assert cell.on_scale(m.percent) == "53.5%" and cell.difference() == "+1.5 points"
    assert m.to_dict()["cells"][0]["on_scale"] == "53.5%"


# shape 5 ----------------------------------------------------------------------------------------------------------

def test_an_error_and_an_echo_are_no_output():
    script = 'echo "Running experiment 1 ..."\npython3 scripts/exp1.py\necho "done"'
    out = judge(0, False, "Running experiment 1 ...\ndone\n",
                "python3: can't open file '/a/scripts/exp1.py': [Errno 2] No such file or directory\n",
                echoes=echo_templates(script))
    assert out.verdict == "invalid" and "its only output is 1 error line" in out.reasons[0]
    assert "2 lines echoing the command's own text" in out.reasons[0]


def test_an_echo_of_a_measured_value_is_output():
    script = 'echo "accuracy: $acc"'
    out = judge(0, False, "accuracy: 0.93\n", "", echoes=echo_templates(script))
    assert out.verdict == "valid"


def test_a_usage_text_after_an_error_is_no_output():
    out = judge(0, False, "error: missing --input\nusage: tool.py [-h] --input IN\n  -h, --help  show help\n", "")
    assert out.verdict == "invalid" and "a usage text" in out.reasons[0]


def test_a_passing_test_run_that_could_not_start_its_program_is_not_valid():
    out = judge(0, False, "", "/bin/sh: 1: julia: not found\n.\n------\nRan 1 test in 0.2s\n\nOK\n")
    assert out.verdict == "invalid" and "`julia` is not installed" in out.reasons[0]
    assert judge(0, False, "", ".\n------\nRan 1 test in 0.2s\n\nOK\n").verdict == "valid"


# shape 4 ----------------------------------------------------------------------------------------------------------

def test_who_changed_the_file(tmp_path):
    (tmp_path / "instrument.py").write_text("print(1)\n")
    (tmp_path / "experiments").mkdir()
    documented = {"python3 instrument.py --in-place examples/test_driver.py"}
    assert artifact_wrote("python3 instrument.py --in-place examples/test_driver.py", tmp_path, ".", documented)
    assert artifact_wrote("cd .. && python3 instrument.py --in-place x.py", tmp_path, "experiments", set())
    assert artifact_wrote("dynapyt --instrument x.py", tmp_path, ".", {"dynapyt --instrument y.py"})
    assert not artifact_wrote("sed -i 's/a/b/' examples/test_driver.py", tmp_path, ".", documented)
    assert not artifact_wrote("sed -i 's/a/b/' x.py && python3 instrument.py x.py", tmp_path, ".", documented)
    assert not artifact_wrote("python3 -c \"open('x.py','w').write('')\"", tmp_path, ".", documented)
    assert not artifact_wrote("echo x > model.py", tmp_path, ".", documented)
    assert not artifact_wrote("2to3 -w x.py", tmp_path, ".", documented)
    assert not artifact_wrote("python3 elsewhere.py", tmp_path, ".", documented)


# shape 6 ----------------------------------------------------------------------------------------------------------

APPENDIX = """## Main Results and Claims

#### Main Result 1: Lower error

Our oracle has a lower error than the Laplace mechanism (Section 5, Table 3).

#### Main Result 2: Fast

It is fast (Figure 4).

## Experiments

#### Experiment 1: Error comparison

This experiment supports Main Result 1:

```
python3 compare.py
```

(E2) Timing [C2]: run `python3 timing.py`.
"""


def test_claim_experiment_command_ties():
    found = {d.key: d for d in definitions("A.md", APPENDIX)}
    assert set(found) == {"Claim 1", "Claim 2", "Experiment 1", "Experiment 2"}
    assert found["Claim 1"].refs == ["Section 5", "Table 3"] and found["Experiment 1"].names == {"Claim 1"}
    assert keys_in("supports claims C1 and C3") == {"Claim 1", "Claim 3"}
    line = APPENDIX.splitlines().index("python3 compare.py") + 1
    step = Step(cmd="python3 compare.py", inner="python3 compare.py", runner=None, kind="workflow",
                source=f"A.md:{line}", section="Experiment 1: Error comparison")
    timing = Step(cmd="python3 timing.py", inner="python3 timing.py", runner=None, kind="workflow",
                  source=f"A.md:{len(APPENDIX.splitlines())}", section="Experiments")
    tie_claims([step, timing], [("A.md", APPENDIX)])
    assert step.mentions == ["Claim 1", "Section 5", "Table 3"]
    assert timing.mentions == ["Claim 2", "Figure 4"]


# shape 7 ----------------------------------------------------------------------------------------------------------

def _loaded(benign: int) -> list[dict]:
    return [{"file": "a.csv", "delimiter": ";", "header": ["id", "label"], "rows": benign + 209, "ragged": 0,
             "columns": [{"name": "id", "values": {}, "lines": {}, "numeric": None},
                         {"name": "label", "values": {"benign": benign, "malicious": 209},
                          "lines": {"benign": [2, 3], "malicious": [9, 10]}, "numeric": None}]}]


PAPER = ("Our data set holds 412 accounts: 203 benign accounts and 209 malicious accounts. "
         "Participants rated it on 0-100 scales in the banking video condition.")


def test_counts_the_paper_states_recomputed_from_the_rows():
    said = statements(PAPER, [])
    check = recompute(check_schema(_loaded(203), {"id", "label"}), said)
    assert [(c.statement, c.verdict) for c in check.checks] == [("412", "holds"), ("203", "holds"),
                                                                 ("209", "holds")]
    assert "first at lines 2, 3" in check.checks[1].rows and not check.contradicts
    wrong = recompute(check_schema(_loaded(150), {"id", "label"}), said)
    assert [c.verdict for c in wrong.checks] == ["does not hold", "holds"] and not wrong.contradicts
    again = statements(PAPER + " Of them, 203 were benign.", [])
    assert recompute(check_schema(_loaded(150), set()), again).contradicts


def test_schema_and_documented_columns():
    cols = documented_columns(["| Column | Description |\n|---|---|\n| label | benign or malicious |\n`id` is an id"])
    assert {"label", "id"} <= cols
    check = check_schema(_loaded(203) + [{"file": "b.csv", "error": "UnicodeError: x"}], cols)
    assert "a.csv: 412 rows × 2 columns (semicolon-separated); 2 of 2 columns described" in check.schema[0]
    assert check.problems == ["b.csv: UnicodeError: x"] and not check.loaded
    assert DataCheck().to_dict()["contradicts"] is False
