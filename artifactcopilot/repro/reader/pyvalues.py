"""Values of the Python reader: where each value's numbers come from, and the library calls it knows.

A value carries origins: files it was loaded from, numbers written in the code, computations
(artifact functions, simulation loops, random draws, model training), the paper, earlier commands.
Reformatting (round, to_markdown, rename) keeps origins as they are; aggregation (mean, groupby,
arithmetic) marks them derived.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import NamedTuple


class Orig(NamedTuple):
    """One origin of a value."""

    kind: str
    """file | literal | text | compute | paper | step"""
    ref: str
    derived: bool = False
    how: str = ""
    ops: frozenset = frozenset()
    """The operations that derived values from it (`mean`, `groupby`, `arithmetic`, `round`)."""


MAX_ORIGINS = 300


@dataclass(frozen=True)
class Val:
    """What the reader knows about one Python value."""

    origins: frozenset = frozenset()
    path: str | None = None
    """The path the value names, when it is a path-like string ('?' for an unknown part)."""
    qual: str | None = None
    """Qualified name when the value is a module, class or function (`pandas.read_csv`)."""
    write: str | None = None
    """For a file opened for writing: its path."""
    local: str | None = None
    """For a function or class defined in the script: its name."""
    namespace: bool = False
    """The result of argparse's parse_args()."""

    def derive(self, how: str = "") -> Val:
        return Val(frozenset(o._replace(derived=True, how=o.how or how, ops=o.ops | {how} if how else o.ops)
                             if o.kind != "compute" else o
                             for o in self.origins))


EMPTY = Val()


def union(*vals: Val) -> Val:
    origins: set = set()
    for v in vals:
        if v is not None:
            origins |= v.origins
            if len(origins) > MAX_ORIGINS:
                break
    return Val(frozenset(list(origins)[:MAX_ORIGINS]))


STDLIB = set(getattr(sys, "stdlib_module_names", ())) | {"__future__"}
# Third-party packages that display, load or aggregate data; anything else imported is the artifact's own code
# or a computing library.
DATA_LIBS = {"numpy", "pandas", "matplotlib", "seaborn", "plotly", "tabulate", "prettytable", "scipy", "statsmodels",
             "polars", "pyarrow", "h5py", "tables", "openpyxl", "xlrd", "yaml", "ruamel", "toml", "tomli", "rich",
             "tqdm", "click", "typer", "IPython", "ipywidgets", "texttable", "termcolor", "colorama", "jinja2", "bokeh",
             "altair", "pingouin", "researchpy", "sklearn", "xarray", "dask", "duckdb", "sqlalchemy", "feather",
             "fastparquet", "orjson", "ujson", "simplejson", "natsort", "more_itertools", "toolz", "attr", "attrs",
             "pydantic", "dataclasses_json", "cycler", "latex", "pylatex", "great_tables", "great_expectations", "docx",
             "pptx", "xlsxwriter", "pypandoc", "markdown", "mistune", "dateutil", "pytz", "joblib", "absl", "hydra",
             "omegaconf", "fire", "loguru", "wandb", "mlflow", "tensorboard", "pickle5", "dill", "cloudpickle",
             "msgpack", "lxml", "bs4", "requests", "httpx", "urllib3", "argparse", "ast"}
COMPUTE_LIBS = {"torch", "tensorflow", "keras", "jax", "flax", "xgboost", "lightgbm", "catboost", "transformers",
                "datasets", "gym", "gymnasium", "simpy", "networkx", "igraph", "z3", "pysat", "ortools", "cvxpy",
                "pulp", "gurobipy", "sympy", "numba", "cupy", "mpi4py", "ray", "multiprocessing", "concurrent",
                "subprocess", "opacus", "diffprivlib", "pyro", "pymc", "stan", "pystan", "emcee", "qiskit", "angr",
                "pwn", "docker", "selenium", "playwright", "scapy", "mininet", "openai", "anthropic", "langchain",
                "spacy", "nltk", "gensim", "lightning", "pytorch_lightning", "accelerate", "deepspeed", "timm",
                "torchvision"}
COMPUTE_CALLS = re.compile(r"^(numpy\.random|random|scipy\.optimize|scipy\.integrate|scipy\.stats\.\w+\.rvs|secrets|"
                           r"time\.(perf_counter|time|process_time|monotonic)|timeit|sklearn\.\w+(\.\w+)*\.(fit|train|"
                           r"fit_transform|cross_val\w*|partial_fit|predict\w*)|os\.urandom|uuid|numpy\.linalg)(\.|$)")
COMPUTE_METHODS = {"fit", "fit_transform", "train", "partial_fit", "backward", "step", "forward", "run", "simulate",
                   "perturb", "solve", "optimize", "sample", "rvs", "generate", "evaluate", "predict", "predict_proba",
                   "infer", "attack", "fuzz", "execute", "randint", "random", "normal", "uniform", "choice", "shuffle",
                   "laplace", "binomial", "exponential", "permutation", "perf_counter", "train_test_split"}
