"""The method judge decides full, last-mile or copy by what the table is computed from: the study's raw data
(full), stored intermediate results (last-mile) or stored final numbers (copy, whatever percentages or totals are
derived on the way); a script that runs nothing of the artifact writes its own output (a copy, also when the
table is packed in the script); an executed notebook read afterwards shows what its run computed.

Scripts are written for these tests in the shapes reproduction scripts take around a format tool; the artifact
in `fixtures/repro/inputs/` documents what each of its input files holds."""
from __future__ import annotations

import base64
import binascii
import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from artifactcopilot.repro.judges import judge_method
from artifactcopilot.tables import parse_tables

FETCH = "artisan get https://zenodo.org/records/7\n"
FORMAT = ("echo '<artisan_submit>'\nartisan format --expected /workspace/expected.md --repro /workspace/repro.txt\n"
          "echo '</artisan_submit>'\n")
ART = Path(__file__).resolve().parent.parent / "fixtures" / "repro" / "inputs" / "artifact"
NUMBERS = "0.431\n0.562\n0.617\n0.709\n12\n7\n"  # a column of numbers, no table layout


def judged(body: str, artifact: Path | None = None):
    return judge_method(FETCH + body + FORMAT, artifact)


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _uu(text: str) -> str:
    return "begin 644 repro.txt\n" + binascii.b2a_uu(text.encode()).decode() + "`\nend\n"


PACKED = [
    # a here-document of base64 decoded by Python's base64 module (judged full before: a program run)
    f"python3 -m base64 -d > /workspace/repro.txt <<'B64'\n{_b64(NUMBERS)}\nB64\n",
    f"base64 -d > /workspace/repro.txt <<'B64'\n{_b64(NUMBERS)}\nB64\n",
    f"openssl base64 -d -out /workspace/repro.txt <<'B64'\n{_b64(NUMBERS)}\nB64\n",
    f"echo {_b64(NUMBERS)} | base64 --decode > /workspace/repro.txt\n",
    f"xxd -r -p > /workspace/repro.txt <<'HEX'\n{NUMBERS.encode().hex()}\nHEX\n",
    "printf '" + "".join(f"\\x{ord(c):02x}" for c in NUMBERS) + "' > /workspace/repro.txt\n",
    "printf '" + "".join(f"\\{ord(c):03o}" for c in NUMBERS) + "' > /workspace/repro.txt\n",
    f"uudecode -o /workspace/repro.txt <<'UU'\n{_uu(NUMBERS)}UU\n",
    "python3 - <<'PY'\nimport base64, gzip\nblob = '" + base64.b64encode(gzip.compress(NUMBERS.encode())).decode() +
    "'\nopen('/workspace/repro.txt', 'w').write(gzip.decompress(base64.b64decode(blob)).decode())\nPY\n",
    "python3 - <<'PY' > /workspace/repro.txt\nprint(bytes.fromhex('" + NUMBERS.encode().hex() + "').decode())\nPY\n",
]


@pytest.mark.parametrize("body", PACKED)
def test_a_table_packed_in_the_script_and_unpacked_when_it_runs_is_a_copy(body):
    v = judged(body)
    assert v.method == "copy" and not v.accepted, v.reasons
    assert v.flow and v.flow[0].source in ("literal", "not traced"), [f.model_dump() for f in v.flow]


@pytest.mark.parametrize("body", [
    # packed tables that were copies already: a Markdown table in base64, an xxd dump
    "python3 -m base64 -d > /workspace/repro.txt <<'B64'\n" +
    _b64("| Tool | P | R |\n|---|---|---|\n| A | 0.431 | 0.562 |\n| B | 0.617 | 0.709 |\n") + "\nB64\n",
    "xxd -r > /workspace/repro.txt <<'HEX'\n00000000: 302e 3433 310a 302e 3536 320a 3132 0a    0.431.0.562.12.\nHEX\n",
])
def test_packed_tables_that_were_copies_stay_copies(body):
    v = judged(body)
    assert v.method == "copy" and not v.accepted, v.reasons


