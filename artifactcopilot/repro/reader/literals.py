"""Numbers written in a script: do they look like a table of measured results or like parameters?

`0.433`, `83.27`, `1398.4` look measured; `0.5`, `100`, `1e-3`, `64` look chosen. A literal source
is a table when its text parses as a table with numeric rows (Markdown, CSV, LaTeX, aligned
columns), or when enough measured-looking numbers reach an output without any computation.
"""
from __future__ import annotations

import base64
import binascii
import gzip
import re
import zlib

from ...tables import parse_number, parse_tables
from .model import Source
from .packed import readable, unpack_blob

NUMBER = re.compile(r"(?<![\w.$%{])[-+]?(?:\d+\.\d+|\d+|\.\d+)(?:[eE][-+]?\d+)?%?(?![\w.}])")
BASE64 = re.compile(r"[A-Za-z0-9+/]{40,}={0,2}")
HEX = re.compile(r"\b(?:[0-9a-fA-F]{2}){24,}\b")
_EXPANSION = re.compile(r"\$\{[^}]*\}|\$\([^)]*\)|\$\w+|%[-+ #0]*\d*(?:\.\d+)?[sdfegx]|\{[^{}]*\}")


def irregular(text: str) -> bool:
    """A number that looks measured rather than chosen (a parameter, count of runs, seed, power of two)."""
    p = parse_number(text)
    if p is None:
        return False
    v = abs(p.value)
    if p.decimals >= 2:  # 0.433, 0.99, 1.15 are measured; 0.05, 0.25, 0.300, 2.50 are chosen
        scaled = round(v * 10 ** p.decimals)
        return scaled % 5 != 0 or (v >= 1 and scaled % 25 != 0)
    if p.decimals == 1:  # 83.3, 1398.4 are measured; 8.2, 0.5, 12.5, 1307.0 are not told apart from chosen ones
        tenths = round(v * 10) % 10
        return tenths != 0 and (v >= 100 or (v >= 10 and tenths != 5))
    n = int(v)
    if n < 100 or n & (n - 1) == 0 or 1900 <= n <= 2100:  # small counts, powers of two, years
        return False
    return n % 10 != 0 if n < 1900 else n % 100 != 0


def count(numbers: list[str]) -> tuple[int, int]:
    """(how many numbers, how many irregular), distinct values only."""
    distinct = list(dict.fromkeys(n.strip() for n in numbers if n.strip()))
    return len(distinct), sum(irregular(n) for n in distinct)


def table_text(text: str) -> bool:
    """The text holds a table of numbers: at least two rows with numeric cells, four numeric cells in all."""
    if len(text) > 200_000:
        text = text[:200_000]
    cleaned = _EXPANSION.sub(" ", text)
    for t in parse_tables(cleaned):
        cells = t.numeric_cells()
        if len(cells) >= 4 and len({r for r, _ in cells}) >= 2:
            return True
    return False


def decodings(text: str) -> list[tuple[str, str]]:
    """(encoding, decoded text) of the base64 / hex blobs in `text` (also gzip- or zlib-compressed); a blob wrapped
    over several lines is also decoded whole."""
    out = []
    if _blob_lines(text):
        whole = unpack_blob(text)
        if whole is not None:
            out.append(whole)
    for kind, pattern, decode in (("base64", BASE64,
                                   lambda s: base64.b64decode(s + "=" * (-len(s) % 4), validate=True)),
                                  ("hex", HEX, bytes.fromhex)):
        for blob in pattern.findall(text)[:20]:
            try:
                raw = decode(blob)
            except (binascii.Error, ValueError):
                continue
            for unpack, name in ((lambda b: b, kind), (gzip.decompress, f"gzip+{kind}"),
                                 (zlib.decompress, f"zlib+{kind}")):
                try:
                    out.append((name, unpack(raw)[:1_000_000].decode("utf-8")))
                    break
                except (OSError, zlib.error, UnicodeDecodeError, EOFError):
                    continue
    return out


def _blob_lines(text: str) -> bool:
    """Every line of the text is one long run of base64 or hex characters (a blob wrapped over lines)."""
    lines = [ln.strip() for ln in text.strip().split("\n") if ln.strip()]
    return bool(lines) and sum(map(len, lines)) >= 24 and all(re.fullmatch(r"[A-Za-z0-9+/=_-]+", ln) for ln in lines) \
        and (len(lines) == 1 or all(len(ln) >= 40 for ln in lines[:-1]))


def text_source(text: str, how: str) -> Source | None:
    """A literal source for text a script writes out (echo, printf, heredoc, a string constant), or None without
    numbers. Blobs are read decoded: their numbers are the script's numbers in another spelling."""
    for kind, decoded in decodings(text) if len(text) >= 24 else []:
        if table_text(decoded):
            return Source(kind="literal", how=f"{how} ({kind}-encoded)", numbers=len(NUMBER.findall(decoded)),
                          table=True)
        found = NUMBER.findall(_EXPANSION.sub(" ", decoded)) if readable(decoded.encode()) else []
        if found:
            n, irr = count(found)
            return Source(kind="literal", how=f"{how} ({kind}-encoded)", numbers=n, irregular=irr)
    cleaned = _EXPANSION.sub(" ", text)
    nums = NUMBER.findall(cleaned)
    if not nums:
        return None
    n, irr = count(nums)
    return Source(kind="literal", how=how, numbers=n, irregular=irr, table=table_text(text))


def numbers_source(numbers: list[str], how: str) -> Source | None:
    """A literal source for numbers in code (a dict or list of results) that reach an output."""
    if not numbers:
        return None
    n, irr = count(numbers)
    return Source(kind="literal", how=how, numbers=n, irregular=irr, table=n >= 4 and irr >= 2)


def strong(source: Source) -> bool:
    """A literal that is a table of results by itself, whatever else the script does."""
    return source.kind == "literal" and (source.table or (source.numbers >= 4 and source.irregular >= 2))


def weak(source: Source) -> bool:
    """Literal numbers that would be results only if nothing else in the script computes anything."""
    return source.kind == "literal" and (source.irregular >= 1 or source.numbers >= 3)
