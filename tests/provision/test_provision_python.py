"""Python requests (PEP 440, Poetry, conda, prose) and the interpreter choice."""
from __future__ import annotations

import pytest

from artifactcopilot.provision import choose_python
from artifactcopilot.provision.pyversions import parse_spec

SUITES = {"3.9": "bullseye", "3.11": "bookworm", "3.13": "trixie"}


@pytest.mark.parametrize("text, allowed", [
    (">=3.12", [(3, 12), (3, 13)]),
    ("^3.9", [(3, 9), (3, 11), (3, 12), (3, 13)]),
    ("~3.8", [(3, 8)]),
    (">=3.8 <3.11", [(3, 8), (3, 9)]),
    ("3.6+", [(3, 8), (3, 9), (3, 11), (3, 12), (3, 13)]),
    ("3.10 or above", [(3, 11), (3, 12), (3, 13)]),
    ("3.12.1", [(3, 12)]),
    ("==3.8.5", [(3, 8)]),
    (">=3.8, !=3.9.*", [(3, 8), (3, 11), (3, 12), (3, 13)]),
    (">=3.7,<3.10 || ^3.11", [(3, 8), (3, 9), (3, 11), (3, 12), (3, 13)]),
    ("python3.10", []),
])
def test_requests_are_read_at_minor_granularity(text, allowed):
    spec = parse_spec(text)
    assert spec is not None
    assert [v for v in [(3, 8), (3, 9), (3, 11), (3, 12), (3, 13)] if spec.contains(v)] == allowed


@pytest.mark.parametrize("text", ["2.7", "system", "", "garbage", None, "*"])
def test_unreadable_or_python2_requests_are_none(text):
    assert parse_spec(text) is None


def test_requires_python_312_chooses_313_when_311_and_313_are_offered():
    choice, notes = choose_python({"3.11": "python3.11", "3.13": "python3.13"},
                                  [(">=3.12", "pyproject.toml requires-python"), (">=3.12", "uv.lock requires-python")],
                                  [("3.12", ".python-version", 0)], [])
    assert choice.chosen == "3.13" and choice.interpreter == "python3.13"
    assert choice.drift is None and choice.wanted == ">=3.12"
    assert "pyproject.toml requires-python" in choice.source
    assert any(".python-version asks for Python 3.12" in n for n in notes)


def test_requires_python_312_with_only_311_is_drift():
    choice, notes = choose_python({"3.11": "python3"}, [(">=3.12", "pyproject.toml requires-python")], [], [])
    assert choice.chosen == "3.11"
    assert choice.drift == "wants >=3.12 (pyproject.toml requires-python); nearest available 3.11"
    assert any("drift" in n for n in notes)


def test_documented_version_wins_within_the_range():
    choice, _ = choose_python(SUITES, [("^3.9", "pyproject.toml [tool.poetry.dependencies] python")],
                              [("3.9", "documentation (3.9)", 2), ("3.10", "documentation (3.10)", 2)], [])
    assert (choice.chosen, choice.interpreter) == ("3.9", "bullseye")


def test_wheel_ceiling_of_old_pins_picks_an_older_python_in_a_container():
    choice, _ = choose_python(SUITES, [], [], [((3, 9), "pandas==1.2.4 (requirements.txt)")])
    assert choice.chosen == "3.9"
    assert any("wheels" in r for r in choice.reasons)


def test_wheel_ceiling_that_cannot_be_met_is_noted_not_drift():
    choice, notes = choose_python({"3.11": "python3"}, [], [], [((3, 9), "scipy==1.5.4 (requirements.txt)")])
    assert choice.chosen == "3.11" and choice.drift is None
    assert any("scipy==1.5.4" in n and "build" in n for n in notes)


def test_without_any_request_the_default_python3_is_used():
    choice, _ = choose_python({"3.9": "python3.9", "3.11": "python3", "3.13": "python3.13"}, [], [], [])
    assert choice.chosen == "3.11" and choice.wanted is None and choice.drift is None


def test_only_a_preference_that_is_missing_is_drift():
    choice, _ = choose_python({"3.11": "python3"}, [], [("3.12", ".python-version", 0)], [])
    assert choice.wanted == "3.12" and choice.drift.startswith("wants 3.12 (.python-version)")


def test_classifiers_never_make_drift():
    choice, _ = choose_python({"3.11": "python3"}, [], [("3.8", "classifiers", 3)], [])
    assert choice.drift is None


def test_contradicting_documentation_request_is_dropped():
    choice, notes = choose_python(SUITES, [(">=3.12", "pyproject.toml requires-python"), ("<3.10", "documentation")],
                                  [], [])
    assert choice.chosen == "3.13"
    assert any("contradicts" in n for n in notes)


def test_no_python3_interpreter_gives_no_choice():
    choice, notes = choose_python({"2.7": "python2"}, [], [], [])
    assert choice is None and "no Python 3 interpreter" in notes[0]


def test_suite_that_packages_required_tools_is_preferred():
    choice, _ = choose_python(SUITES, [], [], [], suite_ok=lambda suite: suite == "bullseye")
    assert choice.interpreter == "bullseye"
