"""Small artifacts in the shapes where a run went well and the verdict still went wrong (each seen on real
artifacts), written into a test's tmp_path. Each builder returns (paper path, artifact folder).

- `pairing`: `python3 run_experiments.py` writes the share of cases each method beats the baseline per data
  set–attribute pair, as fractions close to the paper's Table 2 (percent); the paper's Table 4 has the same row and
  column labels but holds execution times in seconds.
- `far_off`: `python3 evaluate.py` prints a results table of the paper's Table 2 shape (precision, recall, F1 of
  two methods) with every cell 40–60 points off and every ordering kept; `close_swapped=True`: values within two
  points of the paper's with two methods' order swapped.
- `instrumenting`: a dynamic-analysis tool whose documented instrumentation command rewrites the program it
  instruments in place; the README says to run it from `experiments/` (it is at the root: a path fix).
- `echo_then_error`: `bash run.sh` echoes what it runs, the Python script it names does not exist, and the shell
  script ends with `echo done` (exit 0); `works=True`: the script exists and prints its results.
- `appendix_ties`: an artifact appendix lists Main Result 1 (Table 3) -> Experiment 1 -> `python3 compare.py`,
  which prints the table's data sets and methods as lines of text (no table to pair by structure); `copied=True`:
  the command only prints a checked-in results file.
- `dataset`: a documented data set (semicolon-separated CSV described column by column, no program); the paper
  states the sizes of the two groups of accounts and a survey table's counts; `wrong_counts=True`: the paper's
  counts do not hold in the rows.
- `linked_only`: a README that says the code is in another repository, and a copy of the paper; `link=False`: no
  link, only the copy of the paper.
"""
from __future__ import annotations

from pathlib import Path


def _case(root: Path, paper: str, files: dict[str, str]) -> tuple[Path, Path]:
    root.mkdir(parents=True, exist_ok=True)
    (root / "paper.md").write_text(paper, encoding="utf-8")
    art = root / "artifact"
    for rel, text in files.items():
        (art / rel).parent.mkdir(parents=True, exist_ok=True)
        (art / rel).write_text(text, encoding="utf-8")
    return root / "paper.md", art


# -------------------------------------------------------------------------------------------------- pairing

PAIRS = ["Adult–age", "Adult–income", "Census–age", "Taxi–fare", "Taxi–tip"]
SHARE = {"Hadamard": [52.0, 55.5, 48.3, 60.1, 44.9], "Ours": [64.0, 71.2, 66.8, 80.3, 58.6]}
SECONDS = {"Hadamard": [2140.5, 1875.2, 3310.0, 990.4, 1012.7], "Ours": [1520.3, 1402.9, 2688.1, 745.0, 790.6]}
RUN_SHARE = {"Hadamard": [0.535, 0.541, 0.466, 0.619, 0.462], "Ours": [0.661, 0.698, 0.682, 0.789, 0.603]}


def _md_table(label: str, caption: str, values: dict[str, list[float]]) -> str:
    head = "| Data set–attribute | " + " | ".join(values) + " |\n|---|" + "---|" * len(values) + "\n"
    rows = "".join(f"| {p} | " + " | ".join(f"{v[i]:.1f}" for v in values.values()) + " |\n"
                   for i, p in enumerate(PAIRS))
    return f"{label}: {caption}\n\n{head}{rows}"


PAIRING_PAPER = f"""# Private Mean Estimation Beyond the Hadamard Mechanism

*Anonymous authors*

## Abstract

We propose a mechanism for estimating means under local differential privacy that beats a baseline in more cases
than the Hadamard mechanism, at a lower running time.

## 5 Evaluation

For each data set and attribute we run both mechanisms and count how often each beats the baseline.

{_md_table("Table 2", "Share of cases in which each method beats the baseline (%)", SHARE)}

Table 4 reports the running time of both mechanisms.

{_md_table("Table 4", "Execution time (in seconds)", SECONDS)}
"""

