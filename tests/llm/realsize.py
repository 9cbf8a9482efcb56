"""A real-sized artifact and paper, written for the window tests: a 30 kB README (install, data, one command per
experiment with its expected output, structure, troubleshooting), about 150 files, and a 60 kB paper with six
result tables. Real artifacts are this large; the bundled example is a few kilobytes.

The text is generated from a fixed seed out of varied technical sentences, so a tokenizer counts it as it counts
prose and code, not as one repeated word.
"""
from __future__ import annotations

import random
from pathlib import Path

SUBJECTS = ["the sampler", "our pipeline", "the baseline", "each worker", "the cache layer", "the training loop",
            "the evaluation harness", "the tokenizer", "the scheduler", "the index", "the parser", "the model"]
VERBS = ["reduces", "increases", "stabilises", "measures", "records", "partitions", "aggregates", "filters",
         "rescales", "validates", "compresses", "replays"]
OBJECTS = ["tail latency under bursty load", "the false positive rate on held-out traces", "memory per request",
           "throughput across twelve shards", "the variance of repeated runs", "cold-start time on commodity hosts",
           "the number of retained samples", "precision at the top ten ranks", "the recall of rare classes",
           "disk reads per query", "energy per inference", "the size of the serialized index"]
TAILS = ["compared with the configuration of the earlier release.", "when the warm-up phase is skipped.",
         "as Section 5 discusses in detail.", "on every data set except the smallest one.",
         "which matches what operators reported in the survey.", "although the effect shrinks beyond 64 threads.",
         "for inputs larger than two gigabytes.", "with the default seed and no manual tuning."]
SYSTEMS = ["Falcon", "Heron", "Kestrel", "Osprey", "Merlin", "Harrier"]
DATASETS = ["CAIDA-2019", "MAWI-week", "UNSW-NB15", "CIC-IDS17", "Enron-mail", "SNAP-wiki"]


def _sentence(rng: random.Random) -> str:
    return (f"{rng.choice(SUBJECTS).capitalize()} {rng.choice(VERBS)} {rng.choice(OBJECTS)} by "
            f"{rng.uniform(1, 40):.1f}% {rng.choice(TAILS)}")


def _paragraph(rng: random.Random, n: int = 5) -> str:
    return " ".join(_sentence(rng) for _ in range(n))


