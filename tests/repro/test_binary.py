"""Numbers of binary results files, read without running anything the files hold."""
from __future__ import annotations

import io
import pickle
import sqlite3
import struct
import zipfile

from artifactcopilot.repro import binary
from artifactcopilot.tables import parse_tables

TABLE = parse_tables("| Model | Acc | F1 |\n|---|---|---|\n| A | 0.8327 | 0.8014 |\n| B | 0.9133 | 0.8891 |\n")[0]
VALUES = [0.83271, 0.80139, 0.91333, 0.88912]


def npy(values: list[float], shape: tuple[int, ...]) -> bytes:
    header = f"{{'descr': '<f8', 'fortran_order': False, 'shape': {shape}, }}"
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    return (b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode()
            + struct.pack(f"<{len(values)}d", *values))


def test_npy_and_npz(tmp_path):
    (tmp_path / "t.npy").write_bytes(npy(VALUES, (2, 2)))
    assert binary.numbers(tmp_path / "t.npy") == VALUES
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("acc.npy", npy(VALUES[:2], (2,)))
        zf.writestr("f1.npy", npy(VALUES[2:], (2,)))
    (tmp_path / "t.npz").write_bytes(buf.getvalue())
    assert sorted(binary.numbers(tmp_path / "t.npz")) == sorted(VALUES)
    assert binary.holds(TABLE, binary.numbers(tmp_path / "t.npy"))


class Boom:
    def __reduce__(self):
        return (open, ("/tmp/copilot-pickle-must-not-run", "w"))


def test_pickles_are_disassembled_never_unpickled(tmp_path):
    (tmp_path / "rows.pkl").write_bytes(pickle.dumps([("A", 0.8327, 0.8014), ("B", 0.9133, 0.8891)]))
    assert binary.holds(TABLE, binary.numbers(tmp_path / "rows.pkl"))
    (tmp_path / "evil.pkl").write_bytes(pickle.dumps({"x": Boom(), "acc": 0.5}))
    assert 0.5 in binary.numbers(tmp_path / "evil.pkl")
    assert not (tmp_path / "copilot-pickle-must-not-run").exists()
    import os

    assert not os.path.exists("/tmp/copilot-pickle-must-not-run")


def test_sqlite_and_xlsx(tmp_path):
    con = sqlite3.connect(tmp_path / "r.db")
    con.execute("create table t (m text, acc real, f1 real)")
    con.executemany("insert into t values (?,?,?)", [("A", 0.8327, 0.8014), ("B", 0.9133, 0.8891)])
    con.commit()
    con.close()
    assert binary.holds(TABLE, binary.numbers(tmp_path / "r.db"))
    sheet = ('<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
             + "".join(f'<row><c><v>{v}</v></c></row>' for v in VALUES) + "</sheetData></worksheet>")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("xl/worksheets/sheet1.xml", sheet)
    (tmp_path / "t.xlsx").write_bytes(buf.getvalue())
    assert binary.numbers(tmp_path / "t.xlsx") == VALUES


def test_percent_scale_and_size_limits(tmp_path):
    percent = parse_tables("| Model | Acc (%) |\n|---|---|\n| A | 83.27 |\n| B | 91.33 |\n")[0]
    assert binary.holds(percent, [0.8327, 0.9133])
    assert not binary.holds(TABLE, [0.8327, 0.8014])  # a missing cell
    assert not binary.holds(TABLE, [v / 1000 for v in range(100_000)])  # raw data holds anything by chance


def test_corrupt_or_unknown_files_give_none(tmp_path):
    (tmp_path / "bad.npy").write_bytes(b"\x93NUMPY\x01\x00\xff\xff{garbage")
    (tmp_path / "bad.pkl").write_bytes(b"\x80\x04\x95garbage")
    (tmp_path / "bad.db").write_bytes(b"SQLite format 3\x00" + b"\x00" * 50)
    (tmp_path / "bad.xlsx").write_bytes(b"PK\x03\x04 not a zip")
    for name in ("bad.npy", "bad.db", "bad.xlsx", "missing.npy"):
        assert binary.numbers(tmp_path / name) is None, name
    assert binary.numbers(tmp_path / "bad.pkl") in (None, [])
