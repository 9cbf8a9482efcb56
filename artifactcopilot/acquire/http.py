"""Verified HTTP downloads (urllib): bounded retries with backoff, size caps before any byte is
fetched, content checked against its name and type, Zenodo/Figshare md5 checked, every request logged."""
from __future__ import annotations

import hashlib
import http.client
import json
import os
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from email.message import Message
from pathlib import Path, PurePosixPath
from urllib.error import HTTPError, URLError
from urllib.parse import unquote, urlparse

from .. import __version__
from ..errors import AcquisitionError
from .cache import DownloadCache
from .settings import DownloadSettings
from .sniff import HEAD_BYTES, content_problem, sniff

RETRY_STATUS = {408, 425, 429, 500, 502, 503, 504}
DENIED_HINTS = {401: "the host wants a login: the artifact is not public",
                403: "access denied: the artifact is restricted, embargoed or not public",
                404: "not found: check the link; the record may be private, deleted or never published",
                410: "gone: the record was deleted"}


@dataclass
class RemoteFile:
    """One file a host lists (or a direct URL), as it should arrive."""

    url: str
    name: str | None = None
    size: int | None = None
    md5: str | None = None
    expect_archive: bool = False
    accept: str | None = None


class _Transient(Exception):
    """A failure worth retrying: dropped connection, timeout, truncated body."""


def human(n: int | None) -> str:
    if n is None:
        return "unknown size"
    size = float(n)
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if size < 1024 or unit == "TB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return str(size)


class _Recorder(urllib.request.HTTPRedirectHandler):
    """Follows redirects (or not) and remembers each hop for the evidence."""

    def __init__(self, follow: bool):
        self.follow = follow
        self.hops: list[dict] = []

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        self.hops.append({"status": code, "location": newurl})
        return super().redirect_request(req, fp, code, msg, headers, newurl) if self.follow else None