RUN_EXPERIMENTS = '''import csv, os
pairs = PAIRS
share = RUN_SHARE
os.makedirs("results", exist_ok=True)
with open("results/beats_baseline.csv", "w", newline="") as fh:
    out = csv.writer(fh)
    out.writerow(["pair"] + list(share))
    for i, pair in enumerate(pairs):
        out.writerow([pair] + [f"{share[m][i]:.3f}" for m in share])
print(f"wrote results/beats_baseline.csv for {len(pairs)} data set-attribute pairs")
'''


def pairing(root: Path) -> tuple[Path, Path]:
    readme = """# ldp-beats

The mechanisms of the paper and the experiment behind its Table 2.

## Setup

Python 3, standard library only.

## Running the experiment

```
python3 run_experiments.py
```

It writes `results/beats_baseline.csv`: for each data set–attribute pair, the share of cases in which each method
beats the baseline.
"""
    script = RUN_EXPERIMENTS.replace("RUN_SHARE", repr(RUN_SHARE)).replace("PAIRS", repr(PAIRS))
    return _case(root, PAIRING_PAPER, {"README.md": readme, "run_experiments.py": script})


# -------------------------------------------------------------------------------------------------- far off

FAR_PAPER = """# Detecting Malicious Browser Extensions from Their Permissions

*Anonymous authors*

## Abstract

We detect malicious browser extensions from their permissions and reach a precision of 0.89 and a recall of 0.85,
well above a keyword baseline.

## 5 Results

Table 2: Detection results on the test set

| Method | Precision | Recall | F1 |
|---|---|---|---|
| Ours | 0.89 | 0.85 | 0.87 |
| Keyword baseline | 0.70 | 0.62 | 0.66 |
"""

EVALUATE = '''rows = ROWS
print("Method            Precision  Recall  F1")
for name, (p, r, f) in rows.items():
    print(f"{name:<17} {p:.2f}       {r:.2f}    {f:.2f}")
'''


def far_off(root: Path, close_swapped: bool = False) -> tuple[Path, Path]:
    rows = ({"Ours": (0.38, 0.33, 0.35), "Keyword baseline": (0.20, 0.15, 0.17)} if not close_swapped
            # within two points of the paper's values for Ours, and the baseline above it: orderings broken
            else {"Ours": (0.88, 0.84, 0.86), "Keyword baseline": (0.90, 0.86, 0.88)})
    readme = """# ext-detect

## Running the evaluation

```
python3 evaluate.py
```

It prints the precision, recall and F1 of the detector and of the keyword baseline on the test set (Table 2).
"""
    return _case(root, FAR_PAPER, {"README.md": readme, "evaluate.py": EVALUATE.replace("ROWS", repr(rows))})


# -------------------------------------------------------------------------------------------- instrumenting

TOOL_PAPER = """# DynTrace: Dynamic Analysis of Python Programs by Source Instrumentation

*Anonymous authors*

## Abstract

We present DynTrace, a framework for writing dynamic analyses of Python programs. DynTrace instruments a program's
source code in place and runs user-defined analyses that receive a callback for each call. We implement a call
counter and a call-graph analysis with it and show that it supports a wide range of analyses.

## 3 Design

DynTrace takes a Python file as input and outputs the instrumented file; running it calls the analysis hooks.
"""

INSTRUMENT = '''import ast, sys
path = sys.argv[-1]
src = open(path).read()
calls = sum(isinstance(n, ast.Call) for n in ast.walk(ast.parse(src)))
if not src.startswith("# dyntrace"):
    open(path, "w").write(f"# dyntrace: instrumented, {calls} call sites\\nimport hooks\\n" + src)
print(f"instrumented {path} in place: {calls} call sites")
'''

ANALYZE = '''import ast, sys
path = sys.argv[-1]
tree = ast.parse(open(path).read())
names = [n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
print(f"CallCounter on {path}: {len(names)} calls ({', '.join(sorted(set(names)))})")
'''


