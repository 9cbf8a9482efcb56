"""Safe archive extraction: no path traversal, no links out of the root, caps against bombs."""
from __future__ import annotations

import os
import shutil
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..errors import AcquisitionError

ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2", ".tbz2")


@dataclass
class ExtractLimits:
    max_total_bytes: int = 4 * 1024**3
    """Largest total uncompressed size accepted."""
    max_files: int = 100_000
    """Most members accepted."""
    max_ratio: float = 200.0
    """Largest uncompressed/compressed ratio before the archive counts as a bomb."""


def is_archive(path: Path) -> bool:
    name = path.name.lower()
    return name.endswith(ARCHIVE_SUFFIXES) or zipfile.is_zipfile(path) or _is_tar(path)


def _is_tar(path: Path) -> bool:
    try:
        return path.is_file() and tarfile.is_tarfile(path)
    except OSError:
        return False


def _safe_name(name: str) -> PurePosixPath | None:
    pure = PurePosixPath(name.replace("\\", "/"))
    if pure.is_absolute() or any(part == ".." for part in pure.parts) or not pure.parts:
        return None
    return pure


def extract(archive: Path, dest: Path, limits: ExtractLimits | None = None) -> list[str]:
    """Extract into dest (created). Returns notes on members that were skipped and why."""
    limits = limits or ExtractLimits()
    dest.mkdir(parents=True, exist_ok=True)
    compressed = max(1, archive.stat().st_size)
    try:
        if zipfile.is_zipfile(archive):
            return _extract_zip(archive, dest, limits, compressed)
        if _is_tar(archive):
            return _extract_tar(archive, dest, limits, compressed)
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError, ValueError) as exc:
        shutil.rmtree(dest, ignore_errors=True)
        raise AcquisitionError(f"archive {archive.name} is corrupt or truncated: {exc}") from None
    raise AcquisitionError(f"{archive.name} is not a zip or tar archive")


def _check_totals(total: int, count: int, limits: ExtractLimits, compressed: int, name: str) -> None:
    if count > limits.max_files:
        raise AcquisitionError(f"archive {name} has more than {limits.max_files} members (limit)")
    if total > limits.max_total_bytes:
        raise AcquisitionError(f"archive {name} expands to more than {limits.max_total_bytes} bytes (limit)")
    if total > 10 * 1024**2 and total / compressed > limits.max_ratio:
        raise AcquisitionError(f"archive {name} expands {total // compressed}x — treated as an archive bomb")


def _extract_zip(archive: Path, dest: Path, limits: ExtractLimits, compressed: int) -> list[str]:
    notes = []
    with zipfile.ZipFile(archive) as zf:
        members = zf.infolist()
        _check_totals(sum(m.file_size for m in members), len(members), limits, compressed, archive.name)
        for member in members:
            safe = _safe_name(member.filename)
            mode = (member.external_attr >> 16) & 0o170000
            if safe is None:
                notes.append(f"skipped unsafe path {member.filename!r}")
                continue
            if mode == 0o120000:  # zip entries can be symlinks; never materialise them
                notes.append(f"skipped symlink {member.filename!r}")
                continue
            target = dest / safe
            if member.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            written = 0
            with zf.open(member) as src, open(target, "wb") as out:
                for chunk in iter(lambda: src.read(1 << 20), b""):
                    written += len(chunk)
                    if written > member.file_size + 1024:  # lying header: stop a bomb mid-stream
                        raise AcquisitionError(f"archive {archive.name}: member {member.filename} exceeds its declared size")
                    out.write(chunk)
    return notes


def _extract_tar(archive: Path, dest: Path, limits: ExtractLimits, compressed: int) -> list[str]:
    notes = []
    with tarfile.open(archive) as tf:
        members = tf.getmembers()
        _check_totals(sum(m.size for m in members if m.isfile()), len(members), limits, compressed, archive.name)
        safe_members = []
        for member in members:
            if _safe_name(member.name) is None:
                notes.append(f"skipped unsafe path {member.name!r}")
                continue
            if member.issym() or member.islnk():
                target = PurePosixPath(member.name).parent / member.linkname
                if member.linkname.startswith("/") or ".." in PurePosixPath(os.path.normpath(str(target))).parts:
                    notes.append(f"skipped link {member.name!r} -> {member.linkname!r} (points outside the artifact)")
                    continue
            if not (member.isfile() or member.isdir() or member.issym() or member.islnk()):
                notes.append(f"skipped special file {member.name!r}")
                continue
            safe_members.append(member)
        # The 'data' filter (PEP 706) is a second line of defence: it rejects anything we missed.
        tf.extractall(dest, members=safe_members, filter="data")
    return notes
