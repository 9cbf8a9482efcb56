"""Documented installs are followed: the published release from PyPI, current names for retired ones (I1), and
interpreter constraints read up front, with the blocker stated when no interpreter here fits."""
from __future__ import annotations

from provision_trees import SUITES, Tree, doc

from artifactcopilot.interventions import Action, default_classifier
from artifactcopilot.provision import VENV, plan_environment

PIP = f"{VENV}/bin/python -m pip install"


def plan(t: Tree, documented=(), interpreters=None):
    return plan_environment(t.files, t.read, list(documented), interpreters or SUITES, container=True)


def test_a_retired_pypi_name_is_installed_under_its_current_name_as_an_added_dependency():
    p = plan(Tree({"run.py": ""}), [doc("pip install numpy sklearn")])
    step = p.steps[-1]
    assert step.script == f"{PIP} numpy scikit-learn" and step.action == "install"
    assert default_classifier().classify(Action(step.action, step.script)).level == "I1"
    assert any("current PyPI name scikit-learn for sklearn" in n for n in p.notes)


def test_a_pin_that_only_older_pythons_can_install_is_the_stated_blocker():
    for line in ("tensorflow==1.13.1", "tensorflow<2", "tensorflow>=1.10,<2.0"):
        p = plan(Tree({"requirements.txt": f"numpy\n{line}\n", "run.py": ""}), [doc("pip install -r requirements.txt")])
        assert p.blockers, line
        assert "needs Python 3.7 or older" in p.blockers[0] and "3.9, 3.11, 3.13" in p.blockers[0], p.blockers
        assert p.python is not None and p.python.chosen == "3.9"  # the nearest interpreter there is


def test_a_pin_an_interpreter_here_can_install_is_no_blocker():
    p = plan(Tree({"requirements.txt": "tensorflow==2.6.0\n", "run.py": ""}), [doc("pip install -r requirements.txt")])
    assert p.blockers == [] and p.python is not None and p.python.chosen == "3.9"


def test_the_published_release_is_installed_as_documented_and_the_own_code_only_stands_in():
    t = Tree({"setup.py": "from setuptools import setup\nsetup(name='labeler-lab', entry_points={'console_scripts': "
                          "['labeler=labeler.main:run']})\n", "labeler/__init__.py": "", "labeler/main.py": ""})
    p = plan(t, [doc("pip install labeler-lab")])
    assert [s.script for s in p.steps[-2:]] == [
        f"{PIP} labeler-lab", f"{VENV}/bin/python -m pip show labeler-lab >/dev/null 2>&1 || {PIP} ."]
    assert p.steps[-2].documented and p.steps[-2].action == "run"
