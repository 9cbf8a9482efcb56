"""Small artifacts in the shapes of claim support on real artifacts (the rubric's WA is a *mapping*, A and Results
Reproduced are equal numbers), written into a test's tmp_path. Each builder returns (paper path, artifact folder).

- `reduced_run`: a pipeline run on one of the paper's data sets with fewer trials prints the paper's table shape
  (its row and column labels) with other values; `unrelated=True`: it prints a table of other labels.
- `named_scripts`: twelve documented helper scripts before `python reproduction/fig_7a.py` and `python table2.py`
  (the paper's Figure 7 and Table 2); `broken_figure=True`: the figure script fails.
- `table_shape`: `python table2.py` writes `table2_result` (no extension, tab-separated) with the paper's methods as
  columns and "Fairness increases" / "Performance decreases" as rows, as fractions where the paper prints percent;
  `contradict=True`: the values are far off and their order reversed.
- `far_off_results`: `python evaluate.py` writes the documented `out/results.json`, every metric far from the
  paper's Table 2 (precision 0.31 where the paper says 0.91).
- `tool`: a dynamic-analysis framework whose documented instrumentation and analysis commands run on its shipped
  examples and whose `run_all_tests.py` passes; `crash=True`: the examples crash and the tests fail.
"""
from __future__ import annotations

from pathlib import Path


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _case(root: Path, paper: str, files: dict[str, str]) -> tuple[Path, Path]:
    root.mkdir(parents=True, exist_ok=True)
    (root / "paper.md").write_text(paper, encoding="utf-8")
    return root / "paper.md", _write(root / "artifact", files)


# ------------------------------------------------------------------------------------------------- reduced run

REDUCED_PAPER = """# Lower-Error Mean Estimation under Local Differential Privacy

*Anonymous authors*

## Abstract

We propose a mechanism for estimating the mean of bounded values under local differential privacy and show that
it has a lower mean squared error than the Laplace and piecewise mechanisms on three real data sets.

## 4 Evaluation

Each mechanism is run for 10,000 trials per data set. Table 2 reports the mean squared error (x 10^-3); our
mechanism has the lowest error on every data set.

Table 2: Mean squared error (x 10^-3) of the mechanisms on three data sets

| Data set | Laplace | Piecewise | Ours |
|---|---|---|---|
| Adult | 9.40 | 6.10 | 2.90 |
| Census | 11.21 | 7.45 | 3.36 |
| Taxi | 7.93 | 5.12 | 2.41 |
"""

EXPERIMENT = '''import argparse, csv

parser = argparse.ArgumentParser()
parser.add_argument("--dataset", default="adult")
parser.add_argument("--trials", type=int, default=10000)
args = parser.parse_args()


def noise(seed):
    state = seed
    while True:
        state = (1103515245 * state + 12345) % 2**31
        yield state / 2**31 - 0.5


rows = [float(r[0]) for r in csv.reader(open(f"data/{args.dataset}.csv")) if r]
true = sum(rows) / len(rows)
draw = noise(7)


def mse(scale):
    err = 0.0
    for _ in range(args.trials):
        est = sum(x + scale * next(draw) for x in rows) / len(rows)
        err += (est - true) ** 2
    return 1000 * err / args.trials


HEADER
print(f"{args.dataset:<10} {mse(2.0):.2f}      {mse(1.6):.2f}        {mse(1.2):.2f}")
'''


def _values(n: int, seed: int) -> str:
    state, out = seed, []
    for _ in range(n):
        state = (69069 * state + 1) % 2**32
        out.append(f"{state / 2**32:.3f}\n")
    return "".join(out)


def reduced_run(root: Path, unrelated: bool = False) -> tuple[Path, Path]:
    header = ('print("Run      Alpha   Beta    Gamma")' if unrelated else
              'print("Data set   Laplace   Piecewise   Ours")')
    readme = """# ldp-mean

The mechanisms of the paper and the experiment behind its Table 2.

## Setup

Python 3 with the standard library only.

## Reproducing Table 2

The full experiment runs 10,000 trials on each data set and takes about six hours. For a quick check, run one
data set with fewer trials (the numbers will differ from the paper's):

```
python experiment.py --dataset adult --trials 200
```
"""
    return _case(root, REDUCED_PAPER, {"README.md": readme, "experiment.py": EXPERIMENT.replace("HEADER", header),
                                       "data/adult.csv": _values(40, 11), "data/census.csv": _values(40, 5)})


