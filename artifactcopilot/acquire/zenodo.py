"""Zenodo: records are listed from {ZENODO_URL}/api/records/N; each file comes with its size and md5."""
from __future__ import annotations

import re
from typing import Any
from urllib.parse import ParseResult, quote, unquote

from ..errors import AcquisitionError
from .hosts import ZENODO_DOI, Resolution, as_int, rebase
from .http import HttpClient, RemoteFile, safe_file_name
from .settings import DownloadSettings

HOSTS = {"zenodo.org", "www.zenodo.org", "sandbox.zenodo.org"}
PUBLIC = "https://zenodo.org"
RECORD = re.compile(r"^/(?:api/)?(?:records?|deposit)/(\d+)(?:/files/([^/]+))?")
DOI_PATH = re.compile(r"^/doi/(10\.5281/zenodo\.\d+)")


def parse(parsed: ParseResult) -> tuple[str, str | None] | None:
    """(record id, single file name or None) from a zenodo.org link."""
    if (m := RECORD.match(parsed.path)):
        return m.group(1), unquote(m.group(2)) if m.group(2) else None
    if (m := DOI_PATH.match(parsed.path)) and (doi := ZENODO_DOI.match(m.group(1))):
        return doi.group(1), None
    return None


def resolve_record(record_id: str, client: HttpClient, settings: DownloadSettings, chain: list[dict],
                   only: str | None = None) -> Resolution:
    base = settings.zenodo_url.rstrip("/")
    api = f"{base}/api/records/{record_id}"
    label = f"Zenodo record {record_id}"
    data = client.get_json(api, label)
    chain.append({"from": label, "to": api, "how": "Zenodo records API"})
    if not isinstance(data, dict):
        raise AcquisitionError(f"{label}: {api} returned an unexpected listing")
    entries = data.get("files") or []
    if isinstance(entries, dict):  # the /files endpoint shape: {"entries": [...]}
        entries = entries.get("entries") or []
    listing: list[dict[str, Any]] = []
    files: list[RemoteFile] = []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        name = entry.get("key") or entry.get("filename") or ""
        links = entry.get("links") or {}
        url = links.get("content") or links.get("download") or links.get("self") or f"{api}/files/{quote(name)}/content"
        checksum = str(entry.get("checksum") or "")
        md5 = (checksum.split(":", 1)[1] if checksum.startswith("md5:")
               else (checksum if re.fullmatch(r"[0-9a-f]{32}", checksum) else None))
        size = as_int(entry.get("size", entry.get("filesize")))
        listing.append({"name": name, "size": size, "checksum": checksum or None, "url": url})
        if only and name != only:
            continue
        files.append(RemoteFile(url=rebase(url, PUBLIC, base), name=safe_file_name(name), size=size, md5=md5))
    if not listing:
        access = (data.get("metadata") or {}).get("access_right") or (data.get("access") or {}).get("files")
        why = f"access: {access}" if access and access != "open" else "a metadata-only or restricted record"
        raise AcquisitionError(f"{label} lists no files ({why}) — nothing to download from {api}")
    if only and not files:
        raise AcquisitionError(f"{label} has no file named {only!r} (it lists {', '.join(f['name'] for f in listing)})")
    return Resolution(kind="zenodo record", label=label, files=files, listing=listing)
