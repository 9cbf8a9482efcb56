"""How well PDF reading recovers a paper's result tables, against tables transcribed by hand.

    python benchmarks/paper_reading.py [--pdfs DIR] [--papers DIR] [--readers copilot,pypdf,...]
                                       [--extra-path DIR] [--held-out ID,ID] [--json]

For each `<id>.pdf` in --pdfs with a hand transcription in `<papers>/<id>.md` (the tables under
"Results (tables from the paper)", each a `**Table N: caption**` line over a Markdown table), and for each
reader:
- a table is *found* when an extracted table carries its number (`TABLE III` and `Table 3` by their number,
  roman or arabic);
- a numeric cell is *read* when every number in the transcribed cell appears, as printed, among the numbers
  of one cell of the extracted table with that number;
- time per paper (wall clock, and CPU time, which a loaded machine does not inflate) and peak memory
  (tracemalloc, in a second untimed pass; native allocations of C libraries are not seen); the totals give
  the slowest paper and the largest peak.

Readers: `copilot` (the product's reading, `load_paper`), `pypdf` (the text reader before it, kept as the
fallback), `pdfplumber` (its `find_tables` on each page), `pymupdf` (`find_tables`, AGPL-3.0) and `camelot`
(stream mode) — the last three with the caption taken as the nearest "Table N" line above or below the
grid. A reader whose library is not installed is skipped; --extra-path adds a folder of such libraries at
the end of the import path. Held-out papers (--held-out) are totalled apart.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT.parent.parent / "shared" / "real"
NUMBER = re.compile(r"\d+(?:[.,]\d+)*%?")
CITATION = re.compile(r"\[\d+(?:[,–-]\s*\d+)*\]")
LABEL = re.compile(r"(?i)\b(?:table|tab\.)\s*([0-9]+|[ivxlc]+)\b")
ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}


def label_number(text: str | None) -> int | None:
    m = LABEL.search(text or "")
    if not m:
        return None
    token = m.group(1).lower()
    if token.isdigit():
        return int(token)
    values = [ROMAN[ch] for ch in token]
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))


def numbers(cell: str) -> list[str]:
    text = CITATION.sub("", cell.replace("\u2212", "-").replace(" ", ""))
    return NUMBER.findall(text)


@dataclass
class Expected:
    number: int
    title: str
    cells: list[str]


@dataclass
class Extracted:
    number: int | None
    cells: list[str]


def transcribed(md: Path) -> list[Expected]:
    """The hand-transcribed tables of a stand-in paper: numbered bold titles over Markdown tables."""
    text = md.read_text(encoding="utf-8")
    m = re.search(r"(?ms)^## Results \(tables from the paper\)\s*$(.*?)(?=^## |\Z)", text)
    out: list[Expected] = []
    for line in (m.group(1) if m else "").splitlines():
        title = re.match(r"^\*\*(Table\s+[0-9IVXLC]+\b.*?)\*\*\s*$", line.strip())
        if title and (n := label_number(title.group(1))) is not None:
            out.append(Expected(n, title.group(1), []))
        elif out and line.strip().startswith("|") and not re.fullmatch(r"[|\s:-]+", line.strip()):
            row = [c.strip() for c in line.strip().strip("|").split("|")]
            out[-1].cells.append("\x00" + "\x00".join(row))  # rows first: the header is dropped below
    for exp in out:
        rows = exp.cells[1:]  # the first Markdown row is the header
        exp.cells = [c for r in rows for c in r.split("\x00")[1:] if numbers(c)]
    return out


@dataclass
class Score:
    tables: int = 0
    found: int = 0
    cells: int = 0
    read: int = 0
    numbers: int = 0
    numbers_read: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    peak_mb: float = 0.0
    error: str = ""
    missing: list[str] = field(default_factory=list)


def score(expected: list[Expected], extracted: list[Extracted]) -> Score:
    s = Score(tables=len(expected))
    for exp in expected:
        s.cells += len(exp.cells)
        s.numbers += 0 if any(t.number == exp.number for t in extracted) else sum(len(numbers(c)) for c in exp.cells)
        mine = [t for t in extracted if t.number == exp.number]
        if not mine:
            s.missing.append(f"Table {exp.number}")
            continue
        s.found += 1
        have = [numbers(c) for t in mine for c in t.cells]
        pool = {n for got in have for n in got}
        for cell in exp.cells:
            want = numbers(cell)
            s.numbers += len(want)
            s.numbers_read += sum(w in pool for w in want)
            if any(all(w in got for w in want) and len(got) <= len(want) for got in have):
                s.read += 1
    return s


# ---------------------------------------------------------------------------------- readers

def read_copilot(pdf: Path) -> list[Extracted]:
    from artifactcopilot.acquire.paper import load_paper

    return [Extracted(label_number(t.label), [c for r in t.rows for c in r]) for t in load_paper(pdf).tables]


def read_pypdf(pdf: Path) -> list[Extracted]:
    from artifactcopilot.acquire import pdftext

    return [Extracted(label_number(t.label), [c for r in t.rows for c in r]) for t in pdftext.pypdf_tables(pdf)]


_CAPTION = re.compile(r"^\s*(?:TABLE|Table|Tab\.)\s*(?:[0-9]+|[IVXLC]+)\b")


def _nearest_caption(lines: list[tuple[float, str]], top: float, bottom: float) -> int | None:
    """The number of the caption line closest to a grid spanning top..bottom (points from the page top)."""
    best: tuple[float, int] | None = None
    for y, text in lines:
        if _CAPTION.match(text) and (n := label_number(text)) is not None:
            d = top - y if y <= top else y - bottom if y >= bottom else 0.0
            if d < 120 and (best is None or d < best[0]):
                best = (d, n)
    return best[1] if best else None


def read_pdfplumber(pdf: Path) -> list[Extracted]:
    import pdfplumber

    out = []
    with pdfplumber.open(pdf) as doc:
        for page in doc.pages:
            lines = [(ln["top"], ln["text"]) for ln in page.extract_text_lines()]
            for t in page.find_tables():
                cells = [c or "" for r in t.extract() for c in r]
                out.append(Extracted(_nearest_caption(lines, t.bbox[1], t.bbox[3]), cells))
    return out


def read_pymupdf(pdf: Path) -> list[Extracted]:
    import pymupdf

    out = []
    with pymupdf.open(pdf) as doc:
        for page in doc:
            lines = [(b[1], b[4].replace("\n", " ")) for b in page.get_text("blocks")]
            for t in page.find_tables().tables:
                cells = [c or "" for r in t.extract() for c in r]
                out.append(Extracted(_nearest_caption(lines, t.bbox[1], t.bbox[3]), cells))
    return out


def read_camelot(pdf: Path) -> list[Extracted]:
    import camelot
    import pdfplumber

    out = []
    with pdfplumber.open(pdf) as doc:
        heights = [p.height for p in doc.pages]
        lines = [[(ln["top"], ln["text"]) for ln in p.extract_text_lines()] for p in doc.pages]
    for t in camelot.read_pdf(str(pdf), pages="all", flavor="stream"):
        page = int(t.page) - 1
        x0, y0, x1, y1 = t._bbox  # PDF coordinates, origin bottom left
        cells = [str(c) for r in t.df.values.tolist() for c in r]
        out.append(Extracted(_nearest_caption(lines[page], heights[page] - y1, heights[page] - y0), cells))
    return out


READERS: dict[str, Callable[[Path], list[Extracted]]] = {
    "copilot": read_copilot, "pypdf": read_pypdf, "pdfplumber": read_pdfplumber, "pymupdf": read_pymupdf,
    "camelot": read_camelot}


def measure(reader: Callable[[Path], list[Extracted]], pdf: Path, expected: list[Expected]) -> Score:
    start, cpu = time.perf_counter(), time.process_time()
    try:
        got = reader(pdf)
        error = ""
    except Exception as exc:  # noqa: BLE001 - a reader that fails on a paper scores nothing on it
        got, error = [], f"{type(exc).__name__}: {str(exc)[:100]}"
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    tracemalloc.start()  # a second pass for memory: tracing slows Python down, so it is not timed
    try:
        reader(pdf)
    except Exception:  # noqa: BLE001 - already reported above
        pass
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    s = score(expected, got)
    s.seconds, s.cpu_seconds, s.peak_mb, s.error = seconds, cpu, peak, error
    return s


def _total(rows: list[Score]) -> Score:
    t = Score()
    for s in rows:
        t.tables, t.found, t.cells, t.read = t.tables + s.tables, t.found + s.found, t.cells + s.cells, t.read + s.read
        t.numbers, t.numbers_read = t.numbers + s.numbers, t.numbers_read + s.numbers_read
        t.seconds, t.peak_mb = max(t.seconds, s.seconds), max(t.peak_mb, s.peak_mb)
        t.cpu_seconds = max(t.cpu_seconds, s.cpu_seconds)
    return t


def _line(name: str, s: Score) -> str:
    pct = 100 * s.read / s.cells if s.cells else 0.0
    npct = 100 * s.numbers_read / s.numbers if s.numbers else 0.0
    return (f"  {name:<24} tables {s.found:>2}/{s.tables:<2}  cells {s.read:>4}/{s.cells:<4} ({pct:5.1f}%)  "
            f"numbers {npct:5.1f}%  "
            f"{s.seconds:6.2f} s wall {s.cpu_seconds:6.2f} s cpu  {s.peak_mb:7.1f} MB"
            + (f"  missing {', '.join(s.missing)}" if s.missing else "")
            + (f"  error {s.error}" if s.error else ""))


SMOKE_ROWS = [["Method", "Precision", "Recall", "Time (s)"], ["Ours", "0.92", "87.5%", "1,405"],
              ["Baseline", "0.81", "74.0%", "2,310"]]


def smoke_inputs(folder: Path) -> tuple[Path, Path]:
    """A one-page paper generated here (reportlab): body text, a captioned, ruled result table, and its
    hand transcription in the stand-in format, so the smoke run needs nothing outside the repository."""
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen.canvas import Canvas

    pdfs, papers = folder / "pdfs", folder / "papers"
    pdfs.mkdir(parents=True, exist_ok=True)
    papers.mkdir(parents=True, exist_ok=True)
    c = Canvas(str(pdfs / "smoke.pdf"), pagesize=letter)
    c.setFont("Times-Bold", 14)
    c.drawString(72, 720, "A Small Paper on Measuring Things")
    c.setFont("Times-Roman", 10)
    c.drawString(72, 690, "We measure precision and recall of our method. Table 1 shows our results.")
    c.drawString(72, 650, "TABLE I: Precision, recall and time of each method.")
    y = 630
    c.line(72, y + 12, 420, y + 12)
    for i, row in enumerate(SMOKE_ROWS):
        for j, cell in enumerate(row):
            c.drawString(72 + 90 * j, y, cell)
        if i == 0:
            c.line(72, y - 4, 420, y - 4)
        y -= 16
    c.line(72, y + 10, 420, y + 10)
    c.save()
    table = "\n".join("| " + " | ".join(r) + " |" for r in [SMOKE_ROWS[0], ["---"] * 4, *SMOKE_ROWS[1:]])
    (papers / "smoke.md").write_text("# A Small Paper\n\n## Results (tables from the paper)\n\n"
                                     f"**Table I: Precision, recall and time**\n\n{table}\n", encoding="utf-8")
    return pdfs, papers


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pdfs", type=Path, default=REAL / "pdfs")
    ap.add_argument("--papers", type=Path, default=REAL / "papers")
    ap.add_argument("--readers", default="copilot,pypdf,pdfplumber,pymupdf,camelot")
    ap.add_argument("--extra-path", type=Path, help="a folder of optional reader libraries (appended to sys.path)")
    ap.add_argument("--held-out", default="23shades,tracesplitter", help="papers measured only, totalled apart")
    ap.add_argument("--only", default="", help="comma-separated paper ids to measure (default: all)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--smoke", action="store_true",
                    help="the review's reader on a one-page paper generated here; fails unless its table is read whole")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    if args.smoke:
        import tempfile

        args.pdfs, args.papers = smoke_inputs(Path(tempfile.mkdtemp(prefix="paper-reading-")))
        args.readers, args.held_out = "copilot", ""
    if args.extra_path:
        sys.path.append(str(args.extra_path))
    held = set(filter(None, args.held_out.split(",")))
    only = set(filter(None, args.only.split(",")))
    pdfs = [p for p in sorted(args.pdfs.glob("*.pdf")) if (args.papers / f"{p.stem}.md").is_file()
            and (not only or p.stem in only)]
    results: dict[str, dict[str, Score]] = {}
    for name in args.readers.split(","):
        try:
            reader = READERS[name]
            if name not in ("copilot", "pypdf"):
                __import__({"pymupdf": "pymupdf"}.get(name, name))
        except (KeyError, ImportError) as exc:
            print(f"{name}: skipped ({exc})", file=sys.stderr)
            continue
        results[name] = {p.stem: measure(reader, p, transcribed(args.papers / f"{p.stem}.md")) for p in pdfs}
    if args.json:
        print(json.dumps({r: {k: vars(s) for k, s in per.items()} for r, per in results.items()}, indent=1))
        return 0
    for name, per in results.items():
        print(f"{name}:")
        for pid, s in per.items():
            print(_line(pid + (" (held out)" if pid in held else ""), s))
        for group, ids in (("tuned", [k for k in per if k not in held]), ("held out", [k for k in per if k in held])):
            if ids:
                print(_line(f"= {group}", _total([per[k] for k in ids])))
    if args.smoke:
        got = results["copilot"]["smoke"]
        return 0 if got.found == got.tables == 1 and got.read == got.cells > 0 else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
