"""What the executor installs after a failed run: missing modules, commands not found, notebook tooling."""
from __future__ import annotations

import pytest
from provision_trees import LOCAL, SUITES, Tree

from artifactcopilot.provision import (
    VENV,
    command_not_found,
    fix_for_missing_command,
    fix_for_missing_module,
    missing_module,
    module_to_distribution,
    notebook_tooling,
    plan_environment,
)

PIP = f"{VENV}/bin/python -m pip install"
PROJECT = Tree({"setup.py": "from setuptools import setup\nsetup(name='callgraph', entry_points={'console_scripts': "
                            "['callgraph=callgraph.__main__:main']})\n", "callgraph/__init__.py": "",
                "helpers/util.py": ""})


def plan(container=False):
    return plan_environment(PROJECT.files, PROJECT.read, [], SUITES if container else LOCAL, container=container)


@pytest.mark.parametrize("output, module", [
    ("Traceback (most recent call last):\n  File \"x.py\", line 1\n"
     "ModuleNotFoundError: No module named 'numpy'", "numpy"),
    ("ModuleNotFoundError: No module named 'matplotlib.pyplot'", "matplotlib"),
    ("ImportError: No module named sklearn.metrics", "sklearn"),
    ("ModuleNotFoundError: No module named 'a'\n...\nModuleNotFoundError: No module named 'yaml'", "yaml"),
    ("ImportError: cannot import name 'x' from 'y'", None),
    ("all good", None),
    (None, None),
])
def test_missing_module(output, module):
    assert missing_module(output) == module


@pytest.mark.parametrize("module, dist", [
    ("sklearn", "scikit-learn"), ("cv2", "opencv-python"), ("yaml", "PyYAML"), ("PIL", "Pillow"),
    ("bs4", "beautifulsoup4"), ("skimage", "scikit-image"), ("Crypto", "pycryptodome"),
    ("dateutil", "python-dateutil"), ("pandas", "pandas"), ("sklearn.metrics", "scikit-learn"),
    ("some_unknown_pkg", "some_unknown_pkg"),
])
def test_module_to_distribution(module, dist):
    assert module_to_distribution(module) == dist


@pytest.mark.parametrize("output, name", [
    ("bash: line 1: avclass: command not found", "avclass"),
    ("bash: gnuplot: command not found", "gnuplot"),
    ("/bin/sh: 1: python: not found", "python"),
    ("/usr/bin/env: 'python2': No such file or directory", "python2"),
    ("/usr/bin/env: ‘python’: No such file or directory", "python"),
    ("bash: python3.10: No such file or directory", "python3.10"),
    ("make: gnuplot: No such file or directory", "gnuplot"),
    ("bash: ./run.sh: No such file or directory", None),
    ("cat: data/x.csv: No such file or directory", None),
    ("gunzip: patts.gz: No such file or directory", None),
    ("Traceback ... FileNotFoundError", None),
])
def test_command_not_found(output, name):
    assert command_not_found(output) == name


def test_declared_console_script_installs_the_project():
    step = fix_for_missing_command("callgraph", plan())
    assert step.kind == "project" and step.script == f"{PIP} ." and step.action == "install"
    assert step.env["PATH"].startswith(f"{VENV}/bin")


def test_python_and_pip_come_from_the_venv():
    p = plan()
    step = fix_for_missing_command("python", p)
    assert step.action == "command_fix" and f"{VENV}/bin/python" in step.script and step.env["VIRTUAL_ENV"] == VENV
    other = fix_for_missing_command("python3.10", p)
    assert other.action == "version" and other.script == f"ln -sf python3 {VENV}/bin/python3.10"
    assert fix_for_missing_command("pip3", p).action == "command_fix"


def test_system_tool_only_in_a_container():
    assert fix_for_missing_command("gnuplot", plan()) is None
    step = fix_for_missing_command("gnuplot", plan(container=True))
    assert step.kind == "apt" and "gnuplot-nox" in step.script
    assert fix_for_missing_command("jupyter", plan()).script == f"{PIP} jupyter"
    assert fix_for_missing_command("frobnicate", plan(container=True)) is None  # not looked up unless a run says so
    assert "apt-file search" in fix_for_missing_command("frobnicate", plan(container=True), lookup=True).script


def test_missing_module_fix_skips_the_artifacts_own_modules():
    p = plan()
    assert fix_for_missing_module("sklearn", p, PROJECT.files).script == f"{PIP} scikit-learn"
    assert fix_for_missing_module("helpers", p, ["helpers/__init__.py"]) is None
    assert fix_for_missing_module("util", p, PROJECT.files) is None
    assert fix_for_missing_module("callgraph", p, PROJECT.files).kind == "project"
    assert fix_for_missing_module("json", p, PROJECT.files) is None


def test_notebook_tooling_installs_into_the_venv_only():
    steps = notebook_tooling(plan())
    assert len(steps) == 1
    assert "nbclient" in steps[0].script and "ipykernel" in steps[0].script and steps[0].network
    assert PIP in steps[0].script and "kernelspec" not in steps[0].script and "--user" not in steps[0].script
