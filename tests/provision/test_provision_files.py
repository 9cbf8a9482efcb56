"""Packaging files read without executing anything: setup.py (ast), setup.cfg, pyproject, locks, conda files."""
from __future__ import annotations

import json

from provision_trees import Tree

from artifactcopilot.provision.conda import parse_environment
from artifactcopilot.provision.locks import pipfile, pipfile_lock, poetry_lock, uv_lock
from artifactcopilot.provision.metadata import read_project

SETUP_PY = '''
import os
from setuptools import setup, find_packages
from subprocess import call

def long_desc():
    with open("README.md") as fh:
        return fh.read()

SCRIPTS = ["callgraph=callgraph.__main__:main"]

def setup_package():
    setup(
        name="callgraph",
        version="0.1",
        packages=find_packages(),
        python_requires=">=3.7",
        install_requires=["networkx>=2"],
        entry_points={"console_scripts": SCRIPTS + ["cg-extra = callgraph.extra:run [fancy]"]},
        classifiers=["Programming Language :: Python :: 3.8", "Programming Language :: Python :: 3.9"],
    )

if __name__ == "__main__":
    call(["rm", "-rf", "/"])  # never executed by the planner
    setup_package()
'''


def test_setup_py_entry_points_are_read_with_ast_without_running_it():
    t = Tree({"setup.py": SETUP_PY, "callgraph/__init__.py": ""})
    project = read_project(t.files, t.read)
    assert project.name == "callgraph" and project.installable
    assert project.console_scripts == {"callgraph": "callgraph.__main__:main", "cg-extra": "callgraph.extra:run"}
    assert project.python_requests == [(">=3.7", "setup.py python_requires")]
    assert project.classifier_versions == ["3.8", "3.9"]
    assert project.packages == ["callgraph"] and project.dependencies == ["networkx>=2"]


def test_setup_py_entry_points_as_ini_text():
    t = Tree({"setup.py": 'from setuptools import setup\nsetup(name="x", entry_points="""\n[console_scripts]\n'
                          'xtool = x.cli:main\n""")\n'})
    assert read_project(t.files, t.read).console_scripts == {"xtool": "x.cli:main"}


def test_setup_cfg_entry_points_and_python_requires():
    cfg = "[metadata]\nname = labeler\n[options]\npython_requires = >=3.8\ninstall_requires =\n    numpy\n" \
          "[options.entry_points]\nconsole_scripts =\n    label = labeler.cli:main\n"
    t = Tree({"setup.cfg": cfg, "setup.py": "from setuptools import setup\nsetup()\n"})
    project = read_project(t.files, t.read)
    assert (project.name, project.console_scripts) == ("labeler", {"label": "labeler.cli:main"})
    assert project.python_requests == [(">=3.8", "setup.cfg python_requires")]
    assert project.dependencies == ["numpy"]


def test_pyproject_scripts_and_poetry_metadata():
    text = ('[tool.poetry]\nname = "grpmean"\npackage-mode = true\n[tool.poetry.dependencies]\npython = "^3.9"\n'
            'pandas = "^2.0"\nextra = {version = "^1", optional = true}\n'
            'sokdata = {git = "https://github.com/org/sokdata.git", branch = "main"}\n'
            '[tool.poetry.scripts]\ngm = "grpmean.cli:main"\n'
            '[build-system]\nrequires = ["poetry-core"]\nbuild-backend = "poetry.core.masonry.api"\n')
    t = Tree({"pyproject.toml": text})
    project = read_project(t.files, t.read)
    assert project.poetry and project.installable and project.console_scripts == {"gm": "grpmean.cli:main"}
    assert ("^3.9", "pyproject.toml [tool.poetry.dependencies] python") in project.python_requests
    assert "sokdata @ git+https://github.com/org/sokdata.git@main" in project.dependencies
    assert not any(d.startswith("extra") for d in project.dependencies)


def test_corrupt_packaging_files_become_notes():
    t = Tree({"pyproject.toml": "[project\nname=", "setup.py": "def (:\n", "setup.cfg": "no section header\n"})
    project = read_project(t.files, t.read)
    assert len(project.notes) == 3 and project.name is None