# ----------------------------------------------------------------------------------------- named scripts, cap

NAMED_PAPER = """# Tail Latency of Serverless Cold Starts

*Anonymous authors*

## Abstract

We measure cold-start latency of serverless functions across runtimes and show that snapshot restore cuts the
99th-percentile latency by more than half.

## 5 Results

Table 2: Cold-start latency (ms) per runtime

| Runtime | Median | P99 |
|---|---|---|
| Python | 412 | 1290 |
| Node | 287 | 905 |

Figure 7: P99 latency over time with and without snapshot restore.
"""

HELPER = 'import sys\nprint("step {n}: checked", sys.argv[1:] or "")\n'

TABLE2 = '''rows = {"Python": (405, 1302), "Node": (291, 918)}
print("Runtime  Median  P99")
for name, (median, p99) in rows.items():
    print(f"{name}  {median}  {p99}")
'''

FIG7 = '''import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
BROKEN
xs = list(range(10))
plt.plot(xs, [x * x for x in xs], label="restore")
plt.plot(xs, [2 * x * x for x in xs], label="cold")
plt.legend()
plt.savefig("fig7a.png")
print("wrote fig7a.png")
'''


def named_scripts(root: Path, broken_figure: bool = False) -> tuple[Path, Path]:
    helpers = {f"checks/step{n:02d}.py": HELPER.format(n=n) for n in range(1, 13)}
    listing = "\n".join(f"python checks/step{n:02d}.py" for n in range(1, 13))
    readme = f"""# coldstart

Measurement scripts for the cold-start study.

## Setup

pip install matplotlib

## Checking the traces

Each check validates one part of the collected traces:

```
{listing}
```

## Paper artifacts

```
python reproduction/fig_7a.py
python table2.py
```
"""
    fig = FIG7.replace("BROKEN", 'raise SystemExit("trace file traces/p99.csv not found")' if broken_figure else "")
    return _case(root, NAMED_PAPER, {"README.md": readme, "requirements.txt": "matplotlib\n",
                                     "reproduction/fig_7a.py": fig, "table2.py": TABLE2, **helpers})


# --------------------------------------------------------------------------------------------- table shape

SHAPE_PAPER = """# Fair Aggregation for Federated Learning

*Anonymous authors*

## Abstract

We propose a fair aggregation rule for federated learning and show that it increases fairness across clients
more often than existing rules while rarely decreasing performance.

## 5 Evaluation

Table 2 shows, for each aggregation rule, the share of runs in which fairness increased and in which performance
decreased, in percent.

Table 2: Fairness and performance changes per aggregation rule (%)

| | FedAvg | q-FFL | AFL | Ditto | FedFV | Ours |
|---|---|---|---|---|---|---|
| Fairness ↑ | 33.3 | 54.0 | 45.2 | 64.3 | 69.0 | 92.9 |
| Performance ↓ | 96.8 | 40.5 | 35.7 | 26.2 | 16.7 | 11.9 |
"""

TABLE2_SHAPE = '''methods = ["FedAvg", "q-FFL", "AFL", "Ditto", "FedFV", "Ours"]
runs = 21
fair = FAIR
perf = PERF
with open("table2_result", "w") as out:
    out.write("\\t" + "\\t".join(methods) + "\\n")
    out.write("Fairness increases\\t" + "\\t".join(f"{n / runs:.6f}" for n in fair) + "\\n")
    out.write("Performance decreases\\t" + "\\t".join(f"{n / runs:.6f}" for n in perf) + "\\n")
print("table written to table2_result")
'''


def table_shape(root: Path, contradict: bool = False) -> tuple[Path, Path]:
    fair, perf = ([19, 14, 12, 8, 5, 2], [2, 6, 9, 12, 15, 20]) if contradict else \
        ([7, 11, 10, 13, 14, 19], [20, 9, 8, 5, 4, 3])
    readme = """# fairagg

Aggregation rules for federated learning and the script behind the paper's Table 2.

## Requirements

Python 3, standard library only.

## Table 2

```
python table2.py
```
"""
    script = TABLE2_SHAPE.replace("FAIR", repr(fair)).replace("PERF", repr(perf))
    return _case(root, SHAPE_PAPER, {"README.md": readme, "table2.py": script})


