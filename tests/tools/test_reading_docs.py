"""The reading tool's README analysis is discovery's: a model reviewing the artifact is told the commands, sections
and paper references the offline review works from, including commands documented outside fenced blocks."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from artifactcopilot.acquire.paper import load_paper
from artifactcopilot.agents.llm.inert import DATA_CLOSE, DATA_OPEN
from artifactcopilot.agents.llm.toolbox import LLMToolbox
from artifactcopilot.evidence import EvidenceStore
from artifactcopilot.sandbox.local import LocalSandbox
from artifactcopilot.skills import default_skills
from artifactcopilot.tools import PhaseTools, ReviewContext

README = """# trafficsim

Simulator and analysis scripts for "Queueing at Scale". The pipeline below reproduces Table 3.

## Installation

```bash
pip install -r requirements.txt
```

## Pipeline

| Step | Command | Output |
|------|---------|--------|
| 1 | `python3 prepare.py --seed 7` | `data/clean.csv` |
| 2 | `python3 simulate.py data/clean.csv` | `results/table3.csv` |

## Quick check

Run `python3 simulate.py --quick data/sample.csv` to check the installation in a few seconds.
"""
FILES = {"README.md": README, "requirements.txt": "numpy\n", "prepare.py": "print('prepared')\n",
         "simulate.py": "print('simulated')\n", "data/sample.csv": "a,b\n1,2\n"}
PAPER = "# Queueing at Scale\n\nTable 3 lists the mean waiting times.\n"


@pytest.fixture
def d1(tmp_path: Path):
    artifact = tmp_path / "artifact"
    for rel, text in FILES.items():
        (artifact / rel).parent.mkdir(parents=True, exist_ok=True)
        (artifact / rel).write_text(text, encoding="utf-8")
    (tmp_path / "paper.md").write_text(PAPER, encoding="utf-8")
    ctx = ReviewContext(store=EvidenceStore(tmp_path / "run"), paper=load_paper(tmp_path / "paper.md"),
                        source=str(artifact), sandbox=LocalSandbox(tmp_path / "scratch"))
    ctx.acquire()
    yield PhaseTools(ctx, "D1", default_skills()["D1"].tool_scope)
    ctx.close()


def test_the_readme_analysis_reports_the_commands_discovery_finds(d1):
    found, _ = d1.discover_docs()
    reading, ev = d1.parse_readme("README.md")
    assert [s.cmd for s in found.steps if s.source.startswith("README.md:")] == [
        "pip install -r requirements.txt", "python3 prepare.py --seed 7", "python3 simulate.py data/clean.csv",
        "python3 simulate.py --quick data/sample.csv"]
    assert [(c.cmd, c.kind, c.section) for c in reading.commands] == [
        (s.cmd, s.kind, s.section) for s in found.steps if s.source.startswith("README.md:")]
    assert reading.paper_refs == found.paper_refs == ["Table 3"] and reading.signals == found.signals
    assert [s.title for s in reading.sections] == ["trafficsim", "Installation", "Pipeline", "Quick check"]
    assert ev.kind == "readme" and reading.read and reading.words > 30


def test_the_model_sees_discoverys_commands_under_the_same_keys(d1):
    found, _ = d1.discover_docs()
    out = json.loads(LLMToolbox(d1, default_skills()["D1"]).parse_readme("README.md"))
    commands = json.loads(out["commands"].removeprefix(DATA_OPEN).removesuffix(DATA_CLOSE))
    assert commands == [{"cmd": s.cmd, "kind": s.kind, "section": s.section} for s in found.steps]
    assert out["command_count"] == len(found.steps) and out["paper_refs"] == ["Table 3"]
    assert {"evidence", "words", "signals", "env_vars", "long_run_warning", "reuse_sections"} <= set(out)


def test_a_document_discovery_does_not_read_is_reported_not_raised(d1):
    reading, _ = d1.parse_readme("../../etc/passwd")
    assert not reading.read and reading.commands == [] and reading.sections == []
    assert "README.md" in reading.notes[0]
