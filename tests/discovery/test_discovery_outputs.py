"""What commands print (expected-output blocks, prompt blocks with output) and what the workflow writes (figure to file
lists, "results will be saved in", "graphs, as pdf files, that correspond to Figure 4-7")."""
from __future__ import annotations

from .helpers import step


def test_expected_output_blocks_follow_their_command(run):
    found = run({"README.md": ("To obtain the family of each sample, run:\n\n"
                               "```shell\nlabeler -f examples/s.json\n```\n\n"
                               "the output on stdout will be:\n\n```\nabc123  zeroaccess\n```\n\n"
                               "Each line of the ground truth file has three columns (hash, family, truth):\n\n"
                               "```\nabc123 adrotator ADROTATOR\n```\n\n"
                               "```shell\nlabeler -f examples/s.json -gt examples/gt.tsv\n```\n\n"
                               "The output includes these lines:\n\n```\nPrecision: 90.81\n```\n"),
                 "pyproject.toml": "[project]\nname='l'\n[project.scripts]\nlabeler='l:main'\n",
                 "examples/s.json": "{}", "examples/gt.tsv": ""})
    first, second = found.steps
    assert [(e.step_order, e.text, e.source) for e in found.expected_outputs] == [
        (first.order, "abc123  zeroaccess", "README.md:10"), (second.order, "Precision: 90.81", "README.md:26")]


def test_prompted_block_output_belongs_to_the_prompted_command(run):
    found = run({"README.md": "# Usage\n\n```\n~ >>> cgtool -h\nusage: cgtool [-h] [--package PACKAGE]\n```\n",
                 "setup.py": "setup(entry_points={'console_scripts': ['cgtool=cg.__main__:main']})\n"})
    assert [(s.cmd, s.kind) for s in found.steps] == [("cgtool -h", "trivial")]
    assert found.expected_outputs[0].text == "usage: cgtool [-h] [--package PACKAGE]"


def test_figure_to_file_list_with_siblings(run):
    found = run({"README.md": ("```\npython3 analyse.py\npython3 ./Plot.py\n```\n\n"
                               "- Wait around three minutes and the paper figures are in:\n"
                               "\t- Figure  2: ./Res/Out/per_year.pdf\n"
                               "\t- Figure  4: ./Res/Out/proj/a.pdf (and b.pdf and c.pdf)\n"
                               "\t- Algorithm 1 -> File: ./Code/extract.py (from line 1 to line 9)\n"),
                 "analyse.py": "", "Plot.py": "", "Res/Out/.keep": "", "Code/extract.py": ""})
    assert [(o.path, o.mentions) for o in found.documented_outputs] == [
        ("Res/Out/per_year.pdf", ["Figure 2"]), ("Res/Out/proj/a.pdf", ["Figure 4"]),
        ("Res/Out/proj/b.pdf", ["Figure 4"]), ("Res/Out/proj/c.pdf", ["Figure 4"])]
    assert step(found, "analyse").duration_hint_s == 180 and step(found, "Plot.py").kind == "plot"


def test_outputs_without_path_and_with_placeholders(run):
    found = run({"README.md": ("## Generating Figures 4-7\n\n"
                               "```\ncd graphs\nfind . -name \"*.gnuplot\" -exec gnuplot {} \\;\n"
                               "```\n\nThis will produce four graphs, as pdf files, that correspond to Figure 4-7.\n\n"
                               "## Runs\n\n```\n$ python sim.py\n```\n\nThe results will be put in an output folder "
                               "`output-<timestamp>-<case>`. Note that the `.csv` files are read by the notebook.\n"),
                 "graphs/a.gnuplot": "", "sim.py": ""})
    gnuplot = step(found, "gnuplot")
    assert (gnuplot.kind, gnuplot.cwd) == ("plot", "graphs")
    assert [(o.path, o.mentions) for o in found.documented_outputs] == [
        ("graphs/*.pdf", ["Figure 4", "Figure 5", "Figure 6", "Figure 7"]), ("output-*-*", [])]
