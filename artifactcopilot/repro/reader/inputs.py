"""What kind of input a file is: the study's raw data, stored intermediate results, or stored final numbers.

The line between a full reproduction, a last mile and a copy is the input, not the arithmetic done on it:
- raw: the study's own data (raw labels, annotations, survey answers, measurements of participants, the
  subjects themselves): computing the table from it is the study's analysis, a full reproduction;
- intermediate: stored per-item results (a tool's outputs per subject, predictions, mined data, precomputed
  or cached data, logs of runs): computing the table from them is a last mile;
- final: the final numbers themselves (a summary, the tables, totals): percentages, totals, rescaling or
  rounding derived from them do not make a computation, the table is a copy.

The artifact's own documentation decides first (a README line that names the file or its folder and says what it
holds), then its layout: the words of the file's folders and name, and of the archive it was unpacked from.
"""
from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Literal

from .marks import Mark, loc
from .model import Source, Step
from .paths import RESULT_WORDS, holds_results, path_kind, words

InputKind = Literal["raw", "intermediate", "final", "unknown"]

RAW_WORDS = {"label", "labels", "labeled", "labelled", "labeling", "labelling", "annotation", "annotations",
             "annotated", "annotator", "annotators", "manual", "manually", "survey", "surveys", "questionnaire",
             "questionnaires", "participant", "participants", "interview", "interviews", "rating", "ratings", "coding",
             "coded", "codebook", "study", "subjects", "rawdata", "groundtruth", "truth", "oracle", "observations",
             "measured", "sheet", "respondents"}
# Words that name a human study's data whatever else the name says (`survey_results.csv` holds the answers).
STUDY_WORDS = {"survey", "surveys", "questionnaire", "questionnaires", "interview", "interviews", "participant",
               "participants", "respondents", "annotator", "annotators", "annotation", "annotations", "annotated",
               "manual", "manually", "codebook"}
FINAL_WORDS = {"table", "tables", "tab", "final", "totals", "overall", "paper", "expected", "summary", "summaries",
               "aggregated", "reported"}
PER_ITEM_WORDS = {"runs", "run", "per", "trials", "trial", "items", "item", "raw", "all", "detailed", "details",
                  "instances", "instance", "samples", "each", "individual", "logs", "log", "predictions", "preds",
                  "outputs", "breakdown", "full", "complete"}
INTERMEDIATE_WORDS = {"precomputed", "computed", "cached", "cache", "intermediate", "mined", "crawled", "embeddings",
                      "predictions", "preds", "outputs", "extracted", "snapshots", "generated", "checkpoints"}
DATA_WORDS = {"data", "dataset", "datasets"}
_RESULTISH = (RESULT_WORDS | INTERMEDIATE_WORDS) - {"raw", "answers", "records", "analysis", "responses"}

# Operations that count, group or average records: their input holds one record per item, not final numbers.
GROUPING = {"count", "a count over its records", "mean", "median", "std", "var", "size", "nunique", "value_counts",
            "groupby", "agg", "aggregate", "describe", "pivot", "pivot_table", "crosstab", "quantile", "percentile",
            "len", "Counter", "most_common", "average", "histogram", "bincount", "unique", "nanmean", "nanstd",
            "nanmedian", "mode", "stdev", "pstdev", "fmean", "geometric_mean", "harmonic_mean", "sem", "corr", "cov",
            "resample", "rolling", "expanding", "ttest_ind", "ttest_rel", "mannwhitneyu", "wilcoxon", "pearsonr",
            "spearmanr", "kendalltau", "chi2_contingency", "kruskal", "f_oneway", "accuracy_score", "f1_score",
            "precision_score", "recall_score", "confusion_matrix", "roc_auc_score", "classification_report", "table",
            "tapply", "summarise", "summarize", "group_by", "n", "nrow", "length", "tally", "sd", "IQR", "mad",
            "colMeans", "rowMeans", "t.test", "wilcox.test", "chisq.test", "lm", "glm", "lmer", "glmer", "aov",
            "n_distinct", "xtabs", "ftable", "ecdf", "cor", "cor.test", "fisher.test", "kruskal.test", "cliff.delta",
            "cohen.d", "VD.A", "effsize", "summary", "by", "ave", "dcast", "ecdfplot"}
