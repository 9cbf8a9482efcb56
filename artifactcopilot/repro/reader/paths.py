"""What a path or a program name says about its role in a reproduction, as an AE reviewer reads it.

A path is classified by its suffix and the words of its folders and name (`results_grouped/`,
`TRACE-results/`, `summary_results.txt`, `train.log` are stored results; `data/`, `patts/x.txt.gz`
are inputs). A program is classified by the words of its name: `run_pmsat_on_traces.py` runs an
experiment, `parse_all_results.py` and `PlotResultsAndComputeStats.py` aggregate stored results,
`show_results.py` displays them.
"""
from __future__ import annotations

import posixpath
import re
from typing import Literal

PathKind = Literal["results", "data", "code", "paper", "notebook", "doc", "archive", "model", "config", "device",
                   "unknown"]
Role = Literal["experiment", "aggregate", "display", "unknown"]

CODE = (".py", ".r", ".sh", ".bash", ".jl", ".java", ".class", ".jar", ".so", ".pyc", ".js", ".ts", ".c", ".cc", ".cpp",
        ".h", ".hpp", ".rs", ".go", ".scala", ".sc", ".ml", ".m", ".pl", ".rb", ".lua", ".do", ".sbt", ".gradle",
        ".mk", ".cmake", ".exe", ".bin", ".o", ".a", ".lock", ".toml", ".cfg", ".ini", ".rmd", ".qmd")
BINARY_RESULTS = (".pkl", ".pickle", ".npy", ".npz", ".parquet", ".h5", ".hdf5", ".hdf", ".feather", ".arrow", ".xlsx",
                  ".xls", ".db", ".sqlite", ".sqlite3", ".rds", ".rdata", ".rda", ".mat", ".joblib", ".dta", ".sav")
ARCHIVES = (".zip", ".tar", ".tar.gz", ".tgz", ".gz", ".bz2", ".xz", ".tar.xz", ".tar.bz2", ".7z", ".zst", ".rar")
MODELS = (".pt", ".pth", ".ckpt", ".safetensors", ".onnx", ".pb", ".tflite", ".keras", ".weights")
CONFIGS = (".yaml", ".yml", ".conf", ".properties", ".env")
KNOWN_SUFFIXES = (".csv", ".tsv", ".txt", ".json", ".jsonl", ".log", ".out", ".md", ".pdf", ".tex", ".dat", ".yaml",
                  ".yml", ".xml", ".html", ".png", ".svg", ".ipynb", ".py", ".r", ".sh", ".jl", ".gz", ".zip", ".tar",
                  ".tgz", ".bz2", ".xz", ".7z", ".mat", ".rds", ".rdata", ".bin", ".pt", ".pth", ".ckpt", ".jar",
                  ".java", ".c", ".cpp", ".rs", ".go", ".scala", ".ml", ".js", ".ts", ".toml", ".cfg", ".ini", ".res",
                  ".err", ".eps", ".pgf", ".jpg", ".jpeg", ".gif", ".db", ".rda", ".dta", ".sav", ".arrow", ".conf",
                  ".properties", ".gnuplot", ".gp", ".plt", ".mk", ".rmd", ".qmd", ".nc", ".fasta", ".vcf", ".bam",
                  ".sql", ".trace", ".pcap", ".tab", ".stats", ".exe", ".so") + BINARY_RESULTS
RESULT_SUFFIXES = (".log", ".out", ".err", ".stdout", ".res")

RESULT_WORDS = {"result", "results", "res", "output", "outputs", "out", "log", "logs", "raw", "runs", "measurement",
                "measurements", "summary", "summaries", "table", "tables", "tab", "stats", "statistics", "report",
                "reports", "eval", "evaluation", "evaluations", "score", "scores", "metric", "metrics", "prediction",
                "predictions", "preds", "generated", "records", "trials", "trial", "perf", "performance", "timings",
                "benchmarkresults", "final", "aggregated", "grouped", "processed", "plots", "figures", "fig", "figs",
                "accuracy", "accuracies", "findings", "answers", "responses", "history", "histories", "analysis"}
DATA_WORDS = {"data", "dataset", "datasets", "input", "inputs", "corpus", "corpora", "samples", "examples", "resources",
              "assets", "fixtures", "benchmark", "benchmarks", "subjects", "programs", "traces", "patts", "configs",
              "config", "params", "seeds", "queries", "src", "lib"}
DOC_WORDS = {"readme", "docs", "doc", "documentation", "install", "usage", "changelog", "artifact", "appendix",
             "expected", "reproduce", "reproducing"}
PAPER_NAMES = re.compile(r"(^|[-_/])(paper|main|manuscript|preprint|article|camera[-_]?ready|submission|"
                         r"full[-_]?version|extended)([-_.]|$)", re.IGNORECASE)

