"""Where an artifact is published: the kind of location a link names, and whether the paper points there.

An AE chair asks two things of availability: is the artifact somewhere public and durable (a DOI, a Zenodo
or Figshare record, a tagged release, or at least a repository), and does the paper name that place.
A review of a local folder can answer neither from the folder alone; the gate says so.
"""
from __future__ import annotations

import re
from urllib.parse import urlparse

DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"'<>)\]]+)", re.I)
ARCHIVAL = ("doi", "zenodo", "figshare", "software-heritage")
_KINDS = [
    ("zenodo", re.compile(r"zenodo\.org/(records?|record|doi|badge/DOI)|10\.5281/zenodo", re.I)),
    ("figshare", re.compile(r"figshare\.com|10\.6084/m9\.figshare", re.I)),
    ("software-heritage", re.compile(r"softwareheritage\.org|swh:1:", re.I)),
    ("doi", re.compile(r"doi\.org/|^10\.\d{4,9}/", re.I)),
    ("release", re.compile(r"(github|gitlab)\.com/[^/]+/[^/]+/(-/)?(releases|tags?)/", re.I)),
    ("commit", re.compile(r"(github|gitlab)\.com/[^/]+/[^/]+/(-/)?(commit|tree)/[0-9a-f]{7,40}", re.I)),
    ("repository", re.compile(r"(github\.com|gitlab\.com|bitbucket\.org|codeberg\.org)/[^/\s]+/[^/\s#?]+", re.I)),
    ("archive-url", re.compile(r"\.(zip|tar\.gz|tgz|tar\.xz|tar\.bz2)(\?|$)", re.I)),
]


def location_kind(link: str) -> str | None:
    """doi | zenodo | figshare | software-heritage | release | commit | repository | archive-url, or None."""
    for kind, pattern in _KINDS:
        if pattern.search(link or ""):
            return kind
    return None


def is_remote(source: str) -> bool:
    return urlparse(source).scheme in ("http", "https") or bool(DOI.match(source or ""))


def _repo_key(link: str) -> str:
    """github.com/owner/name for any link into a repository (tree, blob, release, .git), lower case."""
    m = re.search(r"((?:github|gitlab)\.com|bitbucket\.org|codeberg\.org)/([^/\s#?]+)/([^/\s#?]+)", link or "", re.I)
    return f"{m[1]}/{m[2]}/{m[3].removesuffix('.git')}".lower() if m else ""


def same_place(a: str, b: str) -> bool:
    """Whether two links name the same artifact location (same DOI, record or repository)."""
    da, db = DOI.search(a or ""), DOI.search(b or "")
    if da and db:
        return da[1].rstrip(".").lower() == db[1].rstrip(".").lower()
    ra, rb = _repo_key(a), _repo_key(b)
    if ra and rb:
        return ra == rb
    return (a or "").rstrip("/").lower() == (b or "").rstrip("/").lower()


def publication_record(source: str, paper_links: list[str], doc_text: str) -> dict:
    """Where the artifact is published and whether the paper links it, as gate evidence.

    `source` is what the reviewer gave; `paper_links` the paper's links; `doc_text` the artifact's own
    documentation (a README's DOI badge names its archived copy)."""
    remote = is_remote(source)
    candidates = [link for link in paper_links if location_kind(link)]
    documented = sorted({m[1].rstrip(".") for m in DOI.finditer(doc_text or "")})
    public = source if remote else (candidates[0] if candidates else None)
    kind = location_kind(public) if public else None
    archived = [d for d in documented if location_kind(d) in ARCHIVAL or location_kind(f"https://doi.org/{d}")]
    record = {
        "source": source, "reviewed_copy": "remote" if remote else "local",
        "public_location": public, "location_kind": kind,
        "archival": kind in ARCHIVAL or bool(archived),
        "archived_copies": archived[:10],
        "paper_links": candidates[:10],
        "paper_links_location": bool(public and any(same_place(public, link) for link in paper_links)),
    }
    if not remote and public is None:
        record["note"] = ("a local folder with no public location in the paper or the docs: GC1 rests on the "
                          "reviewer's word that it is published")
    elif not remote:
        record["note"] = (f"reviewed from a local copy; the paper names {public} ({kind}); that this copy is what is "
                          "published there rests on the reviewer's word")
    return record
