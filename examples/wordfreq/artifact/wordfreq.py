"""wordfreq: naming-convention and word-frequency statistics for Python identifiers.

Usage:
    python3 wordfreq.py                              # Tables 2 and 3 of the paper
    python3 wordfreq.py --input examples/other.csv   # your own identifiers
    python3 wordfreq.py --top 10 --output out.md     # more words, also write a file
"""
import argparse
import csv
import re
import sys
from collections import Counter

COLUMNS = ("project", "kind", "identifier")
KINDS = ("function", "class", "variable", "constant")
# PEP 8: functions and variables in snake_case, classes in PascalCase, constants in UPPER_CASE.
EXPECTED_STYLE = {"function": "snake_case", "variable": "snake_case",
                  "class": "PascalCase", "constant": "UPPER_CASE"}


def style(identifier):
    """Classify an identifier into one naming style."""
    name = identifier.strip("_")
    if re.fullmatch(r"[A-Z][A-Z0-9]*(_[A-Z0-9]+)*", name):
        return "UPPER_CASE"
    if re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)*", name):
        return "snake_case"
    if re.fullmatch(r"[A-Z][a-zA-Z0-9]*", name):
        return "PascalCase"
    if re.fullmatch(r"[a-z][a-z0-9]*([A-Z][a-z0-9]*)+", name):
        return "camelCase"
    return "other"


def words(identifier):
    """Split an identifier into lower-case words at underscores and case changes."""
    parts = re.split(r"_+", identifier.strip("_"))
    out = []
    for part in parts:
        out += re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+", part)
    return [w.lower() for w in out if w]


def load(path):
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                sys.exit(f"error: {path}: missing column(s) {', '.join(missing)}")
            rows = list(reader)
    except FileNotFoundError:
        sys.exit(f"error: input file not found: {path}")
    bad = [r["kind"] for r in rows if r["kind"] not in KINDS]
    if bad:
        sys.exit(f"error: {path}: unknown kind '{bad[0]}' (expected one of {', '.join(KINDS)})")
    return rows


def convention_table(rows):
    """Per project: identifiers, PEP 8 conformance, snake_case and camelCase shares, words per identifier."""
    projects = {}
    for row in rows:
        projects.setdefault(row["project"], []).append(row)
    table = []
    for project, items in projects.items():
        n = len(items)
        styles = [style(r["identifier"]) for r in items]
        conform = sum(s == EXPECTED_STYLE[r["kind"]] for s, r in zip(styles, items))
        table.append((project, n, 100.0 * conform / n, 100.0 * styles.count("snake_case") / n,
                      100.0 * styles.count("camelCase") / n,
                      sum(len(words(r["identifier"])) for r in items) / n))
    return table


def top_words(rows, k):
    counts = Counter(w for r in rows for w in words(r["identifier"]))
    total = sum(counts.values())
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
    return [(w, c, 100.0 * c / total) for w, c in ranked]


def render(rows, k, source):
    out = [f"Naming conventions per project (input: {source})", "",
           "| Project | Identifiers | PEP 8 conformance (%) | snake_case (%) | camelCase (%) | Words per identifier |",
           "|---|---|---|---|---|---|"]
    for p, n, conf, snake, camel, wpi in convention_table(rows):
        out.append(f"| {p} | {n} | {conf:.1f} | {snake:.1f} | {camel:.1f} | {wpi:.2f} |")
    out += ["", f"Most frequent identifier words (input: {source})", "",
            "| Rank | Word | Occurrences | Share (%) |", "|---|---|---|---|"]
    for i, (w, c, share) in enumerate(top_words(rows, k), 1):
        out.append(f"| {i} | {w} | {c} | {share:.1f} |")
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Naming-convention statistics for Python identifiers.")
    ap.add_argument("--input", default="data/identifiers.csv", help="CSV with columns project,kind,identifier")
    ap.add_argument("--top", type=int, default=5, help="number of words in the frequency table (default 5)")
    ap.add_argument("--output", help="also write the tables to this Markdown file")
    args = ap.parse_args(argv)
    text = render(load(args.input), args.top, args.input)
    print(text)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
