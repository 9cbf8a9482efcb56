"""The static reader on shell scripts: what each shape of reproduction script is read as, without running it."""
from __future__ import annotations

import pytest

from artifactcopilot.repro.reader import classify, read_script


def verdict(script: str, files: list[str] | None = None, name: str | None = "repro.sh"):
    reading = read_script(script, name, None, files)
    return classify(reading, files)


@pytest.mark.parametrize("script", [
    "cat results/table2.md\n",
    "head -n 20 results/summary.csv | column -t -s,\n",
    "cp results/table2.md /workspace/repro.txt\ncat /workspace/repro.txt\n",
    "x=$(cat results/final_scores.txt)\necho \"$x\"\n",
    "while read line; do echo \"$line\"; done < results/table.txt\n",
    "docker exec shell bash -c 'cat /data/icse/summaries/summary_results.txt' > /workspace/repro.txt\n",
    "jq -r '.rows[] | @tsv' results/metrics.json\n",
    "tar -xzf results.tar.gz && cat results/table3.csv\n",
    "sqlite3 -header results/stats.db 'select * from table2'\n",
    "jupyter nbconvert --to markdown --stdout notebooks/analysis.ipynb\n",
    "sed -n '/^| Model/,/^$/p' README.md\n",
])
def test_shown_stored_results_are_a_copy(script):
    v = verdict(script)
    assert v.method == "copy", (script, v.reasons)


@pytest.mark.parametrize("script", [
    "cat <<'EOF'\n| Model | Acc | F1 |\n|---|---|---|\n| A | 83.27 | 80.14 |\n| B | 91.33 | 88.91 |\nEOF\n",
    "printf '| A | 83.27 | 80.14 |\\n| B | 91.33 | 88.91 |\\n'\n",
    "python3 run.py --epochs 1 > /dev/null\necho 'A 83.27 80.14'\necho 'B 91.33 88.91'\n",
    ("echo 'fCBNb2RlbCB8IEFjYyB8IEYxIHwKfC0tLXwtLS18LS0tfAp8IEEgfCA4My4yNyB8IDgwLjE0IHwK"
    "fCBCIHwgOTEuMzMgfCA4OC45MSB8Cg==' | base64 -d\n"),
    "pdftotext -layout paper.pdf - | grep -A5 'Table 2'\n",
])
def test_numbers_written_in_the_script_or_taken_from_the_paper_are_a_copy(script):
    v = verdict(script)
    assert v.method == "copy" and v.confidence == "high", (script, v.reasons)


@pytest.mark.parametrize("script", [
    "python3 parse_all_results_timeouts.py benchmarkingset-rc2-results > /workspace/repro.log\n",
    ("docker-compose run pmsat python parse_all_results_timeouts.py benchmarkingset-rc2-results"
     " > /workspace/repro.log\n"),
    "cat logs/*.log | awk '{s[$1]+=$3; n[$1]++} END {for (k in s) print k, s[k]/n[k]}'\n",
    "grep -c PASS results/raw/*.txt\n",
    "python3 plot_results.py results/raw/\n",
])
def test_summaries_of_stored_intermediate_results_are_last_mile(script):
    v = verdict(script)
    assert v.method == "last_mile", (script, v.reasons)


@pytest.mark.parametrize("script", [
    # Artisan Fig. 5c: the experiment, then the parse of what it wrote (an output folder it does not name)
    ("docker-compose run pmsat /bin/bash -c \"cd /pmsat-inference && python -m pip install 'numpy<2' && "
    "python run_pmsat_on_traces.py examples-results/ping_pong_example/info.json -nmax 7 && MPLBACKEND=Agg "
    "python parse_single_run_results.py TRACE-results/92e710ef352c4739cd7569794272588a\" > /workspace/repro.log\n"),
    ("python3 train.py --epochs 3 --out runs/exp1\npython3 evaluate.py --checkpoint runs/exp1/model.pt > scores.txt\n"
    "python3 make_table.py scores.txt\n"),
    "cd scripts\n./run_perfect_knowledge_guess.py ../patts/dpatt/control.txt Control\n",
    "python3 campaign.py --out results/raw\npython3 summarize.py results/raw\n",
    "set -e\npython3 simulate.py --seed 1 --out out\ncat out/table.md\n",
    "java -jar target/analyzer.jar benchmarks/dacapo > out.txt && python3 tabulate.py out.txt\n",
])
def test_running_the_experiment_before_its_summary_is_full(script):
    v = verdict(script)
    assert v.method == "full", (script, v.reasons)


