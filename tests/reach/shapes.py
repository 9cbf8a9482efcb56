"""Small artifacts whose data or code lives elsewhere, in the shapes real artifacts have, written into a test's
tmp_path; the made-up hosts they name are answered by the stand-in web (standin.py).

Each artifact computes the paper's Table 1 (median and maximum latency per message queue) from measurements it does
not ship: fetched by a documented `wget`/`curl` under any heading, by a download script, by the script itself at
run time, cloned from a data repository, held in a git submodule, or the analysis code itself in another repository.
"""
from __future__ import annotations

from pathlib import Path

from .standin import StandIn, bare_repository, tarball

DATA_HOST = "data.lab.example"
GIT_HOST = "git.lab.example"
GONE_HOST = "data.gone.example"
DATA_URL = f"http://{DATA_HOST}/queue/latency.csv"
REPO_URL = f"http://{GIT_HOST}/lab/queue-data.git"

PAPER = """# Latency of Message Queues Under Load

*Anonymous authors*

## Abstract

We measure the delivery latency of three message queues (kafka, rabbit, zmq) under load and report the median
and the maximum per-message latency of each.

## 1 Method

Each queue delivers a fixed stream of messages; we record the latency of every message in milliseconds.

## 2 Results

Table 1: Message latency per queue (ms)

| Queue | Median | Max |
|---|---|---|
| kafka | 4.20 | 9.90 |
| rabbit | 2.50 | 7.25 |
| zmq | 1.30 | 2.60 |

zmq has the lowest median latency (1.30 ms) and kafka the highest maximum (9.90 ms).

## 3 Artifact

The measurements are archived separately; the analysis script recomputes Table 1 from them.
"""

MEASUREMENTS = "queue,ms\n" + "".join(f"{q},{v}\n" for q, vals in
                                       {"kafka": (3.1, 4.2, 9.9), "rabbit": (2.0, 2.5, 7.25),
                                        "zmq": (1.1, 1.3, 2.6)}.items() for v in vals)

ANALYSE = '''import csv, statistics, sys
path = sys.argv[1] if len(sys.argv) > 1 else "data/latency.csv"
rows = list(csv.DictReader(open(path)))
print("Table 1: Message latency per queue (ms)")
print("| Queue | Median | Max |")
print("|---|---|---|")
for q in sorted({r["queue"] for r in rows}):
    vals = [float(r["ms"]) for r in rows if r["queue"] == q]
    print(f"| {q} | {statistics.median(vals):.2f} | {max(vals):.2f} |")
'''

FETCHING = f'''import os, urllib.request
os.makedirs("data", exist_ok=True)
if not os.path.exists("data/latency.csv"):
    print("downloading the measurements from {DATA_URL}")
    urllib.request.urlretrieve("{DATA_URL}", "data/latency.csv")
'''


def serve(web: StandIn, work: Path) -> None:
    """What the made-up hosts answer: the measurements as a file and as an archive, and a data repository."""
    web.file(DATA_URL, MEASUREMENTS)
    web.file(f"http://{DATA_HOST}/queue/measurements.tar.gz", tarball({"latency.csv": MEASUREMENTS}, "measurements"))
    web.file(f"http://{DATA_HOST}/queue/private.csv", "login required\n", status=401)
    bare, _ = bare_repository(work, {"latency.csv": MEASUREMENTS, "README.md": "Queue latency measurements.\n"},
                              "queue-data")
    web.folder(REPO_URL, bare)


def _write(root: Path, readme: str, files: dict[str, str]) -> Path:
    art = root / "artifact"
    art.mkdir(parents=True)
    (art / "README.md").write_text(readme, encoding="utf-8")
    for rel, text in files.items():
        (art / rel).parent.mkdir(parents=True, exist_ok=True)
        (art / rel).write_text(text, encoding="utf-8")
    (root / "paper.md").write_text(PAPER, encoding="utf-8")
    return art


INTRO = "# queue-latency\n\nAnalysis of our message-queue latency study: `analyse.py` prints Table 1 of the paper.\n\n"
REPRODUCE = "## Reproducing Table 1\n\n```bash\npython3 analyse.py\n```\n"


def documented_download(root: Path, tool: str = "wget", heading: str = "Data", url: str = DATA_URL) -> Path:
    """`wget`/`curl` of the raw data under a heading of any name, then the analysis that prints Table 1."""
    fetch = {"wget": f"wget -P data {url}", "curl": f"curl -L --create-dirs -o data/latency.csv {url}"}[tool]
    readme = (INTRO + f"## {heading}\n\nThe raw measurements are archived on our data server:\n\n```bash\n{fetch}\n"
              "```\n\n" + REPRODUCE)
    return _write(root, readme, {"analyse.py": ANALYSE})


