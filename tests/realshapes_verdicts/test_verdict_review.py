"""Verdicts that read what the run shows, on whole reviews of small artifacts in real shapes: pair like with like,
contradict only what is comparable, one comparison in the report, the artifact's own writes are not the review's
intervention, error-only output is not valid, documented ties map, a data set's workflow is its analysis, and the
gate says when the material lies in repositories that could not be fetched. Each positive case failed before this
change; each sits beside the negative the rule must keep."""
from __future__ import annotations

import json

from realshapes_mapping.shapes import table_shape

from .shapes import appendix_ties, dataset, echo_then_error, far_off, instrumenting, linked_only, pairing


def _item(report, phase: str, name: str):
    return next(c for c in report.dimensions[phase].checklist if c.item == name)


def _mapping(run_dir) -> dict:
    found = sorted((run_dir / "evidence").rglob("*claim-mapping*"))
    return json.loads(found[-1].read_text(encoding="utf-8"))


def _review(review, case, **kw):
    return review(*case, timeout=120, sandbox_name="local", **kw)


# shape 1: shared labels are not the same quantity ---------------------------------------------------------------

def test_an_output_of_shares_is_not_held_against_a_table_of_seconds(review, tmp_path):
    report, run_dir = _review(review, pairing(tmp_path / "case"))
    contradicted = _item(report, "D4", "D4.contradicted")
    assert contradicted.status == "violated", contradicted.note
    assert "Table 4" in contradicted.note and "another quantity" in contradicted.note
    mapping = _mapping(run_dir)["mapping"]
    assert [(m["table"], m["verdict"]) for m in mapping["structure"]] == [("Table 2", "close")]
    unlike = mapping["not_comparable"]
    assert [m["table"] for m in unlike] == ["Table 4"] and "another scale" in unlike[0]["comparable"]
    assert report.dimensions["D4"].score == "WA" and report.badge == "functional"


# shape 2: a results table that truly contradicts (shape 1's negative) ---------------------------------------------

def test_most_cells_far_off_contradict_the_paper_whatever_the_ordering(review, tmp_path):
    report, run_dir = _review(review, far_off(tmp_path / "case"))
    contradicted = _item(report, "D4", "D4.contradicted")
    assert contradicted.status == "satisfied", contradicted.note
    assert "ordering holds" in contradicted.note and "6 far" in contradicted.note
    assert report.dimensions["D4"].score == "WR" and report.badge == "available"


def test_close_values_with_a_broken_ordering_differ_and_still_map(review, tmp_path):
    report, run_dir = _review(review, far_off(tmp_path / "case", close_swapped=True))
    assert _item(report, "D4", "D4.contradicted").status == "violated"
    assert [m["verdict"] for m in _mapping(run_dir)["mapping"]["structure"]] == ["differs"]
    assert report.dimensions["D4"].score == "WA"


# shape 3: one comparison, on one scale, in D4's words ------------------------------------------------------------

def _results_section(run_dir) -> str:
    md = (run_dir / "report.md").read_text(encoding="utf-8")
    return md.split("## Reproduced results", 1)[1].split("\n## ", 1)[0]


def test_the_reproduced_results_section_shows_d4s_comparison_on_one_scale(review, tmp_path):
    _, run_dir = review(*table_shape(tmp_path / "case"), timeout=120, sandbox_name="local")
    section = _results_section(run_dir)
    assert "### Table 2: close to the paper" in section
    assert "fractions against the paper's percentages" in section
    assert "`52.4%`" in section and "−1.6 points" in section and "≈ close" in section
    assert "✗ different" not in section and "partly reproduced" not in section


def test_a_contradicting_table_reads_as_contradicting_in_the_same_section(review, tmp_path):
    _, run_dir = review(*table_shape(tmp_path / "case", contradict=True), timeout=120, sandbox_name="local")
    section = _results_section(run_dir)
    assert "### Table 2: contradicts the paper" in section and "✗ far off" in section
    assert "does not hold" in section


# shape 4: what the artifact's documented command writes is not the review's edit ---------------------------------

def test_a_tool_that_instruments_its_input_in_place_is_not_a_reviewer_edit(review, tmp_path):
    report, run_dir = _review(review, instrumenting(tmp_path / "case"))
    assert not [i for i in report.interventions if i.level.value in ("I3", "I4")], report.interventions
    assert any(i.level.value == "I2" and "instrument.py" in i.action for i in report.interventions)
    logs = "\n".join(p.read_text(encoding="utf-8", errors="replace")
                     for p in (run_dir / "evidence").rglob("*.log"))
    assert "examples/test_driver.py" in logs  # the log still lists the file the command changed
    assert report.badges["functional"], report.derivation


