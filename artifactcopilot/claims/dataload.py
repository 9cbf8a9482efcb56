"""The program a review runs (in the sandbox, standard library only) to load a data artifact's tables: for each
CSV/TSV file, its delimiter (sniffed, never assumed), header, row count, rows of another width, and per column the
number of distinct values, the counts of each value (with the first data lines that carry it) for a column of few
values, and count/mean/min/max/sum for a numeric column. It prints one JSON document.
"""
from __future__ import annotations

LOADER = r'''
import csv, json, sys
csv.field_size_limit(1 << 24)
MAX_VALUES, MAX_LINES = 60, 3
out = []
for path in sys.argv[1:]:
    entry = {"file": path}
    try:
        with open(path, newline="", encoding="utf-8-sig", errors="replace") as fh:
            head = fh.read(65536)
            fh.seek(0)
            try:
                delim = csv.Sniffer().sniff(head, delimiters=",;\t|").delimiter
            except csv.Error:
                delim = "\t" if head.count("\t") > head.count(",") else ","
            reader = csv.reader(fh, delimiter=delim)
            header = [h.strip() for h in next(reader, [])]
            cols = [{"values": {}, "lines": {}, "numbers": [0, 0.0, None, None], "distinct": set(), "blank": 0}
                    for _ in header]
            rows = ragged = 0
            for line_no, row in enumerate(reader, 2):
                if not any(c.strip() for c in row):
                    continue
                rows += 1
                if len(row) != len(header):
                    ragged += 1
                for col, cell in zip(cols, row):
                    cell = cell.strip()
                    if not cell:
                        col["blank"] += 1
                        continue
                    if len(col["distinct"]) <= MAX_VALUES:
                        col["distinct"].add(cell)
                        col["values"][cell] = col["values"].get(cell, 0) + 1
                        if len(col["lines"].setdefault(cell, [])) < MAX_LINES:
                            col["lines"][cell].append(line_no)
                    try:
                        value = float(cell)
                    except ValueError:
                        continue
                    n = col["numbers"]
                    n[0] += 1
                    n[1] += value
                    n[2] = value if n[2] is None else min(n[2], value)
                    n[3] = value if n[3] is None else max(n[3], value)
        columns = []
        for name, col in zip(header, cols):
            few = len(col["distinct"]) <= MAX_VALUES
            count, total, low, high = col["numbers"]
            columns.append({"name": name, "distinct": len(col["distinct"]) if few else None, "blank": col["blank"],
                            "values": col["values"] if few else {}, "lines": col["lines"] if few else {},
                            "numeric": {"count": count, "sum": total, "mean": total / count, "min": low,
                                        "max": high} if count else None})
        entry.update(delimiter=delim, header=header, rows=rows, ragged=ragged, columns=columns)
    except (OSError, UnicodeError, csv.Error) as exc:
        entry["error"] = f"{type(exc).__name__}: {exc}"
    out.append(entry)
print(json.dumps(out))
'''