def documented_archive(root: Path) -> Path:
    """A documented download of an archive the documentation says to unpack."""
    readme = (INTRO + "## Data\n\nDownload the measurements and unpack them into `data/`:\n\n```bash\n"
              f"curl -L -O http://{DATA_HOST}/queue/measurements.tar.gz\nmkdir -p data\n"
              "tar -xzf measurements.tar.gz -C data --strip-components=1\n```\n\n" + REPRODUCE)
    return _write(root, readme, {"analyse.py": ANALYSE})


def download_script(root: Path) -> Path:
    readme = INTRO + "## Getting the data\n\n```bash\nbash download.sh\n```\n\n" + REPRODUCE
    script = f"#!/bin/sh\nset -e\nmkdir -p data\nwget -q -O data/latency.csv {DATA_URL}\necho fetched\n"
    return _write(root, readme, {"analyse.py": ANALYSE, "download.sh": script})


def runtime_download(root: Path) -> Path:
    """The script downloads its input on first use (urllib.request.urlretrieve)."""
    readme = INTRO + "The script downloads the measurements on its first run.\n\n" + REPRODUCE
    return _write(root, readme, {"analyse.py": FETCHING + ANALYSE})


def documented_clone(root: Path) -> Path:
    """`git clone` of a data repository into a folder, then the analysis on a file in it."""
    readme = (INTRO + "## Data\n\nThe measurements live in their own repository:\n\n```bash\n"
              f"git clone {REPO_URL} measurements\n```\n\n## Reproducing Table 1\n\n```bash\n"
              "python3 analyse.py measurements/latency.csv\n```\n")
    return _write(root, readme, {"analyse.py": ANALYSE})


def submodule(root: Path) -> Path:
    """The measurements are a git submodule (`.gitmodules`); the copy holds only its empty folder."""
    readme = (INTRO + "The measurements are the `measurements` submodule.\n\n## Reproducing Table 1\n\n```bash\n"
              "python3 analyse.py measurements/latency.csv\n```\n")
    gitmodules = f'[submodule "measurements"]\n\tpath = measurements\n\turl = {REPO_URL}\n'
    art = _write(root, readme, {"analyse.py": ANALYSE, ".gitmodules": gitmodules})
    (art / "measurements").mkdir()
    return art


TOOL_README = """# queue-tool

The analysis code of the queue-latency study.
"""


def linked_code(root: Path, web: StandIn, owner: str = "lab", repo: str = "queue-tool") -> Path:
    """The repository holds the measurements; the README says the analysis code is in another repository (on GitHub,
    answered by the stand-in's GitHub API)."""
    sha = "0123456789abcdef0123456789abcdef01234567"
    web.api[f"/repos/{owner}/{repo}"] = _json({"default_branch": "main"})
    web.api[f"/repos/{owner}/{repo}/commits/main"] = _json({"sha": sha})
    web.api[f"/repos/{owner}/{repo}/tarball/{sha}"] = _bytes(
        tarball({"analyse.py": ANALYSE, "README.md": TOOL_README}, f"{owner}-{repo}-{sha[:7]}"))
    readme = (INTRO.replace("`analyse.py` prints", "the analysis prints")
              + f"This repository holds the measurements (`data/latency.csv`). The analysis code is available at "
              f"https://github.com/{owner}/{repo}; place it in `tool/`.\n\n## Reproducing Table 1\n\n```bash\n"
              "python3 tool/analyse.py data/latency.csv\n```\n")
    return _write(root, readme, {"data/latency.csv": MEASUREMENTS})


def _json(value) -> object:
    import json

    from .standin import Answer

    return Answer(200, json.dumps(value).encode(), {"Content-Type": "application/json"})


def _bytes(data: bytes) -> object:
    from .standin import Answer

    return Answer(200, data, {"Content-Type": "application/x-gzip"})


def table_pipeline(root: Path) -> Path:
    """The steps documented only as a Markdown table, the download among them."""
    readme = (INTRO + "## Pipeline\n\n| Step | Command | Output |\n|---|---|---|\n"
              f"| 1 | `wget -P data {DATA_URL}` | `data/latency.csv` |\n"
              "| 2 | `python3 analyse.py data/latency.csv` | Table 1 on the console |\n")
    return _write(root, readme, {"analyse.py": ANALYSE})


def unreachable(root: Path) -> Path:
    """The documented download names a host that cannot be reached."""
    return documented_download(root, url=f"http://{GONE_HOST}/queue/latency.csv")


def undocumented_source(root: Path) -> Path:
    """The data comes from the authors on request: no documented step makes it."""
    readme = (INTRO + "## Data\n\nThe measurements (`data/latency.csv`) are available from the authors on request; "
              "they are not part of this repository.\n\n" + REPRODUCE)
    return _write(root, readme, {"analyse.py": ANALYSE})