@pytest.mark.parametrize("body", [
    # numbers typed in that look like counts, not measurements
    "cat > /workspace/repro.txt <<'EOF'\nTool,Found\nA,12\nB,7\nEOF\n",
    "printf '%s\\n' 'Tool,Found' 'A,12' 'B,7' > /workspace/repro.txt\n",
    # the script's own arithmetic over its own constants
    "python3 - <<'PY'\nfound = {'A': (12, 40), 'B': (7, 40)}\nwith open('/workspace/repro.txt', 'w') as f:\n"
    "    for k, (a, b) in found.items():\n        f.write(f'{k},{a},{100 * a / b:.1f}\\n')\nPY\n",
])
def test_a_script_that_runs_nothing_of_the_artifact_writes_its_own_output(body):
    v = judged(body)
    assert v.method == "copy" and not v.accepted, v.reasons
    assert any("runs nothing of the artifact" in f.reason for f in v.flow), [f.model_dump() for f in v.flow]
    assert v.flow[0].source == "literal" and v.flow[0].through, [f.model_dump() for f in v.flow]


@pytest.mark.parametrize("body, expected", [
    # a program of the artifact takes part: what it does decides, not the script's own numbers
    ("docker exec box python3 /app/bench.py --seeds 3 > /workspace/repro.txt\n"
     "echo 'Total,12' >> /workspace/repro.txt\n", "full"),
    # a downloaded file is not the script's own text
    ("curl -sL https://zenodo.org/records/7/files/summary.csv -o /workspace/repro.txt\n", "copy"),
    # what the artifact's container printed, then a line the script adds
    ("docker run -d --name box tool/image:2\ndocker wait box\ndocker logs box > /workspace/repro.txt\n"
     "echo 'Total,12' >> /workspace/repro.txt\n", "full"),
])
def test_own_output_needs_the_script_alone_to_make_the_values(body, expected):
    v = judged(body)
    assert v.method == expected, v.reasons
    assert not any("runs nothing of the artifact" in r for r in v.reasons), v.reasons


SHOW = ("python3 - <<'PY' > /workspace/repro.txt\nimport json\nnb = json.load(open('{nb}'))\nfor c in nb['cells']:\n"
        "    for o in c.get('outputs', []):\n        print(''.join(o.get('text', '')))\nPY\n")


@pytest.mark.parametrize("body", [
    # executed in place, then its outputs read
    "cd tool\njupyter nbconvert --to notebook --execute --inplace analysis/RQ2.ipynb\n" +
    SHOW.format(nb="analysis/RQ2.ipynb"),
    # executed into a new notebook named from another folder (the path is the notebook's folder's)
    "cd tool\nunzip -q intermediate.zip\n"
    "jupyter nbconvert --to notebook --execute analysis/table.ipynb --output run\n" +
    SHOW.format(nb="analysis/run.ipynb"),
    # papermill writes the executed copy, nbconvert renders it
    "cd tool\npapermill notebooks/results_analysis.ipynb out.ipynb\njupyter nbconvert --to markdown out.ipynb\n"
    "cat out.md > /workspace/repro.txt\n",
    # an R Markdown analysis knitted, then its rendering shown
    "cd tool\nRscript -e \"rmarkdown::render('analysis/RQ2.Rmd', output_format='md_document')\"\n"
    "cat analysis/RQ2.md > /workspace/repro.txt\n",
])
def test_an_analysis_notebook_executed_then_read_shows_what_its_run_computed(body):
    v = judged(body)
    assert v.method == "last_mile" and v.accepted, v.reasons
    assert not any("stored outputs" in r or "as they are" in r for r in v.reasons), v.reasons


def test_a_notebook_rendered_without_running_it_still_shows_its_stored_outputs():
    v = judged("cd tool\njupyter nbconvert --to markdown analysis/RQ2.ipynb\n"
               "cat analysis/RQ2.md > /workspace/repro.txt\n")
    assert v.method == "copy" and not v.accepted, v.reasons


def _inline(code: str) -> str:
    return "cd tool\npython3 - <<'PY' > /workspace/repro.txt\n" + code + "PY\n"