POETRY_LOCK = '''
[[package]]
name = "pandas"
version = "2.2.2"
optional = false
python-versions = ">=3.9"
groups = ["main"]

[package.dependencies]
numpy = ">=1.22"

[[package]]
name = "numpy"
version = "1.26.4"
optional = false
python-versions = ">=3.9"
groups = ["main", "dev"]

[[package]]
name = "pytest"
version = "7.4.0"
optional = false
python-versions = ">=3.7"
groups = ["dev"]

[[package]]
name = "zipp"
version = "3.21.0"
optional = false
python-versions = ">=3.9"
groups = ["main", "dev"]
markers = {main = "python_version < \\"3.10\\"", dev = "python_version < \\"3.9\\""}

[[package]]
name = "mpi4py"
version = "4.0.1"
optional = true
python-versions = ">=3.6"
groups = ["main"]

[[package]]
name = "sokdata"
version = "0.1.0"
optional = false
python-versions = ">=3.9"
groups = ["main"]
files = []
develop = false

[package.source]
type = "git"
url = "https://github.com/org/sokdata.git"
reference = "HEAD"
resolved_reference = "df6372a45b9c98ae093cc48afe43c9b5aff29f33"

[extras]
mpi = ["mpi4py"]

[metadata]
lock-version = "2.1"
python-versions = "^3.9"
'''


def test_poetry_lock_main_group_with_git_dependency():
    result = poetry_lock(POETRY_LOCK, {}, "poetry.lock")
    assert result.ok
    assert result.lines == ["pandas==2.2.2", "numpy==1.26.4", 'zipp==3.21.0 ; python_version < "3.10"',
                            "sokdata @ git+https://github.com/org/sokdata.git@df6372a45b9c98ae093cc48afe43c9b5aff29f33"]
    assert result.remote and "sokdata" in result.remote[0]
    assert ("numpy", "1.26.4") in result.pins


def test_poetry_lock_extras_and_dev_group_on_request():
    pyproject = {"tool": {"poetry": {"extras": {"mpi": ["mpi4py"]}}}}
    lines = poetry_lock(POETRY_LOCK, pyproject, groups={"dev"}, extras={"mpi"}).lines
    assert "pytest==7.4.0" in lines and "mpi4py==4.0.1" in lines


def test_poetry_lock_without_groups_follows_the_declared_dependencies():
    lock = ('[[package]]\nname = "requests"\nversion = "2.31.0"\n[package.dependencies]\nidna = ">=2"\n'
            '[[package]]\nname = "idna"\nversion = "3.4"\n[[package]]\nname = "black"\nversion = "23.1.0"\n')
    pyproject = {"tool": {"poetry": {"dependencies": {"python": "^3.8", "requests": "^2.31"}}}}
    assert poetry_lock(lock, pyproject).lines == ["requests==2.31.0", "idna==3.4"]


UV_LOCK = '''
version = 1
requires-python = ">=3.12"

[[package]]
name = "colorama"
version = "0.4.6"
source = { registry = "https://pypi.org/simple" }

[[package]]
name = "pandas"
version = "3.0.0"
source = { registry = "https://pypi.org/simple" }
dependencies = [{ name = "numpy" }]

[[package]]
name = "numpy"
version = "2.4.2"
source = { registry = "https://pypi.org/simple" }

[[package]]
name = "tqdm"
version = "4.67.1"
source = { registry = "https://pypi.org/simple" }
dependencies = [{ name = "colorama", marker = "sys_platform == 'win32'" }]

[[package]]
name = "ruff"
version = "0.9.0"
source = { registry = "https://pypi.org/simple" }

[[package]]
name = "helper"
version = "0.2.0"
source = { git = "https://github.com/org/helper?rev=main#0123abcd" }

[[package]]
name = "trajcol"
version = "0.1.0"
source = { virtual = "." }
dependencies = [{ name = "pandas" }, { name = "tqdm" }, { name = "helper" }]

[package.dev-dependencies]
lint = [{ name = "ruff" }]
'''


