"""The documented steps as a graph of commands and the files they read and write (discovery/graph.py,
discovery/stepio.py), steps given as a Markdown table (discovery/steptable.py), and download scripts classified as
downloads whatever heading they sit under."""
from __future__ import annotations

from artifactcopilot.discovery import DirectoryView, discover
from artifactcopilot.discovery.classify import classify
from artifactcopilot.discovery.graph import build_graph, said_about
from artifactcopilot.discovery.stepio import step_io

from .shapes import DATA_URL, table_pipeline


def test_what_a_download_writes_is_read_from_its_command_line():
    cases = {
        f"wget -P data {DATA_URL}": ["data/latency.csv"],
        f"wget -O raw.csv {DATA_URL}": ["raw.csv"],
        f"curl -L --create-dirs -o data/latency.csv {DATA_URL}": ["data/latency.csv"],
        "curl -L -O http://x.example/y/measurements.tar.gz": ["measurements.tar.gz"],
        "git clone http://git.lab.example/lab/queue-data.git measurements": ["measurements"],
        "git clone https://github.com/lab/tool.git": ["tool"],
        "gdown 1AbC -O data.zip": ["data.zip"],
        "kaggle datasets download -d owner/name -p data": ["data"],
        "huggingface-cli download org/model --local-dir models/m": ["models/m"],
        f"cd data && wget {DATA_URL}": ["data/latency.csv"],
    }
    for cmd, writes in cases.items():
        assert step_io(cmd, "download").writes == writes, cmd
    assert step_io(f"wget -P data {DATA_URL}", "download").urls == [DATA_URL]
    assert step_io("kaggle datasets download -d owner/name -p data", "download").urls == [
        "https://www.kaggle.com/datasets/owner/name"]


def test_unpacks_copies_and_scripts_read_and_write_files():
    assert (step_io("tar -xzf m.tar.gz -C data", "data").reads, step_io("tar -xzf m.tar.gz -C data", "data").writes) \
        == (["m.tar.gz"], ["data"])
    unzip = step_io("unzip latency.zip -d data", "data")
    assert (unzip.reads, unzip.writes) == (["latency.zip"], ["data"])
    assert step_io("gunzip data/x.csv.gz", "data").writes == ["data/x.csv"]
    script = 'import pandas as pd\ndf = pd.read_csv("data/in.csv")\ndf.to_csv("results/out.csv")\n'
    run = step_io("python3 analyse.py --output results/table.csv data/extra.csv", "workflow",
                  read=lambda rel: script if rel == "analyse.py" else None)
    assert set(run.reads) == {"analyse.py", "data/extra.csv", "data/in.csv"}
    assert set(run.writes) == {"results/table.csv", "results/out.csv"}


def _steps(tmp_path, readme: str, files: dict[str, str]):
    (tmp_path / "README.md").write_text(readme, encoding="utf-8")
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    return discover(DirectoryView(tmp_path), "").steps


def test_a_missing_input_is_traced_to_the_step_that_makes_it(tmp_path):
    readme = ("# x\n\n## Run\n\n```bash\npython3 analyse.py data/clean.csv\n```\n\n## Data\n\n```bash\n"
              "curl -L -O http://data.lab.example/raw.tar.gz\nmkdir -p raw\ntar -xzf raw.tar.gz -C raw\n"
              "python3 prepare.py raw/measurements.csv --output data/clean.csv\n```\n")
    files = {"analyse.py": "print(1)\n", "prepare.py": "print(2)\n"}
    steps = _steps(tmp_path, readme, files)
    graph = build_graph(steps, [*files, "README.md"], lambda rel: files.get(rel))
    chain = graph.chain("data/clean.csv", {*files, "README.md"})
    assert [n.cmd for n in chain] == ["curl -L -O http://data.lab.example/raw.tar.gz", "tar -xzf raw.tar.gz -C raw",
                                      "python3 prepare.py raw/measurements.csv --output data/clean.csv"]
    fetch = next(n for n in graph.nodes if n.kind == "download")
    assert [n.cmd for n in graph.blocked_by(fetch)] == [
        "python3 analyse.py data/clean.csv", "tar -xzf raw.tar.gz -C raw",
        "python3 prepare.py raw/measurements.csv --output data/clean.csv"]
    assert graph.unproduced() == []


def test_a_download_script_is_read_for_what_it_fetches(tmp_path):
    readme = "# x\n\n## Setup\n\n```bash\nbash download.sh\n```\n\n## Run\n\n```bash\npython3 analyse.py\n```\n"
    files = {"download.sh": f"#!/bin/sh\nmkdir -p data\nwget -q -O data/latency.csv {DATA_URL}\n",
             "analyse.py": 'rows = open("data/latency.csv").read()\n'}
    steps = _steps(tmp_path, readme, files)
    assert [(s.kind, s.cmd) for s in steps] == [("download", "bash download.sh"), ("workflow", "python3 analyse.py")]
    graph = build_graph(steps, [*files, "README.md"], lambda rel: files.get(rel))
    assert graph.nodes[0].urls == [DATA_URL] and "data/latency.csv" in graph.nodes[0].writes
    assert graph.producers("data/latency.csv")[0].cmd == "bash download.sh"


def test_download_scripts_are_downloads_under_any_heading():
    for cmd in ("bash download.sh", "sh scripts/fetch_data.sh", "python3 download_data.py", "./download.sh",
                "python get_data.py", "dvc pull"):
        assert classify(cmd, "Setup") == "download", cmd
        assert classify(cmd, "Data") == "download", cmd
    assert classify("python get_results.py", "Usage") == "workflow"


def test_steps_given_only_as_a_markdown_table_are_commands_in_the_tables_order(tmp_path):
    art = table_pipeline(tmp_path / "case")
    found = discover(DirectoryView(art), "")
    assert [(s.kind, s.cmd, s.origin, s.outputs) for s in found.steps] == [
        ("download", f"wget -P data {DATA_URL}", "table", ["data/latency.csv"]),
        ("workflow", "python3 analyse.py data/latency.csv", "table", [])]
    assert [d.path for d in found.documented_outputs] == ["data/latency.csv"]


def test_a_numbered_step_column_orders_the_table_and_other_tables_hold_no_steps(tmp_path):
    readme = ("# x\n\n| Step | Command | Output |\n|---|---|---|\n| 2 | `python3 b.py` | `out/b.csv` |\n"
              "| 1 | `python3 a.py` | `out/a.csv` |\n\n| Paper object | Output of `python3 a.py` |\n|---|---|\n"
              "| Table 2 | first table |\n")
    steps = _steps(tmp_path, readme, {"a.py": "", "b.py": ""})
    assert [s.cmd for s in steps] == ["python3 a.py", "python3 b.py"]


def test_what_the_documentation_says_of_a_file_no_step_makes():
    docs = [("README.md", "# x\n\nThe measurements (`data/latency.csv`) are available from the authors on request.")]
    assert said_about("data/latency.csv", docs) == (
        "The measurements (`data/latency.csv`) are available from the authors on request.", "README.md")
    assert said_about("data/other.csv", docs) is None
    docs.append(("INSTALL.md", "Please use the ready-to-go [VM image (download)](https://files.lab.example/vm)."))
    assert said_about("scripts/cpu.sh", docs) == (
        "Please use the ready-to-go [VM image (download)](https://files.lab.example/vm).", "INSTALL.md")
