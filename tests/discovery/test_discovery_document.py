"""One document as discovery reads it: its headings and commands, and the shell lines that run one command block
from the artifact's root (the block's `cd` and exports kept), as the reproduction loop submits them."""
from __future__ import annotations

from artifactcopilot.discovery.document import block_script, doc_of, read_document, steps_in

README = ("# Tool\n\nReproduces Table 2 of the paper.\n\n## Setup\n\n```bash\npip install -r requirements.txt\n```\n\n"
          "## Reproducing Table 2\n\n```bash\ncd experiments\nexport RUNS=3\npython3 run.py --table 2\n"
          "SEED=1 python3 summarize.py out\n```\n\nSee [the details](docs/DETAILS.md).\n")
DETAILS = "# Details\n\n## Figures\n\n```bash\npython3 plot.py\n```\n"
FILES = {"README.md": README, "docs/DETAILS.md": DETAILS, "requirements.txt": "numpy\n",
         "experiments/run.py": "", "experiments/summarize.py": "", "plot.py": ""}


def test_a_block_runs_from_the_root_with_its_cd_and_exports(run):
    found = run(FILES)
    table = [s for s in found.steps if s.section == "Reproducing Table 2" and s.kind == "workflow"]
    assert [s.cwd for s in table] == ["experiments", "experiments"] and "Table 2" in table[0].mentions
    assert block_script(table) == ("cd experiments\nexport RUNS=3\npython3 run.py --table 2\n"
                                   "SEED=1 python3 summarize.py out")


def test_a_document_reports_its_own_headings_and_commands(run):
    found = run(FILES)
    readme, details = read_document(found, "README.md"), read_document(found, "./docs/DETAILS.md")
    assert [s.title for s in readme.sections] == ["Tool", "Setup", "Reproducing Table 2"]
    assert [c.cmd for c in readme.commands] == [s.cmd for s in steps_in(found, "README.md")] == [
        "pip install -r requirements.txt", "export RUNS=3", "python3 run.py --table 2",
        "SEED=1 python3 summarize.py out"]
    assert [s.title for s in details.sections] == ["Details", "Figures"]
    assert [c.cmd for c in details.commands] == ["python3 plot.py"] and details.path == "docs/DETAILS.md"
    assert readme.paper_refs == details.paper_refs == found.paper_refs and readme.documents == details.documents


def test_sources_name_their_document():
    assert doc_of("README.md:12") == "README.md" and doc_of("paper:Artifact Appendix:3") == "paper:Artifact Appendix"
    assert doc_of("Makefile") == "Makefile"
