"""claims.notebooks: stored outputs of a notebook, and a re-executed notebook compared with them."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from artifactcopilot.claims import compare_notebook_runs, stored_outputs

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "claims"


@pytest.fixture
def stored() -> dict:
    return json.loads((FIXTURES / "analysis.ipynb").read_text(encoding="utf-8"))


def _code(nb: dict, k: int) -> dict:
    """The k-th code cell."""
    return [c for c in nb["cells"] if c["cell_type"] == "code"][k]


def _rerun(nb: dict) -> dict:
    """The same notebook as an honest re-execution prints it: new counts, timings, paths and raw digits."""
    out = copy.deepcopy(nb)
    _code(out, 1)["outputs"][0]["text"] = ["samples: 1204\n", "accuracy: 0.9136212624584717\n"]
    _code(out, 3)["outputs"][0]["text"] = ["/opt/conda/lib/site.py:9: FutureWarning: bins\n", "  x = 1\n"]
    _code(out, 3)["outputs"][1]["text"] = ["plot took 0.0451 s\n"]
    for i, c in enumerate(c for c in out["cells"] if c["cell_type"] == "code"):
        c["execution_count"] = i + 10
    return out


def test_stored_outputs_per_code_cell(stored):
    so = stored_outputs(json.dumps(stored))
    assert so.error is None and so.nbformat == 4
    assert so.code_cells == 6 and so.cells_with_outputs == 4 and so.images == 1 and so.errors == 0
    by_head = {c.source_head: c for c in so.cells}
    assert by_head["df = pd.read_csv('data/labels.csv')"].text == "samples: 1204\naccuracy: 0.9136212624584718\n"
    plot = by_head["start = time.time()"]
    assert plot.images == ["png"] and "Figure size" not in plot.text and "FutureWarning" in plot.stderr
    assert "emotet" in by_head["df.head(2)"].text  # text/plain chosen over text/html
    json.dumps(so.to_dict())


def test_long_text_output_keeps_head_and_tail(stored):
    _code(stored, 1)["outputs"][0]["text"] = [f"line {i}\n" for i in range(20_000)]
    cell = stored_outputs(json.dumps(stored)).cells[1]
    assert cell.truncated and cell.text.startswith("line 0\n") and cell.text.endswith("line 19999\n")
    assert len(cell.text) < 25_000


def test_identical_rerun_matches(stored):
    r = compare_notebook_runs(json.dumps(stored), json.dumps(_rerun(stored)))
    assert r.verdict == "match", r.reason
    assert r.cells_compared == 4 and r.cells_matched == 4
    assert r.figures_stored == r.figures_regenerated == 1
    assert r.errors == [] and r.cells_differing == []


def test_differing_values_and_missing_figure(stored):
    executed = _rerun(stored)
    _code(executed, 2)["outputs"][0]["data"]["text/plain"] = ["0.2625"]
    _code(executed, 3)["outputs"] = [o for o in _code(executed, 3)["outputs"] if o["output_type"] != "display_data"]
    r = compare_notebook_runs(json.dumps(stored), json.dumps(executed))
    assert r.verdict == "partial"
    assert r.cells_matched == 2 and r.figures_regenerated == 0
    details = {d.source_head: " ".join(d.details) for d in r.cells_differing}
    assert "0/1 documented lines" in details["df.groupby('family').size().max() / len(df)"]
    assert "figure (png) not regenerated" in details["start = time.time()"]


def test_errors_listed_with_first_source_line(stored):
    executed = _rerun(stored)
    _code(executed, 1)["outputs"] = [{"output_type": "error", "ename": "FileNotFoundError",
                                      "evalue": "[Errno 2] No such file or directory: 'data/labels.csv'",
                                      "traceback": ["..."]}]
    for k in (2, 3, 4):
        _code(executed, k)["outputs"] = []
    r = compare_notebook_runs(json.dumps(stored), json.dumps(executed))
    assert r.verdict == "mismatch"
    assert [(e.source_head, e.ename) for e in r.errors] == [("df = pd.read_csv('data/labels.csv')",
                                                             "FileNotFoundError")]
    assert "FileNotFoundError" in r.reason


def test_error_in_a_cell_without_stored_output_prevents_match(stored):
    executed = _rerun(stored)
    _code(executed, 0)["outputs"] = [{"output_type": "error", "ename": "ModuleNotFoundError",
                                      "evalue": "No module named 'pandas'", "traceback": []}]
    r = compare_notebook_runs(json.dumps(stored), json.dumps(executed))
    assert r.verdict == "partial" and r.cells_matched == r.cells_compared
    assert r.errors[0].source_head == "import pandas as pd"


def test_cells_added_and_removed_are_aligned_by_source(stored):
    executed = _rerun(stored)
    extra = {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": ["!pip install pandas\n"],
             "outputs": [{"output_type": "stream", "name": "stdout", "text": ["Requirement already satisfied\n"]}]}
    executed["cells"].insert(1, extra)
    executed["cells"] = [c for c in executed["cells"] if "".join(c["source"]).strip() != "df.head(2)"]
    r = compare_notebook_runs(json.dumps(stored), json.dumps(executed))
    assert r.cells_matched == 3 and r.cells_compared == 4
    assert r.cells_differing[0].source_head == "df.head(2)"
    assert "not present" in r.cells_differing[0].details[0]


def test_cell_edited_in_place_stays_paired(stored):
    executed = _rerun(stored)
    _code(executed, 1)["source"] = ["df = pd.read_csv('data/labels_small.csv')\n", "print('samples:', len(df))\n"]
    r = compare_notebook_runs(json.dumps(stored), json.dumps(executed))
    assert r.verdict == "match" and r.cells_edited == 1


def test_notebook_without_stored_outputs_is_not_established(stored):
    for c in stored["cells"]:
        c.get("outputs", []).clear()
    r = compare_notebook_runs(json.dumps(stored), (FIXTURES / "analysis.ipynb").read_text(encoding="utf-8"))
    assert r.verdict == "not_established" and "nothing stored to compare with" in r.reason


def test_unexecuted_notebook_is_not_established(stored):
    blank = copy.deepcopy(stored)
    for c in blank["cells"]:
        c.get("outputs", []).clear()
    r = compare_notebook_runs(json.dumps(stored), json.dumps(blank))
    assert r.verdict == "not_established" and "holds no outputs" in r.reason


@pytest.mark.parametrize("text", ["{not json", "", "[]", '{"cells": 3}', "[" * 100_000, '{"cells": [1, "x", null]}'])
def test_corrupt_notebooks_never_raise(text, stored):
    so = stored_outputs(text)
    assert so.cells == [] and (so.error or so.code_cells == 0)
    r = compare_notebook_runs(text, json.dumps(stored))
    assert r.verdict == "not_established"
    r = compare_notebook_runs(json.dumps(stored), text)
    assert r.verdict == "not_established"
    json.dumps(r.to_dict())


def test_nbformat3_outputs_are_read():
    nb3 = {"nbformat": 3, "worksheets": [{"cells": [
        {"cell_type": "code", "input": "print(1)", "prompt_number": 1,
         "outputs": [{"output_type": "stream", "stream": "stdout", "text": "1\n"},
                     {"output_type": "pyout", "text": ["42"]},
                     {"output_type": "display_data", "png": "iVBORw0KGgo="},
                     {"output_type": "pyerr", "ename": "ValueError", "evalue": "bad"}]}]}]}
    cell = stored_outputs(json.dumps(nb3)).cells[0]
    assert cell.text == "1\n42\n" and cell.images == ["png"] and cell.errors[0].ename == "ValueError"
    assert cell.execution_count == 1


def _cleared(nb: dict) -> dict:
    """The notebook as authors often commit it: outputs cleared."""
    out = copy.deepcopy(nb)
    for c in out["cells"]:
        if c["cell_type"] == "code":
            c["outputs"], c["execution_count"] = [], None
    return out


def test_a_notebook_committed_without_outputs_still_counts_the_figures_its_run_shows(stored):
    res = compare_notebook_runs(json.dumps(_cleared(stored)), json.dumps(_rerun(stored)))
    assert res.verdict == "not_established" and res.cells_compared == 0
    assert res.figures_displayed == 1 and "the run showed 1 figures" in res.reason


def test_a_run_that_raised_shows_no_figure_worth_counting(stored):
    failed = _rerun(stored)
    _code(failed, 4)["outputs"] = [{"output_type": "error", "ename": "KeyError", "evalue": "'label'", "traceback": []}]
    res = compare_notebook_runs(json.dumps(_cleared(stored)), json.dumps(failed))
    assert res.figures_displayed == 0
    assert compare_notebook_runs(json.dumps(stored), json.dumps(_rerun(stored))).figures_displayed == 1


def test_d4_credits_shown_figures_only_for_notebooks_the_documentation_ties_to_paper_figures():
    from artifactcopilot.agents.heuristic.claimsources import Checks

    tied = {"notebook": "analysis/Recall.ipynb", "verdict": "not_established", "descriptive": False,
            "figures_displayed": 2, "figure_files": ["analysis/recall.pdf"], "figure_refs": ["Figure 6"]}
    untied = {**tied, "notebook": "analysis/Scratch.ipynb", "figure_refs": []}
    silent = {**tied, "notebook": "analysis/Table.ipynb", "figures_displayed": 0}
    checks = Checks(notebooks=[tied, untied, silent])
    assert checks.figures == ["analysis/Recall.ipynb: 2 figures shown or written (analysis/recall.pdf) for Figure 6"]
    assert checks.documented_output == []
