"""Install order and build isolation: `pip install .` documented before the requirements, with a setup.py that
imports a dependency, gets the requirements first and a build without isolation once the environment has the
module (each logged, I2); a build that imports a module nothing declares still fails as the artifact's."""
from __future__ import annotations

from .support import INTRO, TABLE_LINE, item, need_local, need_pypi, write_artifact, write_paper

README = "# Table counter\n\n" + INTRO + """
## Installation

```
pip install .
pip install -r requirements.txt
```

## Reproduce Table 1

```
python -m tablecount
```
"""
SETUP_PY = """import {module}  # the version string comes from a dependency
from setuptools import setup

setup(name="tablecount", version="1.0", py_modules=["tablecount"])
"""


def _artifact(tmp_path, module: str):
    return write_artifact(tmp_path / "a", {"README.md": README, "setup.py": SETUP_PY.format(module=module),
                                           "requirements.txt": "six\n",
                                           "tablecount.py": f"import six\nprint('{TABLE_LINE}')\n"})


def test_requirements_first_then_a_build_without_isolation(tmp_path, review):
    need_local()
    need_pypi()
    report, _ = review(write_paper(tmp_path / "paper.md"), _artifact(tmp_path, "six"), timeout=300,
                       sandbox_name="local")
    setup_ok = item(report, "D2", "D2.setup_ok")
    assert setup_ok.status == "satisfied", setup_ok.note
    actions = [(i.level, i.action, i.purpose) for i in report.interventions]
    assert any(level == "I2" and "--no-build-isolation" in action and "could not import `six`" in purpose
               for level, action, purpose in actions), actions
    assert any(level == "I2" and "install order changed" in purpose for level, action, purpose in actions), actions
    assert item(report, "D2", "D2.evaluable").status == "satisfied"


def test_a_build_that_imports_an_undeclared_module_still_fails_as_the_artifacts(tmp_path, review):
    need_local()
    need_pypi()
    report, _ = review(write_paper(tmp_path / "paper.md"), _artifact(tmp_path, "tablecount_version_helper"),
                       timeout=300, sandbox_name="local")
    setup_ok = item(report, "D2", "D2.setup_ok")
    assert setup_ok.status == "violated" and "documented `pip install .`" in setup_ok.note
    assert not [i for i in report.interventions if "--no-build-isolation" in i.action]
