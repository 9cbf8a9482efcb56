"""The static reader on Python scripts: values followed from where they are loaded or computed to what is printed."""
from __future__ import annotations

import pytest

from artifactcopilot.repro.reader import classify, read_script


def verdict(code: str, files: list[str] | None = None, root=None):
    reading = read_script(code, "repro.py", root, files)
    return classify(reading, files), reading


@pytest.mark.parametrize("code", [
    # a dict of results printed in a loop
    ('results = {"bert": (83.27, 80.14), "roberta": (85.91, 82.33)}\n'
    'for name, (acc, f1) in results.items():\n    print(f"| {name} | {acc} | {f1} |")\n'),
    # a DataFrame of literal numbers
    ("import pandas as pd\ndf = pd.DataFrame({'acc': [0.8327, 0.8591, 0.7712], 'f1': [0.8014, 0.8233, 0.7451]})\n"
    "print(df.to_markdown())\n"),
    # a stored results table loaded and reformatted (binary)
    "import pandas as pd\ndf = pd.read_parquet('results/table2.parquet')\nprint(df.round(2).to_latex())\n",
    "import numpy as np\nt = np.load('output/final_metrics.npy')\nprint(t)\n",
    "import pickle\nrows = pickle.load(open('results/summary.pkl', 'rb'))\nfor r in rows:\n    print(*r)\n",
    "import json\nwith open('results/metrics.json') as f:\n    m = json.load(f)\nprint(m['accuracy'], m['f1'])\n",
    "import sqlite3\ncon = sqlite3.connect('results/results.db')\nprint(con.execute('select * from t2').fetchall())\n",
    "import shutil\nshutil.copy('results/table2.csv', 'repro.csv')\nprint(open('repro.csv').read())\n",
    # the paper, with any PDF library
    "from pypdf import PdfReader\nprint(PdfReader('paper.pdf').pages[6].extract_text())\n",
    "import pdfplumber\nwith pdfplumber.open('paper/main.pdf') as pdf:\n    print(pdf.pages[5].extract_tables())\n",
    "import fitz\ndoc = fitz.open('paper.pdf')\nprint(doc[4].get_text())\n",
    "import pymupdf4llm\nprint(pymupdf4llm.to_markdown('paper.pdf', pages=[5]))\n",
    "from pdfminer.high_level import extract_text\nprint(extract_text('camera_ready.pdf'))\n",
    "import subprocess\nprint(subprocess.check_output(['pdftotext', 'paper.pdf', '-']).decode())\n",
    ("import re\ntex = open('main.tex').read()\n"
     "print(re.search(r'begin{tabular}.*?end{tabular}', tex, re.S).group(0))\n"),
])
def test_copies(code):
    v, _ = verdict(code)
    assert v.method == "copy", (code, v.reasons)


@pytest.mark.parametrize("code", [
    ("import pandas as pd\ndf = pd.read_csv('results/raw_runs.csv')\n"
     "print(df.groupby('model')['acc'].mean().round(3))\n"),
    ("import glob, json\nvals = []\nfor p in glob.glob('logs/*.json'):\n    vals.append(json.load(open(p))['loss'])\n"
    "print(sum(vals) / len(vals))\n"),
    ("import pandas as pd, glob\ndf = pd.concat(map(pd.read_pickle, glob.glob('results_grouped/*.pkl')))\n"
    "print(df.pivot_table(index='eps', values='err', aggfunc='median'))\n"),
    ("import matplotlib.pyplot as plt\nimport pandas as pd\nd = pd.read_csv('outputs/trace_log.csv')\n"
    "plt.plot(d['step'], d['loss'])\nplt.savefig('fig3.pdf')\n"),
])
def test_aggregations_of_stored_results_are_last_mile(code):
    v, _ = verdict(code)
    assert v.method == "last_mile", (code, v.reasons)