def _table(rng: random.Random, number: int) -> tuple[str, list[list[str]]]:
    header = ["Data set", *SYSTEMS[: 4 + number % 2]]
    rows = [[d, *(f"{rng.uniform(10, 99):.2f}" for _ in header[1:])] for d in DATASETS]
    lines = [f"Table {number}: {rng.choice(OBJECTS).capitalize()} per data set and system", "",
             "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines), rows


def paper_text(seed: int = 29) -> str:
    """About 60 kB: abstract, eight sections, six result tables."""
    rng = random.Random(seed)
    parts = ["# Kestrel: Load-Aware Sampling for Streaming Telemetry at Scale", "", "## Abstract", "",
             _paragraph(rng, 6), ""]
    titles = ["Introduction", "Background", "Design", "Implementation", "Evaluation", "Discussion", "Related work",
              "Conclusion"]
    table = 1
    for number, title in enumerate(titles, 1):
        parts += [f"## {number} {title}", ""]
        for _ in range(9 if title != "Evaluation" else 6):
            parts += [_paragraph(rng, 7), ""]
        if title == "Evaluation":
            for _ in range(6):
                text, _rows = _table(rng, table)
                parts += [f"Table {table} reports {rng.choice(OBJECTS)}. {_paragraph(rng, 3)}", "", text, "",
                          _paragraph(rng, 5), ""]
                table += 1
    parts += ["## Artifact", "", "The artifact is at https://example.org/kestrel (a snapshot for review).", ""]
    return "\n".join(parts)


def readme_text(seed: int = 7) -> str:
    """About 30 kB: what a thorough artifact README holds."""
    rng = random.Random(seed)
    parts = ["# Kestrel artifact", "", _paragraph(rng, 5), "", "## Requirements", "",
             "- Python 3.10 or newer, 16 GB of memory, 20 GB of disk; no GPU is needed.",
             "- The Python packages in `requirements.txt` (numpy, pandas, scipy, pyyaml, tqdm).", "",
             "## Installation", "", "```bash", "python3 -m venv .venv", ". .venv/bin/activate",
             "pip install -r requirements.txt", "pip install -e .", "```", "", _paragraph(rng, 4), "",
             "## Data", "", _paragraph(rng, 5), ""]
    for d in DATASETS:
        parts += [f"- `data/{d.lower()}.csv`: {_sentence(rng)}"]
    parts += ["", "## Reproducing the paper", ""]
    for n in range(1, 7):
        parts += [f"### Table {n}", "", _paragraph(rng, 4), "", "```bash",
                  f"python3 scripts/run_experiment.py --config configs/table{n}.yaml --out results/table{n}.csv",
                  "```", "", "Expected output (the first rows):", "", "```"]
        parts += [f"{d},{','.join(f'{rng.uniform(10, 99):.2f}' for _ in range(4))}" for d in DATASETS]
        parts += ["```", "", _paragraph(rng, 3), ""]
    parts += ["## Quick check", "", "```bash", "python3 scripts/smoke.py", "```", "", _paragraph(rng, 3), "",
              "## Using Kestrel on your own data", "", _paragraph(rng, 6), "", "```bash",
              "python3 scripts/run_experiment.py --config configs/custom.yaml --input my_trace.csv", "```", "",
              "## Repository structure", "", "```"]
    parts += [f"{path:<40} {_sentence(rng)[:60]}" for path in file_names()[:80]]
    parts += ["```", "", "## Troubleshooting", ""]
    for _ in range(12):
        parts += [f"**{_sentence(rng)[:70]}?** {_paragraph(rng, 2)}", ""]
    parts += ["## Citation", "", "```bibtex", "@inproceedings{kestrel,", "  title = {Kestrel: Load-Aware Sampling},",
              "  year = {2024}", "}", "```", ""]
    text = "\n".join(parts)
    while len(text) < 30_000:
        text += "\n" + _paragraph(rng, 6) + "\n"
    return text


def file_names() -> list[str]:
    names = ["requirements.txt", "setup.py", "LICENSE", "scripts/run_experiment.py", "scripts/smoke.py",
             "scripts/long_log.py", "configs/custom.yaml"]
    names += [f"configs/table{n}.yaml" for n in range(1, 7)]
    names += [f"kestrel/{m}.py" for m in ("sampler", "pipeline", "cache", "index", "parser", "scheduler", "io",
                                          "metrics", "plots", "cli", "__init__")]
    names += [f"data/{d.lower()}.csv" for d in DATASETS]
    names += [f"tests/test_{m}.py" for m in ("sampler", "pipeline", "cache", "index", "parser")]
    names += [f"notes/run-{i:03d}.md" for i in range(120)]
    return names


def write_artifact(root: Path) -> tuple[Path, Path]:
    """The artifact folder and the paper under `root`; returns (paper, artifact)."""
    artifact = root / "artifact"
    for name in file_names():
        path = artifact / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {name}\n")
    (artifact / "README.md").write_text(readme_text())
    (artifact / "requirements.txt").write_text("numpy==1.26.4\npandas==2.2.2\nscipy==1.13.1\npyyaml==6.0.1\n")
    (artifact / "scripts" / "smoke.py").write_text("print('kestrel smoke test: ok')\n")
    # a command whose output is far larger than any window: 60 kB of log lines
    (artifact / "scripts" / "long_log.py").write_text(
        "for i in range(1500):\n    print(f'step {i:05d}: sampled {i * 7 % 1000} of 1000 records, "
        "queue depth {i % 17}')\n")
    paper = root / "paper.md"
    paper.write_text(paper_text())
    return paper, artifact
