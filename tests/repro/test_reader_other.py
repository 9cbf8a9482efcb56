"""The static reader on R, notebooks and Makefiles, and how it picks the language."""
from __future__ import annotations

import json

import pytest

from artifactcopilot.repro.reader import classify, detect_language, read_script
from artifactcopilot.repro.reader.make import parse
from artifactcopilot.repro.reader.rlang import tokens


def method(text: str, name: str, root=None, files=None) -> str:
    return classify(read_script(text, name, root, files), files).method


@pytest.mark.parametrize("code, expected", [
    (('tab <- data.frame(m = c("A", "B", "C"), acc = c(0.912, 0.887, 0.853), f1 = c(0.901, 0.873, 0.842))\n'
     "print(knitr::kable(tab))\n"), "copy"),
    ('d <- read.csv("results/table3.csv")\nprint(d)\n', "copy"),
    ('library(pdftools)\ntxt <- pdf_text("paper.pdf")\ncat(txt[5])\n', "copy"),
    ('runs <- read.csv("results/raw_runs.csv")\nagg <- aggregate(acc ~ model, data = runs, FUN = mean)\nagg\n',
     "last_mile"),
    ("library(dplyr)\nlogs <- readRDS('logs/all_runs.rds')\n"
     "logs %>% group_by(m) %>% summarise(acc = mean(acc)) %>% print()\n",
     "last_mile"),
    (("sim <- function(n) {\n  x <- 0\n  for (i in 1:n) { x <- x + rnorm(1) * 2 }\n  x / n\n}\n"
     "res <- sapply(c(10, 100, 1000), sim)\nwrite.csv(res, 'out/sim.csv')\nprint(res)\n"), "full"),
    (('d <- read.table("data/constructs.csv", header = TRUE)\nsink("results/Table-3.txt")\n'
     "for (p in unique(d$project)) {\n  x <- d[d$project == p, ]\n  print(wilcox.test(x$a, x$b))\n}\n"
     "sink()\n"), "full"),
])
def test_r_scripts(code, expected):
    assert method(code, "analysis.R") == expected, code


def test_r_tokenizer_keeps_strings_comments_and_raw_strings_apart():
    toks = [t[1] for t in tokens("x <- \"a # not a comment\" # comment\ny <- r\"(C:\\path)\"\nz <- 1e-3L\n")]
    assert "# comment" not in toks and '"a # not a comment"' in toks and "1e-3L" in toks
    assert any("C:" in t for t in toks)


def notebook(*cells: tuple[str, str, str | None]) -> str:
    out = []
    for kind, source, stored in cells:
        cell = {"cell_type": kind, "metadata": {}, "source": source.splitlines(keepends=True)}
        if kind == "code":
            cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": [stored]}] if stored else []
        out.append(cell)
    return json.dumps({"cells": out, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def test_notebook_code_cells_are_read_with_their_magics():
    nb = notebook(("markdown", "# Table 2", None),
                  ("code", ("%matplotlib inline\nimport pandas as pd\n!python3 train.py --out runs\n"
                           "df = pd.read_csv('runs/scores.csv')"), None),
                  ("code", "df.groupby('model').acc.mean()", "| A | 0.91 |\n"))
    reading = read_script(nb, "analysis.ipynb")
    assert reading.language == "notebook"
    assert classify(reading).method == "full"  # the notebook runs the experiment, then summarises it


def test_a_notebook_rendered_without_running_shows_its_stored_outputs(tmp_path):
    (tmp_path / "nb.ipynb").write_text(notebook(("code", "print(open('results/raw.csv').read())", "| A | 0.91 |\n")))
    files = ["nb.ipynb"]
    assert method("jupyter nbconvert --to html nb.ipynb\n", "repro.sh", tmp_path, files) == "copy"
    assert method("jupyter nbconvert --execute --to html nb.ipynb\n", "repro.sh", tmp_path, files) == "copy"
    (tmp_path / "nb.ipynb").write_text(notebook(("code", ("import pandas as pd\nd = pd.read_csv('logs/runs.csv')\n"
                                                         "d.acc.mean()"), "0.91")))
    assert method("papermill nb.ipynb out.ipynb\n", "repro.sh", tmp_path, files) == "last_mile"


def test_broken_notebook_is_a_note():
    reading = read_script('{"cells": [{"cell_type": "code", "source": "def (:"}]}', "x.ipynb")
    assert reading.notes and classify(reading).method == "undetermined"


def test_makefile_rules_variables_and_prerequisites(tmp_path):
    makefile = ("PY ?= python3\nRUNS := runs\n.PHONY: all\nall: table2\n\nsimulate:\n\t$(PY) sim.py --out $(RUNS)\n\n"
                "table2: simulate\n\t@$(PY) summarize.py $(RUNS) > $@.md\n\tcat $@.md\n\n"
                "fast:\n\t$(PY) summarize.py stored/\n")
    rules, order, variables = parse(makefile)
    assert order[:2] == ["all", "simulate"] and rules["table2"][0] == ["simulate"] and variables["RUNS"] == "runs"
    (tmp_path / "Makefile").write_text(makefile)
    (tmp_path / "stored").mkdir()
    (tmp_path / "stored" / "results.csv").write_text("x\n1\n")
    files = ["Makefile", "stored/results.csv"]
    assert method("make\n", "repro.sh", tmp_path, files) == "full"
    assert method("make fast\n", "repro.sh", tmp_path, files) == "last_mile"
    assert method(makefile, "Makefile") == "full"  # a Makefile judged on its own: its first target


@pytest.mark.parametrize("text, name, lang", [
    ("import os\nprint(1)\n", None, "python"),
    ("#!/usr/bin/env python3\nprint(1)\n", "repro", "python"),
    ("x <- read.csv('a.csv')\nlibrary(dplyr)\n", None, "r"),
    ("cat results/t.md\n", None, "shell"),
    ('{"cells": []}', "nb.ipynb", "notebook"),
    ("all:\n\techo hi\n", "Makefile", "make"),
])
def test_language_detection(text, name, lang):
    assert detect_language(text, name) == lang
