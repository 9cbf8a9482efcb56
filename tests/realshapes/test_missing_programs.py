"""A program a run could not find is installed from the Debian package that ships it (apt-file over the mirror's
Contents index, not a hand-kept list) and the run repeated; a program no package ships is named as the blocker."""
from __future__ import annotations

import pytest

from artifactcopilot.provision import (
    NOT_PACKAGED,
    command_not_found,
    fix_for_missing_command,
    plan_environment,
    program_not_found,
)

from .shapes import write_artifact, write_paper


def _plan(container: bool):
    return plan_environment(["run.sh"], lambda rel: "", [], {"3.11": "bookworm"} if container else {"3.11": "python3"},
                            container=container)


@pytest.mark.parametrize("output", [
    "run.sh: line 2: tmux: command not found", "sh: 1: tmux: not found", "run.sh: 2: tmux: not found",
    "which: no tmux in (/usr/bin:/bin)",
    "RuntimeError: could not find tmux in PATH", "Error: 'tmux' not found in PATH",
])
def test_a_script_that_cannot_find_a_program_names_it(output):
    assert command_not_found(output) == "tmux"


def test_in_a_container_the_package_is_looked_up_with_apt_file_not_a_list():
    step = fix_for_missing_command("tamarin-prover", _plan(container=True), lookup=True)
    assert step is not None and step.kind == "apt" and step.network
    assert "apt-file search -x '^/(usr/)?s?bin/tamarin\\-prover$'" in step.script
    assert f"exit {NOT_PACKAGED}" in step.script
    assert fix_for_missing_command("tamarin-prover", _plan(container=False), lookup=True) is None
    assert fix_for_missing_command("engines.txt", _plan(container=True), lookup=True) is None  # a file's name
    assert fix_for_missing_command("docker-compose", _plan(container=True), lookup=True) is None  # no engine here


def test_a_file_a_script_could_not_open_is_not_a_program_to_install_but_a_subprocess_call_is():
    style = "FileNotFoundError: [Errno 2] No such file or directory: 'seaborn'\nOSError: 'seaborn' is not a style"
    assert command_not_found(style) == "seaborn" and program_not_found(style) is None
    called = ('  File "/usr/lib/python3.11/subprocess.py", line 1950, in _execute_child\n'
              "FileNotFoundError: [Errno 2] No such file or directory: 'tmux'")
    assert program_not_found(called) == "tmux"
    assert program_not_found("run.sh: line 2: tmux: command not found") == "tmux"


def _docker_or_skip() -> None:
    from artifactcopilot.sandbox.image import EngineUnavailable, base_image_name, connect, image_present

    try:
        client = connect(timeout=5)
    except EngineUnavailable as exc:
        pytest.skip(f"no Docker engine: {exc}")
    if not image_present(client, base_image_name("bookworm")):
        pytest.skip("the bookworm base image is missing (bash .ci/setup-docker.sh builds it)")
    import urllib.request

    from artifactcopilot.sandbox.image import debian_mirror
    try:
        urllib.request.urlopen(f"{debian_mirror()}/dists/bookworm/Release", timeout=5).close()
    except OSError as exc:
        pytest.skip(f"no network to the Debian mirror: {exc}")


RUN = """#!/bin/sh
{program} -V
echo "errors found per project: 12 7 9 13"
"""
README = "# Checker\n\nNeeds {program}. Reproduce Table 1:\n\n```\nsh run.sh\n```\n"


def test_a_missing_program_is_installed_from_its_debian_package_and_the_run_repeated(tmp_path, review):
    _docker_or_skip()
    artifact = write_artifact(tmp_path / "a", README.format(program="tmux"), {"run.sh": RUN.format(program="tmux")})
    report, _ = review(write_paper(tmp_path / "paper.md"), artifact, timeout=300, sandbox_name="docker")
    installs = [i for i in report.interventions if "apt-file" in i.action and i.level == "I1"]
    assert installs, [i.action for i in report.interventions]
    rw3 = next(i for i in report.dimensions["D3"].checklist if i.item == "RW3")
    assert rw3.status == "satisfied", rw3.note


def test_a_program_no_debian_package_ships_is_named_as_the_blocker(tmp_path, review):
    _docker_or_skip()
    program = "tamarin-prover"
    artifact = write_artifact(tmp_path / "a", README.format(program=program), {"run.sh": RUN.format(program=program)})
    report, _ = review(write_paper(tmp_path / "paper.md"), artifact, timeout=300, sandbox_name="docker")
    d3 = report.dimensions["D3"]
    rw3 = next(i for i in d3.checklist if i.item == "RW3")
    assert rw3.status != "satisfied"
    assert "`tamarin-prover` cannot be had here: no Debian package ships it" in rw3.note + d3.summary