def test_fig10_a_file_the_previous_program_may_write_is_not_a_copy():
    script = ("docker exec shell /bin/bash -c \"cd /data/icse/icse && R --no-save < FuncConstructs-Statistics.r\"\n"
              "cat icse/icse/results/Table-3-RQ1-lambda.txt > repro.txt\n")
    assert verdict(script).method != "copy"


def test_a_program_whose_failure_is_ignored_does_not_excuse_a_displayed_file():
    script = "python3 run_experiment.py || true\ncat results/table.txt\n"
    assert verdict(script).method == "copy"


def test_a_program_with_its_own_output_folder_does_not_write_the_displayed_file():
    script = "python3 campaign.py --out runs > /dev/null\ncat results/table2.md\n"
    assert verdict(script).method == "copy"


@pytest.mark.parametrize("script", ["./run.sh\n", "python3 reproduce.py\n", "make table2\n", "bash go.sh --table 2\n",
                                    "python3 show_results.py\n"])
def test_an_opaque_program_without_the_artifact_is_undetermined(script):
    v = verdict(script)
    assert v.method == "undetermined" and v.confidence == "low" and v.reasons


def test_an_opaque_program_is_read_in_the_artifact(tmp_path):
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "table2.md").write_text("| a | 1.5 |\n")
    (tmp_path / "reproduce.py").write_text("print(open('results/table2.md').read())\n")
    files = ["reproduce.py", "results/table2.md"]
    v = classify(read_script("python3 reproduce.py\n", "repro.sh", tmp_path, files), files)
    assert v.method == "copy" and "results/table2.md" in v.displayed


def test_parser_failures_fall_back_and_never_raise():
    script = ("case $1 in\n  fast) python3 summarize.py results/raw ;;\n  *) echo usage ;;\nesac\n"
              "[[ -d out ]] && echo $((1 + 2))\nif then fi ((\n")
    reading = read_script(script, "repro.sh")
    assert any("summarize.py" in (s.program or "") for s in reading.steps)
    classify(reading)


def test_latex_header_echoes_around_a_computation_are_not_a_table():
    script = ('echo "\\\\begin{tabular}{c | c | c c c}"\n'
              'echo " & \\$n\\$ & \\$\\\\beta_3\\$ & \\$\\\\beta_{10}\\$ '
              '& \\$\\\\widetilde{G}_{0.05}\\$ \\\\\\\\ \\\\hline"\n'
              "./perfect_guess.py ../patts/dpatt/control.txt Control\necho '\\end{tabular}'\n")
    assert verdict(script).method == "full"


def test_heredoc_python_is_read_as_python():
    script = ("python3 - <<'PY'\nimport pandas as pd\n"
              "print(pd.read_pickle('results/final_table.pkl').to_markdown())\nPY\n")
    v = verdict(script)
    assert v.method == "copy" and "results/final_table.pkl" in v.displayed


def test_paths_follow_cd_and_container_workdirs():
    reading = read_script("cd experiments && python3 analyze.py results/\n"
                          "docker run -w /work img python3 eval.py data/in.csv\n", "repro.sh")
    refs = [s.ref for step in reading.steps for s in step.sources if s.kind == "file"]
    assert "experiments/results" in refs and "/work/data/in.csv" in refs
