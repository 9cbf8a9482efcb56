"""When two table labels name the same thing: a paper prints "Fairness ↑", a script writes "Fairness increases".

Labels are compared as word sequences after normalising what varies between a paper and a program's output:
case, markup, punctuation, plural and third-person "-s", arrows against the words for them ("↑" is "increases",
"higher", "up"), and abbreviations (a word that is the first three or more letters of the other, "Acc" for
"Accuracy"; initials, "RF" for "Random Forest"). A direction stated on one side only ("Fairness ↑" against
"Fairness") is left out of the comparison. Numbers are not labels.
"""
from __future__ import annotations

import re
from functools import lru_cache

from ..tables.model import is_number_cell
from ..tables.numbers import strip_markup

ARROWS = {"↑": " increase ", "⇑": " increase ", "▲": " increase ", "↓": " decrease ", "⇓": " decrease ",
          "▼": " decrease "}
DIRECTION = {"increase": "increase", "increased": "increase", "increasing": "increase", "higher": "increase",
             "up": "increase", "decrease": "decrease", "decreased": "decrease", "decreasing": "decrease",
             "lower": "decrease", "down": "decrease"}
# Too common to stand for an experiment's labels on their own ("value", "mean" head many unrelated tables).
GENERIC = {"", "value", "values", "result", "results", "mean", "average", "avg", "total", "count", "n", "name", "id",
           "key", "index", "score", "metric", "metrics", "#", "no", "all", "other"}


def _singular(word: str) -> str:
    if len(word) <= 3 or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses")):
        return word[:-2]
    return word[:-1] if word.endswith("s") else word


@lru_cache(maxsize=1 << 14)
def words(label: str) -> tuple[str, ...]:
    """The label as normalised words; empty for a number, a blank or a generic word."""
    text = strip_markup(str(label))
    if not text or is_number_cell(text):
        return ()
    for arrow, word in ARROWS.items():
        text = text.replace(arrow, word)
    out = tuple(DIRECTION.get(w, _singular(w)) for w in re.findall(r"[a-z0-9]+", text.casefold()))
    return () if " ".join(out) in GENERIC else out


def _abbreviates(short: str, full: str) -> bool:
    return short == full or (len(short) >= 3 and full.startswith(short))


def _same_words(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    if a == b:
        return True
    if len(a) == len(b):
        return all(_abbreviates(x, y) or _abbreviates(y, x) for x, y in zip(a, b))
    for one, many in ((a, b), (b, a)):  # initials: "RF" for "Random Forest"
        if len(one) == 1 and len(many) >= 2 and len(one[0]) == len(many) and one[0] == "".join(w[0] for w in many):
            return True
    return False


def same_label(a: str, b: str) -> bool:
    """Whether two labels name the same row or column (see the module's docstring)."""
    wa, wb = words(a), words(b)
    if not wa or not wb:
        return False
    if _same_words(wa, wb):
        return True
    directions = set(DIRECTION.values())
    da, db = tuple(w for w in wa if w not in directions), tuple(w for w in wb if w not in directions)
    one_sided = (len(da) < len(wa)) != (len(db) < len(wb))
    return one_sided and bool(da) and bool(db) and _same_words(da, db)


def align_labels(paper: list[str], produced: list[str]) -> dict[int, int]:
    """Index map paper -> produced, each label used once: exact word matches first, then the looser ones, a loose
    match only where it is the one candidate."""
    out: dict[int, int] = {}
    pw, qw = [words(x) for x in paper], [words(x) for x in produced]
    for i, w in enumerate(pw):
        j = next((j for j, v in enumerate(qw) if w and v == w and j not in out.values()), None)
        if j is not None:
            out[i] = j
    for i, label in enumerate(paper):
        if i in out or not pw[i]:
            continue
        hits = [j for j, other in enumerate(produced) if j not in out.values() and same_label(label, other)]
        if len(hits) == 1:
            out[i] = hits[0]
    return out
