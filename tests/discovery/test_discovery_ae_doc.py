"""An ARTIFACT-EVALUATION.md linked from the README: reading order, a `cd scripts` block that sets the folder for the
whole section, block-local `cd plotting`, poetry runner, duplicates merged, outputs, durations, badges."""
from __future__ import annotations

import json

import pytest

from .helpers import cmds, step

AE = """# Artifact Appendix

Paper title: **Group Means**

Requested Badge: **Reproduced, Functional and Available**

## Basic Requirements

Make sure you have Python 3.9 (or 3.10) and Poetry installed. To reproduce the plots, you need a LaTeX installation:

```
sudo apt install texlive-latex-recommended dvipng
```

### Estimated Time and Storage Consumption
- Experiment 1: ~8 hours
- Experiment 2: ~2 hours

## Environment

```bash
poetry install
```

## Artifact Evaluation

### Main Results and Claims
- Experiment 1: Choice of the parameter; section 5.2.1, figures 1, 2
- Experiment 2: Group imbalance; section 5.2.4, figure 5

### Experiments

All experiments expect the working directory to be the `scripts` directory:
```bash
cd scripts
```

#### Experiment 1: Choice of the parameter
Run the simulation with the following command:
```bash
poetry run python run_simulation.py exp_one
```

The results will be saved in the `results/exp_one` directory.
Pre-processing can also be run manually with the following command:
```bash
poetry run python preprocess_results.py
```

Re-create the figures from the paper with the following command:
```bash
cd plotting
poetry run python plot_one.py
```

This creates four plots in the `scripts/plotting/plots_paper/one` directory corresponding \
to the figures 1, 2, 7, and 8 in the paper.

#### Experiment 2: Group imbalance
```bash
poetry run python run_simulation.py exp_two
```
```bash
poetry run python preprocess_results.py
```

## Limitations
Data for a fifth experiment is restricted.
"""

FILES = {
    "README.md": ("# Group means\n\n## Usage\n\nInstall poetry, then run:\n\n```\npoetry install\n```\n\n"
                  "See [ARTIFACT-EVALUATION.md](ARTIFACT-EVALUATION.md) to reproduce the paper.\n"),
    "ARTIFACT-EVALUATION.md": AE,
    "pyproject.toml": "[tool.poetry]\nname = 'gm'\n[tool.poetry.dependencies]\npython = '^3.9'\n",
    "scripts/run_simulation.py": "", "scripts/preprocess_results.py": "",
    "scripts/plotting/plot_one.py": "",
    "gm/__init__.py": "",
}


@pytest.fixture
def found(run):
    return run(FILES)


def test_reading_order_and_roles(found):
    assert [(d.path, d.role, d.order) for d in found.docs] == [
        ("README.md", "readme", 1), ("ARTIFACT-EVALUATION.md", "artifact", 2)]
    assert found.docs[1].linked_from == "README.md"


def test_steps_in_order_with_folders_from_cd(found):
    assert [(s.kind, s.cwd, s.cmd) for s in found.steps] == [
        ("install", ".", "poetry install"),
        ("install", ".", "sudo apt install texlive-latex-recommended dvipng"),
        ("workflow", "scripts", "poetry run python run_simulation.py exp_one"),
        ("workflow", "scripts", "poetry run python preprocess_results.py"),
        ("plot", "scripts/plotting", "poetry run python plot_one.py"),
        ("workflow", "scripts", "poetry run python run_simulation.py exp_two"),
    ]
    assert [s.order for s in found.steps] == [1, 2, 3, 4, 5, 6]


def test_runner_inner_and_merged_sources(found):
    sim = step(found, "exp_one")
    assert (sim.runner, sim.inner, sim.origin, sim.source) == (
        "poetry", "python run_simulation.py exp_one", "fence", "ARTIFACT-EVALUATION.md:41")
    install = found.steps[0]
    assert install.source == "README.md:8" and install.sources == ["ARTIFACT-EVALUATION.md:22"]
    pre = step(found, "preprocess_results")
    assert len(pre.sources) == 1 and cmds(found).count("poetry run python preprocess_results.py") == 1
    apt = step(found, "apt install")
    assert (apt.runner, apt.inner) == ("sudo", "apt install texlive-latex-recommended dvipng")


def test_mentions_and_durations_from_mapping_lines(found):
    one = step(found, "exp_one")
    assert {"Figure 1", "Figure 2", "Section 5.2.1"} <= set(one.mentions)
    assert one.duration_hint_s == 8 * 3600 and one.long
    two = step(found, "exp_two")
    assert "Figure 5" in two.mentions and two.duration_hint_s == 2 * 3600
    plot = step(found, "plot_one")
    assert {"Figure 1", "Figure 2", "Figure 7", "Figure 8"} <= set(plot.mentions) and not plot.long


def test_documented_outputs_are_placed_relative_to_the_folder_they_are_written_in(found):
    outputs = {o.path: o.mentions for o in found.documented_outputs}
    assert "scripts/results/exp_one" in outputs
    assert outputs["scripts/plotting/plots_paper/one"] == ["Figure 1", "Figure 2", "Figure 7", "Figure 8"]


def test_facts_badges_versions_tools(found):
    assert found.requested_badges.badges == ["available", "functional", "reproduced"]
    assert found.requested_badges.source == "ARTIFACT-EVALUATION.md:5"
    assert found.python_versions == ["3.9", "3.10", "^3.9"]
    assert {"latex", "poetry"} <= set(found.system_tools)
    assert found.long_run_warning
    assert found.signals["setup"] and found.signals["workflow"] and found.signals["mapping"]
    assert found.signals["limits"]


def test_result_is_json_serialisable_and_stable(found, run):
    first = json.dumps(found.to_dict(), sort_keys=False)
    assert first == json.dumps(run(FILES).to_dict(), sort_keys=False)
    data = found.to_dict()
    assert data["steps"][0]["runnable"] is True
    assert [s.cmd for s in found.steps_of("plot")] == ["poetry run python plot_one.py"]
