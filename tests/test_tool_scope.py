"""Each phase sees only the tools its skill lists; D2 may not run the representative workflow."""
from __future__ import annotations

from pathlib import Path

import pytest

from artifactcopilot.acquire.paper import load_paper
from artifactcopilot.agents.tools import ScopedTools, Tools
from artifactcopilot.errors import ToolScopeError
from artifactcopilot.evidence import EvidenceStore
from artifactcopilot.interventions import Action
from artifactcopilot.sandbox.local import LocalSandbox
from artifactcopilot.skills import default_skills

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "wordfreq"


@pytest.fixture
def tools(tmp_path):
    store = EvidenceStore(tmp_path / "run")
    t = Tools(store=store, paper=load_paper(EXAMPLE / "paper.md"), source=str(EXAMPLE / "artifact"),
              sandbox=LocalSandbox(tmp_path / "scratch"))
    t.acquire_artifact()
    yield t
    t.close()


def scoped(tools, phase):
    return ScopedTools(tools, phase, default_skills()[phase].tool_scope)


def test_d1_reads_but_cannot_execute(tools):
    d1 = scoped(tools, "D1")
    assert d1.read_file("README.md")
    for name in ("run_workflow", "run_setup", "run_transfer", "probe"):
        with pytest.raises(ToolScopeError, match=f"phase D1 may not call '{name}'"):
            getattr(d1, name)


def test_d2_cannot_run_the_documented_workflow(tools):
    d2 = scoped(tools, "D2")
    tools.documented_workflow.add("python3 wordfreq.py --table 2")
    with pytest.raises(ToolScopeError, match="may not run the representative workflow"):
        d2.run_setup("python3 wordfreq.py --table 2", Action("run", "python3 wordfreq.py --table 2", documented=True), "setup")
    assert d2.run_setup("python3 --version", Action("run", "python3 --version", documented=True), "probe").record.ok
    with pytest.raises(ToolScopeError):
        d2.run_workflow


def test_evidence_is_tagged_with_the_running_phase(tools):
    d3 = scoped(tools, "D3")
    res = d3.run_workflow("echo hello", Action("run", "echo hello", documented=True), "demo")
    assert res.evidence.phase == "D3" and res.evidence.id.startswith("D3-")
    d5 = scoped(tools, "D5")
    assert d5.run_transfer("echo again", Action("run", "echo again", documented=True), "demo").evidence.phase == "D5"


def test_gate_and_report_phases_cannot_run_anything(tools):
    for phase in ("gate", "report"):
        with pytest.raises(ToolScopeError):
            scoped(tools, phase).run_workflow
