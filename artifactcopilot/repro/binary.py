"""Numbers stored in binary results files, read without running anything the file holds.

.npy/.npz are parsed from their header; pickles (.pkl, .joblib) are disassembled with pickletools
(never unpickled: unpickling runs code), their raw buffers read as float64/int64 arrays; .xlsx is
read from its sheet XML; SQLite files are opened read-only; .parquet/.feather/.h5 only when pyarrow /
h5py happen to be installed. The method judge asks whether a table's values are all in a file.
"""
from __future__ import annotations

import ast
import gzip
import io
import math
import pickletools
import re
import sqlite3
import struct
import zipfile
import zlib
from array import array
from pathlib import Path

from ..tables import Table, parse_number
from .static import readable_text

MAX_BYTES = 50_000_000
MAX_VALUES = 2_000_000
BINARY_SUFFIXES = (".pkl", ".pickle", ".joblib", ".npy", ".npz", ".xlsx", ".db", ".sqlite", ".sqlite3", ".parquet",
                   ".feather", ".arrow", ".h5", ".hdf5")
_NPY_TYPES = {"f8": "d", "f4": "f", "i8": "q", "i4": "i", "i2": "h", "i1": "b",
              "u8": "Q", "u4": "I", "u2": "H", "u1": "B"}


def numbers(path: Path) -> list[float] | None:
    """The numbers a results file stores, or None when its format cannot be read here."""
    try:
        if path.stat().st_size > MAX_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    suffix = path.suffix.lower()
    try:
        if suffix == ".npy" or data[:6] == b"\x93NUMPY":
            return _npy(data)
        if suffix == ".npz":
            return _npz(data)
        if suffix in (".pkl", ".pickle", ".joblib") or data[:1] == b"\x80":
            return _pickle(data)
        if suffix == ".xlsx":
            return _xlsx(data)
        if suffix in (".db", ".sqlite", ".sqlite3") or data[:16] == b"SQLite format 3\x00":
            return _sqlite(path)
        if suffix in (".parquet", ".feather", ".arrow"):
            return _arrow(path, suffix)
        if suffix in (".h5", ".hdf5"):
            return _hdf5(path)
    except (ValueError, KeyError, IndexError, struct.error, zipfile.BadZipFile, sqlite3.Error, OSError, EOFError,
            SyntaxError, MemoryError, RecursionError, TypeError):
        return None
    text = readable_text(path, 2_000_000)
    return [float(n) for n in re.findall(r"[-+]?\d+\.?\d*(?:[eE][-+]?\d+)?", text)[:MAX_VALUES]] if text else None


def holds(target: Table, values: list[float] | None, limit_factor: int = 60) -> bool:
    """True when every numeric cell of `target` is among `values` at its printed precision (or as a fraction of it),
    and the file is not so large that the cells could be there by chance."""
    cells = [target.rows[r][c] for r, c in target.numeric_cells()]
    if not values or not cells or len(values) > max(400, limit_factor * len(cells)):
        return False
    finite = [v for v in values if math.isfinite(v)]
    for cell in cells:
        p = parse_number(cell)
        if p is None:
            continue
        want = round(p.value, p.decimals)
        if not any(round(v, p.decimals) == want or round(v * 100, p.decimals) == want for v in finite):
            return False
    return True


def _npy(data: bytes) -> list[float] | None:
    if data[:6] != b"\x93NUMPY":
        return None
    major = data[6]
    if major == 1:
        (hlen,), start = struct.unpack("<H", data[8:10]), 10
    else:
        (hlen,), start = struct.unpack("<I", data[8:12]), 12
    header = ast.literal_eval(data[start:start + hlen].decode("latin-1"))
    descr = str(header.get("descr", ""))
    code = _NPY_TYPES.get(descr[1:])
    if code is None or "O" in descr:
        return None
    arr = array(code)
    body = data[start + hlen:]
    body = body[: len(body) - len(body) % arr.itemsize]
    arr.frombytes(body[: MAX_VALUES * arr.itemsize])
    if descr[0] == ">":
        arr.byteswap()
    return [float(x) for x in arr]


def _npz(data: bytes) -> list[float] | None:
    out: list[float] = []
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        for name in zf.namelist()[:100]:
            part = _npy(zf.read(name)[:MAX_BYTES])
            if part:
                out += part
    return out or None


def _pickle(data: bytes) -> list[float] | None:
    for unpack in (lambda b: b, zlib.decompress, gzip.decompress):
        try:
            raw = unpack(data)
        except (zlib.error, OSError, EOFError):
            continue
        if raw[:1] != b"\x80" and raw[:1] not in (b"(", b"]", b"}"):
            continue
        values: list[float] = []
        for op, arg, _pos in pickletools.genops(raw):
            if isinstance(arg, bool) or arg is None:
                continue
            if isinstance(arg, (int, float)) and op.name not in ("PROTO", "FRAME", "BINGET", "LONG_BINGET", "BINPUT",
                                                                 "LONG_BINPUT", "MEMOIZE", "GET", "PUT"):
                values.append(float(arg))
            elif isinstance(arg, (bytes, bytearray)) and len(arg) % 8 == 0 and len(arg) <= MAX_BYTES:
                doubles = array("d")
                doubles.frombytes(bytes(arg))
                values += [v for v in doubles if math.isfinite(v) and (v == 0 or 1e-12 < abs(v) < 1e15)]
                longs = array("q")
                longs.frombytes(bytes(arg))
                values += [float(v) for v in longs if abs(v) < 10**12]
            elif isinstance(arg, str) and len(arg) < 64 and re.fullmatch(r"[-+]?\d+\.?\d*", arg.strip()):
                values.append(float(arg))
            if len(values) > MAX_VALUES:
                break
        return values
    return None


def _xlsx(data: bytes) -> list[float] | None:
    from xml.etree import ElementTree

    out: list[float] = []
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        for name in zf.namelist():
            if name.startswith("xl/worksheets/") and name.endswith(".xml") and zf.getinfo(name).file_size < MAX_BYTES:
                root = ElementTree.fromstring(zf.read(name))
                for v in root.iter():
                    if v.tag.endswith("}v") and v.text and re.fullmatch(r"[-+]?\d+\.?\d*(?:[eE][-+]?\d+)?", v.text):
                        out.append(float(v.text))
    return out


def _sqlite(path: Path) -> list[float] | None:
    out: list[float] = []
    con = sqlite3.connect(f"file:{path.resolve().as_posix()}?mode=ro&immutable=1", uri=True)
    try:
        con.execute("PRAGMA trusted_schema=OFF")
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall()[:50]]
        for t in tables:
            for row in con.execute(f'SELECT * FROM "{t.replace(chr(34), "")}" LIMIT 20000'):
                out += [float(v) for v in row if isinstance(v, (int, float)) and not isinstance(v, bool)]
    finally:
        con.close()
    return out


def _arrow(path: Path, suffix: str) -> list[float] | None:
    try:
        import pyarrow.parquet as pq
        from pyarrow import feather
    except ImportError:
        return None
    table = pq.read_table(path) if suffix == ".parquet" else feather.read_table(path)
    out: list[float] = []
    for col in table.columns:
        out += [float(v) for v in col.to_pylist() if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return out


def _hdf5(path: Path) -> list[float] | None:
    try:
        import h5py
    except ImportError:
        return None
    out: list[float] = []
    with h5py.File(path, "r") as f:
        def visit(_name, obj):
            if isinstance(obj, h5py.Dataset) and obj.dtype.kind in "fiu" and obj.size < MAX_VALUES:
                out.extend(float(v) for v in obj[()].ravel())
        f.visititems(visit)
    return out