def test_uv_lock_skips_the_project_entry_and_keeps_markers():
    result = uv_lock(UV_LOCK, "uv.lock")
    assert result.lines == ["colorama==0.4.6 ; (sys_platform == 'win32')",
                            "helper @ git+https://github.com/org/helper@0123abcd", "numpy==2.4.2", "pandas==3.0.0",
                            "tqdm==4.67.1"]
    assert not any(line.startswith("trajcol") for line in result.lines)
    assert "ruff==0.9.0" in uv_lock(UV_LOCK, groups=None).lines


def test_pipfile_lock_default_section():
    lock = json.dumps({"_meta": {"requires": {"python_version": "3.8"}},
                       "default": {"requests": {"version": "==2.31.0", "markers": "python_version >= '3.7'"},
                                   "tool": {"git": "https://github.com/org/tool.git", "ref": "abc123"},
                                   "self": {"path": ".", "editable": True}},
                       "develop": {"pytest": {"version": "==7.0.0"}}})
    result = pipfile_lock(lock)
    assert result.lines == ["requests==2.31.0 ; python_version >= '3.7'", "tool @ git+https://github.com/org/tool.git@abc123"]
    assert "pytest==7.0.0" in pipfile_lock(lock, dev=True).lines
    assert pipfile('[packages]\nrequests = "*"\nnumpy = ">=1.20"\n').lines == ["requests", "numpy>=1.20"]


def test_corrupt_locks_are_notes_not_exceptions():
    for result in (poetry_lock("[[package]\n", {}), uv_lock("= =", "uv.lock"), pipfile_lock("{not json")):
        assert not result.ok and result.notes and result.lines == []


def test_environment_yml_conda_only_packages_map_to_pypi():
    env = parse_environment("name: est\ndependencies:\n - numpy=1.24.3\n - pandas=1.5\n - scipy=1.10.1=py39h1234\n"
                            " - pytorch::pytorch=1.10.0\n - cudatoolkit=11.3\n - libgcc-ng\n - graphviz\n - pip\n")
    assert env.lines == ["numpy==1.24.3", "pandas==1.5.*", "scipy==1.10.1", "torch==1.10.0"]
    assert env.unmapped == ["cudatoolkit=11.3", "libgcc-ng", "graphviz"]
    assert env.apt == ["graphviz"] and env.python is None


def test_environment_yml_with_pip_section_and_python_pin():
    env = parse_environment("dependencies:\n - python=3.8\n - matplotlib\n - pip:\n   - -r requirements.txt\n"
                            "   - tqdm==4.66.1\n", "env/environment.yml")
    assert env.python == "3.8"
    assert env.lines == ["-r env/requirements.txt", "tqdm==4.66.1", "matplotlib"]


def test_corrupt_environment_yml():
    for text in ("dependencies: [a", "just text", "dependencies: 3"):
        env = parse_environment(text)
        assert not env.ok and env.notes


def test_makefile_recipes_of_the_default_goal_and_named_targets():
    from artifactcopilot.provision.makefile import recipes

    text = ("INSTALLER=miniconda.sh\nURL := https://repo.example/Miniconda3-latest.sh\n.PHONY: all\n"
            "$(INSTALLER):\n\tcurl $(URL) -o $(INSTALLER)\n\ninstall: deps\n\t@./$(INSTALLER) -b\n"
            "deps:\n\tpip install -r requirements.txt\ntest:\n\tpytest\n")
    assert recipes(text, []) == ["curl https://repo.example/Miniconda3-latest.sh -o miniconda.sh"]
    assert recipes(text, ["install"]) == ["pip install -r requirements.txt", "./miniconda.sh -b"]
    assert recipes("garbage ::: \n\t\n", ["x"]) == []


def test_chained_documented_command_with_cd():
    from artifactcopilot.provision.commands import parse

    kinds = [(c.kind, c.argv) for c in parse("cd src && sudo -H pip3 install --user -e . ; source venv/bin/activate")]
    assert kinds == [("cd", ["src"]), ("pip", ["--user", "-e", "."]), ("activate", ["venv/bin/activate"])]
    assert parse("pip install 'x")[0].kind == "unparsable"
