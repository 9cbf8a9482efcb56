"""A binary the documented build makes (make, CMake, a compiler line) is not in the repository; an example that runs
it from another folder (an examples/ README written for the build folder, or the root with the binary in build/)
is run from where the build puts it, with its relative arguments still naming the same files."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from artifactcopilot.agents.heuristic.runsteps import command_of

from .helpers import step

COUNT_C = ('#include <stdio.h>\n#include <string.h>\nint main(int argc, char **argv) {\n'
           '  if (argc < 3 || strcmp(argv[1], "-input") != 0) { fprintf(stderr, "usage: counter -input FILE\\n"); '
           'return 2; }\n  FILE *f = fopen(argv[2], "r");\n  if (!f) { perror(argv[2]); return 1; }\n'
           '  int c, n = 0;\n  while ((c = fgetc(f)) != EOF) n += c == \'\\n\';\n'
           '  printf("lines: %d\\n", n);\n  return 0;\n}\n')
MAKE_TREE = {
    "README.md": "# Counter\n\nBuild with `make` at the root:\n\n```\nmake\n```\n\nSee examples/ for a case study.\n",
    "Makefile": "CC = gcc\nTARGET = counter\n\nall: ${TARGET}\n\n${TARGET}: src/main.c\n\t${CC} -O2 src/main.c "
                "-o ${TARGET}\n\nclean:\n\trm -f ${TARGET}\n\n.PHONY: all clean\n",
    "src/main.c": COUNT_C,
    "examples/README.md": ("# Example\n\nIn the directory where counter resides and examples/ is a sub-directory, "
                           "run:\n\n```\n./counter -input examples/three.txt\n```\n"),
    "examples/three.txt": "a\nb\nc\n",
}


def test_an_example_written_for_the_build_folder_runs_the_binary_make_builds(run, tmp_path):
    found = run(MAKE_TREE)
    example = step(found, "./counter -input")
    assert "./counter is not in the artifact" not in example.notes
    assert any("counter is made by the documented build, `make` (Makefile:" in n for n in example.notes)
    script, action, _, cwd = command_of(example)
    assert (script, cwd, action.kind) == ("./counter -input examples/three.txt", ".", "run")
    assert any("run in ./" in n for n in example.notes)
    if not (shutil.which("make") and shutil.which("gcc")):
        pytest.skip("no make/gcc to build the fixture")
    root = tmp_path / "artifact"
    subprocess.run(["make"], cwd=root, check=True, capture_output=True, timeout=300)
    done = subprocess.run(script, shell=True, cwd=root / cwd, capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stdout.strip()) == (0, "lines: 3"), (script, cwd, done.stderr)


def test_the_root_example_runs_the_binary_cmake_builds_in_build(run):
    found = run({"README.md": ("# Tool\n\n## Build\n\n```\nmkdir build && cd build\ncmake ..\nmake\n```\n\n## Run\n\n"
                               "Then, from the repository root:\n\n```\n./tool -input data/three.txt\n```\n"),
                 "CMakeLists.txt": "cmake_minimum_required(VERSION 3.10)\nproject(tool C)\n"
                                   "add_executable(tool src/main.c)\n",
                 "src/main.c": COUNT_C, "data/three.txt": "a\nb\nc\n"})
    example = step(found, "./tool -input")
    assert any("build/tool is made by the documented build, CMake" in n for n in example.notes)
    script, _, _, cwd = command_of(example)
    assert (script, cwd) == ("build/tool -input data/three.txt", ".")


def test_a_binary_run_where_it_is_built_is_not_reported_missing(run):
    readme = MAKE_TREE["README.md"] + "\n```\n./counter -input examples/three.txt\n```\n"
    found = run({**MAKE_TREE, "README.md": readme})
    at_root = [s for s in found.steps if s.cmd.startswith("./counter") and s.source.startswith("README.md")][0]
    assert at_root.cwd == "." and not any("not in" in n for n in at_root.notes)
    assert command_of(at_root)[1].kind == "run"


def test_a_program_nothing_builds_is_still_reported_missing(run):
    found = run({"README.md": "```\n./solver -input examples/three.txt\n```\n", "examples/three.txt": "x\n",
                 "Makefile": "all:\n\techo nothing\n"})
    assert "./solver is not in the artifact" in step(found, "./solver").notes
