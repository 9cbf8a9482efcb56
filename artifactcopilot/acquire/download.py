"""Acquire an artifact into a reviewable folder, logging every step as gate evidence.

Local directories, local archives, single files and file:// URLs are read in place (archives are
unpacked into the run dir). Remote links (GitHub, Zenodo, Figshare, DOIs, direct HTTP(S)) are resolved
through the host's API (hosts.py), downloaded with verification into the cache (http.py, cache.py)
and unpacked into the run dir. Nothing is written outside `workdir` and the cache dir.
"""
from __future__ import annotations

import http.client
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlparse

from ..errors import AcquisitionError
from .entry import effective_root, locate_entry
from .extract import ARCHIVE_SUFFIXES, ExtractLimits, archive_kind, extract, extract_nested, is_archive
from .hosts import is_remote, resolve
from .http import HttpClient
from .settings import DownloadSettings


@dataclass
class Acquisition:
    source: str
    root: Path | None = None
    kind: str = ""
    steps: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    error: str | None = None
    resolution: list[dict] = field(default_factory=list)
    """How the link was resolved, hop by hop (DOI -> record -> API listing -> file URLs)."""
    listing: list[dict] = field(default_factory=list)
    """The files the host declared, with sizes and checksums."""
    downloads: list[dict] = field(default_factory=list)
    """One record per downloaded file: url, status, bytes, sha256, md5 check, cache hit or miss, error."""
    requests: list[dict] = field(default_factory=list)
    """Every HTTP request (and cache use) with status or error and attempt number."""
    cache_dir: str | None = None
    entry: str | None = None
    linked: list[dict] = field(default_factory=list)
    """Submodules and linked repositories acquired into the artifact (acquire/union.py): url, placed, ok, error."""

    @property
    def ok(self) -> bool:
        return self.root is not None and bool(self.files) and self.error is None

    def to_dict(self) -> dict:
        return {"source": self.source, "kind": self.kind, "root": str(self.root) if self.root else None,
                "steps": self.steps, "resolution": self.resolution, "listing": self.listing[:1000],
                "downloads": self.downloads, "requests": self.requests[:500], "cache_dir": self.cache_dir,
                "entry": self.entry, "file_count": len(self.files), "files": self.files[:5000],
                "skipped": self.skipped, "error": self.error, "linked": self.linked}


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
                if root not in target.parents:
                    skipped.append(f"symlink {rel} -> {os.readlink(path)} points outside the artifact (not followed)")
                    continue
            files.append(rel)
            if len(files) >= limit:
                return files, skipped
    return files, skipped


def acquire(source: str, workdir: Path, limits: ExtractLimits | None = None, cache_dir: Path | None = None,
            settings: DownloadSettings | None = None, offline: bool = False) -> Acquisition:
    """Resolve `source` to a folder. Never raises for a bad artifact: the error is in the result. `offline`: a remote
    artifact only from the download cache."""
    acq = Acquisition(source=source)
    try:
        if is_remote(source):
            settings = settings or DownloadSettings.from_env(cache_dir, offline=offline)
            acq.cache_dir = str(settings.cache_dir)
            root = _acquire_remote(source, workdir, limits, settings, acq)
        else:
            root = _acquire_local(source, workdir, limits, acq)
        if not os.access(root, os.R_OK | os.X_OK):
            raise AcquisitionError(f"artifact folder {root} is not readable")
        acq.root = root.resolve()
        acq.files, skipped = list_files(acq.root)
        acq.skipped += skipped
        acq.steps.append(f"listed {len(acq.files)} files under {acq.root}")
        if not acq.files:
            acq.error = "the artifact contains no files"
        else:
            acq.entry = locate_entry(acq.root, acq.files)
    except AcquisitionError as exc:
        acq.error = str(exc)
        acq.root = None
    except OSError as exc:
        acq.error = f"could not read the artifact: {exc.strerror or exc}"
        acq.root = None
    except (ValueError, KeyError, TypeError, AttributeError, http.client.HTTPException) as exc:
        # a host answering in an unexpected shape is a bad artifact link, not a crash of the review
        acq.error = f"unexpected answer while acquiring {source}: {type(exc).__name__}: {exc}"
        acq.root = None
    return acq


