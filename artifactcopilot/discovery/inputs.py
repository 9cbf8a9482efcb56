"""Inputs a reviewer writes when a documented command names code to analyse and nothing of that kind is shipped.

`python main.py my_code_repo 8` ("where my_code_repo is a Python project folder") cannot run on a name. A reviewer
of a Python code-analysis tool points it at a small package written for the purpose: modules that import the
standard library and each other, a class with a subclass, calls through aliases, a deprecated-style call, and a
module of older numerical code calling numpy and scikit-learn APIs those libraries have since deprecated. The files
are written into the review's own folder (`.copilot/inputs/`), never over the artifact's files.
"""
from __future__ import annotations

import posixpath
import re

from .view import FileIndex

INPUTS_DIR = ".copilot/inputs"
CODE_WORDS = {"repo", "repos", "repository", "project", "projects", "proj", "package", "pkg", "code", "codebase"}
NOT_A_FOLDER = {"name", "id", "title", "url", "version", "key", "token", "number", "num", "count"}
LANGUAGES = {".py": "python", ".js": "javascript", ".ts": "javascript", ".java": "java", ".c": "c", ".cc": "cpp",
             ".cpp": "cpp", ".go": "go", ".rs": "rust", ".r": "r", ".jl": "julia", ".rb": "ruby", ".scala": "scala"}

SAMPLE_PACKAGE = {
    "README.md": "A small Python project written to run a code-analysis tool on.\n",
    "inventory/__init__.py": '"""Inventory: items, stores and reports."""\nfrom .items import Item, Perishable\n',
    "inventory/items.py": ('import collections\nimport datetime as dt\nfrom os import path as osp\n\n\n'
                           'class Item:\n    def __init__(self, name, price):\n        self.name = name\n'
                           '        self.price = float(price)\n\n    def label(self):\n'
                           '        return "%s (%.2f)" % (self.name, self.price)\n\n\n'
                           'class Perishable(Item):\n    def __init__(self, name, price, days):\n'
                           '        super().__init__(name, price)\n'
                           '        self.expires = dt.date.today() + dt.timedelta(days=days)\n\n\n'
                           'def counts(items):\n    return collections.Counter(i.name for i in items)\n\n\n'
                           'def where(name):\n    return osp.join(osp.dirname(__file__), name)\n'),
    "inventory/store.py": ('import json\nimport logging\nimport warnings\n\nfrom .items import Item, counts\n\n'
                           'log = logging.getLogger(__name__)\n\n\nclass Store:\n    def __init__(self):\n'
                           '        self.items = []\n\n    def add(self, name, price):\n'
                           '        self.items.append(Item(name, price))\n        log.info("added %s", name)\n\n'
                           '    def dump(self):\n        return json.dumps(counts(self.items), sort_keys=True)\n\n'
                           '    def old_dump(self):\n        warnings.warn("old_dump is deprecated", '
                           'DeprecationWarning)\n        return self.dump()\n'),
    "inventory/report.py": ('import statistics\nfrom itertools import groupby\n\nfrom .store import Store\n\n\n'
                            'def mean_price(store: Store) -> float:\n'
                            '    return statistics.mean(i.price for i in store.items)\n\n\n'
                            'def by_initial(store: Store):\n'
                            '    names = sorted(i.name for i in store.items)\n'
                            '    return {k: len(list(g)) for k, g in groupby(names, key=lambda n: n[0])}\n'),
    "inventory/stats.py": ('"""Older numerical code: written against numpy and scikit-learn APIs deprecated since."""\n'
                           'import numpy as np\nfrom sklearn.preprocessing import Imputer\n\n\n'
                           'def summary(values):\n'
                           '    filled = Imputer(strategy="mean").fit_transform(np.array(values).reshape(-1, 1))\n'
                           '    counts, edges = np.histogram(filled, bins=3, normed=True)\n'
                           '    return np.asscalar(filled.mean()), counts.tolist(), edges.tolist()\n'),
    "main.py": ('from inventory.report import by_initial, mean_price\nfrom inventory.store import Store\n\n\n'
                'def main():\n    store = Store()\n    for name, price in [("apple", 1.2), ("pear", 0.8), '
                '("plum", 2.5)]:\n        store.add(name, price)\n    print(store.dump(), mean_price(store), '
                'by_initial(store))\n\n\nif __name__ == "__main__":\n    main()\n'),
}


def names_code(pieces: list[str], token: str) -> bool:
    """The placeholder stands for a code base to analyse ("my_code_repo", "<project_dir>", "path/to/package")."""
    return bool(set(pieces) & CODE_WORDS) and not set(pieces) & NOT_A_FOLDER and \
        not re.search(r"\.\w{1,5}$", token.strip("<>[]{}'\""))


def main_language(index: FileIndex) -> str | None:
    """The language most of the artifact's own code is written in."""
    counts: dict[str, int] = {}
    for rel in index.files:
        lang = LANGUAGES.get(posixpath.splitext(rel)[1].lower())
        if lang:
            counts[lang] = counts.get(lang, 0) + 1
    return max(counts, key=lambda k: counts[k]) if counts else None


def code_sample(index: FileIndex) -> tuple[str, dict[str, str]] | None:
    """(folder, files by path from the artifact root) of a small project in the artifact's language, when one can
    be written (Python), else None."""
    if main_language(index) != "python":
        return None
    folder = f"{INPUTS_DIR}/sample_project"
    return folder, {f"{folder}/{rel}": text for rel, text in SAMPLE_PACKAGE.items()}
