"""D2 is evaluable only when the documented install reached an importable state, and a module a run misses is
"not declared" only when no dependency file of the artifact declares it."""
from __future__ import annotations

from .support import INTRO, TABLE_LINE, item, need_local, need_pypi, write_artifact, write_paper

README = "# Table counter\n\n" + INTRO + """
## Installation

```
pip install -r requirements.txt
```

## Reproduce Table 1

```
python main.py
```
"""
MAIN = f"""import six
import tabulate
print("{TABLE_LINE}")
"""


def test_an_install_that_failed_is_not_an_evaluable_environment(tmp_path, review):
    need_local()
    need_pypi()
    art = write_artifact(tmp_path / "a", {"README.md": README, "main.py": MAIN,
                                          "requirements.txt": "six\ntablecount-helper-that-was-never-published==1.0\n"})
    report, _ = review(write_paper(tmp_path / "paper.md"), art, timeout=300, sandbox_name="local")
    evaluable = item(report, "D2", "D2.evaluable")
    assert evaluable.status == "violated", evaluable.note
    assert "declared packages not installed: six" in evaluable.note
    installs = {i.action: i.purpose for i in report.interventions if "pip install" in i.action}
    six = next(reason for action, reason in installs.items() if action.rstrip().endswith("install six"))
    assert "declared by the artifact in requirements.txt, but the documented install did not install it" in six
    tab = next(reason for action, reason in installs.items() if action.rstrip().endswith("install tabulate"))
    assert "not declared by any dependency file of the artifact" in tab


def test_an_install_that_completed_is_evaluable_with_its_packages_imported(tmp_path, review):
    need_local()
    need_pypi()
    art = write_artifact(tmp_path / "a", {"README.md": README, "main.py": MAIN,
                                          "requirements.txt": "six\ntabulate\n"})
    report, _ = review(write_paper(tmp_path / "paper.md"), art, timeout=300, sandbox_name="local")
    evaluable = item(report, "D2", "D2.evaluable")
    assert evaluable.status == "satisfied", evaluable.note
    assert "importable state (2 declared packages import)" in evaluable.note
