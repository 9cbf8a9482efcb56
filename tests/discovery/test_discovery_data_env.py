"""Data unpack steps, requirements files in a sub-folder, console-script usage, environment variables and knobs,
classification of commands (runner, env prefix, prompts) and the D1 signals."""
from __future__ import annotations

import pytest

from artifactcopilot.discovery.classify import classify
from artifactcopilot.discovery.cmdlines import strip_prompt
from artifactcopilot.shell import split_env, split_runner

from .helpers import cmds, step


def test_data_archives_are_unpacked_before_the_workflow(run):
    found = run({"README.md": ("## Extracting Data\n\nTo start you must unzip all the data files\n\n```\ncd patts\n"
                               "find . -name \"*.gz\" | xargs gunzip -k\n```\n\n"
                               "## Generating Table 5\n\n```\ncd scripts\n./run_pk.sh\n```\n"),
                 "patts/README.md": "# Data\n\n```\nfind . -name \"*.gz\" | xargs gunzip -k \n```\n",
                 "patts/a.txt.gz": b"\x1f\x8b", "scripts/run_pk.sh": "./pk.py ../patts/a.txt\n", "scripts/pk.py": ""})
    assert [(s.kind, s.cwd, s.cmd) for s in found.steps] == [
        ("data", "patts", 'find . -name "*.gz" | xargs gunzip -k'), ("workflow", "scripts", "./run_pk.sh")]
    assert found.steps[0].sources == ["patts/README.md:4"]
    assert found.steps[1].mentions == ["Table 5"]


def test_requirements_in_a_subfolder_move_the_install_step_there(run):
    found = run({"README.md": "## Setup\n\n```\npip install -r requirements.txt\npython3 experiments/run.py\n```\n",
                 "experiments/requirements.txt": "numpy==1.26\n", "experiments/run.py": ""})
    pip = step(found, "pip install")
    assert (pip.kind, pip.cwd) == ("install", "experiments")
    assert "found at experiments/requirements.txt" in pip.notes[0]
    assert [d.path for d in found.docs] == ["README.md"]  # a pip requirements file is not a document


def test_console_script_usage_from_pyproject(run):
    found = run({"README.md": ("## Examples\n\n```\nmytool -f examples/a.json\n```\n\n"
                               "To tag all, run `mytool -f x.json -t`.\n"),
                 "pyproject.toml": "[project]\nname = 'mt'\n[project.scripts]\nmytool = 'mt.cli:main'\n",
                 "examples/a.json": "{}", "x.json": "{}"})
    assert cmds(found) == ["mytool -f examples/a.json", "mytool -f x.json -t"]
    assert [s.origin for s in found.steps] == ["fence", "inline"]


def test_env_vars_knobs_and_quick_runs(run):
    found = run({"README.md": ("Each experiment will be repeated 50 times. "
                               "To change this, set the environment variable `$RUNS`.\n\n"
                               "```\n$ python sim.py A\n```\n\nIf you want to speed up the process, run\n\n"
                               "```\n$ RUNS=1 python sim.py A\n```\n\n"
                               "```\nexport DATA_DIR=data\npython sim.py B\n```\n"),
                 "sim.py": "", "data/x": ""})
    quick = step(found, "RUNS=1")
    assert (quick.env, quick.inner, quick.quick, quick.optional) == ({"RUNS": "1"}, "python sim.py A", True, True)
    assert not step(found, "sim.py A").quick
    exported = step(found, "sim.py B")
    assert exported.env == {"DATA_DIR": "data"}
    assert step(found, "export").kind == "env"
    assert {(v.name, tuple(v.values)) for v in found.env_vars} == {("RUNS", ("1",)), ("DATA_DIR", ("data",))}


@pytest.mark.parametrize(("cmd", "heading", "kind"), [
    ("pip install -r requirements.txt", "", "install"), ("conda env create -f environment.yml", "", "install"),
    ("source venv/bin/activate", "", "install"), ("python setup.py develop", "", "install"),
    ("make deps", "", "install"), ("./install_deps.sh", "", "install"), ("tar -xvf data.tar", "", "data"),
    ("cat part_a part_b > data.zip", "", "data"), ("mkdir -p data/raw", "Preparing the data", "data"),
    ("wget https://x.org/d.zip", "", "download"), ("zenodo_get 12345", "", "download"),
    ("python -m pytest tests", "", "test"), ("tox", "", "test"), ("pytest", "", "test"),
    ("gnuplot fig.gp", "", "plot"), ("python draw_results.py", "", "plot"), ("python callgraphs.py", "", "workflow"),
    ("export SEED=1", "", "env"), ("source env.sh", "", "env"), ("ls -la", "", "trivial"),
    ("python main.py --help", "", "trivial"), ("jupyter nbconvert --execute a.ipynb", "", "workflow"),
    ("python evaluate.py", "Producing plots", "plot"), ("python build_env.py", "Installation", "install"),
    ("python run.py", "Generating Figures 4-7", "workflow"),
])
def test_classify(cmd, heading, kind):
    assert classify(cmd, heading) == kind


def test_runner_env_and_prompt_splitting():
    assert split_runner("conda run -n plan python x.py") == ("conda", "python x.py")
    assert split_runner("pipenv run pytest") == ("pipenv", "pytest")
    assert split_runner("uv run --with numpy python x.py") == ("uv", "python x.py")
    assert split_runner("uv sync") == (None, "uv sync")
    assert split_env("A=1 B='x y' python x.py") == ({"A": "1", "B": "x y"}, "python x.py")
    assert strip_prompt("[PROJECT_ROOT]$ uv sync") == ("uv sync", True)
    assert strip_prompt("~ >>> tool -h") == ("tool -h", True)
    assert strip_prompt("user@host:~/x$ make") == ("make", True)
    assert strip_prompt("echo $HOME") == ("echo $HOME", False)


def test_signals_over_all_documents(run):
    found = run({"README.md": ("# Tool\n\n## Overview\nThis tool computes the statistics reported in the paper for the "
                               "inputs below.\n\nSee [INSTALL.md](INSTALL.md).\n"),
                 "INSTALL.md": ("## Installation\n\n```\npip install -r requirements.txt\n```\n\n## Usage\n\n"
                                "```\npython run.py data/in.csv\n```\nThe input is a CSV data file; the output is "
                                "written to out.csv and gives Table 2. Needs 8 GB RAM.\n\n## Known issues\nNone.\n"),
                 "requirements.txt": "numpy\n", "run.py": "", "data/in.csv": ""})
    assert found.signals == {"entry": True, "goal": True, "setup": True, "workflow": True, "io": True, "mapping": True,
                             "structure": False, "dependencies": True, "resources": True, "limits": True}