_DOC_RAW = re.compile(r"\braw (data|labels?|measurements?|annotations?|responses|answers|observations)\b|"
                      r"\bannotat\w*|\blabell?ed by\b|\bmanual(ly)? (label|annotat|classif|cod)\w*|\bsurvey\b|"
                      r"\bparticipants?\b|\binterview\w*|\bcollected (from|by|during)\b|\bground[- ]truth\b",
                      re.IGNORECASE)
_DOC_INTERMEDIATE = re.compile(r"\bpre-?computed\b|\bintermediate\b|\bcached?\b|\bper[- ](item|project|sample|"
                               r"instance|run|subject|benchmark|file|commit|repo\w*) (results|outputs|predictions|"
                               r"scores|metrics)\b|\bpredictions\b|\bmined\b|"
                               r"\b(outputs?|results?|logs?) of (the|each|every|our)\b|\b(generated|produced) by\b|"
                               r"\bto skip\b|\bsaves? (time|hours|days)\b|\binstead of re-?running\b", re.IGNORECASE)
_DOC_FINAL = re.compile(r"\bfinal (results|numbers|tables?)\b|\b(the|all) tables? (of|in) the paper\b|"
                        r"\bnumbers? (reported|shown) in the paper\b|\bexpected (output|results)\b|"
                        r"\bsummary (of|table)\b|\btables? \d+ (and \d+ )?(of|in) the paper\b", re.IGNORECASE)
_NEGATED = re.compile(r"\b(not|no|nothing|never|without|neither|nor)\b[^.;:]*$", re.IGNORECASE)
_DOCS = re.compile(r"(^|/)(readme|docs?|documentation|install|usage|artifact|reproduc\w*)[^/]*$", re.IGNORECASE)
_PATHISH = re.compile(r"`([^`\n]{2,200})`|((?:[\w.-]+/)+[\w.*-]*|[\w-]+\.(?:csv|tsv|json|jsonl|xlsx?|txt|pkl|"
                      r"parquet|zip|tar\.gz|tgz|db|sqlite|rds|rdata|h5|npy|npz|dat|log))", re.IGNORECASE)


def name_words(path: str) -> set[str]:
    """The words of a path's folders and name, and each segment's words run together (raw_data -> rawdata)."""
    segs = path.lower().strip("/").split("/")
    ws = {w for seg in segs for w in words(re.sub(r"\.(tar\.gz|[a-z0-9]{1,8})$", "", seg))}
    return ws | {"".join(words(seg)) for seg in segs}


def kind_by_name(path: str) -> tuple[InputKind, str]:
    """The kind the words of a file's folders and name (and of the archive it is a member of) say."""
    low = path.lower().strip("/")
    ws = name_words(path)
    resultish = ws & _RESULTISH
    strong = ws & STUDY_WORDS and not ws & (INTERMEDIATE_WORDS | {"logs", "log", "runs", "run"})
    if strong or ((ws & RAW_WORDS or ("raw" in ws and ws & DATA_WORDS)) and not resultish):
        return "raw", f"its name says it holds the study's raw data ({', '.join(sorted(ws & (RAW_WORDS | {'raw'})))})"
    if ws & FINAL_WORDS and not ws & (PER_ITEM_WORDS | DATA_WORDS) and \
            path_kind(path) in ("results", "data", "unknown", "doc"):  # (not `finalDataset.csv`: a data set)
        return "final", f"its name says it holds final numbers ({', '.join(sorted(ws & FINAL_WORDS))})"
    if ws & INTERMEDIATE_WORDS:
        said = ", ".join(sorted(ws & INTERMEDIATE_WORDS))
        return "intermediate", f"its name says it holds intermediate results ({said})"
    if low.endswith(SPREADSHEETS) and not resultish and not ws & FINAL_WORDS:
        return "raw", "a spreadsheet not named as results: the study's data, as it was kept by hand"
    return "unknown", ""


SPREADSHEETS = (".xlsx", ".xls", ".ods", ".xlsm")
# Operations that compute a row's values from the same row only (a ratio of two stored numbers, a rescaling, a
# rounding): what they show are the stored numbers, row for row.
PER_ROW = {"arithmetic", "round", "abs", "mul", "div", "truediv", "floordiv", "add", "sub", "pow", "floor", "ceil",
           "clip"}


