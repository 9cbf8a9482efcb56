"""Method-judge shapes of reproduction scripts written around a format tool (`artisan format --expected T --repro R`),
judged statically without the artifact: each test is one shape, with the flow that decides it."""
from __future__ import annotations

import pytest

from artifactcopilot.repro.judges import judge_method

FORMAT = "artisan format --expected /workspace/expected.md --repro /workspace/repro.txt\n"
FETCH = "artisan get https://zenodo.org/records/1\n"
START = "docker run -d --init --name box --entrypoint bash tool/image:2 -c 'sleep infinity'\n"


def judged(script: str):
    return judge_method(script, None)


@pytest.mark.parametrize("run", [
    # the artifact's program, named by nothing it computes, run in the artifact's container
    START + "docker exec box /bin/bash -c \"/opt/tool/precisionByLanguage.sh | tail -n 40\" > /workspace/repro.txt\n",
    START + "docker exec -w /opt/tool box ./go > /workspace/repro.txt 2>&1\n",
    # the services of the artifact's compose file, and an image's own entry point, in the foreground
    "(cd tool && docker-compose up --build) > /workspace/repro.txt 2>&1\n"
    "tail -n 80 /workspace/repro.txt > /tmp/t && mv /tmp/t /workspace/repro.txt\n",
    "docker load -i image.tar\ndocker run --rm tool/image:2 > /workspace/repro.txt 2>&1\n",
])
def test_an_opaque_program_of_the_artifact_run_in_its_container_is_full(run):
    v = judged(FETCH + run + FORMAT)
    assert v.method == "full", v.reasons
    assert v.flow and all(f.finding == "full" for f in v.flow)
    assert any("run in" in f.reason for f in v.flow), [f.model_dump() for f in v.flow]


@pytest.mark.parametrize("run, expected", [
    # the same program on the host, with nothing to say whose it is: not established
    ("./precisionByLanguage.sh > /workspace/repro.txt\n", "undetermined"),
    # a program in the container whose name says it shows stored results
    (START + "docker exec box /opt/tool/show_results.sh > /workspace/repro.txt\n", "undetermined"),
    # a container started in the background computes nothing the script shows; the shipped table is shown
    ("docker run -d --name box tool/image:2\ncat results/table3.csv > /workspace/repro.txt\n", "copy"),
])
def test_what_is_not_the_artifacts_program_at_work_is_not_full(run, expected):
    v = judged(run + FORMAT)
    assert v.method == expected, v.reasons


def test_a_script_that_gets_the_results_from_the_raw_runs_is_not_a_display():
    script = (FETCH + "cd tool/out && curl -o runs.zip https://zenodo.org/records/2/files/runs.zip && unzip runs.zip\n"
              "cd /workspace/tool && ./scripts/get_all_results.sh\n"
              "cat /workspace/tool/out/summary_per_tool.csv >> /workspace/repro.txt\n" + FORMAT)
    v = judged(script)
    assert v.method == "last_mile", v.reasons
    assert any("get_all_results.sh" in " ".join(f.through) + f.source for f in v.flow), [f.model_dump() for f in v.flow]
    shown = FETCH + "cat /workspace/tool/out/summary_per_tool.csv >> /workspace/repro.txt\n" + FORMAT
    assert judged(shown).method == "copy"  # without the step that gathers them, the stored numbers are shown


UNZIP = "unzip -q /workspace/tool-v1.zip -d /workspace/a\ncd /workspace/a/tool-1.0\n"


def test_a_format_named_option_whose_program_prints_the_numbers_names_its_input():
    v = judged(UNZIP + "python scripts/describe.py -csv data/results/per_project.csv > /workspace/repro.txt\n" + FORMAT)
    assert v.method == "last_mile", v.reasons
    assert v.flow[0].source.endswith("data/results/per_project.csv"), [f.model_dump() for f in v.flow]
    # told to write a CSV that the script then shows: the option names the program's output
    run = UNZIP + "python scripts/bench_all.py --csv out/times.csv\ncat out/times.csv > /workspace/repro.txt\n"
    assert judged(run + FORMAT).method == "full"


