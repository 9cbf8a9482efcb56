"""File I/O the other modules share: hashes, crash-safe writes, JSON lines, and decoding text of unknown encoding.

Atomic writes go through a temp file in the same folder, fsync and rename (or link, when the file must not exist
yet), so a crash never leaves half a file. A caller that commits many files at once writes them with `sync=False`
(still atomic: a killed process never leaves half a file) and makes them durable together with `sync_files`
before its commit point (group commit: one fsync per file and one per folder instead of two per write).
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from .errors import EvidenceError


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sync_files(paths: Iterable[Path]) -> None:
    """fsync each file, then each of their folders once: makes writes done with sync=False durable."""
    folders: dict[Path, None] = {}
    for path in paths:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:  # gone since (moved away, discarded): nothing to make durable
            continue
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        folders[path.parent] = None
    for folder in folders:
        _fsync_dir(folder)


def atomic_write(path: Path, data: bytes | str, exclusive: bool = False, sync: bool = True) -> None:
    """Write via a temp file in the same folder; with exclusive=True an existing file is an error. sync=False
    skips the fsyncs (see `sync_files`)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if sync:
                os.fsync(fh.fileno())
        if exclusive:
            try:
                os.link(tmp, path)  # fails if the target exists: no silent overwrite
            except FileExistsError:
                raise EvidenceError(f"refusing to rewrite committed file {path}") from None
        else:
            os.replace(tmp, path)
        if sync:
            _fsync_dir(path.parent)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def append_line(path: Path, record: dict, sync: bool = True) -> None:
    """Append one JSON line and fsync (unless sync=False, see `sync_files`), so a committed record survives a crash."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(record, sort_keys=True) + "\n")
        fh.flush()
        if sync:
            os.fsync(fh.fileno())


def read_jsonl(path: Path, label: str) -> tuple[list[dict], list[str]]:
    """The JSON objects of a JSON-lines file, and one problem per line that is not one (a torn line too)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""
    except OSError as exc:
        return [], [f"{label} is unreadable ({exc.strerror})"]
    out, problems = [], []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            obj = None
        if isinstance(obj, dict):
            out.append(obj)
        else:
            problems.append(f"{label} line {n} does not parse")
    return out, problems


def looks_binary(data: bytes) -> bool:
    """NUL bytes or many control characters in the first 8 KiB (UTF-16 text counts as text)."""
    sample = data[:8192]
    if sample.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16 text has NULs but is text
        return False
    control = sum(b < 32 and b not in (9, 10, 12, 13) for b in sample)
    return b"\x00" in sample or control > len(sample) * 0.05


def decode_text(data: bytes) -> str:
    """UTF-16 by its BOM, else UTF-8 (BOM dropped), else latin-1: a text file always decodes."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:  # old LaTeX sources are often latin-1
        return data.decode("latin-1")
