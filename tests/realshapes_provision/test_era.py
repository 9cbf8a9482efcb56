"""Dependencies the artifact leaves open are resolved as of its own date (uv --exclude-newer), logged as an I1
version choice with the date; when that fails, today's releases, and the review says which applied. The date
comes from the snapshot's commit, a date the artifact's documentation gives, or the paper's year — never from
file times."""
from __future__ import annotations

import datetime
import os
import subprocess

from .support import INTRO, item, need_local, need_pypi, write_artifact, write_paper

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
MAIN = """import six
print("six", six.__version__)
print("errors found per project: 12 7 9 13")
"""
CITATION = """cff-version: 1.2.0
title: Table counter
message: If you use this software, please cite it as below.
date-released: 2021-06-01
"""


def _run_output(run) -> str:
    return "\n".join(p.read_text(errors="replace") for p in sorted((run / "evidence").glob("D3-*main*.log"))
                     + sorted((run / "evidence").glob("D3-*command*.log")))


def test_open_requirements_resolve_as_of_the_date_the_artifact_gives(tmp_path, review):
    need_local()
    need_pypi()
    art = write_artifact(tmp_path / "a", {"README.md": README, "main.py": MAIN, "requirements.txt": "six\n",
                                          "CITATION.cff": CITATION})
    report, run = review(write_paper(tmp_path / "paper.md"), art, timeout=300, sandbox_name="local")
    dated = [i for i in report.interventions if "--exclude-newer 2021-06-02" in i.action]
    assert dated and dated[0].level == "I1" and "as of 2021-06-01 (CITATION.cff date-released)" in dated[0].purpose
    assert "resolved as of 2021-06-01" in report.dimensions["D2"].summary
    assert "six 1.16.0" in _run_output(run)  # six 1.17.0 came out in December 2024
    assert item(report, "D2", "D2.setup_ok").status == "satisfied"


def test_without_a_date_todays_releases_are_installed_and_nothing_is_dated(tmp_path, review):
    need_local()
    need_pypi()
    art = write_artifact(tmp_path / "a", {"README.md": README, "main.py": MAIN, "requirements.txt": "six\n"})
    report, run = review(write_paper(tmp_path / "paper.md"), art, timeout=300, sandbox_name="local")
    assert not [i for i in report.interventions if "--exclude-newer" in i.action]
    assert "six 1.16.0" not in _run_output(run) and "six 1." in _run_output(run)


def test_a_resolution_as_of_the_date_that_fails_falls_back_to_todays_releases_and_says_so(tmp_path, review):
    need_local()
    need_pypi()
    # packaging 24 did not exist in 2021: no resolution as of that date satisfies the file
    art = write_artifact(tmp_path / "a", {"README.md": README, "main.py": MAIN, "CITATION.cff": CITATION,
                                          "requirements.txt": "six\npackaging>=24\n"})
    report, _ = review(write_paper(tmp_path / "paper.md"), art, timeout=300, sandbox_name="local")
    summary = report.dimensions["D2"].summary
    assert "today's releases in 1 where that failed" in summary, summary
    assert item(report, "D2", "D2.setup_ok").status == "satisfied"
    assert item(report, "D2", "D2.evaluable").status == "satisfied"


def test_the_date_comes_from_the_commit_then_the_documentation_then_the_paper_never_file_times(tmp_path):
    from artifactcopilot.provision.era import artifact_era

    changes = "## 1.2 (2020-03-04)\n## 1.1 2019-01-02\n"
    art = write_artifact(tmp_path / "a", {"README.md": "# x\n", "CHANGELOG.md": changes})
    files = ["README.md", "CHANGELOG.md"]

    def read(rel):
        return (art / rel).read_text()

    os.utime(art / "README.md", (0, datetime.datetime(2023, 5, 5).timestamp()))
    era = artifact_era(files, read, root=art, paper_year=2022)
    assert era is not None and era.iso == "2020-03-04" and "CHANGELOG.md" in era.source
    env = {**os.environ, "GIT_AUTHOR_DATE": "2021-02-03T10:00:00", "GIT_COMMITTER_DATE": "2021-02-03T10:00:00",
           "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b"}
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "snapshot"]):
        subprocess.run(cmd, cwd=art, env=env, check=True, capture_output=True)
    era = artifact_era(files, read, root=art, paper_year=2022)
    assert era is not None and era.iso == "2021-02-03" and "commit date" in era.source
    recorded = [{"from": "x", "to": "commit abc", "date": "2020-11-30T08:00:00Z"}]
    assert artifact_era(files, read, root=art, resolution=recorded).iso == "2020-11-30"
    bare = artifact_era(["README.md"], read, paper_year=2019)
    assert bare is not None and bare.iso == "2019-12-31" and "paper" in bare.source
    assert artifact_era(["README.md"], read) is None  # file times are no date
    assert bare.cutoff() == "2020-01-01"


def test_compiled_packages_are_not_dated_before_the_interpreter_existed():
    from artifactcopilot.provision import InstallStep, plan_environment
    from artifactcopilot.provision.era import Era

    files = {"README.md": "# x\n", "requirements.txt": "numpy\nsix\n"}

    def plan(day: datetime.date):
        return plan_environment(list(files), files.get, [InstallStep(cmd="pip install -r requirements.txt")],
                                {"3.9": "bullseye"}, container=True, date=Era(day, "test"))

    early = plan(datetime.date(2019, 12, 31))  # Python 3.9 came out in October 2020
    assert not any("--exclude-newer" in s.script for s in early.steps)
    assert any("Python 3.9 came out on 2020-10-05" in n and "numpy" in n for n in early.notes), early.notes
    later = plan(datetime.date(2021, 12, 31))
    assert any("--exclude-newer 2022-01-01" in s.script for s in later.steps)
