"""The rubric is data; malformed data fails loudly at load time."""
from __future__ import annotations

import shutil

import pytest

from artifactcopilot.errors import RubricError
from artifactcopilot.resources import data_dir
from artifactcopilot.rubric import load_rubric
from artifactcopilot.skills import load_skills


@pytest.fixture
def rubric_copy(tmp_path):
    dest = tmp_path / "rubric"
    shutil.copytree(data_dir("rubric"), dest)
    return dest


def test_shipped_rubric_covers_tables_i_and_ii():
    r = load_rubric()
    assert set(r.gate) == {"GC1", "GC2", "GC3"}
    assert list(r.dimensions) == ["D1", "D2", "D3", "D4", "D5"]
    assert set(r.levels["representative_workflow"]) == {f"RW{i}" for i in range(1, 6)}
    assert set(r.levels["intervention"]) == {f"I{i}" for i in range(5)}
    assert set(r.levels["evidence"]) == {f"E{i}" for i in range(4)}
    assert [b.id for b in r.badges] == ["available", "functional", "reusable", "reproduced"]


def test_unknown_fact_is_a_load_error(rubric_copy):
    path = rubric_copy / "badges.yaml"
    path.write_text(path.read_text().replace("D3.score >= WA", "D3.scroe >= WA"))
    with pytest.raises(RubricError, match="unknown fact 'D3.scroe'"):
        load_rubric(rubric_copy)


def test_value_of_wrong_type_is_a_load_error(rubric_copy):
    path = rubric_copy / "badges.yaml"
    path.write_text(path.read_text().replace("D3.score >= WA", "D3.score >= E2"))
    with pytest.raises(RubricError, match="does not fit a score fact"):
        load_rubric(rubric_copy)


def test_unknown_checklist_item_in_level_rule(rubric_copy):
    path = rubric_copy / "dimensions.yaml"
    path.write_text(path.read_text().replace("all_of: [D1.entry]", "all_of: [D1.entyr]"))
    with pytest.raises(RubricError, match="unknown checklist item 'D1.entyr'"):
        load_rubric(rubric_copy)


def test_skills_have_scope_and_contract():
    skills = load_skills()
    assert "run_workflow" not in skills["D1"].tool_scope and "run_setup" not in skills["D1"].tool_scope
    assert "run_workflow" in skills["D3"].tool_scope and "run_workflow" not in skills["D2"].tool_scope
    assert "run_transfer" in skills["D5"].tool_scope
    assert skills["D3"].contract.score and not skills["gate"].contract.score
    assert "Phase: D2" in skills["D2"].text
