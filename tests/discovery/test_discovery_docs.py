"""Which documents are read and in what order: README, linked docs, AE documents, sub-folder READMEs (shallow first),
docs/ pages; vendored trees and deep snippet READMEs skipped; folder links lead to the folder's README."""
from __future__ import annotations

from .helpers import step


def test_reading_order(run):
    found = run({
        "README.md": "# T\n\nSee [the survey](survey/) and [evaluation notes](EVALUATION.md#top) and [site](https://x.org).\n",
        "EVALUATION.md": "# Evaluating\n", "STATUS.md": "We apply for the Available badge.\n",
        "INSTALL": "pip install t\n",
        "data/ARTIFACT-EVALUATION.md": "# Artifact Appendix\n", "survey/README.md": "# Survey\n",
        "a/README.md": "# A\n", "a/b/README.md": "# B\n", "a/b/c/README.md": "# too deep\n",
        "docs/usage.md": "# Usage\n", "node_modules/pkg/README.md": "# vendored\n", "venv/pyvenv.cfg": "",
        "venv/lib/README.md": "# venv\n", "requirements.txt": "numpy\n", "REQUIREMENTS.md": "Python 3.8+\n",
    })
    assert [(d.path, d.role) for d in found.docs] == [
        ("README.md", "readme"), ("survey/README.md", "subreadme"), ("EVALUATION.md", "docs"),
        ("INSTALL", "install"), ("REQUIREMENTS.md", "requirements"), ("STATUS.md", "status"),
        ("data/ARTIFACT-EVALUATION.md", "artifact"), ("a/README.md", "subreadme"), ("a/b/README.md", "subreadme"),
        ("docs/usage.md", "docs")]
    assert [d.order for d in found.docs] == list(range(1, 11))
    assert found.docs[1].linked_from == "README.md" and found.docs[3].linked_from is None


def test_sub_folder_readme_commands_run_in_their_folder(run):
    found = run({"README.md": "# T\n", "tools/README.md": "```\npython3 convert.py in.csv\n```\n",
                 "tools/convert.py": "", "tools/in.csv": ""})
    s = step(found, "convert")
    assert (s.cwd, s.source) == ("tools", "tools/README.md:2")


def test_cd_into_missing_folder_keeps_the_documented_value_and_notes_it(run):
    found = run({"README.md": ("```bash\ngit clone https://github.com/o/Tool.git\ncd Tool\npython3 run.py\n```\n\n"
                               "```bash\ncd build/out\nmake\n```\n"),
                 "run.py": ""})
    run_step, make = step(found, "run.py"), step(found, "make")
    assert run_step.cwd == "." and "freshly cloned" in run_step.notes[0]
    assert make.cwd == "build/out" and "not in the artifact" in make.notes[0]


def test_prose_working_directory_applies_to_the_section(run):
    found = run({"README.md": ("## Experiments\n\nRun all commands below from the `scripts` directory.\n\n"
                               "### One\n```\npython3 one.py\n```\n\n## Plots\n```\npython3 scripts/plot.py\n```\n"),
                 "scripts/one.py": "", "scripts/plot.py": ""})
    assert [(s.cwd, s.cmd) for s in found.steps] == [("scripts", "python3 one.py"), (".", "python3 scripts/plot.py")]


def test_script_named_without_path_gets_a_note_unless_a_runner_runs_it(run):
    found = run({"README.md": "```\n$ install.sh\n$ uv run main.py\n```\n", "install.sh": "", "main.py": ""})
    install, main = found.steps
    assert install.kind == "install" and "run it as ./install.sh or bash install.sh" in install.notes[0]
    assert main.notes == []
