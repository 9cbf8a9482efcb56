"""Opening a PDF paper (pypdf: encryption, broken files, the title in its metadata) and the plain-text reading
kept as the fallback for a PDF the layout reader cannot open: pypdf's text with aligned-text table parsing."""
from __future__ import annotations

import io
import logging
import re
from pathlib import Path

from ..errors import CopilotError
from ..tables import Table, parse_tables

_NOT_A_TITLE = re.compile(r"(?i)^untitled|^microsoft word -|\.(?:pdf|dvi|ps|tex|docx?|odt|rtf)$")
"""Metadata titles that name a file or a template, not the paper ('Tracesplitter_Eurosys21.pdf')."""


class PaperError(CopilotError):
    exit_code = 2


def open_pdf(p: Path, data: bytes):
    """The pypdf reader of a PDF that can be read, and its metadata title; a `PaperError` otherwise."""
    from pypdf import PasswordType, PdfReader

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # its repair warnings are not the user's business
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            try:
                opened = reader.decrypt("")
            except Exception:  # noqa: BLE001 - e.g. AES without the optional crypto dependency
                opened = PasswordType.NOT_DECRYPTED
            if not opened:
                raise PaperError(f"paper {p} is an encrypted PDF that cannot be opened without a password",
                                 hint="pass a decrypted copy or the LaTeX sources")
        if not list(reader.pages):
            raise PaperError(f"paper {p} is a corrupt PDF: no pages could be read", hint="re-download the PDF")
        info = reader.metadata
        title = (info.get("/Title") if info else None) or ""
    except PaperError:
        raise
    except Exception as exc:  # noqa: BLE001 - pypdf raises many types on broken files
        detail = (str(exc).splitlines() or ["unreadable"])[0][:80]
        raise PaperError(f"paper {p} is a corrupt PDF ({type(exc).__name__}: {detail})",
                         hint="re-download the PDF") from None
    title = " ".join(title.split()) if isinstance(title, str) else ""
    return reader, title if len(title.split()) > 1 and not _NOT_A_TITLE.search(title) else ""


def _extract(page, mode: str | None) -> str:
    try:
        return (page.extract_text(extraction_mode=mode) if mode else page.extract_text()) or ""
    except Exception:  # noqa: BLE001 - one bad page should not lose the paper
        return ""


def pypdf_pages(reader) -> tuple[list[str], list[Table]]:
    """Each page's text, and the tables found in aligned text (layout mode keeps column gaps as spaces)."""
    texts, tables = [], []
    for page in reader.pages:
        plain = _extract(page, None)
        texts.append(plain)
        for t in parse_tables(_extract(page, "layout") or plain):
            if t.label or len(t.numeric_cells()) >= 2:
                tables.append(t)
    return texts, tables


def pypdf_tables(path: Path) -> list[Table]:
    """The fallback reading's tables of the PDF at `path` (for measuring it against the layout reader)."""
    reader, _ = open_pdf(path, path.read_bytes())
    return pypdf_pages(reader)[1]
