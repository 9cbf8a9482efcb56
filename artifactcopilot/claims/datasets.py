"""A data artifact's workflow, as a committee member runs it: load the files with standard tools, check the
documented schema, and recompute from the rows what the paper states (counts, shares, means).

ArtifactGuide's RW2 lists "analysis" among evaluation-relevant workflows. For an artifact that is a documented data
set (tables described column by column, no program to run), the review's analysis is that workflow:
- loading (E1, D2): every data file loads with a standard CSV reader (delimiter sniffed), rows of one width;
- schema (E1): the columns the documentation describes are the files' columns;
- recomputation (E2, D3 and D4): a count, share or mean the paper states next to a value or column of the data
  ("115 participants in the banking condition", a survey table's row "Banking | 115") is recomputed from the rows
  that carry it and compared at the paper's printed precision.
A statement is *comparable* when the value's or column's words stand within BIND_WORDS words of the number (or it
is a table row or column of that name); it *holds* when the recomputed value equals the paper's; the data set
*contradicts* the paper when at least MIN_CONTRADICTIONS comparable statements do not hold and they outnumber
those that do. A total ("830 respondents") that equals a file's row count holds; one that does not is not
comparable (the paper may count before exclusions). Nothing recomputable: the check stays at E1.
"""
from __future__ import annotations

import csv
import re
from dataclasses import asdict, dataclass, field

from ..tables import Table, parse_number
from .labels import words
from .prose import sentences

DATA_EXT = (".csv", ".tsv")
MAX_FILES = 12
BIND_WORDS = 4
MIN_CONTRADICTIONS = 2
DATA_TOLERANCE_TEXT = (f"counts equal exactly, shares and means at the paper's printed precision; a statement is "
                       f"compared when the value or column it names stands within {BIND_WORDS} words of the number "
                       f"(or names its table row or column); the data contradict the paper when at least "
                       f"{MIN_CONTRADICTIONS} compared statements do not hold and they outnumber those that do")
POPULATION = re.compile(r"^(?:participants?|respondents?|responses?|users?|accounts?|subjects?|rows?|records?|"
                        r"entries|entry|samples?|answers?|people|persons?|workers?|individuals?|households?|"
                        r"interviewees?|submissions?|completions?|observations?)$", re.I)
NUMBER = re.compile(r"(?<![\w.,\-–/])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(\s?%)?(?![\w,]|\.\d|\s?[-–]\s?\d)")
NOT_BEFORE = re.compile(r"(?i)(?:table|tab\.|figure|fig\.|section|sec\.|§|eq\.|rq|appendix|version|v|[-–]|to)\s*$")
YEAR = re.compile(r"^(?:1[89]|20)\d\d$")
COLUMN_ROW = re.compile(r"^\s*\|\s*`?([A-Za-z_][\w .\-]*?)`?\s*\|")
BACKTICKED = re.compile(r"`([A-Za-z_][\w.\-]{1,60})`")


@dataclass
class Statement:
    text: str
    value: float
    decimals: int
    percent: bool
    context: list[str]
    """Normalised words around the number (prose) or of its row label, column header and caption (a table)."""
    where: str
    position: int = -1
    """Index of the number among `context` (prose); -1 for a table cell (bound by its row or column name)."""


@dataclass
class Check:
    statement: str
    where: str
    verdict: str
    """holds | does not hold"""
    recomputed: str
    rows: str
    """The rows that carry the value: file, filter, row count, first lines."""


@dataclass
class DataCheck:
    files: list[dict] = field(default_factory=list)
    schema: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    described: int = 0
    """Columns of the files that the documentation describes."""

    @property
    def loaded(self) -> bool:
        return bool(self.files) and not self.problems

    @property
    def documented(self) -> bool:
        """A documented data set: the documentation describes at least half the columns of one of its tables."""
        return any(2 * f.get("described", 0) >= len(f.get("header") or [1]) > 0 and f.get("rows")
                   for f in self.files if not f.get("error"))

    @property
    def held(self) -> list[Check]:
        return [c for c in self.checks if c.verdict == "holds"]

    @property
    def broken(self) -> list[Check]:
        return [c for c in self.checks if c.verdict != "holds"]

    @property
    def contradicts(self) -> bool:
        return len(self.broken) >= MIN_CONTRADICTIONS and len(self.broken) > len(self.held)

    def to_dict(self) -> dict:
        return {"files": [{k: v for k, v in f.items() if k != "columns"} for f in self.files], "schema": self.schema,
                "problems": self.problems, "checks": [asdict(c) for c in self.checks], "tolerance": DATA_TOLERANCE_TEXT,
                "held": len(self.held), "not_held": len(self.broken), "contradicts": self.contradicts,
                "described": self.described, "documented": self.documented}