# shape 5: error, usage or echo alone is not valid output ---------------------------------------------------------

def test_an_echo_and_a_missing_script_are_not_valid_output(review, tmp_path):
    report, _ = _review(review, echo_then_error(tmp_path / "case"))
    rw3 = _item(report, "D3", "RW3")
    assert rw3.status != "satisfied", rw3.note
    assert report.dimensions["D3"].score in ("R", "WR") and report.badge == "available"
    assert "its only output is 1 error line" in rw3.note and "echoing the command's own text" in rw3.note


def test_the_same_script_printing_its_results_is_valid(review, tmp_path):
    report, _ = _review(review, echo_then_error(tmp_path / "case", works=True))
    assert _item(report, "D3", "RW3").status == "satisfied"
    assert report.dimensions["D3"].score in ("WA", "A")


# shape 6: a documented claim -> experiment -> command tie is a mapping ---------------------------------------------

def test_an_appendix_claim_experiment_command_tie_maps_the_run(review, tmp_path):
    report, run_dir = _review(review, appendix_ties(tmp_path / "case"))
    mapping = _item(report, "D4", "D4.mapping")
    assert mapping.status == "satisfied", mapping.note
    assert "Claim 1" in mapping.note and "Table 3" in mapping.note and "python3 compare.py" in mapping.note
    assert "Table 3 values not compared" in mapping.note
    assert report.dimensions["D4"].score == "WA" and report.badge == "functional"


def test_a_tied_command_that_only_prints_a_checked_in_result_is_not_credited(review, tmp_path):
    report, _ = _review(review, appendix_ties(tmp_path / "case", copied=True))
    assert _item(report, "D4", "D4.mapping").status != "satisfied"
    assert report.badge == "available"


# shape 7: a data set's workflow is loading it, checking its schema, recomputing the paper's counts -------------

def test_a_documented_data_set_whose_counts_hold(review, tmp_path):
    report, run_dir = _review(review, dataset(tmp_path / "case"))
    assert _item(report, "D2", "D2.evaluable").status == "satisfied"
    assert "semicolon-separated" in _item(report, "D2", "D2.evaluable").note
    rw4 = _item(report, "D3", "RW4")
    assert rw4.status == "satisfied" and "rows with label = benign: 203" in rw4.note, rw4.note
    assert report.dimensions["D3"].evidence_level == "E2"
    check = json.loads(next((run_dir / "evidence").rglob("*dataset-check*")).read_text(encoding="utf-8"))
    assert check["held"] >= 4 and check["not_held"] == 0
    assert any("first at lines" in c["rows"] for c in check["checks"])
    assert report.dimensions["D4"].score == "WA" and report.badge == "functional"
    assert not report.interventions or max(i.level.value for i in report.interventions) <= "I1"


def test_a_data_set_whose_documented_counts_do_not_hold(review, tmp_path):
    report, _ = _review(review, dataset(tmp_path / "case", wrong_counts=True))
    contradicted = _item(report, "D4", "D4.contradicted")
    assert contradicted.status == "satisfied", contradicted.note
    assert "do not hold" in contradicted.note and "150" in contradicted.note
    assert report.dimensions["D4"].score == "WR" and report.badge == "available"


# shape 8: the gate names linked repositories it could not fetch ------------------------------------------------

def test_material_in_unreachable_linked_repositories_is_not_established(review, tmp_path):
    report, run_dir = _review(review, linked_only(tmp_path / "case"), offline=True)
    gc3 = next(c for c in json.loads((run_dir / "packets" / "gate.json").read_text())["checklist"]
               if c["item"] == "GC3")
    assert gc3["note"].startswith("not established: the material is in linked repositories that could not be "
                                  "fetched (https://github.com/example-lab/fuzzer-selection-code")
    assert "nothing beyond a copy of the paper" not in gc3["note"]
    md = (run_dir / "report.md").read_text(encoding="utf-8")
    assert "GC3: not established: the material is in linked repositories" in md
    assert report.badge == "none"


def test_a_copy_of_the_paper_alone_is_nothing_beyond_it(review, tmp_path):
    report, run_dir = _review(review, linked_only(tmp_path / "case", link=False), offline=True)
    gc3 = next(c for c in json.loads((run_dir / "packets" / "gate.json").read_text())["checklist"]
               if c["item"] == "GC3")
    assert "nothing beyond a copy of the paper" in gc3["note"] and "linked" not in gc3["note"]
    assert report.badge == "none"
