"""Figshare: files are listed from {FIGSHARE_URL}/v2/articles/ID/files (public API base api.figshare.com)."""
from __future__ import annotations

from urllib.parse import ParseResult

from ..errors import AcquisitionError
from .hosts import Resolution, as_int
from .http import HttpClient, RemoteFile, safe_file_name
from .settings import DownloadSettings

PAGE_SIZE = 100
MAX_PAGES = 50


def parse(parsed: ParseResult) -> tuple[str, str | None] | None:
    """(article id, version or None) from figshare.com/articles/[TYPE/SLUG/]ID[/VERSION] or the API path."""
    parts = [p for p in parsed.path.split("/") if p]
    if "articles" not in parts:
        return None
    rest = parts[parts.index("articles") + 1:]
    if len(rest) >= 2 and rest[-1].isdigit() and rest[-2].isdigit() and int(rest[-1]) < 1000:
        return rest[-2], rest[-1]
    if rest and rest[-1].isdigit():
        return rest[-1], None
    if len(rest) >= 2 and rest[-1] == "files" and rest[-2].isdigit():
        return rest[-2], None
    return None


def resolve_article(article_id: str, version: str | None, client: HttpClient, settings: DownloadSettings,
                    chain: list[dict]) -> Resolution:
    base = f"{settings.figshare_url.rstrip('/')}/v2/articles/{article_id}"
    label = f"Figshare article {article_id}" + (f" version {version}" if version else "")
    if version:
        api = f"{base}/versions/{version}"
        data = client.get_json(api, label)
        entries = data.get("files") if isinstance(data, dict) else None
    else:
        api, entries = f"{base}/files", []
        for page in range(1, MAX_PAGES + 1):  # the API pages its file list
            batch = client.get_json(f"{api}?page={page}&page_size={PAGE_SIZE}", label)
            if not isinstance(batch, list):
                raise AcquisitionError(f"{label}: {api} returned an unexpected listing")
            entries += batch
            if len(batch) < PAGE_SIZE:
                break
    chain.append({"from": label, "to": api, "how": "Figshare articles API"})
    listing, files = [], []
    for entry in entries or []:
        if not isinstance(entry, dict):
            continue
        name, url = str(entry.get("name") or entry.get("id") or "file"), entry.get("download_url")
        md5 = entry.get("computed_md5") or entry.get("supplied_md5") or None
        size = as_int(entry.get("size"))
        listing.append({"name": name, "size": size, "md5": md5, "url": url,
                        "link_only": bool(entry.get("is_link_only"))})
        if url and not entry.get("is_link_only"):
            files.append(RemoteFile(url=url, name=safe_file_name(name), size=size, md5=md5))
    if not files:
        why = "only external links" if listing else "no files (private, embargoed or metadata-only)"
        raise AcquisitionError(f"{label} lists {why} — nothing to download from {api}")
    return Resolution(kind="figshare article", label=label, files=files, listing=listing)
