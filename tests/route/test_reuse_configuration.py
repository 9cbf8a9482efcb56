"""D5 on a new configuration: a parameter the documentation calls tunable, set to another value in a copy of the
script, validates a transfer only when the output is valid and changes."""
from __future__ import annotations

from .shapes import PAPER, write_tree

README = """# Sketch simulation

## Table 2

```
python sketch.py
```

## Parameters

All mechanisms have tunable parameters.

- sketch (sketch.py): parameter(s): width (sketch width), seed
"""
SKETCH = """width = 64
seed = 3
unused = 5
print("Sketch Adult Census")
print("HLL", round(0.91 * width / 64, 3), 0.88)
print("CMS", 0.85, 0.83)
"""


def _d5(report):
    return {i.item: i for i in report.dimensions["D5"].checklist}


def test_a_documented_parameter_set_anew_validates_a_transfer_on_a_new_configuration(tmp_path, review):
    artifact = write_tree(tmp_path / "a", {"README.md": README, "sketch.py": SKETCH})
    paper = tmp_path / "paper.md"
    paper.write_text(PAPER, encoding="utf-8")
    report, run_dir = review(paper, artifact, timeout=60, sandbox_name="local", max_minutes=3)
    items = _d5(report)
    assert items["D5.transfer_validated"].status == "satisfied", items["D5.transfer_validated"].note
    assert "width set to 128 instead of 64" in items["D5.transfer_validated"].note
    assert not (artifact / "sketch_transfer.py").exists()  # a copy in the sandbox, the artifact unchanged
    assert not any(i.level.value in ("I3", "I4") for i in report.interventions if i.phase == "D5")


def test_a_documented_parameter_that_changes_nothing_validates_no_transfer(tmp_path, review):
    readme = README.replace("parameter(s): width (sketch width), seed", "parameter(s): unused (kept for later)")
    artifact = write_tree(tmp_path / "a", {"README.md": readme, "sketch.py": SKETCH})
    paper = tmp_path / "paper.md"
    paper.write_text(PAPER, encoding="utf-8")
    report, _ = review(paper, artifact, timeout=60, sandbox_name="local", max_minutes=3)
    items = _d5(report)
    assert items["D5.transfer_validated"].status == "violated"
    assert "showed no effect" in items["D5.transfer_validated"].note, items["D5.transfer_validated"].note
