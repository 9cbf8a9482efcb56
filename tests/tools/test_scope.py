"""Each phase sees only the tools its skill lists; D2 may not run the representative workflow; every tool a
skill names exists, once, for every agent."""
from __future__ import annotations

from pathlib import Path

import pytest

from artifactcopilot.acquire.paper import load_paper
from artifactcopilot.agents.llm.toolbox import LLMToolbox
from artifactcopilot.errors import ToolScopeError
from artifactcopilot.evidence import EvidenceStore
from artifactcopilot.interventions import Action
from artifactcopilot.sandbox.local import LocalSandbox
from artifactcopilot.skills import default_skills
from artifactcopilot.tools import TOOLS, PhaseTools, ReviewContext
from artifactcopilot.tools.scope import CAPABILITIES

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "wordfreq"


@pytest.fixture
def tools(tmp_path):
    store = EvidenceStore(tmp_path / "run")
    ctx = ReviewContext(store=store, paper=load_paper(EXAMPLE / "paper.md"), source=str(EXAMPLE / "artifact"),
                        sandbox=LocalSandbox(tmp_path / "scratch"))
    ctx.acquire()
    yield ctx
    ctx.close()


def scoped(tools, phase):
    return PhaseTools(tools, phase, default_skills()[phase].tool_scope)


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
        d2.run_setup("python3 wordfreq.py --table 2", Action("run", "python3 wordfreq.py --table 2", documented=True),
                     "setup")
    assert d2.run_setup("python3 --version", Action("run", "python3 --version", documented=True), "probe").record.ok
    with pytest.raises(ToolScopeError):
        _ = d2.run_workflow


def test_evidence_is_tagged_with_the_running_phase(tools):
    d3 = scoped(tools, "D3")
    res = d3.run_workflow("echo hello", Action("run", "echo hello", documented=True), "demo")
    assert res.evidence.phase == "D3" and res.evidence.id.startswith("D3-")
    d5 = scoped(tools, "D5")
    assert d5.run_transfer("echo again", Action("run", "echo again", documented=True), "demo").evidence.phase == "D5"


def test_gate_and_report_phases_cannot_run_anything(tools):
    for phase in ("gate", "report"):
        with pytest.raises(ToolScopeError):
            _ = scoped(tools, phase).run_workflow


def test_every_tool_a_skill_names_exists_for_every_agent(tools):
    """One registry: the skill scopes, the heuristic's capability classes and the LLM tool specs agree."""
    for phase, skill in default_skills().items():
        for name in skill.tool_scope:
            assert name in TOOLS, f"skill {phase} names unknown tool '{name}'"
            spec = TOOLS[name]
            if spec.capability != "packet":
                assert callable(getattr(CAPABILITIES[spec.capability], name, None)), f"no heuristic tool '{name}'"
            assert callable(getattr(LLMToolbox, name, None)), f"no LLM tool '{name}'"
        built = {t.name for t in LLMToolbox(scoped(tools, phase), skill).langchain_tools()}
        # plus the context tools every phase of the LLM agent has (paper, rubric, earlier packets, evidence, help)
        context = {name for name, spec in TOOLS.items() if spec.capability == "context"}
        assert built == set(skill.tool_scope) | context, phase
        assert all(callable(getattr(LLMToolbox, name, None)) for name in context)


def test_a_tool_missing_from_the_llm_toolbox_fails_loudly(tools):
    skill = default_skills()["D2"]
    broken = type(skill)(phase="D2", objective="", tool_scope=skill.tool_scope + ("no_such_tool",),
                         contract=skill.contract, completion_criteria=(), body="")
    with pytest.raises(ToolScopeError, match="no tool 'no_such_tool'"):
        LLMToolbox(scoped(tools, "D2"), broken).langchain_tools()