DRIVER = 'def greet(name):\n    return "hello " + name\n\nprint(greet("a"))\nprint(len("xy"))\n'


def instrumenting(root: Path) -> tuple[Path, Path]:
    readme = """# DynTrace

DynTrace is a framework for dynamic analysis of Python programs: it instruments the program's files in place.
The experiments are described in [experiments/README.md](experiments/README.md).
"""
    experiments = """# Experiments

Instrument the test driver in place, then run the call counter on it:

```
python3 instrument.py --in-place examples/test_driver.py
python3 analyze.py CallCounter examples/test_driver.py
```
"""
    return _case(root, TOOL_PAPER, {
        "README.md": readme, "instrument.py": INSTRUMENT, "analyze.py": ANALYZE, "hooks.py": "def call(f):\n    pass\n",
        "experiments/README.md": experiments,
        "examples/test_driver.py": DRIVER})


# --------------------------------------------------------------------------------------------- echo, error

ECHO_PAPER = """# Compressing Sensor Traces with Learned Codebooks

*Anonymous authors*

## Abstract

We compress sensor traces with learned codebooks and reach a compression ratio of 7.2 at an error below 1%.
"""

EXP1 = '''ratio, error = 7.2, 0.8
print(f"compression ratio: {ratio:.1f}")
print(f"reconstruction error: {error:.1f}%")
'''


def echo_then_error(root: Path, works: bool = False) -> tuple[Path, Path]:
    readme = """# codebook-compress

Compressing sensor traces with learned codebooks: the compression experiment of the paper (compression ratio and
reconstruction error on the sensor traces).

## Reproducing the experiment

```
bash run.sh
```
"""
    run = "#!/bin/bash\necho \"Running experiment 1 (compression) ...\"\npython3 scripts/exp1.py\necho \"done\"\n"
    files = {"README.md": readme, "run.sh": run, "scripts/README.md": "Experiment scripts.\n"}
    if works:
        files["scripts/exp1.py"] = EXP1
    return _case(root, ECHO_PAPER, files)


# ------------------------------------------------------------------------------------------ appendix ties

TIES_PAPER = """# Lower-Error Frequency Estimation under Local Differential Privacy

*Anonymous authors*

## Abstract

We propose a frequency oracle with a lower error than the Laplace mechanism on three real data sets.

## 5 Evaluation

Table 3: Mean squared error of the frequency oracles

| Data set | Laplace | Ours |
|---|---|---|
| Adult | 9.40 | 2.90 |
| Census | 11.21 | 3.36 |
| Taxi | 7.93 | 2.41 |
"""

COMPARE = '''errors = {"adult": (9.1, 2.7), "census": (10.8, 3.5), "taxi": (8.2, 2.2)}
for name, (base, mine) in errors.items():
    print(f"{name}: laplace err {base:.2f}, ours err {mine:.2f}")
'''

SHOW = '''print(open("results/table3.txt").read())
'''


def appendix_ties(root: Path, copied: bool = False) -> tuple[Path, Path]:
    command = "python3 show_results.py" if copied else "python3 compare.py"
    appendix = f"""# Artifact Appendix

## Description

The frequency oracle of the paper and the experiment behind its main result.

## Environment

Python 3, standard library only.

## Artifact Evaluation

### Main Results and Claims

#### Main Result 1: Lower error than the Laplace mechanism

Our oracle has a lower mean squared error than the Laplace mechanism on every data set (Section 5, Table 3).

### Experiments

#### Experiment 1: Error comparison

This experiment supports Main Result 1. It takes a few seconds:

```
{command}
```
"""
    files = {"ARTIFACT-APPENDIX.md": appendix, "README.md": "# freq-oracle\n\nSee ARTIFACT-APPENDIX.md.\n"}
    if copied:
        files.update({"show_results.py": SHOW,
                      "results/table3.txt": "adult: laplace err 9.10, ours err 2.70\n"
                                            "census: laplace err 10.80, ours err 3.50\n"
                                            "taxi: laplace err 8.20, ours err 2.20\n"})
    else:
        files["compare.py"] = COMPARE
    return _case(root, TIES_PAPER, files)