EXPERIMENT_WORDS = {"run", "runs", "train", "training", "bench", "benchmark", "benchmarks", "experiment", "experiments",
                    "exp", "exps", "simulate", "simulation", "simulations", "sim", "fuzz", "fuzzing", "attack",
                    "attacks", "solve", "solver", "infer", "inference", "main", "campaign", "measure", "evaluate",
                    "eval", "learn", "fit", "optimize", "optimise", "search", "collect", "mine", "mining", "crawl",
                    "launch", "driver", "execute", "guess", "generate", "synthesize", "replay", "profile", "test",
                    "tests", "app", "server", "client", "tool", "cli", "detect", "scan", "check", "verify", "predict",
                    "compile", "build", "statistics", "statistical", "regression", "regressions"}
# `FuncConstructs-Statistics.r` fits the study's statistical models (an empirical study's experiment, Artisan Fig. 10);
# `PlotResultsAndComputeStats.py` still aggregates: its other words say so.
AGGREGATE_WORDS = {"parse", "parser", "summary", "summarize", "summarise", "summaries", "aggregate", "aggregation",
                   "agg", "plot", "plots", "plotting", "draw", "figure", "figures", "fig", "table", "tables", "tab",
                   "report", "stats", "visualize", "visualise", "visualization", "chart",
                   "charts", "graph", "graphs", "tabulate", "latex", "postprocess", "analyze", "analyse", "analysis",
                   "analyses", "compare", "comparison", "results", "result", "process", "preprocess", "collate",
                   "merge", "combine"}
DISPLAY_WORDS = {"show", "print", "display", "view", "dump", "cat", "echo", "expected", "paper", "copy", "fetch",
                 "download", "get"}
# `get` with what it gets: results gathered from the runs' outputs (not a download: `fetch`, `download` stay display).
GATHER_WORDS = {"get", "gather", "collect", "extract", "harvest"}
GATHERED_WORDS = {"results", "result", "stats", "statistics", "metrics", "numbers", "counts", "measurements"}
_GENERIC = {"run", "main", "all", "go", "start", "script", "exec", "execute", "do", "it", "me", "everything", "repro",
            "reproduce", "reproduction", "artifact", "entrypoint", "entry", "launch", "driver", "cli", "app", "the"}
_NEUTRAL = {"main", "results", "result", "table", "tables", "tab", "paper"}
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def words(name: str) -> list[str]:
    """Lower-case words of a name: `PlotResultsAndComputeStats.py` -> plot, results, and, compute, stats, py."""
    return [w.lower() for w in _CAMEL.findall(name)]


def suffix(path: str) -> str:
    name = posixpath.basename(path.rstrip("/")).lower()
    for double in (".tar.gz", ".tar.xz", ".tar.bz2"):
        if name.endswith(double):
            return double
    return posixpath.splitext(name)[1]


def inner_suffix(path: str) -> str:
    """The suffix under a compression suffix: `x.csv.gz` -> .csv."""
    name = posixpath.basename(path.rstrip("/")).lower()
    if suffix(name) in (".gz", ".bz2", ".xz", ".zst"):
        return posixpath.splitext(posixpath.splitext(name)[0])[1]
    return ""


def is_pathlike(token: str) -> bool:
    """A word that names a file or folder (has a slash or a file suffix), not an option, URL or number."""
    if not token or token.startswith("-") or "://" in token or len(token) > 300 or "\n" in token:
        return False
    if re.fullmatch(r"[-+]?\d[\d.eE+-]*%?", token) or token in (".", "..", "/", "-"):
        return False
    if "/" in token:
        return not re.search(r"[\s=<>|;&]", token) or token.startswith("/")
    m = re.fullmatch(r"[\w.@+*?\[\]{},-]+?((?:\.[A-Za-z0-9]{1,8}){1,2})", token)
    return m is not None and any(m.group(1).lower().endswith(ext) for ext in KNOWN_SUFFIXES)  # not eval.Main, pkg.mod


def path_kind(path: str) -> PathKind:
    """What a path holds, read from its suffix and words."""
    p = path.strip().rstrip("/")
    if p in ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "-") or p.startswith(("/dev/fd/", "/proc/")):
        return "device"
    low = p.lower()
    suf = suffix(low)
    name = posixpath.basename(low)
    dirs = [w for seg in low.split("/")[:-1] for w in words(seg)]
    name_words = words(posixpath.splitext(posixpath.basename(p))[0])
    results = bool(RESULT_WORDS & (set(dirs) | set(name_words))) or suf in RESULT_SUFFIXES
    if (suf in CODE and suf not in (".toml", ".cfg", ".ini", ".lock")
            or name in ("makefile", "gnumakefile", "dockerfile", "snakefile", "justfile")):
        return "code"
    if suf == ".ipynb":
        return "notebook"
    if suf == ".pdf":
        if PAPER_NAMES.search(name):
            return "paper"
        if results:
            return "results"
        return "data" if {"data", "dataset", "datasets", "corpus", "corpora", "samples", "inputs", "pdfs"} & set(dirs) \
            else "paper"
    if suf in (".tex", ".bbl", ".bib"):
        return "results" if results else "paper"
    if suf in ARCHIVES:
        return "archive"
    if suf in MODELS or {"checkpoints", "checkpoint", "ckpt", "weights", "models", "pretrained"} & set(dirs):
        return "model" if not results else "results"
    if suf in (".md", ".rst", ".html", ".htm") or (not suf and name.upper().startswith(("README", "INSTALL"))):
        if results and not {"readme", "docs", "doc"} & (set(dirs) | set(name_words)):
            return "results"
        return "doc" if (DOC_WORDS & (set(dirs) | set(name_words))) or suf in (".md", ".rst") else "unknown"
    if suf in CONFIGS or suf in (".toml", ".cfg", ".ini") or (
            suf == ".json" and {"config", "configs", "settings", "params"} & (set(dirs) | set(name_words))):
        return "config"
    if results:
        return "results"
    if DATA_WORDS & (set(dirs) | set(name_words)) or suf in (".csv", ".tsv", ".txt", ".json", ".jsonl", ".xml", ".dat"):
        return "data"
    if suf in BINARY_RESULTS:
        return "data"
    return "unknown" if not suf else "data"


