"""README lines that are not commands: directory trees drawn with `|`, `+---`, `\\---`, `├──`, `└──` (even inside a
block labelled `bash`) are file listings, and a chmod mode (`chmod +x run.sh`) is no placeholder."""
from __future__ import annotations

from artifactcopilot.discovery.codeblocks import TREE_LINE, is_tree_listing

WINDOWS_TREE = ("```bash\nproject\n|   run.sh\n|   main.py\n+---data\n|       input.csv\n\\---scripts\n"
                "        analyze.py\n```\n")
UNICODE_TREE = "```sh\n.\n├── main.py\n├── run.sh\n│   └── helper.sh\n└── scripts/analyze.py\n```\n"
ASCII_TREE = "```shell\n.\n|-- main.py\n|-- run.sh\n`-- scripts\n    `-- analyze.py\n```\n"
RUN = "## Run\n\n```bash\nchmod +x run.sh\n./run.sh data/input.csv\n```\n"
FILES = {"run.sh": "echo hi\n", "main.py": "", "data/input.csv": "a\n", "scripts/analyze.py": ""}


def test_drawn_directory_trees_in_shell_blocks_are_not_commands(run):
    for tree in (WINDOWS_TREE, UNICODE_TREE, ASCII_TREE):
        found = run({"README.md": f"# Tool\n\n## Structure\n\n{tree}\n{RUN}", **FILES})
        assert [s.cmd for s in found.steps] == ["chmod +x run.sh", "./run.sh data/input.csv"], tree


def test_a_tree_drawn_after_commands_in_one_block_leaves_the_commands(run):
    block = "```bash\npython main.py --in data/input.csv\n└── out/table.csv\npython scripts/analyze.py\n```\n"
    found = run({"README.md": f"# Tool\n\n## Usage\n\n{block}", **FILES})
    assert [s.cmd for s in found.steps if s.source.startswith("README")] == [
        "python main.py --in data/input.csv", "python scripts/analyze.py"]


def test_a_chmod_mode_is_not_a_placeholder(run):
    found = run({"README.md": f"# Tool\n\n{RUN}", **FILES})
    chmod = next(s for s in found.steps if s.cmd.startswith("chmod"))
    assert chmod.placeholders == []


def test_a_tree_listing_needs_two_drawn_lines_and_a_markdown_row_is_none():
    for tree in (WINDOWS_TREE, UNICODE_TREE, ASCII_TREE):
        assert is_tree_listing(tree.split("\n", 1)[1].rsplit("```", 1)[0]), tree
    assert not is_tree_listing("python main.py\n└── out/table.csv\npython scripts/analyze.py\n")
    assert not TREE_LINE.match("| a | 1 |") and TREE_LINE.match("|   run.sh")


def test_a_command_alone_on_its_line_in_single_backticks_is_documented(run):
    readme = ("# Tool\n\n## Setup\n\nYou can use the provided `requirements.txt` file:\n\n"
              "`pip3 install -r requirements.txt`\n\n## Running the code\n\nTo run:\n\n"
              "`python3 main.py -i data/input.csv -o out.csv --verbose`\n\n"
              "The output is written to `out.csv`.\n\n`data/input.csv`\n")
    found = run({"README.md": readme, "requirements.txt": "numpy\n", **FILES})
    assert [(s.kind, s.cmd) for s in found.steps if s.source.startswith("README")] == [
        ("install", "pip3 install -r requirements.txt"),
        ("workflow", "python3 main.py -i data/input.csv -o out.csv --verbose")]


def test_a_markdown_table_in_a_code_block_is_not_a_tree(run):
    block = "```bash\npython main.py --in data/input.csv\n```\n\nIt prints:\n\n```\n| a | 1 |\n| b | 2 |\n```\n"
    found = run({"README.md": f"# Tool\n\n## Usage\n\n{block}", **FILES})
    usage = next(s for s in found.steps if s.cmd == "python main.py --in data/input.csv")
    assert any("| a | 1 |" in o.text for o in found.expected_outputs if o.step_order == usage.order), \
        found.expected_outputs