class HttpClient:
    def __init__(self, settings: DownloadSettings, cache: DownloadCache | None = None, sleep=time.sleep):
        self.settings, self.sleep = settings, sleep
        self._status: int | None = None
        self.cache = cache or DownloadCache(settings.cache_dir)
        self.requests: list[dict] = []
        """Every request and cache use, in order: url, status or error, attempt, seconds."""
        self.downloads: list[dict] = []
        """One record per file: url, status, bytes, sha256, md5 check, cache hit or miss, error."""

    # ---- requests with retries ----------------------------------------------------------------
    def _open(self, url: str, accept: str | None, follow: bool = True):
        recorder = _Recorder(follow)
        opener = urllib.request.build_opener(recorder)
        headers = {"User-Agent": f"artifactcopilot/{__version__}", "Accept": accept or "*/*"}
        try:
            resp = opener.open(urllib.request.Request(url, headers=headers), timeout=self.settings.timeout_s)
        except HTTPError as exc:
            if not follow and 300 <= exc.code < 400:
                self._status = exc.code
                return exc, recorder.hops
            raise
        self._status = resp.status
        return resp, recorder.hops

    def _retrying(self, url: str, label: str, action):
        if self.settings.offline:
            self.requests.append({"url": url, "error": "offline"})
            raise AcquisitionError(f"{label}: {url} is not in the download cache and the review is offline "
                                   "(--offline)")
        attempts = max(1, self.settings.attempts)
        for attempt in range(1, attempts + 1):
            started, self._status = time.monotonic(), None
            note = {"url": url, "attempt": attempt}
            try:
                result = action()
                self.requests.append({**note, "status": self._status, "seconds": _since(started)})
                return result
            except AcquisitionError as exc:  # answered, but not with what was asked for: no retry
                self.requests.append({**note, "status": self._status, "error": str(exc), "seconds": _since(started)})
                raise
            except HTTPError as exc:
                exc.close()
                self.requests.append({**note, "status": exc.code, "seconds": _since(started)})
                if exc.code not in RETRY_STATUS or attempt == attempts:
                    raise _http_failure(exc, url, label, attempt) from None
                self.sleep(self._delay(attempt, exc.headers.get("Retry-After") if exc.headers else None))
            except (_Transient, URLError, TimeoutError, ConnectionError, http.client.HTTPException) as exc:
                reason = str(getattr(exc, "reason", None) or exc) or type(exc).__name__
                self.requests.append({**note, "error": reason, "seconds": _since(started)})
                if attempt == attempts:
                    raise AcquisitionError(f"{label}: {url} failed after {attempt} attempts: {reason}") from None
                self.sleep(self._delay(attempt, None))
        raise AssertionError("unreachable")

    def _delay(self, attempt: int, retry_after: str | None) -> float:
        delay = self.settings.backoff_s * 2 ** (attempt - 1)
        if retry_after and retry_after.strip().isdigit():
            delay = max(delay, float(retry_after))
        return min(delay, self.settings.backoff_max_s)

    # ---- API calls -----------------------------------------------------------------------------------
    def _ttl(self) -> float:
        return float("inf") if self.settings.offline else self.settings.metadata_ttl_s

    def get_json(self, url: str, label: str, accept: str = "application/json"):
        cached = self.cache.get_meta(url, self._ttl())
        if cached is not None:
            self.requests.append({"url": url, "cache": "hit"})
            return cached

        def fetch():
            resp, _ = self._open(url, accept)
            with resp:
                body = resp.read(20 * 1024**2)
            try:
                return json.loads(body.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                raise AcquisitionError(f"{label}: {url} did not return JSON (got {sniff(body[:HEAD_BYTES])}, "
                                       f"Content-Type: {resp.headers.get('Content-Type', 'none')})") from None

        value = self._retrying(url, label, fetch)
        self.cache.put_meta(url, value)
        return value

    def redirect_target(self, url: str, label: str) -> str:
        """Where `url` redirects to (one hop, not followed) — used for DOIs."""
        cached = self.cache.get_meta(url, self._ttl())
        if cached:
            self.requests.append({"url": url, "cache": "hit"})
            return cached

        def fetch():
            resp, _ = self._open(url, "text/html", follow=False)
            with resp:
                location = resp.headers.get("Location")
                status = getattr(resp, "status", None) or resp.code
            if not (300 <= status < 400 and location):
                raise AcquisitionError(f"{label}: {url} did not redirect to the record (HTTP {status})")
            return urllib.request.urljoin(url, location)

        target = self._retrying(url, label, fetch)
        self.cache.put_meta(url, target)
        return target

    # ---- file downloads ----------------------------------------------------------------------------------
    def download(self, f: RemoteFile, label: str) -> tuple[Path, dict]:
        """A verified local copy of `f` (from the cache when it was fetched before) and its log record."""
        rec = {"url": f.url, "name": f.name, "declared_bytes": f.size, "md5_expected": f.md5}
        self.downloads.append(rec)
        cap = self.settings.max_download_bytes
        try:
            if f.size is not None and f.size > cap:
                raise AcquisitionError(f"{label}: {f.name or f.url} declares {human(f.size)}, over the {human(cap)} "
                                       "download limit — refused before downloading")
            self.cache.root.mkdir(parents=True, exist_ok=True)
            with self.cache.lock(f.url):
                hit = self.cache.lookup(f.url)
                if hit:
                    blob, entry = hit
                    rec.update(cache="hit", status=None,
                               **{k: entry.get(k) for k in ("name", "bytes", "sha256", "md5", "content_type")})
                    self.requests.append({"url": f.url, "cache": "hit"})
                else:
                    info = self._retrying(f.url, label, lambda: self._fetch_once(f, label))
                    rec.update(cache="miss", **{k: v for k, v in info.items() if k != "tmp"})
                    entry = {k: info[k] for k in ("name", "bytes", "sha256", "md5", "content_type")}
                    self._check_declared(f, entry, label)
                    blob = self.cache.store(f.url, info["tmp"], entry)
            self._check_declared(f, entry, label)
            rec["md5_ok"] = (entry["md5"] == f.md5.lower()) if f.md5 else None
            rec["path"] = str(blob)
            return blob, rec
        except AcquisitionError as exc:
            rec["error"] = str(exc)
            raise

    @staticmethod
    def _check_declared(f: RemoteFile, entry: dict, label: str) -> None:
        if f.size is not None and entry["bytes"] != f.size:
            raise AcquisitionError(f"{label}: {entry['name']} from {f.url} has {entry['bytes']} bytes but the host "
                                   f"declares {f.size} — truncated or altered")
        if f.md5 and entry["md5"] != f.md5.lower():
            raise AcquisitionError(f"{label}: {entry['name']} from {f.url} fails its md5 check "
                                   f"(host {f.md5.lower()}, received {entry['md5']})")

    def _fetch_once(self, f: RemoteFile, label: str) -> dict:
        cap = self.settings.max_download_bytes
        resp, hops = self._open(f.url, f.accept)
        fd, tmp_name = tempfile.mkstemp(dir=self.cache.tmp_dir(), suffix=".part")
        tmp = Path(tmp_name)
        try:
            with resp, os.fdopen(fd, "wb") as out:
                length = resp.headers.get("Content-Length")
                length = int(length) if length and length.isdigit() else None
                name = f.name or _server_name(resp, f.url)
                ctype = resp.headers.get("Content-Type", "")
                if length is not None and length > cap:
                    raise AcquisitionError(f"{label}: {f.url} announces {human(length)} (Content-Length), over the "
                                           f"{human(cap)} download limit — refused before downloading")
                sha, md5, total, head, checked = hashlib.sha256(), hashlib.md5(), 0, b"", False
                while True:
                    try:
                        chunk = resp.read(1 << 20)
                    except (http.client.IncompleteRead, TimeoutError, ConnectionError) as exc:
                        raise _Transient(f"transfer interrupted after {total} bytes ({type(exc).__name__})") from None
                    if not checked and (len(head) >= HEAD_BYTES or not chunk):
                        checked = True
                        problem = content_problem(name, ctype, head, f.expect_archive)
                        if problem:
                            raise AcquisitionError(f"{label}: {f.url}: {problem}")
                    if not chunk:
                        break
                    if len(head) < HEAD_BYTES:
                        head += chunk[:HEAD_BYTES - len(head)]
                    total += len(chunk)
                    if total > cap:
                        raise AcquisitionError(f"{label}: {f.url} sent more than the {human(cap)} "
                                               "download limit — stopped")
                    sha.update(chunk)
                    md5.update(chunk)
                    out.write(chunk)
            if length is not None and total != length:
                raise _Transient(f"transfer truncated: {total} of {length} bytes")
            return {"tmp": tmp, "status": resp.status, "final_url": resp.geturl(), "redirects": hops, "name": name,
                    "content_type": ctype, "sniffed": sniff(head), "bytes": total, "sha256": sha.hexdigest(),
                    "md5": md5.hexdigest()}
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise


def _since(started: float) -> float:
    return round(time.monotonic() - started, 3)


def _server_name(resp, url: str) -> str:
    msg = Message()
    msg["content-disposition"] = resp.headers.get("Content-Disposition", "")
    name = msg.get_filename() or PurePosixPath(unquote(urlparse(resp.geturl() or url).path)).name
    return safe_file_name(name or "download")


def safe_file_name(name: str) -> str:
    """A name usable as one path component: no separators, no dot-dot, nothing hidden."""
    name = name.replace("\\", "/").rsplit("/", 1)[-1].strip().lstrip(".")
    return "".join(c if c.isprintable() else "_" for c in name)[:200] or "download"


def _http_failure(exc: HTTPError, url: str, label: str, attempt: int) -> AcquisitionError:
    reason = f"HTTP {exc.code} {exc.reason}".strip()
    hint = DENIED_HINTS.get(exc.code, "")
    headers = exc.headers
    if exc.code in (403, 429) and headers is not None and headers.get("X-RateLimit-Remaining") == "0":
        hint = "the GitHub API rate limit is exhausted; try again after it resets"
    if exc.code in RETRY_STATUS:
        hint = f"the host kept failing ({attempt} attempts)"
    return AcquisitionError(f"{label}: {reason} from {url}" + (f" ({hint})" if hint else ""))
