"""Notebooks: cells and stored outputs, documented by name or by the folder the docs describe, steps only where a
reviewer would run them, and corrupt notebooks listed with a note."""
from __future__ import annotations

from .helpers import cmds, notebook, step

WITH_OUTPUT = notebook([("markdown", "# Recall\nProduces Figure 6.", False), ("code", "import pandas", True),
                        ("code", "plot()", True)])
NO_OUTPUT = notebook([("code", "x = 1", False), ("code", "print(x)", False)])


def test_notebook_contents_and_corrupt_notebook(run):
    found = run({"README.md": "# T\n", "analysis/Recall_Graph.ipynb": WITH_OUTPUT, "analysis/stats.ipynb": NO_OUTPUT,
                 "analysis/broken.ipynb": '{"cells": [', "analysis/odd.ipynb": '["not", "a", "notebook"]'})
    books = {nb.path: nb for nb in found.notebooks}
    recall = books["analysis/Recall_Graph.ipynb"]
    assert (recall.cells, recall.code_cells, recall.stored_outputs, recall.language) == (3, 2, 2, "python")
    assert recall.mentions == ["Figure 6"]
    assert books["analysis/stats.ipynb"].stored_outputs == 0
    for name in ("analysis/broken.ipynb", "analysis/odd.ipynb"):
        assert books[name].cells == 0 and books[name].note.startswith("not a valid notebook")
    assert any(n.startswith("analysis/broken.ipynb:") for n in found.notes)


def test_notebooks_named_in_a_file_list_are_documented_steps_with_their_figures(run):
    found = run({
        "README.md": "# Study\n\n* `analysis/`: Jupyter notebooks used to make the graphs for the paper.\n",
        "analysis/README.md": ("## Files\n* `Recall_Graph.ipynb` - Processed recall data and produced Figure 6.\n"
                               "* `Counts.ipynb` - Produced Figures 7, 9 and 10 in the paper.\n"),
        "analysis/Recall_Graph.ipynb": WITH_OUTPUT, "analysis/Counts.ipynb": NO_OUTPUT,
        "analysis/Extra.ipynb": NO_OUTPUT, "scratch/play.ipynb": NO_OUTPUT,
    })
    books = {nb.path: nb for nb in found.notebooks}
    assert books["analysis/Counts.ipynb"].mentions == ["Figure 7", "Figure 9", "Figure 10"]
    assert books["analysis/Extra.ipynb"].documented  # inside the folder the README describes as holding notebooks
    assert not books["scratch/play.ipynb"].documented
    recall = step(found, "Recall_Graph")
    assert (recall.origin, recall.kind, recall.cwd, recall.notebook) == (
        "notebook", "plot", "analysis", "analysis/Recall_Graph.ipynb")
    assert recall.cmd.startswith("jupyter nbconvert --to notebook --execute Recall_Graph.ipynb")
    assert step(found, "Counts").kind == "workflow" and "Figure 9" in step(found, "Counts").mentions
    assert not any("play.ipynb" in c for c in cmds(found))


def test_undocumented_notebooks_run_only_when_no_documented_workflow(run):
    only_nb = run({"README.md": "# Data\n\nThe data set of the study.\n", "nb/a.ipynb": NO_OUTPUT})
    assert [(s.origin, s.documented, s.notebook) for s in only_nb.steps] == [("notebook", False, "nb/a.ipynb")]
    with_flow = run({"README.md": "```\npython3 main.py\n```\n", "main.py": "", "nb/a.ipynb": NO_OUTPUT})
    assert cmds(with_flow) == ["python3 main.py"]


def test_notebook_run_in_prose_is_not_duplicated(run):
    found = run({"README.md": ("You can reproduce the plots by running the notebook: "
                               "[overview_plots.ipynb](./overview_plots.ipynb)\n"),
                 "overview_plots.ipynb": WITH_OUTPUT})
    assert [(s.origin, s.kind, s.notebook) for s in found.steps] == [("prose", "plot", "overview_plots.ipynb")]


def test_same_name_notebooks_resolve_to_the_one_next_to_the_doc(run):
    found = run({"README.md": "See [exp](exp/README.md)\n",
                 "exp/README.md": "The mining is done in the notebook: [mine.ipynb](./mine.ipynb)\n",
                 "exp/mine.ipynb": NO_OUTPUT, "old/mine.ipynb": NO_OUTPUT})
    books = {nb.path: nb.documented for nb in found.notebooks}
    assert books == {"exp/mine.ipynb": True, "old/mine.ipynb": False}
