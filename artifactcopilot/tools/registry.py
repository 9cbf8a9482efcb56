"""Every review tool, declared once: its capability and what it does.

Skills name tools in their Tool Scope; the heuristic agent calls them through `PhaseTools`, the LLM
agent gets one LangChain tool per name built from the same entry (agents/llm/toolbox.py). A test
fails when a skill names a tool that some agent lacks.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Capability = Literal["reading", "running", "comparing", "recording", "packet", "context"]


@dataclass(frozen=True)
class ToolSpec:
    capability: Capability
    """Which capability class implements it ('packet': the agent loop itself, e.g. submitting the packet; 'context':
    the LLM agent's own reading of what the phase may know — paper, rubric, earlier packets, evidence, tool help)."""
    description: str
    """What the tool does, as the LLM agent is told."""
    granted_with: str | None = None
    """A helper of another tool: in scope whenever that tool is."""


TOOLS: dict[str, ToolSpec] = {
    "acquire_artifact": ToolSpec("reading", "Acquire the artifact and log the acquisition (source, files or the "
                                            "error)."),
    "list_files": ToolSpec("reading", "List artifact files, optionally only those under a path prefix."),
    "locate_entry": ToolSpec("reading", "Find the entry document (README, docs index, INSTALL, notebook) and log "
                                        "where it is."),
    "paper_terms": ToolSpec("reading", "Compare the artifact with the paper: shared distinctive terms and material "
                                       "files; logged."),
    "read_file": ToolSpec("reading", "Read an artifact file (from_runs=true: the copy the runs wrote into). Use "
                                     "offset to page."),
    "read_output": ToolSpec("reading", "Read a file the runs wrote in the sandbox copy.", granted_with="read_file"),
    "dependency_files": ToolSpec("reading", "List the artifact's dependency and environment files.",
                                 granted_with="read_file"),
    "artifact_view": ToolSpec("reading", "The artifact's files as documentation discovery reads them.",
                              granted_with="read_file"),
    "grep": ToolSpec("reading", "Search artifact files for a regular expression."),
    "parse_readme": ToolSpec("reading", "Analyse a README: sections, documented commands, paper references, "
                                        "signals; logged."),
    "detect_environment": ToolSpec("reading", "Record the declared environment: dependency, container and setup "
                                              "files."),
    "paper_tables": ToolSpec("reading", "List the paper's tables (label, header, first rows)."),
    "discover_docs": ToolSpec("reading", "Read every document an AE reviewer would open and list the commands they "
                                         "give (fences, inline code, prose, Makefile targets, driver scripts, "
                                         "notebooks), classified (install, data, download, workflow, test, plot) "
                                         "and in documentation order; logged."),
    "plan_route": ToolSpec("reading", "Plan the route the docs describe: the paper objects each command is tied to, "
                                      "its folder, prerequisites, documented cost and reductions, cheapest paper-tied "
                                      "first; logged, nothing is run.", granted_with="discover_docs"),
    "plan_environment": ToolSpec("reading", "Plan the environment the docs describe: interpreter, virtual "
                                            "environment, the documented installs translated to it, lock files; "
                                            "logged, nothing is run."),
    "run_setup": ToolSpec("running", "Run a setup step in the sandbox (network on). Undocumented steps are logged "
                                     "as interventions."),
    "probe": ToolSpec("running", "Run a short probe (interpreter, imports) in the sandbox to check the environment."),
    "use_suite": ToolSpec("running", "Run the review on the base image of another Debian suite (its Python: "
                                     "bullseye 3.9, bookworm 3.11, trixie 3.13), before installing anything (Docker "
                                     "sandbox only).",
                          granted_with="build_image"),
    "build_image": ToolSpec("running", "Build the artifact's own Dockerfile (Docker sandbox only); later commands "
                                       "run in that image."),
    "run_workflow": ToolSpec("running", "Run the representative workflow command in the sandbox; output is "
                                        "persisted as evidence."),
    "run_transfer": ToolSpec("running", "Run a transfer case (new input or configuration) in the sandbox; "
                                        "persisted as evidence."),
    "verify_provenance": ToolSpec("running", "Rerun a command in a fresh copy without one pre-existing file, to "
                                             "see if output depends on it."),
    "run_notebook": ToolSpec("running", "Execute a notebook headless (nbclient, in its folder) into a copy; the "
                                        "notebook itself is not changed. Needs the notebook tooling installed with "
                                        "run_setup."),
    "table_role": ToolSpec("comparing", "Whether a paper table carries results or describes inputs (data sets, "
                                        "sizes).",
                           granted_with="compare_table"),
    "check_expected_output": ToolSpec("comparing", "Compare the output the documentation gives for a command with "
                                                   "what the run printed; logged."),
    "compare_notebook": ToolSpec("comparing", "Compare a notebook's stored outputs with the review's execution of "
                                              "it; logged."),
    "check_documented_outputs": ToolSpec("comparing", "Check the files the documentation says the workflow "
                                                      "produces (figures, tables, results) against what the runs "
                                                      "wrote; logged."),
    "find_paper_numbers": ToolSpec("comparing", "Find numbers the paper states in its text in a run's output; "
                                                "logged."),
    "compare_table": ToolSpec("comparing", "Compare a paper table (label or index) with a run's output (command "
                                           "evidence id or output file); logged."),
    "record_intervention": ToolSpec("recording", "Log a reviewer action beyond the documentation (kind: install, "
                                                 "env, version, path_fix, command_fix, wait, edit, create_file)."),
    "record_evidence": ToolSpec("recording", "Record a finding of yours (e.g. kind selection, environment, reuse, "
                                             "note) as evidence."),
    "submit_packet": ToolSpec("packet", "Submit this phase's packet (ends the phase)."),
    "read_paper": ToolSpec("context", "Read the paper (table values hidden), whole or one section by title or "
                                      "number, a page at a time: offset=next_offset reads on."),
    "read_evidence": ToolSpec("context", "Read an evidence file of this review by id (a command log, an analysis), "
                                         "or by phase (D1) the packet an earlier phase committed; a page at a time: "
                                         "offset=next_offset reads on."),
    "explain": ToolSpec("context", "Explain a tool of this phase (its full description and arguments), a "
                                   "checklist item, or (topic 'score') what each score needs."),
}
