"""Placeholder arguments: found in documented commands, filled from the docs' own examples or from sample inputs the
artifact ships, and left unfilled (with a reason) when nothing fits."""
from __future__ import annotations

from .helpers import step


def _ph(s):
    return [(p.token, p.fill, p.resolved) for p in s.placeholders]


README = ("## How to use it\n```console\n python main.py  project_folder  number_of_threads\n```\n"
          "For example,\n```console\n  python main.py  my_code_repo  8\n```\n"
          " where my_code_repo is a Python project folder. 8 is the number of threads.\n")


def test_usage_line_filled_from_the_example_that_follows(run):
    """A tool in a language no sample project is written for: the names stay unfilled, with the reason."""
    found = run({"README.md": README.replace("python main.py", "./analyse"), "analyse": "", "src/main.go": ""})
    usage, example = found.steps
    assert _ph(usage) == [("project_folder", "my_code_repo", False), ("number_of_threads", "8", True)]
    assert "itself a placeholder" in usage.placeholders[0].reason
    assert _ph(example) == [("my_code_repo", None, False)]
    assert "no documented example or sample input fits" in example.placeholders[0].reason
    assert not usage.runnable and not example.runnable


def test_a_python_code_analysis_tool_gets_a_project_written_for_the_purpose(run):
    usage, example = run({"README.md": README, "main.py": "import ast\n"}).steps
    assert _ph(example) == [("my_code_repo", ".copilot/inputs/sample_project", True)]
    assert _ph(usage)[0] == ("project_folder", ".copilot/inputs/sample_project", True)
    assert usage.runnable and example.runnable


def test_variables_filled_from_examples_and_sample_trace_relative_to_cwd(run):
    found = run({
        "README.md": ("## How to Run?\n\n```bash\npython3 split.py --traceFile $trace_file_path --scheme $scheme_name "
                      "--scalingFactor $scaling_factor_value\n```\n"
                      "Example: to split `/dir1/dir2/tracefile.txt` with scheme RRR:\n\n```bash\n"
                      "python3 split.py --traceFile /dir1/dir2/tracefile.txt --scheme RRR --scalingFactor 0.9\n```\n\n"
                      "## Trace File Format\n\nA sample trace is provided in _input_ directory.\n"),
        "src/split.py": "", "input/trace_file.txt": "1,2,x\n", "input/other.csv": "",
    })
    usage, example = found.steps
    assert usage.cwd == "src" and "found at src/split.py" in usage.notes[0]
    assert _ph(usage) == [("$trace_file_path", "../input/trace_file.txt", True), ("$scheme_name", "RRR", True),
                          ("$scaling_factor_value", "0.9", True)]
    assert _ph(example) == [("/dir1/dir2/tracefile.txt", "../input/trace_file.txt", True)]
    assert usage.runnable
    assert found.reuse.input_formats[0].title == "Trace File Format"
    assert "input/trace_file.txt" in found.reuse.input_formats[0].examples


def test_angle_brackets_filled_from_same_flag_and_examples_folder(run):
    found = run({"README.md": ("```shell\ntagger -f examples/a_sample.json\n```\n\n"
                               "```shell\ntagger -d <directory>\n```\n"
                               "\n```shell\ntagger -f <file> -d <directory>\n```\n"),
                 "pyproject.toml": "[project]\nname='tagger'\n[project.scripts]\ntagger = 'tagger.cli:main'\n",
                 "tagger/__init__.py": "", "examples/a_sample.json": "{}", "tagger/data/x.txt": ""})
    assert _ph(step(found, "-d <directory>")) == [("<directory>", "examples", True)]
    assert _ph(step(found, "-f <file>")) == [("<file>", "examples/a_sample.json", True),
                                             ("<directory>", "examples", True)]


def test_unfillable_and_non_placeholders(run):
    found = run({"README.md": ("```bash\npython run.py --data PATH_TO_DATA --mode fast\n"
                               "for case in A B; do python run.py --case $case; done\n"
                               "python run.py --out <output dir> --config cfg.yaml\n"
                               "python run.py -o results/new.csv input.csv\n```\n"),
                 "run.py": "", "cfg.yaml": "", "input.csv": ""})
    caps, loop, out, existing = found.steps
    assert _ph(caps) == [("PATH_TO_DATA", None, False)]
    assert loop.placeholders == []
    assert [p.token for p in out.placeholders] == ["<output dir>"]
    assert existing.placeholders == []


def test_bracketed_variadic_arguments_take_the_example_tail(run):
    found = run({"README.md": ("```\n$ python sim/compare.py experiment [algorithms ...]\n```\n"
                               "Where the experiment is a string naming one of the experiments.\n\n"
                               "```\n$ python sim/compare.py GaussA PLAN IOME\n```\n"),
                 "sim/compare.py": ""})
    assert _ph(found.steps[0]) == [("experiment", "GaussA", True), ("[algorithms ...]", "PLAN IOME", True)]
