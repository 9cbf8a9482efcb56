"""Acquire an artifact into a reviewable folder, logging every step as gate evidence.

This module handles local directories, local archives, single files and file:// URLs.
"""
from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

from ..errors import AcquisitionError
from .entry import effective_root
from .extract import ExtractLimits, extract, is_archive


@dataclass
class Acquisition:
    source: str
    root: Path | None = None
    kind: str = ""
    steps: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.root is not None and bool(self.files) and self.error is None

    def to_dict(self) -> dict:
        return {"source": self.source, "kind": self.kind, "root": str(self.root) if self.root else None,
                "steps": self.steps, "file_count": len(self.files), "files": self.files[:5000],
                "skipped": self.skipped, "error": self.error}


def list_files(root: Path, limit: int = 100_000) -> tuple[list[str], list[str]]:
    """Relative paths of regular files under root, without following links out of it."""
    files, skipped = [], []
    root = root.resolve()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in (".git",) and not (Path(dirpath) / d).is_symlink())
        for name in sorted(filenames):
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                target = path.resolve()
                if not (root in target.parents):
                    skipped.append(f"symlink {rel} -> {os.readlink(path)} points outside the artifact (not followed)")
                    continue
            files.append(rel)
            if len(files) >= limit:
                return files, skipped
    return files, skipped


def acquire(source: str, workdir: Path, limits: ExtractLimits | None = None) -> Acquisition:
    """Resolve `source` to a folder. Never raises for a bad artifact: the error is in the result."""
    acq = Acquisition(source=source)
    try:
        path = _local_path(source, acq)
        if not path.exists():
            raise AcquisitionError(f"artifact path {path} does not exist")
        if path.is_dir():
            acq.kind = "directory"
            acq.steps.append(f"local directory {path}")
            root = path
        elif is_archive(path):
            acq.kind = "archive"
            dest = workdir / "artifact"
            shutil.rmtree(dest, ignore_errors=True)
            acq.steps.append(f"extracting archive {path.name} ({path.stat().st_size} bytes) into {dest}")
            acq.skipped += extract(path, dest, limits)
            root = dest
        elif path.is_file():
            acq.kind = "file"
            dest = workdir / "artifact"
            shutil.rmtree(dest, ignore_errors=True)
            dest.mkdir(parents=True)
            shutil.copy2(path, dest / path.name)
            acq.steps.append(f"single file {path.name} copied into {dest}")
            root = dest
        else:
            raise AcquisitionError(f"artifact path {path} is neither a file nor a directory")
        if not os.access(root, os.R_OK | os.X_OK):
            raise AcquisitionError(f"artifact folder {root} is not readable")
        root = effective_root(root)
        acq.root = root.resolve()
        acq.files, skipped = list_files(acq.root)
        acq.skipped += skipped
        acq.steps.append(f"listed {len(acq.files)} files under {acq.root}")
        if not acq.files:
            acq.error = "the artifact contains no files"
    except AcquisitionError as exc:
        acq.error = str(exc)
        acq.root = None
    except OSError as exc:
        acq.error = f"could not read the artifact: {exc.strerror or exc}"
        acq.root = None
    return acq


def _local_path(source: str, acq: Acquisition) -> Path:
    parsed = urlparse(source)
    if parsed.scheme == "file":
        acq.steps.append(f"file URL resolved to {unquote(parsed.path)}")
        return Path(unquote(parsed.path)).expanduser()
    if parsed.scheme in ("http", "https", "ftp", "doi"):
        raise AcquisitionError(f"remote artifact URLs are not supported by this version: {source} "
                               "(download it and pass the local path or archive)")
    return Path(source).expanduser().resolve()
