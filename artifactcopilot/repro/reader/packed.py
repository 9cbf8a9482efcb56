"""Values packed inside the script and unpacked when it runs: a here-document through `base64 -d`,
`python3 -m base64 -d`, `xxd -r`, `openssl base64 -d` or `uudecode`, `printf` escapes (`\\x30`, `\\060`), and
strings a Python script decodes (`base64.b64decode`, `bytes.fromhex`, `zlib.decompress`).

What a decoder prints is the script's own text in another spelling: the reader reads it unpacked, so its numbers
count as numbers written in the script.
"""
from __future__ import annotations

import base64
import binascii
import bz2
import gzip
import lzma
import re
import zlib

from .model import Source

# Command-line decoders, with the options that make them decode (an empty set: they always decode).
DECODERS: dict[str, set[str]] = {"base64": {"-d", "--decode", "-D"}, "base32": {"-d", "--decode"},
                                 "basenc": {"-d", "--decode"}, "xxd": {"-r", "-revert"}, "uudecode": set(),
                                 "openssl": {"-d"}}
# Options naming the file a decoder reads (in) or writes (out).
DECODER_FILES: dict[str, dict[str, str]] = {"openssl": {"-in": "in", "-out": "out"},
                                            "uudecode": {"-o": "out", "--output-file": "out"},
                                            "base64": {"-o": "out", "--output": "out", "--input": "in"}}
# `python3 -m MODULE`: standard-library modules whose command line decodes like the tool of the same job.
PYTHON_DECODERS = {"base64": "base64", "uu": "uudecode", "quopri": "base64"}
_PRINTABLE = re.compile(r"[\x20-\x7e\t\n\r\u00a0-\uffff]")
_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{4}|0[0-7]{0,3}|[1-7][0-7]{0,2}|[nt\\])")


def decodes(tool: str, argv: list[str]) -> bool:
    """The command decodes its input (`base64 -d`, `xxd -r -p`), rather than encoding or showing it."""
    flags = DECODERS.get(tool)
    if flags is None:
        return False
    if not flags:
        return True
    args = argv[1:]
    if tool == "openssl":
        return bool(args) and args[0] in ("base64", "enc") and "-d" in args
    return any(a in flags or (re.fullmatch(r"-[a-zA-Z]+", a) is not None and any(f[1:] in a[1:] for f in flags
                                                                                    if len(f) == 2))
               for a in args)


def unescape(text: str) -> str:
    """printf's (and `echo -e`'s) escapes decoded: `\\x30\\x2e\\x34` -> `0.4`."""
    def one(m: re.Match) -> str:
        code = m.group(1)
        if code in ("n", "t", "\\"):
            return {"n": "\n", "t": "\t", "\\": "\\"}[code]
        if code[0] in "xu":
            return chr(int(code[1:], 16))
        return chr(int(code, 8) & 0xFF)

    return _ESCAPE.sub(one, text)


def escaped(text: str) -> bool:
    """The text spells its characters as escapes (`\\x7c\\x20...`) rather than writing them."""
    return len(re.findall(r"\\(?:x[0-9a-fA-F]{2}|[0-7]{3}|u[0-9a-fA-F]{4})", text)) >= 4


def readable(data: bytes) -> str | None:
    """The bytes as text when they are mostly printable UTF-8 (decoded numbers, not noise)."""
    try:
        text = data[:1_000_000].decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not text.strip() or len(_PRINTABLE.findall(text)) < 0.95 * len(text):
        return None
    return text


def _inflate(data: bytes) -> tuple[str, bytes]:
    for name, unpack in (("gzip", gzip.decompress), ("zlib", zlib.decompress), ("bzip2", bz2.decompress),
                         ("xz", lzma.decompress)):
        try:
            return name, unpack(data)
        except (OSError, zlib.error, EOFError, ValueError, lzma.LZMAError):
            continue
    return "", data


def unpack_blob(text: str) -> tuple[str, str] | None:
    """(encoding, text) of a whole blob written in the script (whitespace and line breaks ignored): base64 or hex,
    possibly compressed; None when it does not decode to readable text."""
    blob = re.sub(r"\s+", "", text)
    if len(blob) < 8:
        return None
    tries = []
    if re.fullmatch(r"(?:[0-9a-fA-F]{2})+", blob):
        tries.append(("hex", lambda: bytes.fromhex(blob)))
    if re.fullmatch(r"[A-Za-z0-9+/_-]+={0,2}", blob):
        tries.append(("base64", lambda: base64.b64decode(blob + "=" * (-len(blob) % 4), altchars=b"-_"
                                                         if ("-" in blob or "_" in blob) else None, validate=True)))
    if re.fullmatch(r"[A-Z2-7]+=*", blob):
        tries.append(("base32", lambda: base64.b32decode(blob + "=" * (-len(blob) % 8))))
    for kind, decode in tries:
        try:
            raw = decode()
        except (binascii.Error, ValueError):
            continue
        packed, raw = _inflate(raw)
        found = readable(raw)
        if found is not None:
            return (f"{packed}+{kind}" if packed else kind), found
    return None


def uudecoded(text: str) -> str | None:
    """The text of a `begin 644 name ... end` block."""
    lines = text.strip().split("\n")
    if not lines or not lines[0].startswith("begin "):
        return None
    out = b""
    for line in lines[1:]:
        if line.strip() in ("", "`", "end"):
            continue
        try:
            out += binascii.a2b_uu(line)
        except binascii.Error:
            return None
    return readable(out)


def xxd_dump(text: str) -> str | None:
    """The text of an `xxd` dump (`00000000: 7c20 546f  | To`), as `xxd -r` rebuilds it."""
    hexes = []
    for line in text.strip().split("\n"):
        m = re.match(r"\s*[0-9a-fA-F]+:\s((?:[0-9a-fA-F]{2,4}\s?)+)", line)
        if not m:
            return None
        hexes.append(re.sub(r"\s+", "", m.group(1)))
    try:
        return readable(bytes.fromhex("".join(hexes)))
    except ValueError:
        return None


def unpacked_text(text: str, tool: str) -> Source:
    """What a decoder makes of a here-document: the script's own text, read decoded (no numbers when it does not
    decode here: still text the script carries)."""
    from .literals import text_source

    decoded = uudecoded(text) if tool == "uudecode" or text.lstrip().startswith("begin ") else None
    kind = "uuencoded"
    if decoded is None and tool == "xxd":
        decoded, kind = xxd_dump(text), "xxd dump"
    if decoded is None:
        found = unpack_blob(text)
        if found is not None:
            kind, decoded = found
    how = f"{tool} decodes a here-document"
    if decoded is None:
        return Source(kind="literal", how=f"{how} (not readable here)")
    src = text_source(decoded, f"{how} ({kind})")
    return src or Source(kind="literal", how=f"{how} ({kind})")
