"""Turn whatever link a paper gives into the list of files to download, via each host's API.

GitHub, Zenodo and Figshare links (and their DOIs, recognised by prefix) go to the host's API, whose
base URL is configurable; any other DOI follows the resolver's redirect; anything else is a direct
HTTP(S) download. Every hop is appended to `chain` as it happens, so a failure still shows the path.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

from ..errors import AcquisitionError
from .http import HttpClient, RemoteFile
from .settings import DownloadSettings

DOI = re.compile(r"^(?:doi:\s*|https?://(?:dx\.)?doi\.org/)?(10\.\d{4,9}/\S+)$", re.I)
ZENODO_DOI = re.compile(r"^10\.5281/zenodo\.(\d+)$", re.I)
FIGSHARE_DOI = re.compile(r"^10\.6084/m9\.figshare\.(\d+)(?:\.v(\d+))?$", re.I)
GIT_SSH = re.compile(r"^git@github\.com:([^/]+)/([^/]+?)(?:\.git)?/?$")
BARE_HOST = re.compile(r"^(?:www\.)?(?:github\.com|zenodo\.org|figshare\.com|(?:dx\.)?doi\.org)/", re.I)


@dataclass
class Resolution:
    """What a link resolved to: the host's label, the files to fetch, and where to look inside them."""

    kind: str
    label: str
    files: list[RemoteFile]
    listing: list[dict] = field(default_factory=list)
    """The files as the host declared them (name, size, checksum, url)."""
    subpath: str | None = None
    """A folder inside the download that is the artifact (GitHub /tree/REF/PATH)."""


def is_remote(source: str) -> bool:
    try:
        if Path(source).expanduser().exists():
            return False  # a local folder that happens to look like a DOI wins
    except (OSError, ValueError):  # a long URL is no valid file name
        pass
    scheme = urlparse(source).scheme.lower()
    source = source.strip()
    return scheme in ("http", "https", "doi") or bool(DOI.match(source) or GIT_SSH.match(source)
                                                      or BARE_HOST.match(source))


def resolve(source: str, client: HttpClient, settings: DownloadSettings, chain: list[dict],
            depth: int = 0) -> Resolution:
    from . import figshare, github, zenodo

    source = source.strip()
    if depth > settings.max_redirects:
        raise AcquisitionError(f"{source}: more than {settings.max_redirects} redirects "
                               "while resolving the artifact link")
    if BARE_HOST.match(source):
        chain.append({"from": source, "to": "https://" + source, "how": "link without a scheme read as https"})
        source = "https://" + source
    ssh = GIT_SSH.match(source)
    if ssh:
        source = f"https://github.com/{ssh.group(1)}/{ssh.group(2)}"
        chain.append({"from": ssh.group(0), "to": source, "how": "git SSH address read as a GitHub repository"})
    doi_match = DOI.match(source)
    if doi_match:
        doi = unquote(doi_match.group(1)).rstrip(".")
        if (m := ZENODO_DOI.match(doi)):
            chain.append({"from": source, "to": f"Zenodo record {m.group(1)}", "how": "DOI prefix 10.5281/zenodo"})
            return zenodo.resolve_record(m.group(1), client, settings, chain)
        if (m := FIGSHARE_DOI.match(doi)):
            chain.append({"from": source, "to": f"Figshare article {m.group(1)}",
                          "how": "DOI prefix 10.6084/m9.figshare"})
            return figshare.resolve_article(m.group(1), m.group(2), client, settings, chain)
        resolver = f"{settings.doi_url.rstrip('/')}/{doi}"
        target = client.redirect_target(resolver, f"DOI {doi}")
        chain.append({"from": source, "to": target, "how": f"DOI resolver redirect ({resolver})"})
        return resolve(target, client, settings, chain, depth + 1)

    parsed = urlparse(source)
    if parsed.scheme not in ("http", "https"):
        raise AcquisitionError(f"{source}: unsupported link (use https://, file://, a DOI or a local path)")
    host = (parsed.hostname or "").lower()
    if host in zenodo.HOSTS:
        found = zenodo.parse(parsed)
        if found:
            return zenodo.resolve_record(found[0], client, settings, chain, only=found[1])
    if host in github.HOSTS:
        ref = github.parse(parsed)
        if ref:
            return github.resolve(ref, client, settings, chain)
    if host == "figshare.com" or host.endswith(".figshare.com"):
        found = figshare.parse(parsed)
        if found:
            return figshare.resolve_article(found[0], found[1], client, settings, chain)
    chain.append({"from": source, "to": source, "how": "direct download"})
    return Resolution(kind="http download", label=f"download {source}", files=[RemoteFile(url=source)],
                      listing=[{"url": source}])


def rebase(url: str, public_base: str, configured_base: str) -> str:
    """Point a link the host gave at the configured base (a mirror or test server) when one is set."""
    public_base, configured_base = public_base.rstrip("/"), configured_base.rstrip("/")
    if public_base != configured_base and url.startswith(public_base + "/"):
        return configured_base + url[len(public_base):]
    return url


def as_int(value) -> int | None:
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None
