"""plan_environment on small artifacts shaped like real ones."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from provision_trees import LOCAL, SUITES, Tree, doc

from artifactcopilot.provision import VENV, plan_environment

PIP = f"{VENV}/bin/python -m pip install"


def plan(t: Tree, documented=(), interpreters=None, container=False, **kw):
    return plan_environment(t.files, t.read, list(documented), interpreters or LOCAL, container=container, **kw)


def kinds(p):
    return [(s.kind, s.action, s.documented) for s in p.steps]


# --- requirement files: documented vs nearest vs unrelated -------------------------------------------------------

SURVEY = Tree({
    "README.md": "# study", "analysis/Recall.ipynb": "{}", "analysis/README.md": "uses pandas and matplotlib",
    "survey/app/requirements.txt": "django\nmysqlclient\n", "survey/app/Dockerfile": "FROM python:3.9",
    "survey/app/manage.py": "", "examples/demo/requirements.txt": "flask\n", "tests/requirements.txt": "pytest\n",
})


def test_unrelated_sub_project_requirements_are_skipped_and_prose_packages_installed():
    p = plan(SURVEY, workflow_entries=["analysis/Recall.ipynb"], doc_packages=["pandas", "matplotlib"])
    assert p.requirement_files == []
    skipped = dict(p.skipped_requirement_files)
    assert "sub-project survey/app/" in skipped["survey/app/requirements.txt"]
    assert "examples/" in skipped["examples/demo/requirements.txt"] and "tests/" in skipped["tests/requirements.txt"]
    install = [s for s in p.steps if s.kind == "pip"]
    assert len(install) == 1 and install[0].script == f"{PIP} pandas matplotlib"
    assert (install[0].action, install[0].documented) == ("install", True)
    assert not any("django" in s.script for s in p.steps)


def test_nearest_requirement_file_to_the_workflow_is_chosen():
    t = Tree({"requirements.txt": "numpy\n", "experiments/requirements.txt": "matplotlib\nseq2pat\n",
              "experiments/plots.ipynb": "{}", "tool/requirements.txt": "requests\n", "tool/main.py": ""})
    p = plan(t, workflow_entries=["experiments/plots.ipynb"])
    assert p.requirement_files == ["experiments/requirements.txt"]
    step = next(s for s in p.steps if s.kind == "pip")
    assert step.script == f"cd experiments && {PIP} -r requirements.txt"
    assert (step.action, step.documented) == ("install", False)
    assert dict(p.skipped_requirement_files)["tool/requirements.txt"].startswith("not on the workflow's path")
    top = plan(t)  # no workflow known: the top-level file
    assert top.requirement_files == ["requirements.txt"]


def test_documented_requirement_file_is_run_as_documented_and_others_skipped():
    t = Tree({"code/requirements.txt": "numpy==1.23.0\n", "docs/requirements.txt": "sphinx\n"})
    p = plan(t, [doc("pip3 install -r requirements.txt", cwd="code", source="INSTALL.md:12")])
    step = p.steps[-1]
    assert step.script == f"cd code && {PIP} -r requirements.txt"
    assert (step.kind, step.action, step.documented, step.source) == ("pip", "run", True, "INSTALL.md:12")
    assert p.requirement_files == ["code/requirements.txt"]
    assert dict(p.skipped_requirement_files)["docs/requirements.txt"].startswith("under docs/")


def test_documented_requirement_file_in_another_folder_is_a_command_fix():
    t = Tree({"src/requirements.txt": "numpy\n"})
    step = plan(t, [doc("pip install -r requirements.txt")]).steps[-1]
    assert step.script == f"{PIP} -r ./src/requirements.txt" and step.action == "command_fix"


# --- the artifact's own package ----------------------------------------------------------------------------------

AVCLASS = Tree({
    "pyproject.toml": '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n'
                      '[project]\nname = "avlabel-lab"\nversion = "2.8"\ndependencies = []\n'
                      '[project.scripts]\navlabel = "avlabel.labeler:main"\n',
    "avlabel/__init__.py": "", "avlabel/labeler.py": "", "README.md": "pip install avlabel-lab",
})


def test_pypi_name_of_the_project_installs_the_published_release_as_documented():
    p = plan(AVCLASS, [doc("pip install avlabel-lab", source="README.md:23")])
    assert [s.kind for s in p.steps] == ["venv", "pip", "project"]
    published, own = p.steps[1], p.steps[2]
    assert published.script == f"{PIP} avlabel-lab" and (published.action, published.documented) == ("run", True)
    assert own.script == f"{VENV}/bin/python -m pip show avlabel-lab >/dev/null 2>&1 || {PIP} ."
    assert (own.action, own.documented, own.required) == ("install", False, False)
    assert "the review evaluates that release" in own.purpose
    assert p.console_scripts == {"avlabel": "avlabel.labeler:main"} and p.project_name == "avlabel-lab"


def test_setup_py_project_with_its_name_documented_and_pip_user_dropped():
    t = Tree({"setup.py": "from setuptools import setup\nsetup(name='callgraph', entry_points={'console_scripts': "
                          "['callgraph=callgraph.__main__:main']})\n", "callgraph/__init__.py": ""})
    p = plan(t, [doc("pip3 install --user callgraph numpy")])
    step = p.steps[-2]
    assert step.script == f"{PIP} callgraph numpy" and step.action == "command_fix"
    assert p.console_scripts == {"callgraph": "callgraph.__main__:main"}


def test_undocumented_project_is_installed_when_docs_give_no_install_step():
    p = plan(AVCLASS)
    step = p.steps[-1]
    assert (step.kind, step.script, step.action, step.documented) == ("project", f"{PIP} .", "install", False)


# --- poetry / uv / pipenv ----------------------------------------------------------------------------------------

POETRY = Tree({
    "pyproject.toml": '[tool.poetry]\nname = "grpmean"\n[tool.poetry.dependencies]\npython = "^3.9"\n'
                      'pandas = "^2.0"\n[build-system]\nrequires = ["poetry-core"]\n'
                      'build-backend = "poetry.core.masonry.api"\n',
    "poetry.lock": '[[package]]\nname = "pandas"\nversion = "2.2.2"\noptional = false\ngroups = ["main"]\n'
                   '[[package]]\nname = "sokdata"\nversion = "0.1.0"\noptional = false\ngroups = ["main"]\n'
                   '[package.source]\ntype = "git"\nurl = "https://github.com/org/sokdata.git"\n'
                   'reference = "HEAD"\nresolved_reference = "abc123"\n',
    "grpmean/__init__.py": "",
})


def test_poetry_install_replays_the_lock_then_the_project_without_deps():
    p = plan(POETRY, [doc("poetry install", source="ARTIFACT-EVALUATION.md:79"), doc("pipx install poetry")],
             interpreters=SUITES, container=True, doc_python=["3.9", "3.10"])
    assert p.python.chosen == "3.9" and p.python.interpreter == "bullseye"
    lock = next(s for s in p.steps if s.kind == "lock")
    assert "pandas==2.2.2" in lock.script and "sokdata @ git+https://github.com/org/sokdata.git@abc123" in lock.script
    assert (lock.action, lock.documented) == ("command_fix", True)
    project = next(s for s in p.steps if s.kind == "project")
    assert project.script == f"{PIP} --no-deps ."
    assert any("GitHub" in n and "sokdata" in n for n in p.notes)
    assert any("git" in s.script.split() for s in p.steps if s.kind == "apt")
    assert any("pipx install poetry" in n for n in p.notes)


def test_poetry_without_lock_installs_the_project_with_its_ranges():
    t = Tree({k: v for k, v in POETRY.items() if k != "poetry.lock"})
    p = plan(t, [doc("poetry install")])
    assert p.steps[-1].script == f"{PIP} ." and p.steps[-1].action == "command_fix"


TRACS = Tree({
    "pyproject.toml": '[project]\nname = "trajcol"\nrequires-python = ">=3.12"\ndependencies = ["pandas>=3"]\n',
    ".python-version": "3.12\n",
    "uv.lock": 'version = 1\nrequires-python = ">=3.12"\n[[package]]\nname = "pandas"\nversion = "3.0.0"\n'
               'source = { registry = "https://pypi.org/simple" }\n[[package]]\nname = "trajcol"\nversion = "0.1.0"\n'
               'source = { virtual = "." }\ndependencies = [{ name = "pandas" }]\n',
})


def test_uv_sync_with_311_and_313_chooses_313():
    p = plan(TRACS, [doc("uv sync")], interpreters={"3.11": "python3.11", "3.13": "python3.13"})
    assert p.python.chosen == "3.13" and p.python.drift is None
    assert p.steps[0].script.startswith("test -x") and "python3.13 -m venv /opt/copilot/venv" in p.steps[0].script
    assert (p.steps[0].action, p.steps[0].documented) == ("run", True)
    lock = p.steps[1]
    assert lock.kind == "lock" and "pandas==3.0.0" in lock.script and "trajcol" not in lock.script
    assert any("virtual project" in n for n in p.notes)


def test_uv_sync_with_only_311_reports_drift():
    p = plan(TRACS, [doc("uv sync")], interpreters={"3.11": "python3"})
    assert p.python.chosen == "3.11"
    assert p.python.drift.startswith("wants >=3.12 (pyproject.toml requires-python")
    assert p.steps[0].documented is False and p.steps[0].action == "version"


def test_uv_lock_is_used_when_docs_give_no_install_step():
    p = plan(TRACS, interpreters={"3.13": "python3.13"})
    lock = next(s for s in p.steps if s.kind == "lock")
    assert (lock.action, lock.documented) == ("install", False)


def test_pipenv_install_uses_pipfile_lock():
    t = Tree({"Pipfile": '[packages]\nrequests = "*"\n[requires]\npython_version = "3.9"\n',
              "Pipfile.lock": json.dumps({"default": {"requests": {"version": "==2.31.0"}},
                                          "develop": {"pytest": {"version": "==8.0.0"}}})})
    p = plan(t, [doc("pipenv install"), doc("pipenv shell")], interpreters=SUITES, container=True)
    assert p.python.chosen == "3.9"
    lock = next(s for s in p.steps if s.kind == "lock")
    assert "requests==2.31.0" in lock.script and "pytest" not in lock.script


# --- conda ------------------------------------------------------------------------------------------------------

CONDA = Tree({
    "environment.yml": "name: est\ndependencies:\n - numpy=1.24.3\n - pandas=1.5.3\n - graphviz\n",
    "install.sh": "#!/bin/bash\nif [ ! -d miniconda ]; then\n  make\n  make install\nfi\n",
    "Makefile": "URL := https://repo.anaconda.com/miniconda/Miniconda3-latest-Linux-x86_64.sh\n"
                "install:\n\t./miniconda.sh -b -p ./miniconda\n"
                "\t./miniconda/bin/conda env create --file environment.yml\n",
})


def test_installer_that_downloads_miniconda_is_replaced_by_the_environment_file():
    p = plan(CONDA, [doc("install.sh"), doc("source miniconda/bin/activate est")], interpreters=SUITES,
             container=True)
    lock = next(s for s in p.steps if s.kind == "lock")
    assert "numpy==1.24.3" in lock.script and "pandas==1.5.3" in lock.script
    assert (lock.action, lock.documented) == ("command_fix", True)
    assert not any("miniconda" in s.script.lower() for s in p.steps)
    assert any("Miniconda" in n for n in p.notes) and any("activate" in n for n in p.notes)
    assert any("installed from PyPI by name: numpy==1.24.3" in n for n in p.notes)
    assert "graphviz" in p.apt_packages and p.python.chosen == "3.11"


def test_conda_env_create_with_pip_section_and_python_pin():
    t = Tree({"env/environment.yml": "dependencies:\n - python=3.8\n - scipy\n - pip:\n   - -r requirements.txt\n",
              "env/requirements.txt": "tqdm==4.66.1\n"})
    p = plan(t, [doc("conda env create -f env/environment.yml"), doc("conda activate est")])
    lock = next(s for s in p.steps if s.kind == "lock")
    assert "-r env/requirements.txt" in lock.script and "scipy" in lock.script
    assert p.python.wanted == "3.8" and p.python.source == "env/environment.yml python" and p.python.drift
    assert "env/requirements.txt" in p.requirement_files


# --- system packages, virtualenv lines --------------------------------------------------------------------------

APT_DOCS = [doc("sudo apt install python3-pip", runner="sudo", inner="apt install python3-pip"),
            doc("sudo apt install gnuplot texlive-latex-base", runner="sudo",
                inner="apt install gnuplot texlive-latex-base"),
            doc("virtualenv -p /usr/bin/python3.9 test-env"), doc("source test-env/bin/activate"),
            doc("pip3 install -r requirements.txt")]


def test_sudo_apt_in_a_container_is_an_apt_step():
    t = Tree({"requirements.txt": "numpy\n"})
    p = plan(t, APT_DOCS, interpreters=SUITES, container=True)
    apt = [s for s in p.steps if s.kind == "apt" and s.documented]
    assert len(apt) == 1 and apt[0].script.endswith("apt-get install -y --no-install-recommends gnuplot "
                                                    "texlive-latex-base")
    assert "sudo" not in apt[0].script and apt[0].network
    assert "python3-pip" not in apt[0].script and {"gnuplot", "python3-venv"} <= set(p.apt_packages)
    assert p.python.chosen == "3.9"  # the documented virtualenv interpreter
    assert sum("skipped: the review's" in n for n in p.notes) == 2


def test_sudo_apt_without_container_is_a_note():
    t = Tree({"requirements.txt": "numpy\n"})
    p = plan(t, APT_DOCS)
    assert not any(s.kind == "apt" for s in p.steps) and p.apt_packages == []
    assert any("not possible in the local sandbox" in n and "gnuplot" in n for n in p.notes)
    assert [s.kind for s in p.steps] == ["venv", "pip"]


def test_documented_system_tools_and_python2():
    t = Tree({"scripts/run.sh": "./guess.py"})
    container = plan(t, interpreters=SUITES, container=True, doc_python=["2.7", ">=3.6"],
                     doc_tools=["python2", "gnuplot"])
    assert container.python.interpreter == "bullseye"
    tools = [s for s in container.steps if s.kind == "apt"]
    assert tools[-1].script.endswith("python2 gnuplot-nox") and tools[-1].required is False
    local = plan(t, doc_python=["2.7"], doc_tools=["gnuplot", "quantumfrob"])
    assert any("gnuplot-nox" in n for n in local.notes) and any("quantumfrob" in n for n in local.notes)
    assert any("Python 2" in n for n in local.notes)


def test_no_declared_dependency_is_said():
    p = plan(Tree({"main.py": "import os\n"}))
    assert [s.kind for s in p.steps] == ["venv"]
    assert any("no dependency is declared" in n for n in p.notes)


def test_stdlib_names_in_prose_are_not_installed():
    p = plan(Tree({"cst.py": ""}), doc_packages=["numpy", "math", "itertools", "sklearn", "pandas>=1.3", "numpy"])
    assert p.steps[-1].script == f"{PIP} numpy scikit-learn 'pandas>=1.3'"


# --- robustness -------------------------------------------------------------------------------------------------

def test_corrupt_files_become_notes():
    t = Tree({"pyproject.toml": "[project\n", "poetry.lock": "[[package]\n", "uv.lock": "{{", "Pipfile.lock": "{",
              "environment.yml": "dependencies: [", "setup.py": "def (:", ".python-version": "\x00\x01",
              "requirements.txt": "numpy===\n-r missing.txt\n"})
    documented = [doc("poetry install"), doc("uv sync"), doc("pipenv install"), doc("conda env create"),
                  doc("pip install -r requirements.txt"), doc("pip install 'unterminated"), doc("")]
    p = plan(t, documented)
    assert p.python is not None and p.steps[0].kind == "venv"
    text = " ".join(p.notes)
    for word in ("pyproject.toml", "poetry.lock", "Pipfile.lock", "environment.yml", "setup.py", "missing.txt"):
        assert word in text
    json.dumps(p.to_dict())


def test_hostile_arguments_are_survived():
    p = plan_environment(["a.py", None, 3], lambda rel: b"bytes", [doc("pip install x"), "not a step", None],
                         None, container=False, doc_python=[None, 3.9], doc_tools=[None, ""], doc_packages=[None, 7])
    assert p.python is None and not any(s.kind == "venv" for s in p.steps)
    assert any("no Python 3 interpreter" in n for n in p.notes)
    assert any("could not be planned" in n for n in p.notes)
    json.dumps(p.to_dict())


def test_a_reader_that_raises_is_survived():
    def read(rel):
        raise OSError("gone")

    p = plan_environment(["requirements.txt", "pyproject.toml"], read, [doc("pip install -r requirements.txt")],
                         LOCAL, container=False)
    assert p.steps[0].kind == "venv"
    assert any("could not be read" in n for n in p.notes)


@pytest.mark.skipif(not shutil.which("bash"), reason="bash not available")
def test_every_script_is_valid_bash():
    plans = [plan(POETRY, [doc("poetry install")], SUITES, True), plan(CONDA, [doc("./install.sh")]),
             plan(AVCLASS, [doc("pip install avlabel-lab")], SUITES, True), plan(SURVEY, doc_packages=["pandas"]),
             plan(Tree({"requirements.txt": "x\n"}), APT_DOCS, SUITES, True)]
    for p in plans:
        for step in p.steps:
            proc = subprocess.run(["bash", "-n", "-c", step.script], check=False, capture_output=True, text=True)
            assert proc.returncode == 0, (step.script, proc.stderr)


def test_git_url_of_the_artifact_itself_installs_the_local_code():
    step = plan(AVCLASS, [doc("pip install git+https://github.com/lab/avlabel-lab.git")]).steps[-1]
    assert step.script == f"{PIP} ." and step.action == "command_fix"


def test_requirements_inside_an_examples_folder_that_holds_the_workflow_are_used():
    t = Tree({"examples/demo/requirements.txt": "numpy\n", "examples/demo/run.py": "", "docs/requirements.txt": "x\n"})
    p = plan(t, workflow_entries=["examples/demo/run.py"])
    assert p.requirement_files == ["examples/demo/requirements.txt"]
    assert "docs/requirements.txt" in dict(p.skipped_requirement_files)


def test_make_target_is_read_not_the_whole_makefile():
    t = Tree({"Makefile": "PY := python3\ndeps:\n\t$(PY) -m pip install -r requirements.txt\n"
                          "conda:\n\tcurl -O https://repo.anaconda.com/miniconda/Miniconda3-latest-Linux-x86_64.sh\n",
              "requirements.txt": "numpy\n", "environment.yml": "dependencies:\n - numpy\n"})
    deps = plan(t, [doc("make deps")])
    assert deps.steps[-1].kind == "documented" and deps.steps[-1].script.endswith("make deps")
    assert not any(s.kind == "lock" for s in deps.steps)
    conda = plan(t, [doc("make conda")])
    assert any(s.kind == "lock" and "numpy" in s.script for s in conda.steps)


def test_conda_create_with_inline_packages_and_python_pin():
    p = plan(Tree({"run.py": ""}), [doc("conda create -n est -c conda-forge python=3.9 numpy=1.24 scipy -y")],
             interpreters=SUITES, container=True)
    assert p.python.chosen == "3.9" and p.python.source.startswith("documented `conda create")
    lock = next(s for s in p.steps if s.kind == "lock")
    assert "numpy==1.24.*" in lock.script and "scipy" in lock.script and "conda-forge" not in lock.script


def test_debian_python_modules_become_pip_installs():
    p = plan(Tree({"run.py": ""}), [doc("sudo apt-get install -y python3-numpy python3-yaml python3-tk gnuplot")],
             interpreters=SUITES, container=True)
    pip = next(s for s in p.steps if s.kind == "pip")
    assert pip.script == f"{PIP} numpy PyYAML" and pip.action == "command_fix"
    apt = next(s for s in p.steps if s.kind == "apt" and s.documented)
    assert apt.script.endswith("python3-tk gnuplot")


def test_upgrading_pip_or_a_missing_requirement_file_does_not_count_as_installing_dependencies():
    t = Tree({"analysis/requirements.txt": "pandas\n", "analysis/run.py": "", "tool/requirements.txt": "flask\n"})
    p = plan(t, [doc("pip install --upgrade pip"), doc("pip install -r requirements.txt", cwd="docs")],
             workflow_entries=["analysis/run.py"])
    assert p.steps[1].script == f"{PIP} --upgrade pip" and p.steps[1].action == "run"
    assert p.steps[2].script == f"cd analysis && {PIP} -r requirements.txt"
    assert (p.steps[2].action, p.steps[2].documented) == ("install", False)
    assert any("`requirements.txt` named by README.md:1 does not exist" in n for n in p.notes)
