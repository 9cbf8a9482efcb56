"""Safe archive extraction: no path traversal, no links out of the root, caps against bombs."""
from __future__ import annotations

import lzma
import os
import shutil
import tarfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..errors import AcquisitionError
from .sniff import HEAD_BYTES, sniff

ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2", ".tbz2")


@dataclass
class ExtractLimits:
    max_total_bytes: int = 4 * 1024**3
    """Largest total uncompressed size accepted."""
    max_files: int = 100_000
    """Most members accepted."""
    max_ratio: float = 200.0
    """Largest uncompressed/compressed ratio before the archive counts as a bomb."""


NESTED_MAX = 50
"""Most archives inside an archive that are unpacked (one level deep)."""


def is_archive(path: Path) -> bool:
    return path.name.lower().endswith(ARCHIVE_SUFFIXES + (".7z",)) or archive_kind(path) is not None


def archive_kind(path: Path, name: str | None = None) -> str | None:
    """'zip', 'tar' (any compression) or '7z' from the content (and `name`, the file's name when `path` is a
    cache blob); None for anything else, a plain .gz too."""
    try:
        with open(path, "rb") as fh:
            kind = sniff(fh.read(HEAD_BYTES))
    except OSError:
        return None
    if kind in ("zip", "7z"):
        return kind
    if kind == "tar" or (kind in ("gzip", "xz", "bzip2")
                         and ((name or path.name).lower().endswith(ARCHIVE_SUFFIXES) or _is_tar(path))):
        return "tar"
    return None


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


def extract(archive: Path, dest: Path, limits: ExtractLimits | None = None, name: str | None = None) -> list[str]:
    """Extract into dest (created). Returns notes on members that were skipped and why.
    `name` is how the archive is called when `archive` is a cache blob (messages use it)."""
    limits = limits or ExtractLimits()
    dest.mkdir(parents=True, exist_ok=True)
    compressed = max(1, archive.stat().st_size)
    kind = archive_kind(archive, name)
    label = name or archive.name
    if kind == "7z":
        raise AcquisitionError(f"{label} is a 7z archive, which this version cannot unpack "
                               "(unpack it and pass the folder)")
    try:
        if kind == "zip":
            return _extract_zip(archive, dest, limits, compressed, label)
        if kind == "tar":
            return _extract_tar(archive, dest, limits, compressed, label)
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError, ValueError, zlib.error, lzma.LZMAError) as exc:
        shutil.rmtree(dest, ignore_errors=True)
        raise AcquisitionError(f"archive {label} is corrupt or truncated: {exc}") from None
    except AcquisitionError:
        shutil.rmtree(dest, ignore_errors=True)  # a refused bomb leaves nothing half-written
        raise
    with open(archive, "rb") as fh:
        content = sniff(fh.read(HEAD_BYTES))
    raise AcquisitionError(f"{label} is not a zip or tar archive (its content is {content})")


def extract_nested(root: Path, limits: ExtractLimits | None = None) -> list[str]:
    """Unpack archives found inside an unpacked artifact, one level deep, each into '<name>.contents/'
    beside the original (which stays, since the artifact's own instructions may unpack it)."""
    limits = limits or ExtractLimits()
    budget = limits.max_total_bytes - _tree_bytes(root)
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not (Path(dirpath) / d).is_symlink())
        found += [Path(dirpath) / n for n in sorted(filenames)
                  if not (Path(dirpath) / n).is_symlink() and archive_kind(Path(dirpath) / n) in ("zip", "tar")]
    notes = []
    for index, archive in enumerate(found):
        rel = archive.relative_to(root).as_posix()
        target = archive.with_name(archive.name + ".contents")
        if index >= NESTED_MAX:
            notes.append(f"nested archive {rel} not unpacked: more than {NESTED_MAX} nested archives")
            continue
        if target.exists() or budget <= 0:
            notes.append(f"nested archive {rel} not unpacked: "
                         + ("its folder exists" if target.exists() else "size limit reached"))
            continue
        try:
            inner = ExtractLimits(budget, limits.max_files, limits.max_ratio)
            notes += [f"{rel}: {n}" for n in extract(archive, target, inner)]
            notes.append(f"nested archive {rel} unpacked into {target.relative_to(root).as_posix()}/")
            budget -= _tree_bytes(target)
        except AcquisitionError as exc:
            notes.append(f"nested archive {rel} not unpacked: {exc}")
    return notes


def _tree_bytes(root: Path) -> int:
    total = 0
    for dirpath, _, filenames in os.walk(root):
        for name in filenames:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_size
            except OSError:
                pass
    return total


def _check_totals(total: int, count: int, limits: ExtractLimits, compressed: int, name: str) -> None:
    if count > limits.max_files:
        raise AcquisitionError(f"archive {name} has more than {limits.max_files} members (limit)")
    if total > limits.max_total_bytes:
        raise AcquisitionError(f"archive {name} expands to more than {limits.max_total_bytes} bytes (limit)")
    if total > 10 * 1024**2 and total / compressed > limits.max_ratio:
        raise AcquisitionError(f"archive {name} expands {total // compressed}x — treated as an archive bomb")


def _extract_zip(archive: Path, dest: Path, limits: ExtractLimits, compressed: int, label: str) -> list[str]:
    notes = []
    with zipfile.ZipFile(archive) as zf:
        members = zf.infolist()
        _check_totals(sum(m.file_size for m in members), len(members), limits, compressed, label)
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
                        raise AcquisitionError(f"archive {label}: member {member.filename} exceeds its declared size")
                    out.write(chunk)
    return notes


def _extract_tar(archive: Path, dest: Path, limits: ExtractLimits, compressed: int, label: str) -> list[str]:
    notes = []
    with tarfile.open(archive) as tf:
        members = tf.getmembers()
        _check_totals(sum(m.size for m in members if m.isfile()), len(members), limits, compressed, label)
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