@pytest.mark.parametrize("body", [
    # a sheet of raw labels, counted
    _inline("import pandas as pd\nlabels = pd.read_excel('data/manual_labels.xlsx')\n"
            "print(labels['category'].value_counts())\n"),
    "cd tool\nawk -F, 'NR>1 {n[$2]++} END {for (k in n) print k, n[k]}' data/raw/labels.csv > /workspace/repro.txt\n",
    _inline("import pandas as pd\nanswers = pd.read_csv('study/responses.csv')\n"
            "print(answers.groupby('group')['minutes'].median())\n"),
    "cd tool\nRscript -e \"d <- read.csv('data/raw_data.csv'); print(prop.table(table(d$label)))\" "
    "> /workspace/repro.txt\n",
    # a spreadsheet not named as results: the study's data, kept by hand
    _inline("import pandas as pd\nd = pd.read_excel('Dataset_v2.xlsx', sheet_name='commits')\n"
            "print(d['Category'].value_counts())\n"),
])
def test_the_table_computed_from_the_studys_raw_data_is_full(body):
    v = judged(body)
    assert v.method == "full" and v.accepted, v.reasons
    assert any("raw data" in f.reason for f in v.flow), [f.model_dump() for f in v.flow]


@pytest.mark.parametrize("body", [
    _inline("import csv\nrows = list(csv.DictReader(open('results/final_results.csv')))\n"
            "total = sum(int(r['bugs']) for r in rows)\nfor r in rows:\n"
            "    print(r['tool'], r['bugs'], f\"{100 * int(r['bugs']) / total:.1f}%\")\nprint('Total', total)\n"),
    _inline("import json\nr = json.load(open('results/summary.json'))\nfor k, v in r.items():\n"
            "    print(k, v['found'], round(100 * v['found'] / v['total'], 1))\n"),
    "cd tool\njq -r '.[] | \"\\(.tool) \\(.found) \\(.found*100/.total)\"' results/table2.json "
    "> /workspace/repro.txt\n",
    "cd tool\nawk -F, 'NR>1 {s+=$2; print $1, $2} END {print \"Total\", s}' results/tables/table4.csv "
    "> /workspace/repro.txt\n",
    # a stored results file whatever its name, its rows only divided and rounded: no record counted or averaged
    _inline("import csv\nfor r in csv.DictReader(open('results/rq1_results.csv')):\n"
            "    print(r['tool'], r['tp'], round(100 * int(r['tp']) / (int(r['tp']) + int(r['fp'])), 1))\n"),
])
def test_percentages_and_totals_derived_from_stored_final_numbers_stay_a_copy(body):
    v = judged(body)
    assert v.method == "copy" and not v.accepted, v.reasons
    assert any("final numbers" in f.reason and f.source.startswith("tool/results/") for f in v.flow), \
        [f.model_dump() for f in v.flow]


@pytest.mark.parametrize("body", [
    # averaged per group: the file holds one record per item, whatever its name
    _inline("import pandas as pd\ndf = pd.read_csv('results/summary.csv')\n"
            "print(df.groupby('tool')['precision'].mean())\n"),
    # per-item results, with percentages: a last mile
    _inline("import csv\nrows = list(csv.DictReader(open('results/per_item.csv')))\n"
            "ok = sum(r['verdict'] == 'ok' for r in rows)\nprint(ok, f'{100 * ok / len(rows):.1f}')\n"),
])
def test_stored_records_computed_on_stay_last_mile(body):
    v = judged(body)
    assert v.method == "last_mile", v.reasons


def test_a_program_whose_code_is_not_seen_run_over_unpacked_precomputed_results_is_last_mile():
    v = judged("cd tool\nwget -q https://zenodo.org/records/7/files/precomputed_results.tar.gz\n"
               "tar xzf precomputed_results.tar.gz\njupyter nbconvert --to markdown --execute RQ3.ipynb --output rq3\n"
               "cat rq3.md > /workspace/repro.txt\n")  # a (shortened) notebook: its code cannot be seen here
    assert v.method == "last_mile" and v.accepted, v.reasons
    assert v.flow[0].source.endswith("precomputed_results.tar.gz"), [f.model_dump() for f in v.flow]