READERS = re.compile(r"^(read_\w+|load|loads|loadtxt|genfromtxt|fromfile|load_workbook|open_dataset|open_mfdataset|"
                     r"read_table|read_csv|read_json|read_pickle|read_parquet|read_feather|read_hdf|read_excel|read_sql\w*|"
                     r"loadmat|File|connect|read_text|read_bytes|DictReader|reader|load_dataset|from_csv|read_file|"
                     r"readlines|readline|read|scan_csv|scan_parquet|memmap|open_workbook|ExcelFile|HDFStore|safe_load|"
                     r"full_load|unsafe_load|load_all|parse|fromstring|imread|load_npz|load_svmlight_file)$")
WRITERS = {"to_csv", "to_json", "to_latex", "to_markdown", "to_html", "to_excel", "to_parquet", "to_pickle",
           "to_feather", "to_hdf", "to_string", "savefig", "write_text", "write_bytes", "to_file", "write_csv",
           "write_parquet", "write_json", "write_image", "write_html", "save", "savetxt", "savez", "savez_compressed",
           "dump", "dumps", "imsave", "write", "writelines", "writerow", "writerows", "to_sql", "export", "save_fig"}
PRINTS = {"print", "pprint", "display", "echo", "secho", "info", "warning", "debug", "critical", "error", "log",
          "write", "markdown", "Markdown", "HTML", "Latex", "rprint", "print_table"}
AGGREGATES = {"mean", "sum", "std", "var", "median", "min", "max", "count", "size", "nunique", "value_counts",
              "groupby", "agg", "aggregate", "describe", "pivot", "pivot_table", "crosstab", "quantile", "percentile",
              "corr", "cov", "sem", "cumsum", "cumprod", "diff", "pct_change", "apply", "transform", "resample",
              "rolling", "expanding", "len", "Counter", "most_common", "average", "histogram", "bincount", "unique",
              "sqrt", "log", "log2", "log10", "exp", "dot", "matmul", "ttest_ind", "ttest_rel", "ttest_1samp",
              "mannwhitneyu", "wilcoxon", "pearsonr", "spearmanr", "kendalltau", "chi2_contingency", "fisher_exact",
              "kruskal", "f_oneway", "accuracy_score", "f1_score", "precision_score", "recall_score",
              "confusion_matrix", "roc_auc_score", "classification_report", "idxmax", "idxmin", "argmax", "argmin",
              "nanmean", "nanstd", "nanmedian", "nansum", "prod", "abs", "fabs", "floor", "ceil", "mode", "stdev",
              "pstdev", "fmean", "geometric_mean", "harmonic_mean", "div", "mul", "add", "sub", "truediv", "floordiv",
              "pow", "mod", "isin", "cut", "qcut", "rank", "nlargest", "nsmallest", "clip", "norm", "cdf", "ppf", "pdf",
              "entropy", "bootstrap", "merge", "linregress", "polyfit", "interp", "trapz", "trapezoid", "gmean",
              "hmean", "zscore", "binom_test", "binomtest", "cohen_kappa_score", "mean_squared_error",
              "mean_absolute_error", "r2_score", "auc", "roc_curve", "precision_recall_curve",
              "average_precision_score", "cliffs_delta", "sort_values_count", "all", "any", "dropna_count", "shape",
              "ecdf", "factorial", "comb", "perm", "gamma", "lgamma", "erf"}
PLOTS = {"plot", "bar", "barh", "scatter", "hist", "errorbar", "fill_between", "imshow", "heatmap", "boxplot",
         "violinplot", "lineplot", "barplot", "scatterplot", "histplot", "catplot", "relplot", "displot", "kdeplot",
         "pointplot", "stackplot", "step", "stem", "pie", "contour", "contourf", "pcolormesh", "semilogy", "semilogx",
         "loglog", "axhline", "axvline", "text", "annotate", "table", "ecdfplot", "lmplot", "regplot", "matshow"}
PATH_FUNCS = {"Path", "PurePath", "PosixPath", "join", "abspath", "realpath", "normpath", "expanduser", "resolve",
              "absolute", "joinpath", "with_suffix", "with_name", "with_stem", "fspath", "str", "expandvars", "relpath"}
MUTATORS = {"append", "extend", "update", "add", "insert", "setdefault", "appendleft", "add_row", "add_rows",
            "__setitem__", "put", "push", "loc", "at", "iloc"}
SUBPROCESS = re.compile(r"^(subprocess\.(run|call|check_call|check_output|Popen|getoutput|getstatusoutput)|os\.(system|"
                        r"popen|execv\w*|spawn\w*)|sh\.\w+|plumbum\.\w+|invoke\.run|fabric\.\w+|pexpect\.\w+|"
                        r"commands\.getoutput)$")
CAPTURES = re.compile(r"(check_output|getoutput|getstatusoutput|popen)$")
COPIES = re.compile(r"^(shutil\.(copy|copy2|copyfile|copytree|move|copyfileobj)|os\.(rename|replace|link|symlink)|"
                    r"distutils\.\w+\.copy_\w+)$")