@pytest.mark.parametrize("code", [
    # simulation with the script's own functions, over parameters written in the script
    ("import math\n\ndef utility(k, eps):\n    u = 0\n    for i in range(k + 1):\n"
    "        u += math.exp(-eps * i) * i / k\n    return u\n\n"
    "for eps in [0.5, 1.0, 2.0]:\n    print(eps, utility(10, eps))\n"),
    # the artifact's code, imported and called
    ("import sys\nsys.path.insert(0, '.')\nfrom src.methods.tp import tp_perturb\nimport pickle\n"
    "traj = pickle.load(open('experiments/NYC/nyc_trajectory.pkl', 'rb'))\nprint(tp_perturb(traj, 2.0))\n"),
    # random draws and timing are an experiment
    ("import numpy as np, time\nstart = time.perf_counter()\nx = np.random.laplace(0, 1, 100000)\n"
    "print(f'{abs(x.mean()):.4f} in {time.perf_counter() - start:.2f}s')\n"),
    # training a model on input data
    ("import pandas as pd\nfrom sklearn.ensemble import RandomForestClassifier\ndf = pd.read_csv('data/train.csv')\n"
    "m = RandomForestClassifier().fit(df[['a', 'b']], df['y'])\nprint(m.score(df[['a', 'b']], df['y']))\n"),
    # the experiment through subprocess, then its summary
    ("import subprocess\nsubprocess.run(['python3', 'campaign.py', '--out', 'runs'], check=True)\n"
    "subprocess.run('python3 summarize.py runs', shell=True, check=True)\n"),
])
def test_computations_are_full(code):
    v, _ = verdict(code)
    assert v.method == "full", (code, v.reasons)


def test_labels_beside_computed_values_do_not_make_a_copy():
    code = ("import csv\nfrom collections import defaultdict\nacc = defaultdict(list)\n"
            "for row in csv.DictReader(open('results/runs.csv')):\n    acc[row['model']].append(float(row['acc']))\n"
            "for name, vals in acc.items():\n    print(name, sum(vals) / len(vals))\n")
    assert verdict(code)[0].method == "last_mile"


def test_both_branches_of_an_if_are_kept():
    code = ("import sys\nif len(sys.argv) > 1:\n    t = open('results/table2.txt').read()\n"
            "else:\n    t = 'none'\nprint(t)\n")
    assert verdict(code)[0].method == "copy"


def test_values_through_the_scripts_functions():
    code = ("def load():\n    with open('results/final.csv') as f:\n        return f.read()\n\n"
            "def main():\n    print(load())\n\nif __name__ == '__main__':\n    main()\n")
    v, _reading = verdict(code)
    assert v.method == "copy" and "results/final.csv" in v.displayed


def test_argparse_options_bind_to_the_command_line(tmp_path):
    (tmp_path / "summarize.py").write_text(
        "import argparse, csv, glob, os\np = argparse.ArgumentParser()\np.add_argument('folder')\n"
        "p.add_argument('--out', default='table.md')\na = p.parse_args()\nrows = []\n"
        "for f in glob.glob(os.path.join(a.folder, '*.csv')):\n    rows += list(csv.DictReader(open(f)))\n"
        "open(a.out, 'w').write(str(sum(float(r['x']) for r in rows) / len(rows)))\n")
    (tmp_path / "raw").mkdir()
    (tmp_path / "raw" / "a.csv").write_text("x\n1\n")
    files = ["summarize.py", "raw/a.csv"]
    reading = read_script("python3 summarize.py raw --out t.md\ncat t.md\n", "repro.sh", tmp_path, files)
    written = [w for s in reading.steps for w in s.writes]
    assert "t.md" in written and "table.md" not in written
    assert classify(reading, files).method == "last_mile"


def test_file_relative_paths_in_artifact_programs(tmp_path):
    (tmp_path / "repro").mkdir()
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "x.pkl").write_bytes(b"\x80\x04K\x01.")
    (tmp_path / "repro" / "t3.py").write_text(
        "from pathlib import Path\nimport pickle\nd = Path(__file__).parent.parent / 'data'\n"
        "x = pickle.load(open(d / 'x.pkl', 'rb'))\nprint(x * 2)\n")
    files = ["repro/t3.py", "data/x.pkl"]
    reading = read_script("cd repro && python3 t3.py\n", "repro.sh", tmp_path, files)
    refs = [s.ref for step in reading.steps for s in step.sources if s.kind == "file"]
    assert refs == ["data/x.pkl"]


def test_bad_python_is_reported_not_raised():
    reading = read_script("def broken(:\n    print(1\n", "repro.py")
    assert not reading.parsed and reading.notes
    v = classify(reading)
    assert v.method == "undetermined" and any("could not be parsed" in r for r in v.reasons)


def test_deep_and_recursive_code_terminates():
    code = "def f(n):\n    return f(n - 1) + 1 if n else 0\n\nx = [[[[[[1]]]]]]\nprint(f(10), x)\n" + \
        "\n".join(f"y{i} = y{i - 1} + 1" if i else "y0 = 0" for i in range(300))
    classify(read_script(code, "repro.py"))
