"""Makefile targets (parsed with recipes and .PHONY) and driver scripts (run_*.sh) the docs do or do not name."""
from __future__ import annotations

from artifactcopilot.discovery.makefile import needs_args, parse_makefile

from .helpers import cmds, step

MAKEFILE = """INSTALLER=miniconda.sh
CONDA := ./miniconda/bin/conda
.PHONY: clean test reproduce

$(INSTALLER):
\tcurl $(URL) -L -o $(INSTALLER)

install:
\t./$(INSTALLER) -b -p ./miniconda   # comment
\t$(CONDA) env create --file environment.yml

test:
\tpython3 -m unittest discover -s tests

reproduce: install
\tpython3 run_all.py

functional_test:
\tpython3 bench/run.py

clean:
\trm -rf miniconda
"""


def test_parse_makefile_targets_recipes_and_phony():
    targets = parse_makefile(MAKEFILE, "Makefile")
    assert [(t.name, t.line, t.phony) for t in targets] == [
        ("miniconda.sh", 5, False), ("install", 8, False), ("test", 12, True), ("reproduce", 15, True),
        ("functional_test", 18, False), ("clean", 21, True)]
    assert targets[1].recipe == ["./$(INSTALLER) -b -p ./miniconda   # comment",
                                 "$(CONDA) env create --file environment.yml"]


def test_documented_target_is_a_fence_step_and_conventional_ones_are_added(run):
    found = run({"README.md": "# T\n\n## Running Tests\n\nFrom the root directory:\n```\nmake test\n```\n",
                 "Makefile": MAKEFILE, "run_all.py": ""})
    assert [(s.cmd, s.origin, s.kind, s.documented) for s in found.steps] == [
        ("make test", "fence", "test", True),
        ("make reproduce", "makefile", "workflow", False),
        ("make functional_test", "makefile", "test", False)]
    assert step(found, "reproduce").source == "Makefile:15"
    assert {t.name: t.documented for t in found.make_targets}["test"] is True


def test_undocumented_driver_scripts_become_script_steps(run):
    found = run({
        "README.md": "# T\n\nProceed to the `scripts` directory and run\n\n```\ncd scripts\n./run_main.sh\n```\n",
        "scripts/run_main.sh": "#!/bin/bash\n./sim.py ../data/a.txt\n", "scripts/sim.py": "", "data/a.txt": "",
        "scripts/run_one.sh": "#!/bin/bash\ncd ../data\npython3 ../scripts/sim.py \"$1\"\n",
        "reproduce_all.sh": "#!/bin/bash\npython3 scripts/sim.py data/a.txt\n",
        "scripts/helper.sh": "echo not a driver\n",
    })
    assert [(s.cmd, s.cwd, s.origin, s.documented) for s in found.steps] == [
        ("./run_main.sh", "scripts", "fence", True),
        ("bash reproduce_all.sh", ".", "script", False),
        ("bash run_one.sh", "scripts", "script", False)]
    one = step(found, "run_one")
    assert [(p.token, p.fill, p.resolved) for p in one.placeholders] == [("$1", None, False)]
    assert not one.runnable
    assert {d.path: d.documented for d in found.driver_scripts} == {
        "reproduce_all.sh": False, "scripts/run_main.sh": True, "scripts/run_one.sh": False}


def test_needs_args_ignores_defaults_and_comments():
    assert needs_args('echo "$1"')
    assert not needs_args('N=${1:-10}\n# usage: $0 $1\necho $N')
    assert not needs_args("echo done")


def test_make_without_target_documents_the_first_target(run):
    found = run({"README.md": "```\nmake\n```\n", "Makefile": "all:\n\tpython3 main.py\n\ntest:\n\tpytest\n",
                 "main.py": ""})
    assert cmds(found) == ["make", "make test"]
    assert {t.name: t.documented for t in found.make_targets} == {"all": True, "test": False}