def data_files(files: list[str]) -> list[str]:
    """The artifact's tabular data files (CSV, TSV), outside hidden and review folders."""
    found = [f for f in files if f.lower().endswith(DATA_EXT) and not any(p.startswith(".") for p in f.split("/"))]
    return sorted(found, key=lambda f: (f.count("/"), f))[:MAX_FILES]


def header_of(head: str) -> list[str]:
    """The column names of a table file from its first bytes (delimiter sniffed, as the loading program does)."""
    first = next((ln for ln in head.splitlines() if ln.strip()), "")
    try:
        delimiter = csv.Sniffer().sniff(head[:65536], delimiters=",;\t|").delimiter
    except csv.Error:
        delimiter = "\t" if first.count("\t") > first.count(",") else ","
    return [h.strip() for h in next(csv.reader([first], delimiter=delimiter), [])]


def described_tables(files: list[str], heads: dict[str, str], documented: set[str]) -> list[str]:
    """The data files whose columns the documentation describes, at least half of them: a documented data set."""
    names = {d.strip().casefold() for d in documented}
    out = []
    for f in files:
        header = [h for h in header_of(heads.get(f) or "") if h]
        if header and 2 * sum(h.casefold() in names for h in header) >= len(header):
            out.append(f)
    return out


def documented_columns(texts: list[str]) -> set[str]:
    """Column names the documentation describes: first cells of its Markdown tables, and `backticked` names."""
    out: set[str] = set()
    for text in texts:
        for line in text.splitlines():
            m = COLUMN_ROW.match(line)
            if m and not set(m.group(1)) <= set("-: "):
                out.add(m.group(1).strip())
        out |= set(BACKTICKED.findall(text))
    return out


def _split_name(name: str) -> str:
    return re.sub(r"(?<=[a-z])(?=[A-Z])|_", " ", name)


def check_schema(found: list[dict], documented: set[str]) -> DataCheck:
    """Loading and schema: what loaded, which documented columns each file has, what is wrong with it."""
    out = DataCheck(files=[f for f in found if isinstance(f, dict)])
    names = {d.strip().casefold() for d in documented}
    for f in out.files:
        if f.get("error"):
            out.problems.append(f"{f['file']}: {f['error']}")
            continue
        header = [h for h in f.get("header") or [] if h]
        if not header or not f.get("rows"):
            out.problems.append(f"{f['file']}: no header or no rows")
            continue
        if f.get("ragged"):
            out.problems.append(f"{f['file']}: {f['ragged']} of {f['rows']} rows have another width than the header")
        described = [h for h in header if h.strip().casefold() in names]
        out.described += len(described)
        f["described"] = len(described)
        delimiter = {"\t": "tab", ",": "comma", ";": "semicolon", "|": "pipe"}.get(f.get("delimiter", ""), "?")
        out.schema.append(f"{f['file']}: {f['rows']} rows × {len(header)} columns ({delimiter}-separated); "
                          f"{len(described)} of {len(header)} columns described in the documentation")
    return out


def _statement(match: re.Match[str], where: str) -> tuple[str, float, int, bool]:
    whole, frac, pct = match.group(1), match.group(2), bool(match.group(3))
    value = float(whole.replace(",", "") + (f".{frac}" if frac else ""))
    return match.group(0).strip(), value, len(frac or ""), pct


def statements(paper_text: str, tables: list[Table]) -> list[Statement]:
    """Numbers the paper states next to words (its prose) or in a labelled table cell."""
    out: list[Statement] = []
    for sentence in sentences(paper_text, tables):
        tokens = sentence.split()
        for n, token in enumerate(tokens):
            m = NUMBER.match(token.strip("(),;:"))
            before = " ".join(tokens[max(0, n - 2):n])
            if not m or YEAR.match(m.group(1)) and not m.group(2) or NOT_BEFORE.search(before):
                continue
            text, value, decimals, pct = _statement(m, sentence)
            context = [w for t in tokens[max(0, n - 12):n + 13] for w in _words(t)]
            position = len([w for t in tokens[max(0, n - 12):n] for w in _words(t)])
            out.append(Statement(text, value, decimals, pct, context, sentence[:200], position))
    for t in tables:
        for r, c in t.numeric_cells():
            p = parse_number(t.rows[r][c])
            if p is None:
                continue
            head = t.header[c] if c < len(t.header) else ""
            context = list(words(t.rows[r][0])) + ["·"] + list(words(head))
            out.append(Statement(t.rows[r][c].strip(), p.value, p.decimals, p.percent, context,
                                 f"{t.label or 'table'}: {t.rows[r][0]} / {head}"))
    return out