def test_a_results_file_of_an_archive_the_script_unpacked_is_shown_as_stored():
    v = judged(UNZIP + "cat results/table4.csv | tr ',' '|' > /workspace/repro.txt\n" + FORMAT)
    assert v.method == "copy" and not v.accepted, v.reasons
    assert "unpacked by unzip" in v.flow[0].reason, [f.model_dump() for f in v.flow]


def test_a_loop_that_counts_in_the_raw_logs_of_each_tool_is_last_mile():
    script = (FETCH + "cd /workspace/tool\nfor t in fuzzerA fuzzerB; do\n"
              "  n=$(grep -c CRASH logs/$t/*.log | awk -F: '{s+=$2} END {print s}')\n"
              "  echo \"$t | $n\" >> /workspace/repro.txt\ndone\n" + FORMAT)
    v = judged(script)
    assert v.method == "last_mile", v.reasons
    assert {f.source for f in v.flow} >= {"/workspace/tool/logs/fuzzerA/*.log", "/workspace/tool/logs/fuzzerB/*.log"}
    shown = FETCH + "for t in fuzzerA fuzzerB; do grep Precision results/$t.txt >> /workspace/repro.txt; done\n"
    assert judged(shown + FORMAT).method == "copy"


def test_inline_code_given_on_the_command_line_is_traced_to_its_own_line():
    script = ("#!/bin/bash\necho start\n"
              "docker exec box bash -c 'cd /app && python3 main.py --epochs 3' > /workspace/repro.txt\n"
              "python3 - <<'PY' >> /workspace/repro.txt\nprint(open('/workspace/extra.txt').read())\nPY\n" + FORMAT)
    v = judged(script)
    through = [t for f in v.flow for t in f.through]
    assert any(t.startswith("line 3: python3 main.py") for t in through), through
    from artifactcopilot.repro.reader import read_script

    printed = [s.line for s in read_script(script).steps if s.text.startswith("print(open")]
    assert printed == [5], printed  # a here-document's code starts on the line below its command


@pytest.mark.parametrize("run, expected", [
    ("python3 analyze.py --model small-7b --benchmark suite1 --seeds 3", "full"),
    ("python3 analyze.py --table 3", "last_mile"),  # a selector: it summarises what is stored
])
def test_a_program_named_like_analysis_given_the_parameters_of_a_computation_runs_it(run, expected):
    v = judged(FETCH + "cd /workspace/tool\n" + run + " > /workspace/repro.txt\n" + FORMAT)
    assert v.method == expected, v.reasons


def _inline(code: str) -> str:
    return "#!/bin/bash\npython3 - <<'PY' > /workspace/repro.txt\n" + code + "PY\n" + FORMAT


@pytest.mark.parametrize("code", [
    # a counter over the shipped raw records, as a percentage
    "import csv\npassed = total = 0\nfor row in csv.DictReader(open('collected/outcomes.csv')):\n"
    "    total += 1\n    if row['verdict'] == 'ok':\n        passed += 1\nprint(f'{100 * passed / total:.1f}')\n",
    # the raw logs picked by what they hold, counted
    "import glob\nlogs = glob.glob('runs/*.log')\ndone = [p for p in logs if 'FINISHED' in open(p).read()]\n"
    "print(len(done), len(logs))\n",
])
def test_counting_the_shipped_raw_records_is_last_mile(code):
    v = judged(_inline(code))
    assert v.method == "last_mile", v.reasons


