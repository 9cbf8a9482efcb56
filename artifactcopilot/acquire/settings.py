"""Download settings: host API bases, cache location, size caps, retry policy (flags and env)."""
from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel, Field

ENV_PREFIX = "ARTIFACTCOPILOT_"
GIB = 1024**3


def default_cache_dir() -> Path:
    """The user cache dir: $XDG_CACHE_HOME/artifactcopilot, else ~/.cache/artifactcopilot."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "artifactcopilot"


class DownloadSettings(BaseModel):
    """How remote artifacts are resolved, downloaded, verified and cached."""

    zenodo_url: str = "https://zenodo.org"
    """Zenodo base; records are listed from {zenodo_url}/api/records/N (env ARTIFACTCOPILOT_ZENODO_URL)."""
    figshare_url: str = "https://api.figshare.com"
    """Figshare API base; files are listed from {figshare_url}/v2/articles/ID/files
    (env ARTIFACTCOPILOT_FIGSHARE_URL)."""
    github_url: str = "https://api.github.com"
    """GitHub API base; sources come from {github_url}/repos/OWNER/REPO/tarball/REF (env ARTIFACTCOPILOT_GITHUB_URL)."""
    doi_url: str = "https://doi.org"
    """DOI resolver whose redirect is followed for DOIs of other hosts (env ARTIFACTCOPILOT_DOI_URL)."""
    cache_dir: Path = Field(default_factory=default_cache_dir)
    """Download cache (--cache-dir, else env ARTIFACTCOPILOT_CACHE_DIR, else the user cache dir)."""
    max_download_bytes: int = 10 * GIB
    """Largest single download accepted; a larger declared size is refused before any byte is fetched."""
    attempts: int = 4
    """Tries per request on 5xx, 429, timeouts and dropped connections (env ARTIFACTCOPILOT_HTTP_ATTEMPTS)."""
    backoff_s: float = 1.0
    """First retry delay; doubles each retry (env ARTIFACTCOPILOT_HTTP_BACKOFF)."""
    backoff_max_s: float = 30.0
    """Upper bound of one retry delay, also for a host's Retry-After."""
    timeout_s: float = 60.0
    """Socket timeout of one request, in seconds (env ARTIFACTCOPILOT_HTTP_TIMEOUT)."""
    metadata_ttl_s: float = 24 * 3600.0
    """How long listings and resolved refs are reused from the cache before the host is asked again."""
    max_redirects: int = 5
    """DOI and landing-page hops followed before giving up."""
    offline: bool = False
    """No request leaves the machine: listings and files come from the cache, whatever their age (--offline)."""

    @classmethod
    def from_env(cls, cache_dir: Path | None = None, **overrides) -> DownloadSettings:
        values: dict = {}
        for name in ("zenodo_url", "figshare_url", "github_url", "doi_url"):
            if os.environ.get(ENV_PREFIX + name.upper()):
                values[name] = os.environ[ENV_PREFIX + name.upper()].rstrip("/")
        cache = cache_dir if cache_dir is not None else os.environ.get(ENV_PREFIX + "CACHE_DIR")
        if cache:
            values["cache_dir"] = Path(cache).expanduser()
        for env, name, kind in (("HTTP_ATTEMPTS", "attempts", int), ("HTTP_BACKOFF", "backoff_s", float),
                                ("HTTP_TIMEOUT", "timeout_s", float),
                                ("MAX_DOWNLOAD_BYTES", "max_download_bytes", int)):
            raw = os.environ.get(ENV_PREFIX + env)
            if raw:
                try:
                    values[name] = kind(raw)
                except ValueError:
                    pass  # a malformed override keeps the default rather than breaking every review
        values.update(overrides)
        return cls(**values)
