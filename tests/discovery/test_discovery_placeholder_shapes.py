"""Placeholders a reviewer fills although the docs' own example does not: a malformed one (`<path_to_file` with no
closing bracket, `[path]`, `/path/to/your/file`) takes a sample input the artifact ships, of the kind the command
names; one that names code to analyse (`my_code_repo`) takes a small project written for the purpose. The filled
commands run for real here."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from artifactcopilot.agents.heuristic.runsteps import command_of, write_inputs

from .helpers import step

STATS = ('import json, sys\nargs = dict(zip(sys.argv[1::2], sys.argv[2::2]))\n'
         'data = open(args["-f"], "rb").read()\n'
         'print(json.dumps({"vendor": args["-v"], "bytes": len(data), "first": data[0]}))\n')
FIRMWARE = {
    "README.md": ("# fwstats\n\n## Usage\n\nTo analyse a single binary of vendor acme_ble, you would use "
                  "`python start.py -f <path_to_file -M s -v acme_ble`.\n\nThe wiki has the commands for the "
                  "individual examples in the `examples` folder.\n"),
    "start.py": STATS,
    "examples/README.md": "Example firmware files and the expected output of each.\n",
    "examples/acme_ant/acme_ant.bin": b"\x07\x00\x01",
    "examples/acme_ant/acme_ant.json": '{"vendor": "acme_ant", "bytes": 3, "first": 7}\n',
    "examples/acme_ble/acme_ble.bin": b"\x05\x01\x02\x03",
    "examples/acme_ble/acme_ble.json": '{"vendor": "acme_ble", "bytes": 4, "first": 5}\n',
    "examples/acme_ble/acme_ble_passkey.bin": b"\x09\x09",
}


def _run(root: Path, script: str, cwd: str) -> subprocess.CompletedProcess:
    script = script.replace("python ", f"{sys.executable} ", 1)
    return subprocess.run(script, shell=True, cwd=root / cwd, capture_output=True, text=True, timeout=120,
                          check=False)


def test_an_unclosed_angle_bracket_is_filled_with_the_sample_the_command_names(run, tmp_path):
    found = run(FIRMWARE)
    cmd = step(found, "start.py -f")
    [ph] = cmd.placeholders
    assert (ph.token, ph.fill, ph.resolved) == ("<path_to_file", "examples/acme_ble/acme_ble.bin", True)
    assert "one bracket missing" in ph.reason or "examples/" in ph.reason
    script, _, _, cwd = command_of(cmd)
    done = _run(tmp_path / "artifact", script, cwd)
    assert done.returncode == 0, done.stderr
    expected = json.loads((tmp_path / "artifact/examples/acme_ble/acme_ble.json").read_text())
    assert json.loads(done.stdout) == expected  # the shipped expected output of that sample


def test_bracketed_and_path_like_placeholders_take_a_sample_of_the_documented_kind(run):
    found = run({"README.md": ("```\npython count.py [path]\npython count.py --input /path/to/your/file.csv\n```\n"),
                 "count.py": "", "samples/README.md": "", "samples/cases/small/visits.csv": "a,b\n1,2\n",
                 "samples/cases/small/visits.txt": "note", "data/out.csv": ""})
    bracketed, pathlike = step(found, "[path]"), step(found, "/path/to/your/file.csv")
    assert [(p.fill, p.resolved) for p in bracketed.placeholders] == [("samples/cases/small/visits.csv", True)]
    assert [(p.fill, p.resolved) for p in pathlike.placeholders] == [("samples/cases/small/visits.csv", True)]


class _Tools:
    """Runs setup scripts in a real folder, as the sandbox would."""

    def __init__(self, root: Path):
        self.root, self.setups = root, []

    def run_setup(self, script, action, purpose, network=True, timeout=None):
        self.setups.append((script, purpose))
        subprocess.run(["bash", "-c", script], cwd=self.root, check=True, timeout=60)


ANALYSER = ('import ast, os, sys\nroot, calls, files = sys.argv[1], 0, 0\n'
            'for folder, _, names in os.walk(root):\n    for name in names:\n'
            '        if name.endswith(".py"):\n            tree = ast.parse(open(os.path.join(folder, name)).read())\n'
            '            files += 1\n            calls += sum(isinstance(n, ast.Call) for n in ast.walk(tree))\n'
            'print(f"{files} files, {calls} calls")\nsys.exit(0 if files else 1)\n')


def test_a_code_repository_placeholder_runs_on_a_project_written_for_the_purpose(run, tmp_path):
    found = run({"README.md": ("## How to use it\n```console\n python main.py  project_folder  number_of_threads\n```\n"
                               "For example,\n```console\n  python main.py  my_code_repo  8\n```\n"
                               " where my_code_repo is a Python project folder.\n"),
                 "main.py": ANALYSER})
    example = step(found, "my_code_repo")
    [ph] = example.placeholders
    assert ph.resolved and ph.fill == ".copilot/inputs/sample_project" and "written for the purpose" in ph.reason
    root = tmp_path / "artifact"
    tools = _Tools(root)
    write_inputs(tools, example)
    assert len(tools.setups) == 1 and "my_code_repo" in tools.setups[0][1]
    assert not (root / "inventory").exists()  # written in the review's own folder, not over the artifact
    script, action, _, cwd = command_of(example)
    assert action.kind == "command_fix"
    done = _run(root, script, cwd)
    assert done.returncode == 0, done.stderr
    files, calls = (int(w) for w in done.stdout.split()[::2])
    assert files >= 4 and calls >= 10


def test_a_placeholder_that_names_no_code_is_not_given_a_project(run):
    found = run({"README.md": "```\npython main.py --out <output_dir> --name my_run_name\n```\n", "main.py": ""})
    assert all(not p.written for p in step(found, "main.py").placeholders)