@pytest.mark.parametrize("code", [
    # rows numbered while the stored table is shown: the count numbers rows, it computes nothing shown
    "import csv\ni = 0\nfor row in csv.DictReader(open('results/summary.csv')):\n    i += 1\n"
    "    print(i, row['tool'], row['precision'])\n",
    # a table built up as text, row by row
    "import csv\nout = ''\nfor row in csv.DictReader(open('results/summary.csv')):\n"
    "    out += f\"| {row['tool']} | {row['precision']} |\\n\"\nprint(out)\n",
    # names from the script kept when the stored table has them, then shown with their stored values
    "import json\nd = json.load(open('results/summary.json'))\nkept = [t for t in ['a', 'b', 'c'] if t in d]\n"
    "for t in kept:\n    print(t, d[t]['precision'])\n",
])
def test_showing_a_stored_table_row_by_row_stays_a_copy(code):
    v = judged(_inline(code))
    assert v.method == "copy" and not v.accepted, v.reasons


@pytest.mark.parametrize("run, expected", [
    ("find dataset/crash_reports -name '*.json' | wc -l > /workspace/repro.txt\n", "last_mile"),
    ("ls raw/failures/ | wc -l > /workspace/repro.txt\n", "last_mile"),
    ("find results -name '*.csv' | xargs cat > /workspace/repro.txt\n", "copy"),
    ("find results -name '*.csv' -exec tail -n 1 {} \\; > /workspace/repro.txt\n", "copy"),
])
def test_a_listing_of_shipped_files_is_counted_or_shown(run, expected):
    v = judged(FETCH + run + FORMAT)
    assert v.method == expected, v.reasons


@pytest.mark.parametrize("install, expected", [
    ("install2.r --error glmmTMB lmerTest && ", "full"),
    ("", "last_mile"),  # nothing says what the analysis does: it summarises
])
def test_an_analysis_run_after_installing_model_fitting_packages_fits_the_study_models(install, expected):
    script = (FETCH + "docker run --rm -v /workspace:/workspace rocker/r-ver:4 /bin/bash -c \"" + install +
              "Rscript /workspace/survey_analysis.R > /workspace/repro.txt\"\n" + FORMAT)
    v = judged(script)
    assert v.method == expected, v.reasons


@pytest.mark.parametrize("run, expected", [
    # shell arithmetic over counts taken from the raw log: a percentage
    ("ok=$(grep -c PASSED raw/run.log)\nall=$(grep -c . raw/run.log)\n"
     "echo \"pass rate | $((100 * ok / all))\" > /workspace/repro.txt\n", "last_mile"),
    # a ratio of two columns of the raw counts
    ("awk -F, 'NR>1 {printf \"%s | %.1f\\n\", $1, $2*100/$3}' raw/counts.csv > /workspace/repro.txt\n", "last_mile"),
    # a stored value picked out and rescaled: reformatting
    ("awk -F, 'NR>1 {printf \"%s | %.1f\\n\", $1, $2*100}' results/summary.csv > /workspace/repro.txt\n", "copy"),
])
def test_arithmetic_over_raw_counts_is_last_mile_and_rescaling_a_stored_value_is_a_copy(run, expected):
    v = judged(FETCH + run + FORMAT)
    assert v.method == expected, v.reasons


def test_a_program_run_after_the_unpacking_may_rewrite_what_the_archive_held():
    # Artisan Fig. 10 after an unpacked archive: the run may have written the file it then shows
    script = UNZIP + "python3 run_experiments.py\ncat results/table3.csv > /workspace/repro.txt\n" + FORMAT
    v = judged(script)
    assert v.method == "full", v.reasons
    shown = UNZIP + "cat results/table3.csv > /workspace/repro.txt\n" + FORMAT
    assert judged(shown).method == "copy"


def test_a_notebook_executed_in_the_artifacts_container_runs_there():
    from artifactcopilot.repro.reader import read_script

    script = (FETCH + START + "docker exec box jupyter nbconvert --execute --to markdown --stdout /app/RQ2.ipynb "
              "> /workspace/repro.txt\n" + FORMAT)
    ran = [s for s in read_script(script).steps if s.program == "/app/RQ2.ipynb"]
    assert ran and ran[0].container == "box", [s.model_dump() for s in ran]
    assert judged(script).method == "full"