# ------------------------------------------------------------------------------------------------ dataset

DATA_PAPER = """# Telling Malicious from Benign Accounts on a Social Platform

*Anonymous authors*

## Abstract

We study how malicious accounts differ from benign ones on a social platform, from a data set of {total} accounts,
and survey moderators about which signals they use.

## 3 Data set

Our data set holds {total} accounts: {benign} benign accounts and {malicious} malicious accounts, labelled by the
platform's moderators. Malicious accounts are younger and post more.

## 4 Survey

Table 1: Signals moderators rely on (number of respondents)

| Signal | Respondents |
|---|---|
| Posting rate | {rate} |
| Account age | {age} |
| Profile photo | {photo} |
"""

DATA_README = """# Accounts data set

The data of the paper, in two semicolon-separated tables.

## accounts.csv

| Column | Description |
|---|---|
| account_id | anonymised account identifier |
| label | benign or malicious (moderators' label) |
| age_days | account age in days |
| posts | posts in the observation window |

## survey.csv

| Column | Description |
|---|---|
| respondent | anonymised moderator identifier |
| signal | the signal the moderator relies on most |
"""


def _accounts(benign: int, malicious: int) -> str:
    rows = ["account_id;label;age_days;posts"]
    for n in range(benign + malicious):
        label = "benign" if n < benign else "malicious"
        rows.append(f"a{n:04d};{label};{400 - n % 300 if label == 'benign' else 30 + n % 40};{3 + n % 7}")
    return "\n".join(rows) + "\n"


def _survey(counts: dict[str, int]) -> str:
    rows, n = ["respondent;signal"], 0
    for signal, k in counts.items():
        for _ in range(k):
            rows.append(f"m{n:03d};{signal}")
            n += 1
    return "\n".join(rows) + "\n"


def dataset(root: Path, wrong_counts: bool = False) -> tuple[Path, Path]:
    stated = {"total": 412, "benign": 203, "malicious": 209, "rate": 41, "age": 27, "photo": 12}
    benign, malicious = (150, 262) if wrong_counts else (203, 209)
    survey = {"Posting rate": 33, "Account age": 35, "Profile photo": 12} if wrong_counts else \
        {"Posting rate": 41, "Account age": 27, "Profile photo": 12}
    return _case(root, DATA_PAPER.format(**stated), {"README.md": DATA_README,
                                                     "accounts.csv": _accounts(benign, malicious),
                                                     "survey.csv": _survey(survey)})


# -------------------------------------------------------------------------------------------- linked only

LINKED_PAPER = """# Collaborative Fuzzer Selection

*Anonymous authors*

## Abstract

We select complementary fuzzers for collaborative fuzzing from their coverage on a training set and show that the
selected ensembles find more bugs than single fuzzers.

## 1 Introduction

Collaborative fuzzing runs several fuzzers in parallel and shares their inputs. Which fuzzers to combine matters:
two fuzzers that explore the same branches waste half of the machine. We predict, from branch coverage measured on
a small training set of programs, how much a set of fuzzers covers together, and choose the set with the largest
predicted union. Our evaluation on twenty programs from the Google fuzzer test suite shows that the chosen ensembles
reach more branches and trigger more crashes than any single fuzzer and than ensembles picked at random.
"""


def linked_only(root: Path, link: bool = True) -> tuple[Path, Path]:
    readme = ("# Collaborative fuzzer selection\n\nThis repository accompanies the paper (paper.md is a copy). "
              + ("The implementation is available at https://github.com/example-lab/fuzzer-selection-code and "
                 "the evaluation data are hosted at https://zenodo.org/records/1234567.\n" if link else "\n"))
    return _case(root, LINKED_PAPER, {"README.md": readme, "paper.md": LINKED_PAPER})
