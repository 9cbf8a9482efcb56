"""Small artifacts whose README describes a command's output file in words (no output shown), written into a
test's tmp_path.

- clustering: `python3 cluster.py -i data/small.csv -o result.csv` writes a CSV "same shape as the input file with
  one additional column containing the cluster index of each element" — and does;
- `wrong="rows"`: the script writes one row per cluster instead (not the described shape);
- `wrong="labels"`: the extra column holds names, not a cluster index.
The artifact ships three inputs of the same kind in `data/`.
"""
from __future__ import annotations

from pathlib import Path

PAPER = """# Grouping Categorical Records by Recursive Splitting

*Anonymous authors*

## Abstract

We group categorical records into many small clusters by recursively splitting the largest group on the attribute
with the most distinct values, and show that the clusters stay pure on standard categorical data sets.

## 1 Method

Records that share values on high-cardinality attributes end up in the same small cluster.

## 2 Results

The clusters are small and pure on every data set we tried.
"""

README = """# recsplit

Clustering of categorical records.

## Running the code

You need to provide just the input (data) and output file name.
- input file must be a comma separated value (CSV) file with one element per line
- output file is also a comma separated value (CSV) file, same shape as input file with one additional column
  containing the cluster index of each element

To run:

`python3 cluster.py -i data/small{suffix} -o result.csv`
"""

CLUSTER = """import argparse, csv
p = argparse.ArgumentParser()
p.add_argument("-i", "--infile", required=True)
p.add_argument("-o", "--outfile", required=True)
a = p.parse_args()
rows = [r for r in csv.reader(open(a.infile)) if r]
keys = {}
labels = [keys.setdefault(r[0], len(keys)) for r in rows]
with open(a.outfile, "w", newline="") as fh:
    w = csv.writer(fh)
    if WRONG == "rows":
        for key, k in keys.items():
            w.writerow([key, k])
    else:
        for r, k in zip(rows, labels):
            w.writerow(r + [f"c{k}" if WRONG == "labels" else k])
print(f"{len(rows)} records in {len(keys)} clusters")
"""


def _data(n: int, seed: int) -> str:
    colours, shapes = ("red", "blue", "green"), ("round", "square")
    return "".join(f"{colours[(i * seed) % 3]},{shapes[i % 2]},s{i % 5}\n" for i in range(n))


def clustering(root: Path, wrong: str = "", suffix: str = ".csv") -> Path:
    """The artifact folder (paper.md beside it); `suffix`: of the shipped inputs (".data": a kind for which the
    review writes no new input of its own)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "paper.md").write_text(PAPER, encoding="utf-8")
    art = root / "artifact"
    (art / "data").mkdir(parents=True)
    (art / "README.md").write_text(README.format(suffix=suffix), encoding="utf-8")
    (art / "cluster.py").write_text(f"WRONG = {wrong!r}\n" + CLUSTER, encoding="utf-8")
    (art / "data" / f"small{suffix}").write_text(_data(12, 1), encoding="utf-8")
    (art / "data" / f"other{suffix}").write_text(_data(9, 2), encoding="utf-8")
    (art / "data" / f"large{suffix}").write_text(_data(40, 1), encoding="utf-8")
    return art


CONFIG_PAPER = """# Sampling Valid Configurations of Configurable Systems

*Anonymous authors*

## Abstract

We present confsample, a sampler of valid configurations for configurable systems modelled as CNF formulas, and
show that a few sampled configurations cover most pairwise interactions of the options.

## 1 Method

The sampler reads the system's constraints as a CNF formula and writes one valid configuration per line.

## 2 Results

A handful of configurations covers most option pairs on every system we tried.
"""

CONFIG_README = """# confsample

Samples valid configurations of a configurable system given as a CNF formula in DIMACS format.

## Running

```
python3 sample.py -input_cnf_path models/small.cnf
```

The output goes to a file named after the input. The output consists of multiple lines with each line representing
a valid configuration. For example, for a system with 3 options **x**, **y** and **z** in order, a line `0 1 0`
means that **x=0, y=1, z=0** is a valid configuration.
"""

SAMPLE = """import sys, os
path = sys.argv[sys.argv.index("-input_cnf_path") + 1]
n = next(int(l.split()[2]) for l in open(path) if l.startswith("p cnf"))
name = os.path.splitext(os.path.basename(path))[0] + "_configs.txt"
with open(name, "w") as fh:
    for k in range(6):
        fh.write(" ".join(str((k >> i) & 1) for i in range(n - DROP)) + "\\n")
print(f"6 configurations of {n} options written to {name}")
"""

CNF = "c five options\np cnf 5 3\n1 -2 0\n2 3 0\n-4 5 0\n"


def configurations(root: Path, drop: int = 0) -> Path:
    """A sampler whose README shows an example output line and says each value stands for an option of the input;
    `drop`: the script writes that many values fewer than the input has options."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "paper.md").write_text(CONFIG_PAPER, encoding="utf-8")
    art = root / "artifact"
    (art / "models").mkdir(parents=True)
    (art / "README.md").write_text(CONFIG_README, encoding="utf-8")
    (art / "sample.py").write_text(f"DROP = {drop}\n" + SAMPLE, encoding="utf-8")
    (art / "models" / "small.cnf").write_text(CNF, encoding="utf-8")
    return art
