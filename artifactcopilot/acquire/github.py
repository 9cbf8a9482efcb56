"""GitHub: a ref is pinned to its commit through the API, then fetched as
{GITHUB_URL}/repos/OWNER/REPO/tarball/SHA (zipball for .zip archive links); release assets via the API."""
from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import ParseResult, quote, unquote

from ..errors import AcquisitionError
from .hosts import Resolution, as_int, rebase
from .http import HttpClient, RemoteFile, safe_file_name
from .settings import DownloadSettings

HOSTS = {"github.com", "www.github.com", "codeload.github.com"}
PUBLIC_API = "https://api.github.com"
SHA = re.compile(r"^[0-9a-f]{40}$", re.I)
ARCHIVE_NAME = re.compile(r"^(.+?)\.(tar\.gz|tgz|zip)$")
JSON = "application/vnd.github+json"


@dataclass
class GitHubLink:
    owner: str
    repo: str
    ref: str | None = None
    path: list[str] | None = None
    """Segments after /tree/: the ref plus a folder, split once the ref is known."""
    archive: str = "tarball"
    release: str | None = None
    """A release tag ('' for the latest release)."""
    asset: str | None = None


def parse(parsed: ParseResult) -> GitHubLink | None:
    parts = [unquote(p) for p in parsed.path.split("/") if p]
    if len(parts) < 2:
        return None
    owner, repo, rest = parts[0], parts[1].removesuffix(".git"), parts[2:]
    if parsed.hostname == "codeload.github.com":  # codeload.github.com/O/R/tar.gz/REF
        if len(rest) >= 2:
            ref = "/".join(rest[1:]).removeprefix("refs/heads/").removeprefix("refs/tags/")
            return GitHubLink(owner, repo, ref=ref, archive="zipball" if rest[0] == "zip" else "tarball")
        return None
    if not rest:
        return GitHubLink(owner, repo)
    if rest[0] in ("tree", "blob") and len(rest) >= 2:
        return GitHubLink(owner, repo, path=rest[1:] if rest[0] == "tree" else rest[1:2])
    if rest[0] == "commit" and len(rest) >= 2:
        return GitHubLink(owner, repo, ref=rest[1])
    if rest[0] == "archive" and len(rest) >= 2:
        tail = "/".join(rest[1:])
        m = ARCHIVE_NAME.match(tail)
        if m:
            ref = m.group(1).removeprefix("refs/heads/").removeprefix("refs/tags/")
            return GitHubLink(owner, repo, ref=ref, archive="zipball" if m.group(2) == "zip" else "tarball")
    if rest[0] == "releases":
        if len(rest) >= 3 and rest[1] == "tag":
            return GitHubLink(owner, repo, release="/".join(rest[2:]))
        if len(rest) >= 4 and rest[1] == "download":
            return GitHubLink(owner, repo, release="/".join(rest[2:-1]), asset=rest[-1])
        return GitHubLink(owner, repo, release="")
    return GitHubLink(owner, repo)


def resolve(link: GitHubLink, client: HttpClient, settings: DownloadSettings, chain: list[dict]) -> Resolution:
    api = f"{settings.github_url.rstrip('/')}/repos/{quote(link.owner)}/{quote(link.repo)}"
    label = f"GitHub repository {link.owner}/{link.repo}"
    files, listing = [], []
    ref, subpath = link.ref, None
    if link.release is not None:
        url = f"{api}/releases/tags/{quote(link.release, safe='')}" if link.release else f"{api}/releases/latest"
        release = client.get_json(url, label, JSON)
        ref = str(release.get("tag_name") or link.release)
        chain.append({"from": label, "to": url, "how": f"GitHub releases API (tag {ref})"})
        for asset in release.get("assets") or []:
            listing.append({"name": asset.get("name"), "size": asset.get("size"),
                            "url": asset.get("browser_download_url")})
            if link.asset and asset.get("name") != link.asset:
                continue
            files.append(RemoteFile(url=rebase(str(asset.get("url")), PUBLIC_API, settings.github_url),
                                    name=safe_file_name(str(asset.get("name"))),
                                    size=as_int(asset.get("size")), accept="application/octet-stream"))
        if link.asset:
            if not files:
                raise AcquisitionError(f"{label}: release {ref} has no asset named {link.asset!r}")
            return Resolution(kind="github release asset", label=label, files=files, listing=listing)
    if ref is None and link.path:
        ref, subpath = _split_tree_path(api, link.path, client, label)
    if ref is None:
        meta = client.get_json(api, label, JSON)
        ref = str(meta.get("default_branch") or "")
        if not ref:
            raise AcquisitionError(f"{label}: {api} names no default branch (an empty repository?)")
        chain.append({"from": label, "to": api, "how": f"default branch {ref}"})
    dated: dict[str, str] = {}
    sha = ref if SHA.match(ref) else _commit_of(api, ref, client, label, dated)
    chain.append({"from": f"{label} at {ref}", "to": f"commit {sha}",
                  "how": "GitHub commits API" if sha != ref else "commit given", **dated})
    archive = f"{api}/{link.archive}/{sha}"
    suffix = "zip" if link.archive == "zipball" else "tar.gz"
    files.append(RemoteFile(url=archive, name=f"{safe_file_name(link.repo)}-{sha[:12]}.{suffix}", expect_archive=True,
                            accept=JSON))
    listing.append({"name": f"source archive of {sha}", "url": archive})
    chain.append({"from": f"commit {sha}", "to": archive, "how": f"GitHub {link.archive} download"})
    kind = "github release" if link.release is not None else "github repository"
    return Resolution(kind=kind, label=label, files=files, listing=listing, subpath=subpath)


def _commit_of(api: str, ref: str, client: HttpClient, label: str, dated: dict[str, str] | None = None) -> str:
    """The commit `ref` names; `dated` receives its committer date ("date"), which the review resolves the
    dependencies the artifact leaves open as of (provision/era.py)."""
    data = client.get_json(f"{api}/commits/{quote(ref, safe='')}", label, JSON)
    sha = str(data.get("sha") or "") if isinstance(data, dict) else ""
    if not SHA.match(sha):
        raise AcquisitionError(f"{label}: {api}/commits/{ref} did not name a commit")
    commit = data.get("commit")
    committer = commit.get("committer") if isinstance(commit, dict) else None
    if dated is not None and isinstance(committer, dict) and isinstance(committer.get("date"), str):
        dated["date"] = committer["date"]
    return sha


def _split_tree_path(api: str, path: list[str], client: HttpClient, label: str) -> tuple[str, str | None]:
    """/tree/feature/x/docs is ambiguous: try 'feature', then 'feature/x', ... as the ref."""
    last: AcquisitionError | None = None
    for cut in range(1, len(path) + 1):
        ref = "/".join(path[:cut])
        try:
            _commit_of(api, ref, client, label)
        except AcquisitionError as exc:
            if "HTTP 404" not in str(exc):
                raise
            last = exc
            continue
        return ref, "/".join(path[cut:]) or None
    raise last or AcquisitionError(f"{label}: no ref in /tree/{'/'.join(path)}")
