"""The paper's title as a review reads it (the report's title): for a PDF, the lines its first page sets in large type,
else a metadata title that is not a file name, else a first line that reads as a title; when none can be read, the
file name stands for it and the reason is said. PDFs drawn here with reportlab, as tests/test_paper_pdf_layouts.py
does."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("reportlab")

from reportlab.lib.pagesizes import letter  # noqa: E402
from reportlab.pdfgen.canvas import Canvas  # noqa: E402

from artifactcopilot.acquire.paper import load_paper, paper_title  # noqa: E402

W, H = letter
BODY = ("We shard a key-value cache by request class and show that the hit rate stays high while the tail latency "
        "stays flat as the load grows on three production traces").split()


def pdf(path: Path, lines: list[tuple[float, str]], metadata_title: str | None = None) -> Path:
    """One page: each (font size, text) on its own line from the top, then 10 pt body text."""
    c = Canvas(str(path), pagesize=letter)
    if metadata_title is not None:
        c.setTitle(metadata_title)
    y = 60.0
    for size, text in lines:
        c.setFont("Times-Roman", size)
        c.drawCentredString(W / 2, H - y - size, text)
        y += size * 1.3
    c.setFont("Times-Roman", 10)
    for i in range(40):
        c.drawString(72, H - y - 30 - 12 * i, " ".join(BODY[(i * 5) % 20:(i * 5) % 20 + 12]))
    c.showPage()
    c.save()
    return path


def test_a_two_line_title_set_large_wins_over_a_metadata_file_name(tmp_path):
    path = pdf(tmp_path / "paper.pdf", [(20, "Sharded Caches Keep Tail"), (20, "Latency Flat"),
                                         (12, "Ada Lovelace  Charles Babbage"), (10, "University of Somewhere")],
               metadata_title="Shardcache_Eurosys25.pdf")
    assert paper_title(load_paper(path)) == ("Sharded Caches Keep Tail Latency Flat", "")


def test_a_metadata_title_stands_when_no_line_is_set_large(tmp_path):
    path = pdf(tmp_path / "paper.pdf", [(10, "2401.01234v2 [cs.DC] 12 Jan 2024")],
               metadata_title="Sharded Caches Keep Tail Latency Flat")
    assert load_paper(path).title == "Sharded Caches Keep Tail Latency Flat"


@pytest.mark.parametrize("metadata", [None, "Microsoft Word - draft3.docx", "main.dvi", "Untitled"])
def test_without_a_readable_title_the_file_name_stands_for_it_and_says_why(tmp_path, metadata):
    # every line in body type, the first an arXiv stamp: nothing reads as a title
    path = pdf(tmp_path / "shard-cache.pdf", [(10, "2401.01234v2 [cs.DC] 12 Jan 2024")], metadata_title=metadata)
    title, note = paper_title(load_paper(path))
    assert title == "shard-cache.pdf"
    assert note == ("No title could be read from the paper (neither the PDF's first page nor its metadata gives "
                    "one); the title is its file name.")


def test_a_markdown_paper_without_a_title_heading_is_named_by_its_file_name(tmp_path):
    path = tmp_path / "notes.md"
    path.write_text("## Abstract\n\nWe shard a cache.\n\n## 1 Introduction\n\nCaches matter.\n", encoding="utf-8")
    assert paper_title(load_paper(path)) == (
        "notes.md", "No title could be read from the paper (the Markdown file has no title heading); the title is "
                    "its file name.")
    path.write_text("## Sharded Caches\n\n## Abstract\n\nWe shard a cache.\n", encoding="utf-8")
    assert paper_title(load_paper(path)) == ("Sharded Caches", "")  # a first heading that is not a section's
