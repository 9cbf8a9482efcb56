"""Reading a PDF paper by its layout: the text of each page in reading order, every captioned table as a grid
with its label, caption and page, and the figure captions. pdfplumber (MIT) gives the words, their boxes and
the rules; a PDF it cannot read falls back to pypdf's plain text (`pdftext`), with a note saying so."""
from __future__ import annotations

import io
import logging
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import Field

from ..tables import Table
from .pdflayout import drop_furniture, layout, reading_text, title_of
from .pdftables import Found, continuation, find_tables
from .pdftables import figures as figure_captions
from .pdftext import PaperError, open_pdf, pypdf_pages


class PdfTable(Table):
    """A table read from a PDF: the page it is on rides along, out of the serialized table."""
    page: int | None = Field(None, exclude=True)
    marks: list[str] = Field(default_factory=list, exclude=True, description="Footnote marks set apart.")


@dataclass
class PdfReading:
    title: str
    pages: list[str]
    tables: list[Table]
    figures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def read_pdf(p: Path, data: bytes) -> PdfReading:
    reader, title = open_pdf(p, data)
    try:
        reading = _layout_reading(data)
    except PaperError:
        raise
    except Exception as exc:  # noqa: BLE001 - pdfminer raises many types on odd files; the fallback still reads
        texts, tables = pypdf_pages(reader)
        reading = PdfReading("", texts, list(tables), notes=[
            f"the layout reader could not read this PDF ({type(exc).__name__}); text and tables come from its "
            "plain text, so tables may be incomplete"])
    if not "".join(reading.pages).strip():
        raise PaperError(f"paper {p}: image-only PDF: no text could be extracted",
                         hint="pass the LaTeX sources or an OCRed PDF")
    reading.title = reading.title or title  # the title as printed, else the metadata's
    return reading


def _layout_reading(data: bytes) -> PdfReading:
    import pdfplumber

    logging.getLogger("pdfminer").setLevel(logging.ERROR)
    pages: list[str] = []
    found: list[Found] = []
    figures: list[str] = []
    with pdfplumber.open(io.BytesIO(data), password="") as pdf:
        layouts, unread = [], []
        for number, page in enumerate(pdf.pages, 1):
            try:
                layouts.append(layout(page, number))
            except Exception:  # noqa: BLE001 - one unreadable page should not lose the paper
                unread.append(number)
            finally:
                page.close()  # frees the page's parsed objects: memory stays flat on long papers
    if unread and not layouts:
        raise ValueError("no page could be read")
    title = title_of(layouts[0]) if layouts[0].number == 1 else ""  # before running heads are dropped
    drop_furniture(layouts)
    ending: list[Found] = []
    for lay in layouts:
        try:
            tables = find_tables(lay)
        except (ValueError, IndexError, ZeroDivisionError, statistics.StatisticsError):  # an odd page keeps its text
            tables, unread = [], [*unread, lay.number]
        taken = {id(w) for t in tables for ln in t.lines for w in ln.words}
        for last in ending:
            rest = continuation(lay, last.side, taken)
            if rest is not None and len(rest.header) == len(last.header):
                last.rows += [r for r in ([rest.header] if any(rest.header) else []) + rest.rows
                              if r != last.header]
                taken |= {id(w) for ln in rest.lines for w in ln.words}
        captions, drawn = figure_captions(lay)
        taken |= {id(w) for ln in drawn for w in ln.words}
        pages.append(reading_text([ln for ln in lay.lines if not all(id(w) in taken for w in ln.words)]))
        found += tables
        ending = [t for t in tables if t.at_bottom]
        figures += captions
    notes = [f"page(s) {', '.join(map(str, sorted(unread)))} could not be read in full"] if unread else []
    return PdfReading(title, pages, [_table(t) for t in _join(found)], figures, notes)


def _join(found: list[Found]) -> list[Found]:
    """One table per label: a table continued on a later page (same label, same columns) is appended to it;
    of two grids with one label on a page, the larger is kept."""
    out: dict[str, Found] = {}
    for t in found:
        first = out.get(t.label)
        if first is None:
            out[t.label] = t
        elif t.page > first.page and (t.continued or len(t.header) == len(first.header)):
            first.rows += t.rows
        elif sum(map(len, t.rows)) > sum(map(len, first.rows)):
            out[t.label] = t
    return list(out.values())


def _table(t: Found) -> Table:
    caption = re.sub(r"^(?:TABLE|Table|Tab\.)\s*[0-9IVXLC]+\s*[:.|]?\s*", "", t.caption)
    return PdfTable(label=t.label, caption=caption, header=t.header, rows=t.rows, page=t.page, marks=t.marks)
