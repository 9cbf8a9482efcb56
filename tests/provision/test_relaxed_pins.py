"""Pins that exist only for older Pythons (`numpy==1.16.5` in a requirement file written for Python 3.7) are relaxed
to the nearest release with wheels for the interpreter used, logged as a version choice (I1) with the pinned and
the installed versions; pins an interpreter here can install are left alone."""
from __future__ import annotations

import subprocess

from provision_trees import SUITES, Tree, doc

from artifactcopilot.interventions import Action, default_classifier
from artifactcopilot.provision import plan_environment
from artifactcopilot.provision.model import PIP, WORK

OLD = "Cython==0.29.13\nnumpy==1.16.5  # tested on 3.7\npandas==0.25.1\nscipy==1.3.1\n"


def plan(t: Tree, documented=(), interpreters=None):
    return plan_environment(t.files, t.read, list(documented), interpreters or SUITES, container=True)


def _installs(p):
    return [s for s in p.steps if " -m pip install -r " in s.script]


def test_pins_for_an_unavailable_python_are_relaxed_to_the_nearest_installable_release():
    p = plan(Tree({"requirements.txt": OLD, "main.py": ""}))  # undocumented: the requirement file at the top level
    assert p.python is not None and p.python.chosen == "3.9"
    (step,) = _installs(p)
    body = step.script.split("<<'COPILOT_REQUIREMENTS'\n", 1)[1].split("\nCOPILOT_REQUIREMENTS\n", 1)[0]
    assert body.splitlines() == ["Cython==0.29.13", "numpy==1.19.*", "pandas==1.1.*", "scipy==1.5.*"]
    assert f"-m pip install -r {WORK}/relaxed-requirements-txt" in step.script
    assert "numpy==1.16.5 -> numpy==1.19.*" in step.purpose and "results may differ" in step.purpose
    assert step.action == "version" and not step.documented
    assert default_classifier().classify(Action(step.action, step.script)).level == "I1"
    assert step.script.splitlines()[-1].startswith(f"{PIP} install -r ")  # the install's failure is the step's
    assert any("relaxed" in n and "results may differ" in n for n in p.notes)
    assert not any("build them from source" in n for n in p.notes)  # relaxed pins are not built
    assert p.blockers == []


def test_a_documented_install_in_a_folder_is_relaxed_with_included_files_inlined():
    t = Tree({"code/requirements.txt": "-r base.txt\nmatplotlib==3.1.1\n", "code/base.txt": "numpy==1.16.5\nrich\n",
              "code/run.py": ""})
    p = plan(t, [doc("pip install -r requirements.txt", cwd="code")])
    (step,) = _installs(p)
    body = step.script.split("<<'COPILOT_REQUIREMENTS'\n", 1)[1].split("\nCOPILOT_REQUIREMENTS\n", 1)[0]
    assert body.splitlines() == ["numpy==1.19.*", "rich", "matplotlib==3.3.*"]
    assert "cd code && " in step.script and step.action == "version"


def test_a_pin_for_a_python_that_is_available_is_not_relaxed():
    p = plan(Tree({"requirements.txt": "numpy==1.19.5\npandas==1.1.5\n", "main.py": ""}))
    assert p.python is not None and p.python.chosen == "3.9"
    (step,) = _installs(p)
    assert "relaxed" not in step.script and step.action == "install"
    p = plan(Tree({"requirements.txt": "numpy==1.16.5\n", "main.py": ""}),
             interpreters={"3.7": "python3.7", "3.11": "python3.11"})
    assert p.python is not None and p.python.chosen == "3.7" and "relaxed" not in _installs(p)[0].script


def test_a_wheel_only_framework_is_a_blocker_not_relaxed():
    p = plan(Tree({"requirements.txt": "tensorflow==1.15.0\nnumpy==1.16.5\n", "main.py": ""}))
    (step,) = _installs(p)
    assert "tensorflow==1.15.0" in step.script and "numpy==1.19.*" in step.script
    assert p.blockers and "tensorflow 1.15.0" in p.blockers[0]
    warning = next(n for n in p.notes if "build them from source" in n)
    assert "tensorflow==1.15.0" in warning and "numpy" not in warning


def test_the_rewritten_script_is_valid_shell_that_writes_the_relaxed_file(tmp_path):
    p = plan(Tree({"requirements.txt": OLD, "main.py": ""}))
    script = _installs(p)[0].script.replace(WORK, str(tmp_path / "work")).replace(PIP, "false")
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path)  # a failing install fails the step
    assert done.returncode == 1
    written = (tmp_path / "work" / "relaxed-requirements-txt").read_text()
    assert written.splitlines()[1:] == ["numpy==1.19.*", "pandas==1.1.*", "scipy==1.5.*"]


def test_a_documented_install_with_commas_between_names_installs_the_names():
    p = plan(Tree({"main.py": ""}), [doc("pip3 install numpy, scipy, pandas, Cython")])
    step = p.steps[-1]
    assert step.script.endswith("-m pip install numpy scipy pandas Cython")
    assert step.action == "command_fix" and "drops the commas" in step.purpose


def test_older_series_of_the_common_scientific_stack_are_relaxed_too():
    reqs = "scikit_learn==0.20.3\nmatplotlib==3.0.3\npandas==0.24.2\nscipy==1.2.1\nfpdf==1.7.2\n"
    p = plan(Tree({"requirements.txt": reqs, "main.py": ""}))
    body = _installs(p)[0].script.split("<<'COPILOT_REQUIREMENTS'\n", 1)[1].split("\nCOPILOT_REQUIREMENTS\n", 1)[0]
    assert body.splitlines() == ["scikit_learn==0.24.*", "matplotlib==3.3.*", "pandas==1.1.*", "scipy==1.5.*",
                                 "fpdf==1.7.2"]


def test_pins_of_an_environment_file_translated_to_pip_are_relaxed_too():
    env = "name: old\ndependencies:\n  - python=3.6\n  - numpy=1.16.5\n  - pip:\n    - pandas==0.25.1\n"
    p = plan(Tree({"environment.yml": env, "main.py": ""}), [doc("conda env create -f environment.yml")])
    step = next(s for s in p.steps if "COPILOT_REQUIREMENTS" in s.script)
    body = step.script.split("<<'COPILOT_REQUIREMENTS'\n", 1)[1].split("\nCOPILOT_REQUIREMENTS\n", 1)[0]
    assert "numpy==1.19.*" in body.splitlines() and "pandas==1.1.*" in body.splitlines(), body
    assert step.action == "version" and "results may differ" in step.purpose


def test_a_pin_on_the_documented_command_line_is_relaxed_and_chooses_the_interpreter():
    p = plan(Tree({"main.py": ""}), [doc("pip install numpy==1.16.5 rich")])
    assert p.python is not None and p.python.chosen == "3.9"  # the oldest on offer: nearest to the pin's 3.7
    step = p.steps[-1]
    assert "-m pip install 'numpy==1.19.*' rich &&" in step.script and step.action == "version"
    assert "numpy==1.16.5 -> numpy==1.19.*" in step.purpose