@pytest.mark.parametrize("body", [
    # precomputed data unpacked from an archive, then statistics over it
    "cd tool\nunzip -q precomputed_data.zip\n" +
    _inline("import pandas as pd\nfrom scipy.stats import wilcoxon\n"
            "df = pd.read_pickle('precomputed_data/churn.pkl')\nprint(df.groupby('project')['churn'].median())\n"
            "print(wilcoxon(df.before, df.after))\n").replace("cd tool\n", ""),
    # cached model outputs, scored
    "cd tool\nunzip -q cached_models.zip\n" +
    _inline("import json\nrows = [json.loads(line) for line in open('cached_models/outputs.jsonl')]\n"
            "print(sum(r['pred'] == r['gold'] for r in rows) / len(rows))\n").replace("cd tool\n", ""),
])
def test_the_table_computed_from_stored_intermediate_data_stays_last_mile(body):
    v = judged(body)
    assert v.method == "last_mile" and v.accepted, v.reasons
    assert v.flow and any(k in v.flow[0].source for k in ("precomputed", "cached")), [f.model_dump() for f in v.flow]


# With the artifact: its programs are read, and its README says what each input file holds (the names do not).
@pytest.mark.parametrize("body, expected, source", [
    ("python3 analysis/agreement.py > /workspace/repro.txt\n", "full", "data/round2.csv"),
    ("awk -F, 'NR>1 {n[$2]++; if ($4 == \"fix\") f[$2]++} END {for (p in n) print p, n[p], f[p]}' data/round2.csv "
     "> /workspace/repro.txt\n", "full", "data/round2.csv"),
    ("jupyter nbconvert --to markdown --execute notebooks/RQ2.ipynb\ncat notebooks/RQ2.md > /workspace/repro.txt\n",
     "full", "data/round2.csv"),
    ("python3 analysis/accuracy.py > /workspace/repro.txt\n", "last_mile", "store/m1.jsonl"),
    ("python3 analysis/shares.py > /workspace/repro.txt\n", "copy", "out/numbers.json"),
    ("python3 - <<'PY' > /workspace/repro.txt\nimport json\nd = json.load(open('out/numbers.json'))\n"
     "for p, n in d.items():\n    print(p, n['fix'], 100 * n['fix'] / n['labels'])\nPY\n", "copy", "out/numbers.json"),
])
def test_the_artifacts_documentation_says_what_its_inputs_hold(body, expected, source):
    v = judged(body, ART)
    assert v.method == expected, v.reasons
    assert any(f.source == source and "README.md says" in f.reason for f in v.flow), [f.model_dump() for f in v.flow]


def test_what_the_readme_denies_is_not_taken_as_said():
    from artifactcopilot.repro.reader.inputs import InputKinds

    kinds = InputKinds.from_artifact(ART, [p.relative_to(ART).as_posix() for p in ART.rglob("*") if p.is_file()])
    assert kinds.of("analysis/agreement.py")[0] != "intermediate"  # "Nothing in `analysis/` is cached."
    assert kinds.of("data/round2.csv")[0] == "raw"


def test_the_table_from_the_artifacts_final_numbers_is_a_copy_against_the_expected_table():
    table = parse_tables("| Project | Labels | Fix | Fix (%) |\n|---|---|---|---|\n| alpha | 4 | 3 | 75.0 |\n"
                         "| beta | 4 | 2 | 50.0 |\n| gamma | 4 | 2 | 50.0 |\n")[0]
    v = judge_method("python3 analysis/shares.py\n", ART, table)
    assert v.method == "copy" and not v.accepted, v.reasons
    assert judge_method("python3 analysis/agreement.py\n", ART, table).method == "full"


@pytest.mark.parametrize("artifact, says", [(None, "--artifact DIR"), (ART, "not in the artifact")])
def test_an_undetermined_method_says_what_would_decide_it(artifact, says):
    v = judge_method("./reproduce_all.sh > /workspace/repro.txt\n", artifact)
    assert v.method == "undetermined", v.reasons
    assert any(r.startswith("what would decide it") and says in r for r in v.reasons), v.reasons
    assert v.flow and v.flow[0].source == "reproduce_all.sh", [f.model_dump() for f in v.flow]