class InputKinds:
    """Kinds of the artifact's input files: from its documentation, then from names."""

    def __init__(self, documented: dict[str, tuple[InputKind, str]] | None = None):
        self.documented = documented or {}

    def of(self, path: str) -> tuple[InputKind, str]:
        p = path.strip().lstrip("./")
        for name, found in self.documented.items():
            if p == name or p.endswith("/" + name) or p.startswith(name.rstrip("/") + "/") or \
                    ("/" + name.rstrip("/") + "/") in "/" + p:
                return found
        return kind_by_name(path)

    @classmethod
    def from_artifact(cls, root: Path | None, files: list[str] | None) -> InputKinds:
        """Read what the artifact's documentation says each file or folder it names holds."""
        if root is None or not files:
            return cls()
        known = set(files) | {posixpath.dirname(f) for f in files}
        documented: dict[str, tuple[InputKind, str]] = {}
        docs = sorted((f for f in files if _DOCS.search(f) and f.lower().endswith((".md", ".txt", ".rst", "")) and
                       f.count("/") <= 2), key=lambda f: (f.count("/"), f))[:8]
        for rel in docs:
            try:
                text = (root / rel).read_text(encoding="utf-8", errors="replace")[:200_000]
            except OSError:
                continue
            for line in text.splitlines():
                kind = _line_kind(line)
                if kind is None:
                    continue
                for m in _PATHISH.finditer(line):
                    name = (m.group(1) or m.group(2) or "").strip().strip("./").rstrip("/")
                    if name and (name in known or any(f.startswith(name + "/") or f.endswith("/" + name)
                                                      for f in files)):
                        documented.setdefault(name, (kind, f"{rel} says: {line.strip()[:160]}"))
        return cls(documented)


def _line_kind(line: str) -> InputKind | None:
    """What a documentation line says the files it names hold (None: it says none of the three)."""
    found: list[InputKind] = [k for k, rx in _DOC_KINDS if any(not _NEGATED.search(line[max(0, m.start() - 30):
                                                                                      m.start()])
                                                                 for m in rx.finditer(line))]
    if len(found) != 1:
        return None  # silent or mixed (`raw data and the precomputed results`): the names decide
    return found[0]


_DOC_KINDS: tuple[tuple[InputKind, re.Pattern], ...] = (("final", _DOC_FINAL), ("intermediate", _DOC_INTERMEDIATE),
                                                        ("raw", _DOC_RAW))


def input_mark(found: tuple[InputKind, str], step: Step, src: Source, use: str, path: str) -> Mark | None:
    """The mark of a value computed from a stored file whose kind is known: from the study's raw data (full), from
    stored intermediate results (last-mile), from final numbers, however derived (copy). None: the kind says
    nothing, or the file is shown as stored (display rules decide). An experiment's program given stored predictions
    or precomputed data only evaluates them: a last mile."""
    kind, why = found
    if use not in ("derive", "input") or (use == "input" and step.role == "experiment" and kind == "final"):
        return None  # (an experiment's program given final numbers: its other inputs decide)
    who = step.program if step.program and use == "input" else src.how
    if kind == "raw":
        return Mark("full", "medium", f"{loc(step)}: {who} computes from the study's raw data in {path} ({why})", path)
    if kind == "unknown" and use == "derive" and src.ops and set(src.ops) <= PER_ROW and holds_results(path) and \
            not name_words(path) & PER_ITEM_WORDS:
        return Mark("copy", "medium", f"{loc(step)}: {who} only rescales, divides or rounds the numbers stored in "
                                      f"{path}, row by row (no record is counted, grouped or averaged): the final "
                                      "numbers, reshaped", path)
    if kind == "unknown":
        return None
    if kind == "final" and (not src.ops or set(src.ops) & GROUPING):
        return None  # counted, grouped or averaged over: the file holds records, one per item, not final numbers
    if kind == "final":
        return Mark("copy", "medium", f"{loc(step)}: {who} only derives values (percentages, totals, rounding) from "
                                      f"the final numbers stored in {path} ({why})", path)
    return Mark("last", "medium", f"{loc(step)}: {who} computes from the stored intermediate results in {path} "
                                  f"({why})", path)


def unpacked_results(before: list[Step], kinds: InputKinds) -> tuple[Step, str] | None:
    """The archive of stored results (precomputed, intermediate, a tool's outputs) the script last unpacked, when no
    experiment runs after it: what a program run next, whose code cannot be seen, computes from."""
    for step in reversed(before):
        if any(s.kind == "compute" and s.role == "experiment" for s in step.sources) and not step.tolerant:
            return None
        for src in step.sources:
            if src.kind == "file" and src.how.endswith("(unpacked)") and path_kind(src.ref) == "archive" and \
                    (kinds.of(src.ref)[0] == "intermediate" or holds_results(src.ref)):
                return step, src.ref
    return None
