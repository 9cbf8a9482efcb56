"""Python packages the documentation names in prose as requirements ("install pandas and matplotlib").

Only the text of requirement-like sections (Requirements, Dependencies, Installation, Setup, Environment,
Prerequisites, Software) is read, and only names of well-known distributions count: a word like "numpy" in a
requirements section is a request to install it; elsewhere it may just be prose.
"""
from __future__ import annotations

import re

KNOWN = ("numpy", "scipy", "pandas", "matplotlib", "seaborn", "scikit-learn", "sklearn", "networkx", "tqdm",
         "statsmodels", "sympy", "torch", "pytorch", "tensorflow", "keras", "nltk", "requests",
         "beautifulsoup4", "lxml", "pyyaml", "h5py", "joblib", "numba", "plotly", "opencv-python", "pillow", "xgboost",
         "lightgbm", "gensim", "spacy", "transformers", "datasets", "tabulate", "click", "pyarrow", "polars",
         "openpyxl", "xlrd", "mock", "psutil", "pydot", "graphviz", "bokeh", "altair", "dask", "cython", "pygit2",
         "gitpython", "libcst", "astor", "tree-sitter", "z3-solver", "pulp", "cvxpy", "shapely", "geopandas", "folium",
         "wordcloud", "textblob", "sentencepiece", "tokenizers", "accelerate", "pytest", "ipykernel", "nbformat",
         "nbconvert", "tensorboard", "termcolor", "colorama", "rich", "typer", "fire", "docopt", "ujson", "orjson",
         "simplejson", "regex", "rapidfuzz", "thefuzz", "python-levenshtein", "editdistance", "pymc", "arviz",
         "lifelines", "pingouin", "scikit-posthocs", "tables", "zarr", "netcdf4", "xarray", "pyproj", "imageio",
         "scikit-image", "tifffile", "soundfile", "librosa")
ALIASES = {"sklearn": "scikit-learn", "pytorch": "torch", "opencv": "opencv-python", "yaml": "pyyaml",
           "bs4": "beautifulsoup4", "git": None, "python": None, "pip": None}
_SECTION = re.compile(r"require|dependenc|install|setup|set up|environment|prerequisite|software|packages", re.I)
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$|^([^\n]+)\n[=-]{3,}\s*$", re.M)


def _sections(text: str) -> list[tuple[str, str]]:
    marks = [(m.start(), (m.group(2) or m.group(3) or "").strip()) for m in _HEADING.finditer(text)]
    marks.append((len(text), ""))
    return [(title, text[start:marks[i + 1][0]]) for i, (start, title) in enumerate(marks[:-1])]


def documented_packages(texts: list[str]) -> list[str]:
    """Well-known Python distributions named in the requirement sections of the given documents, in order."""
    found: list[str] = []
    words = {w: w for w in KNOWN} | {k: v for k, v in ALIASES.items() if v}
    for text in texts:
        for title, body in _sections(text or ""):
            if not _SECTION.search(title):
                continue
            for token in re.findall(r"(?<![\w./-])[A-Za-z][A-Za-z0-9_.-]*[A-Za-z0-9](?![\w/])", body):
                name = words.get(token.lower())
                if name and name not in found:
                    found.append(name)
    return found