def test_the_cli_json_carries_the_flow_of_a_packed_table(tmp_path):
    script = tmp_path / "repro.sh"
    script.write_text(FETCH + PACKED[0] + FORMAT, encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "artifactcopilot.cli", "judge", "method", str(script), "--json"],
                         capture_output=True, text=True, check=False)
    assert out.returncode == 1, out.stderr  # not accepted
    data = json.loads(out.stdout)
    assert data["method"] == "copy"
    flow = data["flow"][0]
    assert flow["value"].startswith("line 6: artisan format") and flow["source"] == "literal", flow
    assert any(t.startswith("line 2: python3 -m base64 -d") for t in flow["through"]), flow


def test_the_text_of_the_artifacts_results_document_is_not_the_paper():
    from artifactcopilot.repro.judges import RunEvidence
    from artifactcopilot.repro.provenance import RunProvenance

    body = ("pdftotext -layout tool/Evaluation/results.pdf /workspace/results.txt\n"
            "python3 - <<'PY' > /workspace/repro.txt\nrows = [l.split() for l in open('/workspace/results.txt') "
            "if l.startswith('#')]\nok = sum(r[3] == 'success' for r in rows)\nprint(f'{100 * ok / len(rows):.2f}')\n"
            "PY\n")
    v = judged(body)
    assert v.method == "last_mile", v.reasons
    assert v.flow[0].source == "tool/Evaluation/results.pdf", [f.model_dump() for f in v.flow]
    prov = RunProvenance(method="strace", exit_code=0, read_first=["tool/Evaluation/results.pdf"],
                         programs=["bash", "pdftotext", "python3"], cpu_s=0.2)
    evidence = RunEvidence(None, [("stdout", "| rate |\n|---|\n| 66.67 |\n")], prov)
    ran = judge_method(FETCH + body + FORMAT, None, None, evidence)
    assert ran.method == "last_mile", ran.reasons  # the extractor ran on the results document, not on the paper
    paper = judged("pdftotext -layout tool/paper.pdf /workspace/paper.txt\n"
                   "grep -A5 'Table 2' /workspace/paper.txt > /workspace/repro.txt\n")
    assert paper.method == "copy" and not paper.accepted, paper.reasons


START = "docker run -d --init --name box --entrypoint bash tool/image:2 -c 'sleep infinity'\n"


@pytest.mark.parametrize("body", [
    # the analysis writes its table in the container; the script copies it out and shows it
    START + "docker exec box bash -c 'cd /app && python3 analysis.py'\n"
    "docker cp box:/app/results/table3.csv /workspace/repro.txt\n",
    # stored predictions and mined data given to a program in the container: it evaluates them
    START + "docker exec box bash -c 'cd /app && python3 evaluate.py --predictions outputs/preds.jsonl' "
    "> /workspace/repro.txt\n",
    START + "docker exec box python3 /app/RQ1/rq1.py --input /app/data/mined_prs.json > /workspace/repro.txt\n",
    # a program named by nothing it does, in the analysis folder the script moved to
    "cd tool\nsh -c 'cd analysis && Rscript -e \"source(\\\"RQ3.R\\\")\"' > /workspace/repro.txt\n",
])
def test_an_analysis_of_stored_data_run_by_the_script_is_last_mile(body):
    v = judged(body)
    assert v.method == "last_mile" and v.accepted, v.reasons


def test_the_answers_of_a_survey_are_the_studys_raw_data_whatever_the_file_is_called():
    v = judged(_inline("import pandas as pd\nanswers = pd.read_csv('survey_results.csv')\n"
                       "print(answers['Q3'].value_counts(normalize=True).round(3))\n"))
    assert v.method == "full" and v.accepted, v.reasons


@pytest.mark.parametrize("body, expected", [
    ("cd tool\nnpm ci\nnpm run bench > /workspace/repro.txt\n", "full"),
    ("cd tool\nyarn install\nyarn bench > /workspace/repro.txt\n", "full"),
    ("cd tool\nnpm run show-results > /workspace/repro.txt\n", "undetermined"),
])
def test_a_package_script_run_by_npm_or_yarn_is_a_program_run_not_a_stored_file(body, expected):
    v = judged(body)  # (it was read as a setup step; the file it wrote as a stored file shown as it is)
    assert v.method == expected, v.reasons
