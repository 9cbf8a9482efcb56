"""What a file really is, from its first bytes — an HTML error page is not a zip, whatever its name."""
from __future__ import annotations

import re

HEAD_BYTES = 512
ARCHIVE_KINDS = {"zip", "gzip", "xz", "bzip2", "tar"}
# Suffix -> the magic its content must have.
EXPECTED_BY_SUFFIX = ((".tar.gz", "gzip"), (".tgz", "gzip"), (".tar.xz", "xz"), (".txz", "xz"),
                      (".tar.bz2", "bzip2"), (".tbz2", "bzip2"), (".zip", "zip"), (".tar", "tar"), (".gz", "gzip"),
                      (".7z", "7z"), (".pdf", "pdf"))
EXPECTED_BY_TYPE = {"application/zip": "zip", "application/x-zip-compressed": "zip", "application/gzip": "gzip",
                    "application/x-gzip": "gzip", "application/x-xz": "xz", "application/x-tar": "tar",
                    "application/x-bzip2": "bzip2", "application/pdf": "pdf"}
_HTML = re.compile(rb"^\s*(<!--.*?-->\s*)*<(!doctype\s+html|html|head|body|title)[\s>]", re.I | re.S)


def sniff(head: bytes) -> str:
    """Kind of content from its first bytes: zip, gzip, xz, bzip2, tar, 7z, pdf, html, json, text, binary, empty."""
    if not head:
        return "empty"
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")):
        return "zip"
    if head.startswith(b"\x1f\x8b"):
        return "gzip"
    if head.startswith(b"\xfd7zXZ\x00"):
        return "xz"
    if head.startswith(b"BZh"):
        return "bzip2"
    if head.startswith(b"7z\xbc\xaf\x27\x1c"):
        return "7z"
    if head.startswith(b"%PDF"):
        return "pdf"
    if len(head) >= 262 and head[257:262] == b"ustar":
        return "tar"
    text = head.lstrip(b"\xef\xbb\xbf")
    if _HTML.match(text):
        return "html"
    if text.lstrip()[:1] in (b"{", b"[") and b"\x00" not in text:
        return "json"
    if b"\x00" not in text:
        try:
            text.decode("utf-8")
            return "text"
        except UnicodeDecodeError as exc:  # a multi-byte char cut at the end of the head is still text
            if exc.start >= len(text) - 3:
                return "text"
    return "binary"


def expected_kind(name: str) -> str | None:
    lower = name.lower()
    return next((kind for suffix, kind in EXPECTED_BY_SUFFIX if lower.endswith(suffix)), None)


def content_problem(name: str, content_type: str, head: bytes, expect_archive: bool = False) -> str | None:
    """Why this content is not the file it claims to be, or None when it is consistent."""
    kind = sniff(head)
    ctype = (content_type or "").split(";")[0].strip().lower()
    if kind == "empty":
        return "the response body is empty"
    if kind == "html" and not name.lower().endswith((".html", ".htm", ".xhtml")):
        return f"the response is an HTML page (Content-Type: {ctype or 'none'}), not the artifact file"
    wanted = expected_kind(name)
    if wanted and kind != wanted and not (wanted == "tar" and kind in ARCHIVE_KINDS):
        return f"{name} should be {wanted} data but its content is {kind} (first bytes {head[:8]!r})"
    claimed = EXPECTED_BY_TYPE.get(ctype)
    if claimed and kind != claimed:
        return f"the server says {ctype} but the content is {kind} (first bytes {head[:8]!r})"
    if expect_archive and kind not in ARCHIVE_KINDS:
        return f"expected an archive but the content is {kind} (Content-Type: {ctype or 'none'})"
    return None
