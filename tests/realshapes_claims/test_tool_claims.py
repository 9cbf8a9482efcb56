"""Tool papers told from study papers by the paper's words; test runners' summaries; new inputs of a documented form."""
from __future__ import annotations

import csv
import io
import json

from artifactcopilot.claims.newinput import delimited, dimacs, json_lines, new_input, python_package
from artifactcopilot.claims.testsuite import read_test_summary
from artifactcopilot.claims.toolpaper import tool_claims

TOOL = ("We present CallMap, an open-source static analysis tool that builds the call graph of a Python package. "
        "Given a folder of Python modules as input, it outputs the call edges as JSON.")
STUDY = ("The paper presents the first exploratory study of deprecated Python library APIs. Examining six "
         "libraries and 1,200 GitHub projects, the authors observe that contributors handle deprecation poorly.")
USAGE_README = "# dlint\n\n## Usage\n\n```\nusage: main.py PROJECT_DIR THREADS\n```\n\nOutput: a CSV of calls.\n"


def test_a_paper_presenting_a_tool_is_a_tool_paper():
    claims = tool_claims(TOOL, TOOL)
    assert claims.tool and "CallMap" in claims.reason


def test_a_study_paper_is_not_a_tool_paper_whatever_its_readme_says():
    claims = tool_claims(STUDY, STUDY, USAGE_README)
    assert not claims.tool and claims.docs_describe_tool
    assert "study" in claims.reason


def test_a_technique_given_by_its_input_and_output_counts_with_the_docs_usage():
    abstract = ("SampleGen is a sampling-based algorithm for covering arrays: the input is a formula in CNF and "
                "the output is a covering array, one configuration per line.")
    assert tool_claims(abstract, abstract, USAGE_README).tool
    assert not tool_claims("", "").tool


def test_test_runner_summaries():
    assert read_test_summary("===== 12 passed, 1 skipped in 0.52s =====").verdict == "passed"
    failed = read_test_summary("=== 3 failed, 9 passed in 1.10s ===")
    assert failed.verdict == "failed" and failed.failed == 3 and failed.passed == 9
    assert read_test_summary("", "....\nRan 4 tests in 0.01s\n\nOK\n").verdict == "passed"
    assert read_test_summary("Ran 4 tests in 0.01s\n\nFAILED (failures=1)\n").verdict == "failed"
    assert read_test_summary("test result: ok. 7 passed; 0 failed; 0 ignored").verdict == "passed"
    assert read_test_summary("Tests run: 5, Failures: 0, Errors: 0").verdict == "passed"
    assert read_test_summary("hello world\n").verdict == "not_established"
    assert read_test_summary("=== 2 passed in 0.1s ===", exit_code=1).verdict == "failed"


EXAMPLE_CSV = "region,product,units\nnorth,apple,12\nsouth,pear,7\neast,plum,3\nwest,fig,30\n"


def test_a_new_csv_keeps_the_documented_columns_and_repeats_no_example_row():
    new = delimited(EXAMPLE_CSV, "data/sales.csv", ".t")
    assert new is not None and new.path == ".t/sales-new.csv"
    rows = list(csv.reader(io.StringIO(new.files[new.path])))
    assert rows[0] == ["region", "product", "units"]
    example = list(csv.reader(io.StringIO(EXAMPLE_CSV)))[1:]
    assert rows[1:] and not any(r in example for r in rows[1:])
    assert delimited("a,b\n1,2\n", "x.csv", ".t") is None  # one row: no form to learn from


def test_new_json_lines_and_dimacs_and_package():
    lines = "".join(json.dumps({"md5": f"h{i}", "av_labels": [f"L{i}"]}) + "\n" for i in range(4))
    new = json_lines(lines, "ex.jsonl", ".t")
    records = [json.loads(ln) for ln in new.files[new.path].splitlines()]
    assert records and all(set(r) == {"md5", "av_labels"} for r in records)
    assert not any(json.dumps(r) + "\n" in lines for r in records)
    cnf = new_input("inst/a.cnf", "c x\np cnf 3 2\n1 -2 0\n2 3 0\n", ".t")
    text = cnf.files[cnf.path]
    header = [ln for ln in text.splitlines() if ln.startswith("p cnf")][0].split()
    clauses = [[int(x) for x in ln.split()[:-1]] for ln in text.splitlines() if ln and ln[0] not in "cp"]
    assert len(clauses) == int(header[3]) and all(any(x > 0 for x in c) for c in clauses)  # all-true satisfies it
    assert all(abs(x) <= int(header[2]) for c in clauses for x in c)
    assert dimacs("no header", "a.cnf", ".t") is None
    pkg = python_package("src", ".t/package")
    assert ".t/package/transfer_pkg/__init__.py" in pkg.files and len(pkg.files) >= 4
    for path, code in pkg.files.items():
        compile(code, path, "exec")


def test_shipped_expected_output_beside_an_example_input():
    from artifactcopilot.claims.shipped import compare_shipped, expected_siblings

    files = ["examples/a.bin", "examples/a.json", "examples/b.bin", "examples/b_expected.txt", "src/a.json",
             "examples/readme.md"]
    assert expected_siblings("examples/a.bin", files) == ["examples/a.json"]
    assert expected_siblings("examples/b.bin", files) == ["examples/b_expected.txt"]
    want = '{"out": {"opt_id": 34, "p_opt": "313233"}}'
    assert compare_shipped(want, 'log line\n{"p_opt": "313233", "opt_id": 34}').verdict == "match"
    assert compare_shipped(want, '{"opt_id": 34, "p_opt": "000000"}').verdict == "partial"
    assert compare_shipped("zbot 3\nvirut 2\n", "zbot 3\nvirut 2\n").verdict == "match"