def holds_results(path: str) -> bool:
    """Stored results a copy or a last-mile step can take numbers from (files, notebooks' outputs, results archives)."""
    kind = path_kind(path)
    if kind == "archive":
        stem = posixpath.basename(path.lower())
        return bool(RESULT_WORDS & set(words(stem))) or path_kind(posixpath.dirname(path) + "/x.csv") == "results"
    return kind in ("results", "notebook")


def role_of(program: str) -> Role:
    """What a program's name says it does: run an experiment, aggregate stored results, or display them. A name
    that says nothing (`RQ2.ipynb`, `step3.py`) takes the word of its folder (`analysis/`, `experiments/`)."""
    role = _role_of_name(program)
    if role != "unknown" or "/" not in program.strip("/"):
        return role
    base = posixpath.basename(program.rstrip("/"))
    stem = re.sub(r"\.(py|r|sh|bash|jl|pl|rb|js|jar|exe|ipynb|m|rmd|qmd)$", "", base, flags=re.IGNORECASE)
    if set(words(stem)) - {"py", "sh"} <= _GENERIC:
        return role  # run.sh, main.py: the entry point of whatever the folder holds
    folder = posixpath.basename(posixpath.dirname(program.rstrip("/")))
    ws = set(words(folder))
    return "aggregate" if ws & FOLDER_AGGREGATE else "experiment" if ws & FOLDER_EXPERIMENT else "unknown"


# Folders whose programs aggregate stored results, or run the experiment (a tie-breaker for names saying nothing).
FOLDER_AGGREGATE = {"analysis", "analyses", "analyze", "analyse", "plots", "plotting", "figures", "tables", "stats",
                    "statistics", "postprocessing", "postprocess", "reporting", "summaries", "summary"}
FOLDER_EXPERIMENT = {"experiments", "experiment", "benchmarks", "training", "simulation", "simulations", "fuzzing",
                     "campaigns"}


def _role_of_name(program: str) -> Role:
    base = posixpath.basename(program.rstrip("/"))
    stem = re.sub(r"\.(py|r|sh|bash|jl|pl|rb|js|jar|exe|ipynb|m)$", "", base, flags=re.IGNORECASE)
    ws = set(words(stem)) - {"py", "sh"}
    if ws <= _GENERIC:  # run.sh, main.py, run_all.sh: names that say nothing about what runs
        return "unknown"
    if ws & GATHER_WORDS and ws & GATHERED_WORDS:  # get_main_results.sh gathers the runs' outputs into the numbers
        return "aggregate"
    if ws & DISPLAY_WORDS and not ws & ((EXPERIMENT_WORDS | AGGREGATE_WORDS) - _NEUTRAL):
        return "display"
    if ws & AGGREGATE_WORDS:
        return "aggregate"
    if ws & EXPERIMENT_WORDS:
        return "experiment"
    return "unknown"


def normalize(path: str, cwd: str = "") -> str:
    """`path` relative to the script's starting folder (absolute paths stay absolute)."""
    path = path.strip().strip("'\"")
    if not path:
        return path
    if path.startswith("~"):
        return path
    if not path.startswith("/") and cwd:
        path = posixpath.join(cwd, path)
    norm = posixpath.normpath(path)
    return "" if norm == "." else norm


def under(path: str, folder: str) -> bool:
    """True when `path` is `folder` or inside it (relative paths compared as written, absolute by suffix)."""
    if not folder or folder == ".":
        return True
    path, folder = path.rstrip("/"), folder.rstrip("/")
    return path == folder or path.startswith(folder + "/")


def same_file(a: str, b: str) -> bool:
    """Two spellings of one path: equal, or one absolute path (inside a container) ending with the other."""
    a, b = a.rstrip("/"), b.rstrip("/")
    if a == b:
        return True
    if a.startswith("/") != b.startswith("/"):
        abs_, rel = (a, b) if a.startswith("/") else (b, a)
        return bool(rel) and not rel.startswith("..") and abs_.endswith("/" + rel)
    return False
