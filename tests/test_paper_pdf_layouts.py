"""PDF papers in the layouts real papers have, drawn here with reportlab: two columns of justified body text,
`TABLE III` captions above the grid (IEEE) and `Table 3:` captions below it, booktabs rules, multi-row
headers with a spanning cell, a table across both columns, a table continued on the next page, numbers
printed as `1,405,525`, `27.69%`, `0.92±0.01`, `27 (7%)` and superscript footnote marks."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("reportlab")
pytest.importorskip("pdfplumber")

from reportlab.lib.pagesizes import letter  # noqa: E402
from reportlab.pdfgen.canvas import Canvas  # noqa: E402

from artifactcopilot.acquire.paper import load_paper  # noqa: E402

W, H = letter
LEFT, RIGHT, COL = (54.0, 297.0), (315.0, 558.0), 243.0
WORDS = ("the sampler keeps every vertex of the graph in a cache that is aware of its neighbours so that each "
         "epoch reads fewer pages from memory and the model trains faster while the accuracy stays where it was "
         "before we measured this on three data sets and report the mean over five runs").split()


class Page:
    def __init__(self, canvas: Canvas):
        self.c = canvas
        self.k = 0

    def body(self, col: tuple[float, float], top: float, bottom: float) -> None:
        """Justified 10 pt body text filling a column from `top` down to `bottom` (points from the page top)."""
        y = top
        while y + 12 <= bottom:
            line: list[str] = []
            width = col[1] - col[0]
            while self.c.stringWidth(" ".join([*line, WORDS[self.k % len(WORDS)]]), "Times-Roman", 10) < width:
                line.append(WORDS[self.k % len(WORDS)])
                self.k += 1
            natural = self.c.stringWidth(" ".join(line), "Times-Roman", 10)
            t = self.c.beginText(col[0], H - y - 10)
            t.setFont("Times-Roman", 10)
            t.setWordSpace((col[1] - col[0] - natural) / max(1, len(line) - 1))
            t.textLine(" ".join(line))
            self.c.drawText(t)
            y += 12

    def text(self, x: float, y: float, s: str, size: float = 8, font: str = "Times-Roman", align: str = "l") -> None:
        self.c.setFont(font, size)
        base = H - y - size
        if align == "r":
            self.c.drawRightString(x, base, s)
        elif align == "c":
            self.c.drawCentredString(x, base, s)
        else:
            self.c.drawString(x, base, s)

    def mark(self, x: float, y: float, s: str) -> None:
        """A footnote mark right after a right-aligned number ending at x: smaller and raised."""
        self.c.setFont("Times-Roman", 5)
        self.c.drawString(x + 0.3, H - y - 8 + 3.5, s)

    def rule(self, x0: float, x1: float, y: float, width: float = 0.5) -> None:
        self.c.setLineWidth(width)
        self.c.line(x0, H - y, x1, H - y)


def _grid(p: Page, xs: list[tuple[float, str]], rows: list[list[str]], y: float, step: float = 10) -> float:
    """Rows of cells at column anchors (x, 'l'|'r'|'c'); returns the y below the last row."""
    for row in rows:
        for (x, align), cell in zip(xs, row):
            if cell:
                p.text(x, y, cell, align=align)
        y += step
    return y


def ieee_paper(path: Path) -> None:
    """Two columns; TABLE II in the right column beside body text, caption above in two lines; TABLE III across
    both columns at the top of page 2 with a spanning header over value/share columns."""
    c = Canvas(str(path), pagesize=letter)
    p = Page(c)
    p.text(W / 2, 50, "Cache-Aware Graph Sampling at Scale", size=18, align="c")
    p.body(LEFT, 100, 740)
    p.text(436, 100, "TABLE II", size=8, align="c")
    p.text(436, 110, "COLLECTED REPOSITORIES AND LINKS", size=8, align="c")
    p.rule(320, 553, 124)
    xs = [(322, "l"), (410, "r"), (470, "r"), (550, "r")]
    _grid(p, xs, [["language", "# repos", "# obtained", "# links"]], 127)
    p.rule(320, 553, 139)
    y = _grid(p, xs, [["C", "2,771", "2,482 (90%)", "1,602,156"], ["PHP", "3,279", "2,827 (86%)", "1,405,525"],
                      ["sum", "29,234", "25,925 (89%)", "9,654,702"]], 142)
    p.rule(320, 553, y + 2)
    p.body(RIGHT, y + 20, 740)
    c.showPage()
    p.text(W / 2, 50, "TABLE III", size=8, align="c")
    p.text(W / 2, 60, "FREQUENCY OF LINK TARGET TYPES IN OUR SAMPLE", size=8, align="c")
    p.rule(60, 552, 74)
    xs = [(62, "l"), (250, "r"), (275, "l"), (380, "r"), (405, "l"), (500, "r"), (525, "l")]
    _grid(p, [(62, "l"), (270, "c"), (400, "c"), (520, "c")], [["link target type", "common", "sometimes", "rare"]], 77)
    p.rule(60, 552, 89)
    y = _grid(p, xs, [["404", "27", "(7%)", "122", "(32%)", "138", "(37%)"],
                      ["license", "208", "(54%)", "4", "(1%)", "1", "(0%)"],
                      ["software homepage", "55", "(14%)", "65", "(17%)", "28", "(7%)"]], 92)
    p.rule(60, 552, y + 2)
    p.body(LEFT, y + 20, 740)
    p.body(RIGHT, y + 20, 740)
    c.showPage()
    c.save()


def acm_paper(path: Path) -> None:
    """Two columns; `Table 3:` caption below its grid in the left column with a two-row header (a spanning
    "Accuracy" over two settings), values like 27.69%, 0.92±0.01 and a footnote mark; a table at the bottom
    of the right column continued on the next page."""
    c = Canvas(str(path), pagesize=letter)
    p = Page(c)
    p.text(W / 2, 50, "Deprecated APIs in Python Libraries", size=18, align="c")
    p.body(LEFT, 90, 200)
    p.rule(58, 293, 214, 0.8)
    xs = [(60, "l"), (170, "r"), (230, "r"), (290, "r")]
    p.text(200, 217, "Accuracy", align="c")
    p.rule(150, 250, 227, 0.3)
    _grid(p, xs, [["Model", "clean", "noisy", "Time (s)"]], 229)
    p.rule(58, 293, 240, 0.3)
    y = _grid(p, xs, [["Ours", "27.69%", "0.92±0.01", "1,405"], ["Baseline", "21.30%", "0.81±0.02", "2,210"],
                      ["Random", "3.10%", "0.50±0.00", "12"]], 243)
    p.mark(170, 243, "a")
    p.rule(58, 293, y + 2, 0.8)
    p.text(60, y + 10, "Table 3: Accuracy of our sampler against the baselines.", size=9, font="Times-Bold")
    p.body(LEFT, y + 40, 740)
    p.body(RIGHT, 90, 600)
    p.text(320, 610, "Table 4: Run time per data set (s).", size=9, font="Times-Bold")
    p.rule(318, 555, 625, 0.8)
    xs4 = [(320, "l"), (450, "r"), (550, "r")]
    _grid(p, xs4, [["Data set", "Ours", "Baseline"]], 628)
    p.rule(318, 555, 640, 0.3)
    _grid(p, xs4, [["arxiv", "12.5", "30.1"], ["products", "88.0", "201.7"], ["papers", "1,204.3", "3,010.9"]], 643)
    c.showPage()
    p.text(320, 50, "Table 4: Run time per data set (s) (continued).", size=9, font="Times-Bold")
    p.rule(318, 555, 65, 0.8)
    _grid(p, xs4, [["Data set", "Ours", "Baseline"]], 68)
    p.rule(318, 555, 80, 0.3)
    y = _grid(p, xs4, [["reddit", "45.2", "99.9"], ["yelp", "7.7", "15.0"]], 83)
    p.rule(318, 555, y + 2, 0.8)
    p.body(RIGHT, y + 20, 740)
    p.body(LEFT, 50, 740)
    c.showPage()
    c.save()


def one_column_paper(path: Path) -> None:
    """One column (LNCS-like): `Table 1.` caption above a grid without rules; a body line that starts with
    "Table 1 shows" is a citation, not a caption."""
    c = Canvas(str(path), pagesize=letter)
    p = Page(c)
    p.text(W / 2, 50, "Sampling Graphs by Cache", size=16, align="c")
    p.body((90, 522), 90, 200)
    p.text(90, 206, "Table 1 shows our results on the three data sets against both baselines we ran.", size=10)
    p.body((90, 522), 222, 300)
    p.text(90, 312, "Table 1. Speedup over the baseline (higher is better).", size=9)
    xs = [(92, "l"), (300, "r"), (400, "r"), (500, "r")]
    _grid(p, xs, [["Data set", "1 core", "4 cores", "16 cores"]], 330, step=11)
    _grid(p, xs, [["arxiv", "1.0x", "3.1x", "9.8x"], ["products", "1.2x", "3.9x", "12.5x"]], 345, step=11)
    p.body((90, 522), 390, 700)
    c.showPage()
    c.save()


@pytest.fixture(scope="module")
def ieee(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("pdf") / "ieee.pdf"
    ieee_paper(path)
    return path


@pytest.fixture(scope="module")
def acm(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("pdf") / "acm.pdf"
    acm_paper(path)
    return path


def _table(paper, label):
    return next(t for t in paper.tables if t.label == label)


def test_roman_caption_above_in_one_column_beside_body_text(ieee):
    paper = load_paper(ieee)
    t = _table(paper, "Table II")
    assert t.caption == "COLLECTED REPOSITORIES AND LINKS"
    assert t.header == ["language", "# repos", "# obtained", "# links"]
    assert t.rows == [["C", "2,771", "2,482 (90%)", "1,602,156"], ["PHP", "3,279", "2,827 (86%)", "1,405,525"],
                      ["sum", "29,234", "25,925 (89%)", "9,654,702"]]
    assert t.page == 1


def test_table_across_both_columns_with_spanning_header_over_value_and_share(ieee):
    t = _table(load_paper(ieee), "Table III")
    assert t.header == ["link target type", "common", "sometimes", "rare"]
    assert t.rows[0] == ["404", "27 (7%)", "122 (32%)", "138 (37%)"]
    assert t.rows[2] == ["software homepage", "55 (14%)", "65 (17%)", "28 (7%)"]
    assert len(t.rows) == 3 and t.page == 2


def test_body_text_of_the_other_column_never_joins_a_table(ieee, acm):
    for path in (ieee, acm):
        for t in load_paper(path).tables:
            cells = " ".join(c for r in [t.header, *t.rows] for c in r)
            assert "sampler" not in cells and "neighbours" not in cells, (t.label, cells)


def test_caption_below_multirow_header_and_numbers_as_printed(acm):
    paper = load_paper(acm)
    t = _table(paper, "Table 3")
    assert t.caption == "Accuracy of our sampler against the baselines."
    assert t.header == ["Model", "Accuracy clean", "Accuracy noisy", "Time (s)"]
    assert t.rows[1] == ["Baseline", "21.30%", "0.81±0.02", "2,210"]
    assert t.rows[2] == ["Random", "3.10%", "0.50±0.00", "12"]


def test_footnote_mark_is_kept_apart_from_the_number(acm):
    from artifactcopilot.tables import parse_number

    cell = _table(load_paper(acm), "Table 3").rows[0][1]
    assert cell.startswith("27.69%")
    number = parse_number(cell)
    assert number is not None and number.value == 27.69 and number.percent


def test_table_continued_on_the_next_page_is_one_table(acm):
    paper = load_paper(acm)
    [t] = [t for t in paper.tables if t.label == "Table 4"]
    assert [r[0] for r in t.rows] == ["arxiv", "products", "papers", "reddit", "yelp"]
    assert t.rows[2] == ["papers", "1,204.3", "3,010.9"]


def test_table_text_is_not_read_as_body_text(acm):
    paper = load_paper(acm)
    assert "0.92±0.01" not in paper.text
    assert "Table 3: Accuracy of our sampler" in paper.text  # the caption stays, for sentences that cite it


def test_copilot_paper_json_shows_what_a_review_reads(acm):
    from artifactcopilot.cli import app

    result = CliRunner().invoke(app, ["paper", str(acm), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    t = next(t for t in data["tables"] if t["label"] == "Table 3")
    assert t["page"] == 1 and t["header"][1] == "Accuracy clean" and t["rows"][0][0] == "Ours"
    assert {"title", "tables", "numbers", "figures", "sections"} <= set(data)


def test_copilot_paper_text_lists_tables(ieee):
    from artifactcopilot.cli import app

    result = CliRunner().invoke(app, ["paper", str(ieee)])
    assert result.exit_code == 0, result.output
    assert "Table II" in result.stdout and "1,405,525" in result.stdout


@pytest.mark.parametrize("name,content,message", [
    ("missing.pdf", None, "does not exist"),
    ("scan.pdf", "image", "image-only PDF"),
])
def test_copilot_paper_bad_input_is_one_line_exit_2(tmp_path, name, content, message):
    from artifactcopilot.cli import app

    path = tmp_path / name
    if content == "image":
        c = Canvas(str(path), pagesize=letter)
        c.rect(100, 100, 200, 200, fill=1)
        c.showPage()
        c.save()
    result = CliRunner().invoke(app, ["paper", str(path)])
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output


def test_one_column_caption_with_period_and_a_citation_that_is_no_caption(tmp_path):
    path = tmp_path / "lncs.pdf"
    one_column_paper(path)
    paper = load_paper(path)
    [t] = paper.tables
    assert (t.label, t.caption) == ("Table 1", "Speedup over the baseline (higher is better).")
    assert t.header == ["Data set", "1 core", "4 cores", "16 cores"]
    assert t.rows == [["arxiv", "1.0x", "3.1x", "9.8x"], ["products", "1.2x", "3.9x", "12.5x"]]
    assert "Table 1 shows our results" in paper.text


def test_pdf_the_layout_reader_cannot_read_falls_back_to_plain_text(ieee, monkeypatch):
    from artifactcopilot.acquire import pdfread

    def broken(page, number):
        raise KeyError("an odd font")

    monkeypatch.setattr(pdfread, "layout", broken)
    paper = load_paper(ieee)
    assert "Cache-Aware Graph Sampling" in paper.text
    assert any("layout reader could not read this PDF" in n for n in paper.notes)


def test_table_going_on_at_the_top_of_the_next_page_without_a_caption(tmp_path):
    path = tmp_path / "longtable.pdf"
    c = Canvas(str(path), pagesize=letter)
    p = Page(c)
    p.body(LEFT, 60, 740)
    p.body(RIGHT, 60, 640)
    p.text(320, 650, "Table 5: Accuracy per data set.", size=9, font="Times-Bold")
    p.rule(318, 555, 665, 0.8)
    xs = [(320, "l"), (450, "r"), (550, "r")]
    _grid(p, xs, [["Data set", "Ours", "Baseline"]], 668)
    p.rule(318, 555, 680, 0.3)
    _grid(p, xs, [["arxiv", "91.2", "88.0"], ["products", "79.5", "75.1"], ["papers", "66.0", "61.3"]], 683)
    c.showPage()
    _grid(p, xs, [["Data set", "Ours", "Baseline"]], 60)
    p.rule(318, 555, 72, 0.3)
    y = _grid(p, xs, [["reddit", "95.4", "93.3"], ["yelp", "64.2", "60.0"]], 75)
    p.rule(318, 555, y + 2, 0.8)
    p.body(RIGHT, y + 20, 740)
    p.body(LEFT, 60, 740)
    c.showPage()
    c.save()
    [t] = load_paper(path).tables
    assert t.header == ["Data set", "Ours", "Baseline"]
    assert [r[0] for r in t.rows] == ["arxiv", "products", "papers", "reddit", "yelp"]
    assert t.rows[-1] == ["yelp", "64.2", "60.0"]


def test_value_and_spread_set_as_two_columns_are_one_cell(tmp_path):
    path = tmp_path / "spread.pdf"
    c = Canvas(str(path), pagesize=letter)
    p = Page(c)
    p.body((90, 522), 60, 200)
    p.text(90, 210, "Table 2: Accuracy over five runs.", size=9)
    p.rule(88, 400, 225)
    xs = [(92, "l"), (250, "r"), (258, "l"), (350, "r"), (358, "l")]
    _grid(p, [(92, "l"), (270, "c"), (370, "c")], [["Model", "clean", "noisy"]], 228)
    p.rule(88, 400, 240)
    y = _grid(p, xs, [["Ours", "0.92", "±0.01", "0.88", "±0.03"], ["Baseline", "0.81", "±0.02", "0.70", "±0.05"]], 243)
    p.rule(88, 400, y + 2)
    p.body((90, 522), y + 20, 700)
    c.showPage()
    c.save()
    [t] = load_paper(path).tables
    assert t.header == ["Model", "clean", "noisy"]
    assert t.rows == [["Ours", "0.92 ±0.01", "0.88 ±0.03"], ["Baseline", "0.81 ±0.02", "0.70 ±0.05"]]


def test_running_heads_do_not_join_a_table_at_the_top_of_a_page(tmp_path):
    path = tmp_path / "heads.pdf"
    c = Canvas(str(path), pagesize=letter)
    p = Page(c)
    xs = [(60, "l"), (200, "r"), (290, "r")]
    for number in (1, 2, 3):
        p.text(54, 30, "Graph Sampling by Cache", size=8)
        p.text(558, 30, "Conference '26, June 2026, Somewhere", size=8, align="r")
        p.text(W / 2, 760, str(number), size=8, align="c")
        if number == 2:
            p.rule(58, 293, 50, 0.8)
            _grid(p, xs, [["Model", "Recall", "F1"]], 53)
            p.rule(58, 293, 65, 0.3)
            y = _grid(p, xs, [["Ours", "0.91", "0.88"], ["Baseline", "0.85", "0.80"]], 68)
            p.rule(58, 293, y + 2, 0.8)
            p.text(60, y + 10, "Table 2: Recall and F1 on the test split.", size=9, font="Times-Bold")
            p.body(LEFT, y + 40, 740)
        else:
            p.body(LEFT, 50, 740)
        p.body(RIGHT, 50, 740)
        c.showPage()
    c.save()
    [t] = load_paper(path).tables
    assert t.header == ["Model", "Recall", "F1"]
    assert t.rows == [["Ours", "0.91", "0.88"], ["Baseline", "0.85", "0.80"]]
