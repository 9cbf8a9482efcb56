"""A documented statement over several lines (a loop, `if … fi`, `while read`, a `&&` chain, a here-document) is
one step, run whole as written; what it is comes from the first command in it that does work."""
from __future__ import annotations

import pytest

from artifactcopilot.discovery import DirectoryView, discover

SHAPES = {
    "for loop": ("for d in cora citeseer pubmed; do\n    python run.py --dataset \"$d\" --out \"results/$d.txt\"\n"
                 "done"),
    "if … fi": "if [ ! -f data/graph.csv ]; then\n    python run.py --prepare\nfi",
    "while loop": "while read -r name; do\n    python run.py --dataset \"$name\"\ndone < datasets.txt",
    "&&": "python run.py --prepare &&\n    python run.py --train \\\n        --epochs 3 &&\n    python run.py --eval",
    "here-document": "python run.py --config - <<'EOF'\nepochs: 3\n# learning rate\nlr: 0.1\nEOF",
}


def _artifact(tmp_path, block: str):
    (tmp_path / "README.md").write_text(f"# GraphTool\n\n## Reproduce Table 2\n\n```bash\n{block}\n```\n\n"
                                        "Then plot:\n\n```bash\npython run.py --plot\n```\n", encoding="utf-8")
    (tmp_path / "run.py").write_text("print('ok')\n", encoding="utf-8")
    (tmp_path / "datasets.txt").write_text("cora\n", encoding="utf-8")
    return discover(DirectoryView(str(tmp_path)))


@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_statement_over_several_lines_is_one_documented_step(tmp_path, shape):
    found = _artifact(tmp_path, SHAPES[shape])
    cmds = [s.cmd for s in found.steps]
    assert cmds == [SHAPES[shape], "python run.py --plot"], cmds
    step = found.steps[0]
    assert step.kind == "workflow" and "Table 2" in step.mentions
    assert any(f"({shape})" in n and "run whole, as written" in n for n in step.notes), step.notes


def test_lines_of_simple_commands_stay_steps_of_their_own(tmp_path):
    found = _artifact(tmp_path, "python run.py --prepare\npython run.py --train && python run.py --eval")
    assert [s.cmd for s in found.steps][:2] == ["python run.py --prepare",
                                                "python run.py --train && python run.py --eval"]
    assert not any("one statement" in n for s in found.steps for n in s.notes)


def test_a_statement_that_never_closes_is_read_line_by_line(tmp_path):
    found = _artifact(tmp_path, "for d in a b; do\npython run.py --dataset a")
    assert "python run.py --dataset a" in [s.cmd for s in found.steps]


def test_python_code_in_a_block_is_not_taken_for_a_shell_statement(tmp_path):
    (tmp_path / "README.md").write_text("# T\n\n## Use\n\n```python\nfor x in range(3):\n    print(x)\n```\n",
                                        encoding="utf-8")
    found = discover(DirectoryView(str(tmp_path)))
    assert not any("for x in range" in s.cmd for s in found.steps)
