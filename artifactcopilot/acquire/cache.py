"""Download cache: blobs stored by content hash, indexed by URL; API listings reused for a while.

Layout under the cache dir (created on first use, never for local artifacts):
  blobs/<sha256[:2]>/<sha256>   downloaded content, deduplicated by hash
  urls/<sha256(url)>.json       url -> blob hash, size, md5, name, content type
  meta/<sha256(url)>.json       API responses and redirect targets, with the time they were fetched
  tmp/                          downloads in progress (renamed into blobs/ only once verified)
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from pathlib import Path

from ..fileio import atomic_write

try:
    import fcntl
    _CAN_LOCK = True
except ImportError:  # pragma: no cover - non-POSIX: parallel reviews may download the same file twice
    _CAN_LOCK = False


STALE_PART_S = 24 * 3600


def _key(url: str) -> str:
    return hashlib.sha256(url.encode("utf-8")).hexdigest()


def file_hashes(path: Path) -> tuple[str, str]:
    sha, md5 = hashlib.sha256(), hashlib.md5()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            sha.update(chunk)
            md5.update(chunk)
    return sha.hexdigest(), md5.hexdigest()


class DownloadCache:
    def __init__(self, root: Path):
        self.root = Path(root)

    def tmp_dir(self) -> Path:
        path = self.root / "tmp"
        path.mkdir(parents=True, exist_ok=True)
        for stale in path.glob("*.part"):  # left by a review that was killed mid-download
            try:
                if time.time() - stale.stat().st_mtime > STALE_PART_S:
                    stale.unlink()
            except OSError:
                pass
        return path

    def blob_path(self, sha256: str) -> Path:
        return self.root / "blobs" / sha256[:2] / sha256

    @contextlib.contextmanager
    def lock(self, url: str):
        """Serialise downloads of one URL across parallel reviews sharing the cache."""
        if not _CAN_LOCK:
            yield
            return
        path = self.root / "locks" / f"{_key(url)}.lock"
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    # ---- downloaded files ------------------------------------------------------------------
    def lookup(self, url: str) -> tuple[Path, dict] | None:
        """The cached blob of `url` after re-hashing it; None (and the entry dropped) when missing or damaged."""
        entry_path = self.root / "urls" / f"{_key(url)}.json"
        try:
            entry = json.loads(entry_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        blob = self.blob_path(str(entry.get("sha256", "")))
        try:
            intact = blob.stat().st_size == entry.get("bytes") and file_hashes(blob)[0] == entry["sha256"]
        except OSError:
            intact = False
        if not intact:
            entry_path.unlink(missing_ok=True)
            if blob.is_file():
                blob.unlink()  # damaged content must not be reused under another URL either
            return None
        return blob, entry

    def store(self, url: str, tmp_file: Path, entry: dict) -> Path:
        """Move a verified download into the blob store and index it under `url`."""
        blob = self.blob_path(entry["sha256"])
        blob.parent.mkdir(parents=True, exist_ok=True)
        if blob.exists():
            tmp_file.unlink(missing_ok=True)  # same content already cached under another URL
        else:
            os.replace(tmp_file, blob)
        atomic_write(self.root / "urls" / f"{_key(url)}.json",
                     json.dumps({**entry, "url": url, "stored_at": time.time()}))
        return blob

    # ---- API listings and redirects ----------------------------------------------------------
    def get_meta(self, url: str, ttl_s: float):
        try:
            entry = json.loads((self.root / "meta" / f"{_key(url)}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if time.time() - float(entry.get("fetched_at", 0)) > ttl_s:
            return None
        return entry.get("value")

    def put_meta(self, url: str, value) -> None:
        atomic_write(self.root / "meta" / f"{_key(url)}.json",
                     json.dumps({"url": url, "fetched_at": time.time(), "value": value}))
