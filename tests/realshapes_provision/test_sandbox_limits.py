"""The review never blames the artifact for its sandbox: a build that loads a compiled module from /tmp installs
(Docker's own /tmp is `noexec`), a setup step stopped by the review's disk budget is the review's limit, named;
a dependency that truly cannot be installed is still the artifact's, with pip's reason."""
from __future__ import annotations

import pytest

from .support import INTRO, TABLE_LINE, item, logs, need_docker, need_local, need_pypi, write_artifact, write_paper

# A build that compiles (here: copies) a module into its temporary build folder and loads it, as a build that uses a
# Cython-built helper does.
SETUP_PY = '''import importlib.machinery, importlib.util, os, shutil, tempfile, _json
from setuptools import setup

folder = tempfile.mkdtemp(prefix="helper-")
copy = os.path.join(folder, "_helper.so")
shutil.copy(_json.__file__, copy)
loader = importlib.machinery.ExtensionFileLoader("_json", copy)
loader.exec_module(importlib.util.module_from_spec(importlib.util.spec_from_file_location("_json", copy,
                                                                                          loader=loader)))
print("build helper loaded from", copy)
setup(name="tablecount", version="1.0", py_modules=["tablecount"])
'''
README = """# Table counter

{intro}
## Installation

```
{install}
```

## Reproduce Table 1

```
python -m tablecount
```
"""
MODULE = f'print("{TABLE_LINE}")\n'


def test_a_build_that_loads_a_module_from_tmp_installs_in_docker(tmp_path, review):
    need_docker()
    need_pypi()
    art = write_artifact(tmp_path / "a", {"README.md": README.format(intro=INTRO, install="pip install ."),
                                          "setup.py": SETUP_PY, "tablecount.py": MODULE})
    report, run = review(write_paper(tmp_path / "paper.md"), art, timeout=600, sandbox_name="docker")
    setup_ok = item(report, "D2", "D2.setup_ok")
    assert setup_ok.status == "satisfied", setup_ok.note
    assert not any("failed to map segment" in text for text in logs(run, "D2"))
    assert item(report, "D2", "D2.evaluable").status == "satisfied"


def _filling_sandbox(backend: str, scratch):
    from artifactcopilot.sandbox.base import Limits

    limits = Limits(timeout_s=120, tmp_mb=16)
    if backend == "local":
        need_local()
        from artifactcopilot.sandbox.local import LocalSandbox

        return LocalSandbox(scratch, limits)
    need_docker()
    from artifactcopilot.sandbox.docker import DockerSandbox

    return DockerSandbox(scratch, limits)


INSTALL_SH = """#!/bin/sh
# fetch the model weights into a temporary folder, then check them
dd if=/dev/zero of=/tmp/weights.bin bs=1M count=48 2>/dev/null
sleep 10
echo installed
"""


@pytest.mark.parametrize("backend", ["local", "docker"])
def test_a_setup_step_stopped_by_the_disk_budget_is_the_reviews_limit(backend, tmp_path, review):
    sandbox = _filling_sandbox(backend, tmp_path / "scratch")
    art = write_artifact(tmp_path / "a", {"README.md": README.format(intro=INTRO, install="sh install.sh"),
                                          "install.sh": INSTALL_SH, "tablecount.py": MODULE})
    try:
        report, _ = review(write_paper(tmp_path / "paper.md"), art, timeout=120, sandbox=sandbox)
    finally:
        sandbox.close()
    setup_ok = item(report, "D2", "D2.setup_ok")
    assert setup_ok.status != "violated", setup_ok.note  # not the artifact's failure
    assert "disk budget 16 MB for temporary files exceeded" in setup_ok.note
    flags = [f.message for f in report.flags if f.code == "review-limit"]
    assert flags and "not the artifact's failure" in flags[0]
    assert "stopped by the review's own limits" in report.dimensions["D2"].summary


def test_a_dependency_that_does_not_exist_is_still_the_artifacts_failure(tmp_path, review):
    need_local()
    need_pypi()
    art = write_artifact(tmp_path / "a", {
        "README.md": README.format(intro=INTRO, install="pip install -r requirements.txt"),
        "requirements.txt": "tablecount-helper-that-was-never-published==1.0\n", "tablecount.py": MODULE})
    report, _ = review(write_paper(tmp_path / "paper.md"), art, timeout=300, sandbox_name="local")
    setup_ok = item(report, "D2", "D2.setup_ok")
    assert setup_ok.status == "violated" and "exit 1" in setup_ok.note
    assert not [f for f in report.flags if f.code == "review-limit"]
    words = " ".join(report.not_established)
    assert "tablecount-helper-that-was-never-published" in words and "limit of this review" not in words
