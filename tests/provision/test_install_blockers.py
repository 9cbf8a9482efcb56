"""A documented `pip install` that fails only because of an interpreter constraint names the interpreter it needs:
an upper-bounded dependency (`tensorflow<2` from the documented package) whose allowed releases publish wheels only
for older Pythons, or a package whose Requires-Python excludes the interpreter used. The output is real pip's, from a
local package index built in the test."""
from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from artifactcopilot.provision import EnvPlan, PythonChoice, install_blocker


def _wheel(folder: Path, name: str, version: str, extra: str = "") -> None:
    info = f"{name}-{version}.dist-info"
    with zipfile.ZipFile(folder / f"{name}-{version}-py3-none-any.whl", "w") as z:
        z.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n{extra}")
        z.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        z.writestr(f"{info}/RECORD", "")


def _pip(index: Path, name: str) -> str:
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--no-index", "--isolated",
                           "--find-links", str(index), name], capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    return done.stdout + "\n" + done.stderr


def _plan(python: str = "3.9") -> EnvPlan:
    return EnvPlan(python=PythonChoice(wanted=None, source=None, chosen=python, interpreter="bullseye"))


def test_an_upper_bounded_dependency_names_the_interpreter_it_needs(tmp_path):
    _wheel(tmp_path, "scalelib", "1.0", "Requires-Dist: tensorflow<2\n")
    _wheel(tmp_path, "tensorflow", "2.5.0")
    blocker = install_blocker(_pip(tmp_path, "scalelib"), _plan())
    assert blocker is not None
    assert blocker.startswith("tensorflow<2 (required by scalelib) needs Python 3.7 or older"), blocker
    assert "the interpreter used is 3.9" in blocker


def test_a_package_for_older_pythons_only_names_its_requires_python(tmp_path):
    _wheel(tmp_path, "oldtool", "0.2", "Requires-Python: <3.8\n")
    blocker = install_blocker(_pip(tmp_path, "oldtool"), _plan())
    assert blocker is not None and blocker.startswith("oldtool needs Python <3.8"), blocker


def test_pip_lists_ignored_releases_with_their_requires_python():
    output = ("ERROR: Ignored the following versions that require a different python version: 0.1 Requires-Python "
              "<3.7; 0.2 Requires-Python >=3.6,<3.8\nERROR: Could not find a version that satisfies the requirement "
              "oldtool (from versions: none)\nERROR: No matching distribution found for oldtool\n")
    blocker = install_blocker(output, _plan())
    assert blocker is not None and blocker.startswith("oldtool needs Python >=3.6,<3.8"), blocker


def test_a_missing_package_or_a_bound_an_interpreter_here_meets_is_no_interpreter_blocker(tmp_path):
    _wheel(tmp_path, "otherlib", "1.0", "Requires-Dist: nosuchpkg\n")
    assert install_blocker(_pip(tmp_path, "otherlib"), _plan()) is None
    output = "ERROR: Could not find a version that satisfies the requirement tensorflow<2.6 (from versions: 2.7.0)"
    assert install_blocker(output, _plan("3.9")) is None  # 2.5 has wheels for 3.9: the interpreter is not the cause
    assert install_blocker("", _plan()) is None and install_blocker("x", EnvPlan(python=None)) is None
