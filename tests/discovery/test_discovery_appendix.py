"""Artifact appendices: an Artifact-Appendix.md with `[PROJECT_ROOT]$` prompts, a checklist of requested badges and a
tree of scripts with durations; and the paper's own "Artifact Appendix" section read as a document."""
from __future__ import annotations

from .helpers import step

APPENDIX = """# Artifact Appendix

Requested Badge(s):
  - [x] **Available**
  - [x] **Functional**
  - [ ] **Reproduced**

### Set up the environment

**Install Python dependencies.** Run the following uv command:

```bash
[PROJECT_ROOT]$ uv sync
```

### Testing the Environment

```bash
[PROJECT_ROOT]$ uv pip check
```
This will print: all installed packages are compatible.

### Experiments

Run the following scripts in the `repro/` directory:

```
MyTool/ (project root)
├── repro/
│   ├── figure_4.py: Figure 4 (Page 10) (≈60 seconds)
│   ├── table_3.py: Table 3 (Page 12) (≈4 minutes)
```

#### Figure 4 and Table 3
Run the following commands sequentially:

```bash
[PROJECT_ROOT]$ uv run ./repro/figure_4.py
[PROJECT_ROOT]$ uv run ./repro/table_3.py
```
"""

FILES = {"README.md": "# MyTool\n\nCode for the paper.\n", "Artifact-Appendix.md": APPENDIX,
         "repro/figure_4.py": "", "repro/table_3.py": "", ".python-version": "3.12\n",
         "pyproject.toml": "[project]\nname='mytool'\nrequires-python = '>=3.12'\n"}


def test_prompts_runner_and_kinds(run):
    found = run(FILES)
    assert [(s.kind, s.runner, s.inner) for s in found.steps] == [
        ("install", None, "uv sync"), ("test", None, "uv pip check"),
        ("plot", "uv", "./repro/figure_4.py"), ("workflow", "uv", "./repro/table_3.py")]
    assert step(found, "figure_4").cmd == "uv run ./repro/figure_4.py"


def test_durations_and_mentions_from_the_script_tree(run):
    found = run(FILES)
    fig, table = step(found, "figure_4"), step(found, "table_3")
    assert fig.duration_hint_s == 60 and table.duration_hint_s == 240
    assert "Figure 4" in fig.mentions and "Table 3" in table.mentions and not fig.long


def test_checklist_badges_expected_print_and_versions(run):
    found = run(FILES)
    assert found.requested_badges.badges == ["available", "functional"]
    assert found.requested_badges.source == "Artifact-Appendix.md:3"
    check = step(found, "pip check")
    assert [(e.step_order, e.text) for e in found.expected_outputs] == [
        (check.order, "all installed packages are compatible.")]
    assert found.python_versions == [">=3.12", "3.12"]
    assert "uv" in found.system_tools


def test_paper_artifact_appendix_is_a_document(run):
    paper = ("# A Paper\n\nBody text.\n\n## A Artifact Appendix\n\n"
             "We are applying for the Available and Functional badges. The artifact reproduces Table 2 quickly:\n\n"
             "```\n$ python make_table.py --quick\n```\n\n## References\n[1] Someone.\n")
    found = run({"README.md": "# Tool\n\nNothing to run here yet, see the paper.\n", "make_table.py": ""}, paper)
    assert [(d.path, d.role) for d in found.docs] == [("README.md", "readme"), ("paper:Artifact Appendix", "appendix")]
    s = step(found, "make_table")
    assert (s.cmd, s.source, s.mentions, s.quick) == (
        "python make_table.py --quick", "paper:Artifact Appendix:7", ["Table 2"], True)
    assert found.requested_badges.badges == ["available", "functional"]


def test_paper_without_appendix_adds_no_document(run):
    found = run({"README.md": "# Tool\n"}, "# Paper\n\nNo appendix here, only an artifact evaluation remark.\n")
    assert [d.role for d in found.docs] == ["readme"]