def _words(token: str) -> tuple[str, ...]:
    """A prose token as label words; '#' for a number, '·' for a word that names nothing."""
    if NUMBER.match(token.strip("(),;:")):
        return ("#",)
    return words(token) or ("·",)


def _near(label: tuple[str, ...], s: Statement) -> bool:
    """The label's words stand together within BIND_WORDS words of the number, no other number between them (a
    table cell: its row or column)."""
    if not label:
        return False
    ctx, k = s.context, len(label)
    for i in range(len(ctx) - k + 1):
        if tuple(ctx[i:i + k]) != label:
            continue
        if s.position < 0:
            return True
        between = ctx[i + k:s.position] if i < s.position else ctx[s.position + 1:i]
        if len(between) < BIND_WORDS and "#" not in between:
            return True
    return False


def _equal(s: Statement, value: float) -> bool:
    return round(value, s.decimals) == round(s.value, s.decimals)


def _candidates(s: Statement, f: dict, distinctive: dict[str, tuple[str, ...]]) -> list[tuple[float, str, str]]:
    """(recomputed value, what it is, the rows that carry it) of the file's values and columns the statement names."""
    out = []
    for col in f.get("columns") or []:
        counted = sum((col.get("values") or {}).values())
        for value, count in (col.get("values") or {}).items():
            label = words(value)
            if len(value) < 3 or not label or not _near(label, s):
                continue
            lines = ", ".join(str(n) for n in (col.get("lines") or {}).get(value, []))
            rows = f"{f['file']}: rows where {col['name']} = {value} ({count} rows; first at lines {lines})"
            if s.percent:
                out.append((100.0 * count / max(1, counted), f"share of {col['name']} = {value}", rows))
            elif s.decimals == 0:
                out.append((float(count), f"rows with {col['name']} = {value}", rows))
        label = distinctive.get(col["name"], ())
        numeric = col.get("numeric")
        if numeric and label and s.decimals and not s.percent and _near(label, s):
            out.append((numeric["mean"], f"mean of {col['name']}",
                        f"{f['file']}: column {col['name']} ({numeric['count']} numeric rows)"))
    return out


def _distinctive(files: list[dict]) -> dict[str, tuple[str, ...]]:
    """Each column's words without those most columns share (`WTD_Fingerprint` -> `fingerprint`)."""
    names = [c["name"] for f in files for c in f.get("columns") or []]
    split = {n: words(_split_name(n)) for n in names}
    common = {w for w in {w for ws in split.values() for w in ws} if sum(w in ws for ws in split.values()) >= 3}
    return {n: tuple(w for w in ws if w not in common) for n, ws in split.items()}


def recompute(check: DataCheck, said: list[Statement]) -> DataCheck:
    """Each comparable statement recomputed from the rows (see the module's docstring)."""
    files = [f for f in check.files if not f.get("error")]
    distinctive = _distinctive(files)
    for s in said:
        found = [c for f in files for c in _candidates(s, f, distinctive)]
        if not found and s.decimals == 0 and not s.percent and s.position >= 0 and \
                s.position + 1 < len(s.context) and POPULATION.match(s.context[s.position + 1]):
            totals = [f for f in files if f.get("rows") == s.value]
            if totals:  # a total counts only when it holds: the paper may count before exclusions
                check.checks.append(Check(s.text, s.where, "holds", f"{totals[0]['rows']} rows",
                                          f"{totals[0]['file']}: all {totals[0]['rows']} data rows"))
            continue
        if not found:
            continue
        best = next((c for c in found if _equal(s, c[0])), None)
        value, what, rows = best or min(found, key=lambda c: abs(c[0] - s.value))
        shown = f"{value:.{s.decimals}f}" + ("%" if s.percent else "")
        check.checks.append(Check(s.text, s.where, "holds" if best else "does not hold", f"{what}: {shown}", rows))
    return check