def _acquire_local(source: str, workdir: Path, limits: ExtractLimits | None, acq: Acquisition) -> Path:
    path = _local_path(source, acq)
    if not path.exists():
        raise AcquisitionError(f"artifact path {path} does not exist")
    if path.is_dir():
        acq.kind = "directory"
        acq.steps.append(f"local directory {path}")
        return effective_root(path)
    dest = workdir / "artifact"
    shutil.rmtree(dest, ignore_errors=True)
    if is_archive(path):
        acq.kind = "archive"
        acq.steps.append(f"extracting archive {path.name} ({path.stat().st_size} bytes) into {dest}")
        acq.skipped += extract(path, dest, limits)
        acq.skipped += extract_nested(dest, limits)
    elif path.is_file():
        acq.kind = "file"
        dest.mkdir(parents=True)
        shutil.copy2(path, dest / path.name)
        acq.steps.append(f"single file {path.name} copied into {dest}")
    else:
        raise AcquisitionError(f"artifact path {path} is neither a file nor a directory")
    return effective_root(dest)


def _acquire_remote(source: str, workdir: Path, limits: ExtractLimits | None, settings: DownloadSettings,
                    acq: Acquisition) -> Path:
    client = HttpClient(settings)
    try:
        res = resolve(source, client, settings, acq.resolution)
        acq.kind, acq.listing = res.kind, res.listing
        acq.steps.append(f"{res.label}: {len(res.files)} file(s) to fetch")
        fetched = []
        for remote in res.files:
            blob, rec = client.download(remote, res.label)
            fetched.append((blob, rec["name"]))
            acq.steps.append(f"{'cached' if rec['cache'] == 'hit' else 'downloaded'} {rec['name']} "
                             f"({rec['bytes']} bytes, sha256 {rec['sha256'][:12]}) from {remote.url}")
    except OSError as exc:
        if str(exc.filename or "").startswith(str(settings.cache_dir)):
            raise AcquisitionError(f"the download cache {settings.cache_dir} is not usable ({exc.strerror or exc}) "
                                   "— pass --cache-dir or set ARTIFACTCOPILOT_CACHE_DIR") from None
        raise
    finally:
        acq.downloads, acq.requests = client.downloads, client.requests
    dest = workdir / "artifact"
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    _lay_out(fetched, dest, limits, acq)
    root = effective_root(dest)
    if res.subpath:
        sub = (root / res.subpath).resolve()
        if not (sub.is_dir() and root.resolve() in sub.parents):
            raise AcquisitionError(f"{res.label}: folder {res.subpath!r} is not in the downloaded source")
        acq.steps.append(f"artifact folder {res.subpath} inside the source")
        root = sub
    return root


def _lay_out(fetched: list[tuple[Path, str]], dest: Path, limits: ExtractLimits | None, acq: Acquisition) -> None:
    """One archive becomes the artifact folder; several files sit side by side, archives unpacked into '<stem>/'."""
    if len(fetched) == 1 and archive_kind(*fetched[0]):
        blob, name = fetched[0]
        acq.steps.append(f"extracting {name} into {dest}")
        acq.skipped += extract(blob, dest, limits, name)
    else:
        used: set[str] = set()
        for blob, name in fetched:
            if archive_kind(blob, name):
                folder = _unique(_stem(name), used)
                acq.steps.append(f"extracting {name} into {folder}/")
                acq.skipped += extract(blob, dest / folder, limits, name)
            else:
                target = _unique(name, used)
                shutil.copyfile(blob, dest / target)
                acq.steps.append(f"placed {name} as {target}")
    acq.skipped += extract_nested(dest, limits)


def _stem(name: str) -> str:
    lower = name.lower()
    for suffix in sorted(ARCHIVE_SUFFIXES, key=len, reverse=True):
        if lower.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return PurePosixPath(name).stem or name


def _unique(name: str, used: set[str]) -> str:
    candidate, n = name, 1
    while candidate.lower() in used:
        n += 1
        candidate = f"{name}-{n}"
    used.add(candidate.lower())
    return candidate


def _local_path(source: str, acq: Acquisition) -> Path:
    parsed = urlparse(source)
    if parsed.scheme == "file":
        acq.steps.append(f"file URL resolved to {unquote(parsed.path)}")
        return Path(unquote(parsed.path)).expanduser()
    if parsed.scheme in ("ftp", "ssh", "git", "s3"):
        raise AcquisitionError(f"{parsed.scheme}:// artifact links are not supported: {source} "
                               "(use an https:// link, a DOI, or download it and pass the local path)")
    return Path(source).expanduser().resolve()
