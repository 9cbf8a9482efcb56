"""Figure formats by their magic bytes, and the structural checks that tell a real figure from a stub.

Each check reads only the start and the end of a file, except PDF, whose pages are counted with
pypdf (a dependency already), so compressed object streams are understood too.
"""
from __future__ import annotations

import logging
import re
import struct
from pathlib import Path

HEAD = 65536
TAIL = 4096

Check = tuple[bool, str, dict]  # (valid, reason, details such as pages, width, height)

_SVG_ROOT = re.compile(rb"<svg[\s>]", re.IGNORECASE)
_SVG_DRAWING = re.compile(rb"<(?:path|rect|circle|ellipse|line|polyline|polygon|text|image|use|g)[\s>/]", re.IGNORECASE)


def detect(head: bytes) -> str | None:
    """The format the content is in, whatever the file name says."""
    if head.startswith(b"%PDF-"):
        return "pdf"
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if head.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "gif"
    if head.startswith((b"II*\x00", b"MM\x00*")):
        return "tiff"
    if head.startswith((b"%!PS", b"\xc5\xd0\xd3\xc6")):
        return "eps"
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith((b"<?xml", b"<svg", b"<!--", b"<!DOCTYPE svg", b"<!doctype svg")) and _SVG_ROOT.search(head):
        return "svg"
    return None


def _pdf(head: bytes, tail: bytes, path: Path) -> Check:
    if b"%%EOF" not in tail:
        return False, "truncated PDF: no %%EOF marker at the end", {}
    try:
        from pypdf import PdfReader

        logging.getLogger("pypdf").setLevel(logging.ERROR)
        with path.open("rb") as fh:
            pages = len(PdfReader(fh, strict=False).pages)
    except Exception as exc:  # noqa: BLE001 - any parser failure means "not a readable PDF"
        return False, f"unreadable PDF: {type(exc).__name__}: {str(exc)[:120]}", {}
    if pages < 1:
        return False, "PDF without any page", {"pages": 0}
    return True, f"PDF with {pages} page(s)", {"pages": pages}


def _png(head: bytes, tail: bytes, path: Path) -> Check:
    if len(head) < 33 or head[12:16] != b"IHDR":
        return False, "PNG without an IHDR header", {}
    width, height = struct.unpack(">II", head[16:24])
    if not width or not height:
        return False, f"PNG of size {width}x{height}", {"width": width, "height": height}
    if b"IEND" not in tail[-16:]:
        return False, "truncated PNG: no IEND chunk at the end", {"width": width, "height": height}
    if b"IDAT" not in head + tail:
        return False, "PNG without image data (IDAT)", {"width": width, "height": height}
    return True, f"PNG {width}x{height}", {"width": width, "height": height}


def _jpeg(head: bytes, tail: bytes, path: Path) -> Check:
    if b"\xff\xd9" not in tail:
        return False, "truncated JPEG: no end-of-image marker", {}
    return True, "JPEG image", {}


def _gif(head: bytes, tail: bytes, path: Path) -> Check:
    width, height = struct.unpack("<HH", head[6:10]) if len(head) >= 10 else (0, 0)
    if not width or not height:
        return False, f"GIF of size {width}x{height}", {}
    if not tail.rstrip(b"\x00").endswith(b";"):
        return False, "truncated GIF: no trailer", {"width": width, "height": height}
    return True, f"GIF {width}x{height}", {"width": width, "height": height}


def _tiff(head: bytes, tail: bytes, path: Path) -> Check:
    fmt = "<I" if head.startswith(b"II") else ">I"
    offset = struct.unpack(fmt, head[4:8])[0] if len(head) >= 8 else 0
    if not 8 <= offset < path.stat().st_size:
        return False, "TIFF whose first image directory lies outside the file (truncated?)", {}
    return True, "TIFF image", {}


def _eps(head: bytes, tail: bytes, path: Path) -> Check:
    if head.startswith(b"\xc5\xd0\xd3\xc6"):  # DOS EPS binary header around the PostScript
        return (True, "EPS (binary header)", {}) if len(head) > 32 else (False, "truncated EPS", {})
    if b"%%EOF" not in tail and b"showpage" not in tail and b"%%Trailer" not in tail:
        return False, "truncated PostScript: no %%EOF, %%Trailer or showpage at the end", {}
    return True, "PostScript/EPS", {}


def _svg(head: bytes, tail: bytes, path: Path) -> Check:
    if not re.search(rb"</svg\s*>\s*$", tail, re.IGNORECASE):
        return False, "truncated SVG: no closing </svg> at the end", {}
    if not _SVG_DRAWING.search(head + tail):
        return False, "SVG without any drawing element", {}
    return True, "SVG drawing", {}


CHECKS = {"pdf": _pdf, "png": _png, "jpeg": _jpeg, "gif": _gif, "tiff": _tiff, "eps": _eps, "svg": _svg}
EXTENSIONS = {".pdf": "pdf", ".png": "png", ".jpg": "jpeg", ".jpeg": "jpeg", ".gif": "gif", ".tif": "tiff",
              ".tiff": "tiff", ".eps": "eps", ".ps": "eps", ".svg": "svg"}