# ------------------------------------------------------------------------------------ far-off results file

FAR_PAPER = """# Detecting Phishing Pages from Their Rendering

*Anonymous authors*

## Abstract

We detect phishing pages from how they render and reach a precision of 0.91 and a recall of 0.88 on a data set
of 2,400 pages, well above a URL-based baseline.

## 5 Results

Table 2: Detection results on the test set

| Method | Precision | Recall | F1 |
|---|---|---|---|
| Ours | 0.91 | 0.88 | 0.89 |
| URL baseline | 0.75 | 0.70 | 0.72 |
"""

EVALUATE = '''import json, os
os.makedirs("out", exist_ok=True)
scores = {"precision": 0.31, "recall": 0.42, "f1": 0.35}
json.dump(scores, open("out/results.json", "w"))
print("precision 0.31, recall 0.42 on 2,400 pages")
'''


def far_off_results(root: Path) -> tuple[Path, Path]:
    readme = """# render-phish

## Running the evaluation

```
python evaluate.py
```

It writes `out/results.json` with the precision, recall and F1 of the detector on the test set.
"""
    return _case(root, FAR_PAPER, {"README.md": readme, "evaluate.py": EVALUATE})


# --------------------------------------------------------------------------------------------------- tool

TOOL_PAPER = """# PyTrace: A Framework for Dynamic Analysis of Python Programs

*Anonymous authors*

## Abstract

We present PyTrace, a framework for writing dynamic analyses of Python programs. PyTrace instruments a program's
source code and runs user-defined analyses that receive a callback for each call, read and write. We implement
nine analyses with it and show that it supports a wide range of analyses with modest overhead.

## 3 Design

PyTrace takes a Python file as input and outputs an instrumented copy; running the copy calls the analysis hooks.
"""

INSTRUMENT = '''import ast, sys
BROKEN
src = open(sys.argv[1]).read()
tree = ast.parse(src)
calls = sum(isinstance(n, ast.Call) for n in ast.walk(tree))
out = sys.argv[1].replace(".py", "_instr.py")
open(out, "w").write("# instrumented: %d call sites\\n" % calls + src)
print(f"instrumented {sys.argv[1]}: {calls} call sites -> {out}")
'''

ANALYZE = '''import ast, sys
BROKEN
analysis, path = sys.argv[1], sys.argv[2]
tree = ast.parse(open(path).read())
names = [n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
print(f"{analysis}: {len(names)} calls ({', '.join(sorted(set(names)))})")
'''

TESTS = '''import unittest, subprocess, sys


class InstrumentTest(unittest.TestCase):
    def test_instruments(self):
        out = subprocess.run([sys.executable, "pytrace/instrument.py", "examples/hello.py"], capture_output=True,
                             text=True)
        self.assertEqual(out.returncode, 0, out.stderr)

    def test_counts_calls(self):
        out = subprocess.run([sys.executable, "pytrace/analyze.py", "CallCounter", "examples/hello.py"],
                             capture_output=True, text=True)
        self.assertIn("calls", out.stdout)


if __name__ == "__main__":
    result = unittest.main(exit=False).result
    sys.exit(0 if result.wasSuccessful() else 1)
'''


def tool(root: Path, crash: bool = False, tests: bool = True) -> tuple[Path, Path]:
    """`tests=False`: no test suite, the documented usage on the shipped examples is all there is to run."""
    broken = 'raise RuntimeError("unsupported Python version")' if crash else ""
    readme = """# PyTrace

PyTrace is a framework for dynamic analysis of Python programs.

## Usage

Instrument a program:

```
python pytrace/instrument.py examples/hello.py
```

Run an analysis on it:

```
python pytrace/analyze.py CallCounter examples/hello.py
```

## Tests

```
python run_all_tests.py
```
"""
    if not tests:
        readme = readme.split("## Tests")[0]
    return _case(root, TOOL_PAPER, {
        "README.md": readme, "pytrace/instrument.py": INSTRUMENT.replace("BROKEN", broken),
        "pytrace/analyze.py": ANALYZE.replace("BROKEN", broken), **({"run_all_tests.py": TESTS} if tests else {}),
        "examples/hello.py": 'def greet(name):\n    return "hello " + name\n\nprint(greet("a"))\nprint(len("xyz"))\n'})
