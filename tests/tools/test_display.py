"""The headless display: figures a plotting script shows (`plt.show()`) are saved and listed with its run, so D4
can tell a figure script that drew its figure from one that drew nothing."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from artifactcopilot.acquire.paper import load_paper
from artifactcopilot.agents.heuristic.claimsources import Checks, plotted
from artifactcopilot.evidence import EvidenceStore
from artifactcopilot.interventions import Action
from artifactcopilot.sandbox.commandlog import parse_log
from artifactcopilot.sandbox.local import LocalSandbox
from artifactcopilot.skills import default_skills
from artifactcopilot.tools import PhaseTools, ReviewContext, display

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "wordfreq"

FIGURE_SCRIPT = """import matplotlib.pyplot as plt
plt.plot([2, 4, 6], [1.4, 1.0, 0.6]); plt.title("Figure 5")
plt.show()
plt.figure(); plt.plot([1, 2]); plt.figure(); plt.plot([2, 1])
plt.show()
print("epsilon: 2, error: 1.4")
"""


def test_show_saves_every_open_figure_in_order_with_real_matplotlib(tmp_path):
    (tmp_path / "figure_5.py").write_text(FIGURE_SCRIPT)
    env = display.display_env(tmp_path, "D3-1", {"PYTHONPATH": "src"})
    assert env["MPLBACKEND"] == "module://copilot_display" and env["PYTHONPATH"].startswith("src:")
    # the sandbox mounts the copy at /artifact; here the same files are reached through tmp_path
    host = {**os.environ, **env, "PYTHONPATH": str(tmp_path / display.LIB),
            "COPILOT_FIGURE_DIR": str(tmp_path / display.FOLDER / "D3-1")}
    done = subprocess.run([sys.executable, "figure_5.py"], cwd=tmp_path, env=host, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    shown = display.shown_figures(tmp_path, "D3-1")
    assert shown == [f".copilot/figures/D3-1/figure-{n}.png" for n in (1, 2, 3)]
    assert all((tmp_path / p).read_bytes().startswith(b"\x89PNG") for p in shown)


def test_a_run_that_replaced_pythonpath_is_reported_as_such(tmp_path):
    (tmp_path / "figure_5.py").write_text(FIGURE_SCRIPT)
    env = {**os.environ, **display.display_env(tmp_path, "D3-1", None), "PYTHONPATH": str(tmp_path / "elsewhere")}
    done = subprocess.run([sys.executable, "figure_5.py"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode != 0 and display.backend_missing(done.stderr)
    assert not display.backend_missing("Traceback ...\nModuleNotFoundError: No module named 'pandas'")


@pytest.fixture
def d3(tmp_path):
    ctx = ReviewContext(store=EvidenceStore(tmp_path / "run"), paper=load_paper(EXAMPLE / "paper.md"),
                        source=str(EXAMPLE / "artifact"), sandbox=LocalSandbox(tmp_path / "scratch"))
    ctx.acquire()
    yield PhaseTools(ctx, "D3", default_skills()["D3"].tool_scope)
    ctx.close()


def test_figures_a_sandboxed_command_showed_are_on_its_record_and_log(d3):
    # what the backend does at show(), done by the command itself: the sandbox passes the folder and keeps the files
    cmd = ('mkdir -p "$COPILOT_FIGURE_DIR" && printf "\\211PNG" > "$COPILOT_FIGURE_DIR/figure-1.png"'
           ' && echo "$MPLBACKEND"')
    res = d3.run_workflow(cmd, Action("run", cmd, documented=True), "draw")
    assert res.record.ok and res.record.stdout.strip() == "module://copilot_display"
    assert res.record.figures_shown == [".copilot/figures/D3-1/figure-1.png"]
    assert res.record.files_created == []  # the review's own folder is not the artifact's output
    log = parse_log(d3.store.read(res.evidence.id))
    assert log.shown == res.record.figures_shown
    kept = d3.store.get(res.figures[0])  # the figure itself is evidence, beside the log that names it
    assert len(res.figures) == 1 and kept.kind == "figure"
    assert (d3.store.root / kept.path).read_bytes() == b"\x89PNG"
    again = d3.run_workflow("true", Action("run", "true", documented=True), "nothing drawn")
    assert again.record.figures_shown == [] and "figures shown" not in d3.store.read(again.evidence.id)


def test_a_command_that_cannot_load_the_display_runs_once_more_with_plain_agg(d3):
    cmd = ('if [ "$MPLBACKEND" = Agg ]; then echo plain; else '
           'echo "ModuleNotFoundError: No module named \'copilot_display\'" >&2; exit 1; fi')
    res = d3.run_workflow(cmd, Action("run", cmd, documented=True), "draw")
    assert res.record.ok and res.record.stdout.strip() == "plain"
    failing = "echo \"No module named 'pandas'\" >&2; exit 1"
    assert not d3.run_workflow(failing, Action("run", failing, documented=True), "fails").record.ok


def test_d4_credits_a_figure_script_only_for_the_figures_the_documentation_ties_to_it():
    run = {"cmd": "uv run ./reproduction/figure_5.py", "script": "python ./reproduction/figure_5.py",
           "mentions": ["Figure 4", "Figure 5", "Figure 6", "Table 3"], "evidence": "D3-023-command",
           "figures_shown": [".copilot/figures/D3-5/figure-1.png"], "files_created": []}
    assert plotted(run)["figure_refs"] == ["Figure 5"]
    generic = {**run, "cmd": "python plots.py", "script": "python plots.py"}
    assert plotted(generic)["figure_refs"] == ["Figure 4", "Figure 5", "Figure 6"]
    saved = {**generic, "figures_shown": [], "files_created": ["out/error.pdf", "out/error.csv"]}
    assert plotted(saved)["figures"] == ["out/error.pdf"]
    assert plotted({**run, "figures_shown": []}) is None  # drew nothing
    assert plotted({**run, "mentions": ["Table 3"]}) is None  # not tied to a paper figure
    checks = Checks(plots=[plotted(run)])
    assert checks.figures == ["`uv run ./reproduction/figure_5.py`: 1 figure shown or written "
                              "(.copilot/figures/D3-5/figure-1.png) for Figure 5"]


def test_links_the_artifact_planted_in_the_review_folders_are_never_followed(tmp_path):
    root, outside = tmp_path / "copy", tmp_path / "host"
    (root / ".copilot").mkdir(parents=True)
    outside.mkdir()
    (root / ".copilot" / "display").symlink_to(outside)  # a command replaced the folder with a link out of the copy
    display.display_env(root, "D3-1", None)
    assert list(outside.iterdir()) == [] and not (root / display.LIB).is_symlink()
    assert (root / display.LIB / "copilot_display.py").read_text() == display.BACKEND
    (root / display.LIB / "copilot_display.py").unlink()
    (root / display.LIB / "copilot_display.py").symlink_to(outside / "planted.py")
    display.display_env(root, "D3-1", None)
    assert not (outside / "planted.py").exists()
    (outside / "figure-1.png").write_bytes(b"\x89PNG host file")
    (root / display.FOLDER).mkdir(parents=True)
    (root / display.FOLDER / "D3-2").symlink_to(outside)
    assert display.shown_figures(root, "D3-2") == []
    assert display.read_figure(root, ".copilot/figures/D3-2/figure-1.png") is None
