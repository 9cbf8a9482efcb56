"""Commands documented in prose: named scripts, folders of scripts in numeric order, bare command lines,
inline spans a sentence introduces, quoted commands with a folder, archives to unpack."""
from __future__ import annotations

from .helpers import cmds, step


def test_named_script_in_prose_becomes_a_step_in_its_folder(run):
    found = run({
        "README.md": "# Tool\n\n## How to Run?\n\nRun the `downscale.py` file to split a trace.\n",
        "src/downscale.py": "print('x')\n",
    })
    s = step(found, "downscale.py")
    assert (s.cmd, s.cwd, s.origin, s.kind) == ("python3 downscale.py", "src", "prose", "workflow")


def test_prose_script_is_dropped_when_the_next_block_runs_it(run):
    found = run({
        "README.md": ("## Usage\n\nRun the `downscale.py` file\n\n"
                      "```bash\npython3 downscale.py --trace input/t.txt\n```\n"),
        "downscale.py": "", "input/t.txt": "1,2\n",
    })
    assert cmds(found) == ["python3 downscale.py --trace input/t.txt"]


def test_scripts_in_a_folder_run_in_numeric_order(run):
    files = {f"pipeline/{n}-step.py": "" for n in (10, 2, 3, 11)}
    files["pipeline/helpers/__init__.py"] = ""
    files["README.md"] = ("# Study\n\n**Reproducibility Instructions:**\n\n1. Download the raw data.\n"
                          "2. Run the Python scripts in the pipeline folder in numerical order. The results are in "
                          "Table 1 of our paper.\n")
    found = run(files)
    assert cmds(found) == ["python3 2-step.py", "python3 3-step.py", "python3 10-step.py", "python3 11-step.py"]
    assert all(s.cwd == "pipeline" and s.mentions == ["Table 1"] for s in found.steps)


def test_bare_command_lines_in_paragraphs_and_list_items(run):
    found = run({
        "README.md": ("# Sim\n\n### Option 1\nTo test the mechanism, run each .py file. For example, run\n"
                      "python const.py\n\n### Commands\n1. List the projects\n    - python3 bench.py --list\n"
                      "2. Run the tests\n    - Example: python3 bench.py --test 1\n\n"
                      "## Requirements\n* python3 (version >= 3.6)\n* git clone this repo\n"),
        "const.py": "", "bench.py": "",
    })
    assert cmds(found) == ["python const.py", "python3 bench.py --list", "python3 bench.py --test 1"]
    assert {s.origin for s in found.steps} == {"prose"}


def test_inline_span_needs_a_sentence_that_introduces_it(run):
    found = run({
        "GUIDE.md": "x",
        "README.md": ("## Experiments\n\nIf you want to use a cluster, pass the `--mpi` flag. "
                      "Example: `poetry run python run_sim.py --mpi exp1`\n\n"
                      "If the `poetry install` command ran without errors, all is set.\n"),
        "run_sim.py": "",
    })
    assert cmds(found) == ["poetry run python run_sim.py --mpi exp1"]
    s = found.steps[0]
    assert (s.origin, s.runner, s.inner, s.optional) == ("inline", "poetry", "python run_sim.py --mpi exp1", True)


def test_quoted_command_with_a_folder_named_in_the_sentence(run):
    found = run({
        "README.md": "**A usage example**:\n\n- In ./repos run 'git clone https://example.org/some/project.git'\n",
        "repos/.keep": "",
    })
    s = step(found, "git clone")
    assert (s.cwd, s.kind, s.origin) == ("repos", "download", "inline")


def test_archives_named_in_prose_are_unpacked_in_their_folder(run):
    found = run({
        "README.md": "See [experiments](experiments/README.md).\n",
        "experiments/README.md": ("# Reproducing\nBefore running the notebooks:\n"
                                  "1. unzip the two zip files within this folder (graphs.zip, traces.tar.gz).\n"),
        "experiments/graphs.zip": b"PK\x03\x04", "experiments/traces.tar.gz": b"\x1f\x8b",
    })
    assert [(s.cmd, s.cwd, s.kind) for s in found.steps] == [
        ("unzip -o graphs.zip", "experiments", "data"), ("tar xzf traces.tar.gz", "experiments", "data")]
