"""Where each value of the filled table comes from, on scripts in the shapes another team's reproductions take:
archive members, extraction inside a container, committed files appended after a run, the script's own arithmetic
over shipped data, database queries, here-documents filled from variables, and values no reading can trace."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from artifactcopilot.cli import app
from artifactcopilot.repro.judges import judge_method

SHAPES = Path(__file__).resolve().parent.parent / "fixtures" / "repro" / "shapes"


def verdict(name: str):
    return judge_method((SHAPES / name).read_text(encoding="utf-8"), None)


@pytest.mark.parametrize("name, source", [
    ("archive_unzip.sh", "bundle/experiment_data.zip/run/metrics.txt"),
    ("archive_tar_python.sh", "shipped/campaign.tar.gz/campaign/table3.csv"),
    ("archive_tar_python.sh", "shipped/extra.zip/out/recall_by_tool.csv"),
    ("container_extract.sh", "results/expected_output.txt"),
    ("committed_after_run.sh", "results/table3_committed.csv"),
])
def test_values_read_from_shipped_results_are_a_copy(name, source):
    v = verdict(name)
    assert v.method == "copy" and not v.accepted, v.reasons
    assert source in [f.source for f in v.flow], [f.model_dump() for f in v.flow]


def test_the_script_own_arithmetic_over_shipped_data_is_last_mile():
    v = verdict("lastmile_inline.sh")
    assert v.method == "last_mile", v.reasons
    assert any(f.source == "collected/detections.csv" for f in v.flow)


def test_a_database_query_that_counts_is_last_mile():
    v = verdict("lastmile_sql.sh")
    assert v.method == "last_mile", v.reasons
    assert any(f.source == "database:study" for f in v.flow)


def test_a_here_document_filled_from_the_run_is_full_and_the_template_numbers_are_given():
    v = verdict("full_heredoc_vars.sh")
    assert v.method == "full", v.reasons
    assert any("run_detector.py" in " ".join(f.through) for f in v.flow)


def test_a_needed_value_that_cannot_be_traced_leaves_the_table_undetermined():
    v = verdict("untraced_part.sh")
    assert v.method == "undetermined" and not v.accepted, v.reasons
    assert any("step2.sh" in f.source or "step2.sh" in f.value + " ".join(f.through) for f in v.flow)


def test_judge_method_json_shows_the_deciding_flow_with_lines():
    result = CliRunner().invoke(app, ["judge", "method", str(SHAPES / "container_extract.sh"), "--json"])
    data = json.loads(result.stdout)
    assert data["method"] == "copy" and data["flow"], data
    flow = data["flow"][0]
    assert flow["value"].startswith("line 10: artisan format")
    assert flow["through"][0].startswith("line 9: docker cp")
    assert any(t.startswith("line 7: printf") for t in flow["through"])  # the line it is on
    assert flow["source"] == "results/expected_output.txt"


def test_the_report_shows_the_deciding_flow_in_one_line():
    from artifactcopilot.report.results import _table
    from artifactcopilot.report.sections import results_section
    from artifactcopilot.repro.reader.trace import one_line

    v = verdict("archive_unzip.sh")
    entry = {"table": "Table 3", "matched": 1, "total": 1, "method": v.method, "method_reasons": v.reasons,
             "method_flow": one_line(v.flow[0]),
             "cells": [{"row": "Ours", "column": "Precision", "expected": "0.91", "produced": "0.91",
                        "matched": True, "kind": "match"}]}
    table = _table(entry, "D4-001-comparison")
    assert table is not None
    text = "\n".join(results_section([table], lambda ids: ", ".join(ids), False))
    line = next(x for x in text.splitlines() if "Method:" in x).replace("\\_", "_")
    assert "copy: line 5: artisan format" in line and "bundle/experiment_data.zip/run/metrics.txt" in line
    assert "line 4: unzip -p bundle/experiment_data.zip run/metrics.txt" in line


def judged(script: str):
    return judge_method(script, None)


FORMAT = "artisan format --expected /workspace/expected.md --repro /workspace/repro.txt\n"


def test_a_shipped_archive_member_shown_is_a_copy_whatever_its_name():
    v = judged("unzip -p shipped.zip dump/values.txt | sed 's/,/ | /g' > /workspace/repro.txt\n" + FORMAT)
    assert v.method == "copy", v.reasons
    assert v.flow[0].source == "shipped.zip/dump/values.txt"


def test_a_program_the_script_writes_is_read_where_it_runs():
    script = ("cat > /workspace/count.sh <<'EOF'\n#!/bin/bash\nFILES=(a.c b.c)\n"
              "n=$(cat results/committed_counts.txt | grep total)\necho \"$n\"\nEOF\n"
              "bash /workspace/count.sh > /workspace/repro.txt\n" + FORMAT)
    v = judged(script)
    assert v.method == "copy", v.reasons
    assert v.flow[0].source == "results/committed_counts.txt"
    assert any(t.startswith("/workspace/count.sh line") for t in v.flow[0].through)


def test_a_tool_run_after_the_script_builds_it_is_full():
    script = ("docker exec box bash -c 'cd /src && ./compile'\n"
              "docker exec box bash -c '/src/bin/checker' > /workspace/repro.txt\n" + FORMAT)
    assert judged(script).method == "full"
    unbuilt = "/src/bin/checker > /workspace/repro.txt\n" + FORMAT  # on the host, nothing says whose program it is
    assert judged(unbuilt).method == "undetermined"


def test_a_statistics_program_fits_the_study_models():
    script = "docker exec r bash -c 'cd /data/study && Rscript Survey-Statistics.r' > /workspace/repro.txt\n" + FORMAT
    assert judged(script).method == "full"
    summary = "docker exec r bash -c 'cd /data/study && python3 summarize_results.py' > /workspace/repro.txt\n" + FORMAT
    assert judged(summary).method == "last_mile"


START = "docker run -d --name box{mount} --entrypoint bash tool/image:1 -c 'sleep infinity'\n"
RUN = "docker exec box bash -c \"cd /app && python3 main.py --dataset d1 --epochs 10\"\n"


@pytest.mark.parametrize("mount, show, expected", [
    ("", "cat /workspace/artifact/results/table4.csv > /workspace/repro.txt\n", "copy"),
    (" -v /workspace:/workspace", "cat /workspace/artifact/results/table4.csv > /workspace/repro.txt\n", "full"),
    ("", "docker exec box cat /app/results/table4.csv > /workspace/repro.txt\n", "full"),
])
def test_a_run_inside_a_container_without_a_mount_writes_nothing_the_host_shows(mount, show, expected):
    v = judged(START.format(mount=mount) + RUN + show + FORMAT)
    assert v.method == expected, v.reasons




def test_shell_arithmetic_over_shipped_data_is_last_mile():
    v = judged("awk -F, 'NR>1 {s+=$4; n++} END {printf \"%.2f\\n\", s/n}' dataset/repos.csv > /workspace/repro.txt\n"
               + FORMAT)
    assert v.method == "last_mile", v.reasons
    assert v.flow[0].source == "dataset/repos.csv"


@pytest.mark.parametrize("show", [
    # reformatting a shipped results file: rescaled, rounded, columns picked (R from a shell line, awk, jq)
    "Rscript -e 'd <- read.csv(\"artifact/output/final_table.csv\"); d$acc <- round(d$acc, 2); "
    "write.csv(d, \"/workspace/repro.txt\")'\n",
    "awk -F, 'NR>1 {printf \"%s | %.1f\\n\", $1, $2*100}' output/summary.csv > /workspace/repro.txt\n",
    "jq -r '.runs[] | \"\\(.tool) | \\(.precision)\"' shipped/results.json > /workspace/repro.txt\n",
])
def test_reformatting_a_shipped_results_file_is_a_copy(show):
    v = judged(show + FORMAT)
    assert v.method == "copy" and not v.accepted, v.reasons
