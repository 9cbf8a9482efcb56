"""What the artifact says lives in another repository, acquired with it: its git submodules (`.gitmodules`) and the
repository or record its README says holds its code or data ("the implementation is available at …"), each placed
where the documentation expects it (the submodule's path; a folder the sentence names; else the repository's name),
so that the review reads the artifact as the union. GitHub, Zenodo, Figshare, DOIs and archive links go through the
acquisition (download.py, with its host overrides, cache and caps); another git URL is cloned over git's HTTP
protocols. A link the documentation fetches with its own command (`git clone`, `wget`) is left to that command.
"""
from __future__ import annotations

import configparser
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

from .location import location_kind, same_place

MAX_LINKED = 4
GIT_TIMEOUT_S = 300.0
LINK = re.compile(r"\bhttps?://[^\s<>()\[\]`'\"]+", re.I)
SAYS_ELSEWHERE = re.compile(
    r"\b(code|implementation|source(?: code)?|data(?:set|sets)?|measurements|tool|scripts?|artifact|benchmark|"
    r"models?|library|framework)\b[^.\n]{0,80}\b(is|are|can be)\b[^.\n]{0,30}\b(available|hosted|located|stored|"
    r"found|kept|maintained|published)\b|\bavailable (?:at|from|on|in)\b|"
    r"\b(published|released|archived|deposited|uploaded|hosted)\b[^.\n]{0,80}\b(data(?:set|sets)?|code|archive)\b|"
    r"\b(data(?:set|sets)?|code)\b[^.\n]{0,60}\b(on|at)\s+(zenodo|figshare|github|gitlab|osf|dataverse)\b", re.I)
BADGE = re.compile(r"/badge/|\.(svg|png|jpe?g|gif)(\?|$)|shields\.io", re.I)
GIT_SCP = re.compile(r"^git@([\w.\-]+):(.+?)/?$")
PLACE = re.compile(r"\b(?:into|in|under|to)\s+(?:the\s+)?(?:folder\s+|directory\s+)?`?\.?/?([\w.\-]+)/?`?"
                   r"(?:\s+(?:folder|directory))?", re.I)
FETCHED_BY_COMMAND = re.compile(r"\b(git\s+clone|wget|curl|gdown|zenodo_get)\b[^\n]*")
GIT_HOSTS = ("github.com", "gitlab.com", "bitbucket.org", "codeberg.org")
PROXY_NAMES = ("http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "GIT_SSL_CAINFO",
               "SSL_CERT_FILE")


def submodules(root: Path) -> list[tuple[str, str]]:
    """(path, url) of every submodule `.gitmodules` declares whose folder holds no file yet."""
    path = root / ".gitmodules"
    if not path.is_file():
        return []
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    try:
        parser.read_string(path.read_text(encoding="utf-8", errors="replace"))
    except configparser.Error:
        return []
    out = []
    for section in parser.sections():
        sub, url = parser.get(section, "path", fallback=""), parser.get(section, "url", fallback="")
        folder = (root / sub).resolve()
        if not sub or not url or root.resolve() not in folder.parents:
            continue
        if folder.is_dir() and any(p.is_file() for p in folder.rglob("*")):
            continue
        out.append((sub.strip("/"), url))
    return out


def linked_repositories(readme: str, source: str) -> list[tuple[str, str]]:
    """(url, folder) of repositories or records a README says hold the artifact's code or data."""
    commands = " ".join(m.group(0) for m in FETCHED_BY_COMMAND.finditer(readme))
    out: list[tuple[str, str]] = []
    for sentence in re.split(r"(?<=[.!?])\s+|\n\s*\n", readme):
        if not SAYS_ELSEWHERE.search(sentence):
            continue
        for url in LINK.findall(sentence):
            url = url.rstrip(".,;:")
            if BADGE.search(url):  # a badge's image, not the record it links
                continue
            kind = location_kind(url)
            if kind is None or kind == "archive-url" and "github.com" not in url or same_place(url, source) \
                    or url in commands or any(same_place(url, u) for u, _ in out):
                continue
            if kind in ("doi",) and not re.search(r"10\.5281/zenodo|10\.6084/m9\.figshare", url):
                continue  # a DOI of a paper, not of a record
            place = PLACE.search(sentence[sentence.find(url) + len(url):])
            out.append((url, place.group(1) if place else _name(url)))
    return out[:MAX_LINKED]


def _name(url: str) -> str:
    parts = [p for p in urlsplit(url).path.split("/") if p]
    if urlsplit(url).hostname in GIT_HOSTS and len(parts) >= 2:
        return parts[1].removesuffix(".git")
    return re.sub(r"[^\w.\-]+", "-", "-".join(parts[-2:]) or (urlsplit(url).hostname or "linked"))[:60]


def https_url(url: str) -> str:
    """A git address as https (`git@host:owner/repo.git` -> `https://host/owner/repo.git`): the review fetches over
    http(s) only, without the reviewer's SSH keys."""
    scp = GIT_SCP.match(url.strip())
    if scp:
        return f"https://{scp.group(1)}/{scp.group(2)}"
    if url.startswith(("ssh://", "git://")):
        parts = urlsplit(url)
        return f"https://{parts.hostname}{parts.path}"
    return url


def is_plain_git(url: str) -> bool:
    """A git URL the hosts' APIs do not cover (a lab's git server): cloned with git itself."""
    host = (urlsplit(url).hostname or "").lower()
    return url.endswith(".git") and host not in GIT_HOSTS


def git_clone(url: str, dest: Path, timeout: float = GIT_TIMEOUT_S) -> str:
    """Clone `url` (http/https only, no hooks, no prompts, no submodules) into `dest` without its .git; '' or what
    went wrong."""
    if urlsplit(url).scheme not in ("http", "https"):
        return f"{url}: only http(s) git URLs are cloned"
    env = {"PATH": "/usr/bin:/bin", "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "/bin/false", "HOME": str(dest.parent),
           "GIT_CONFIG_NOSYSTEM": "1"}
    env.update({k: v for k in PROXY_NAMES if (v := os.environ.get(k))})
    base = ["git", "-c", "protocol.allow=never", "-c", "protocol.http.allow=always", "-c",
            "protocol.https.allow=always", "-c", "core.hooksPath=/dev/null", "clone", "--quiet",
            "--no-recurse-submodules"]
    error = ""
    for extra in (["--depth", "1"], []):  # git's dumb HTTP protocol cannot make a shallow clone
        shutil.rmtree(dest, ignore_errors=True)
        try:
            done = subprocess.run([*base, *extra, url, str(dest)], capture_output=True, text=True, timeout=timeout,
                                  env=env, check=False, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.SubprocessError) as exc:
            return f"git clone {url}: {exc}"
        if done.returncode == 0:
            shutil.rmtree(dest / ".git", ignore_errors=True)
            return ""
        error = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1][:300]
    shutil.rmtree(dest, ignore_errors=True)
    return f"git clone {url}: {error}"


def place_into(src: Path, dest: Path) -> int:
    """Copy the acquired tree into its place in the artifact (links are not followed); the number of files."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copytree(src, dest, symlinks=True, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".git"))
    return sum(1 for p in dest.rglob("*") if p.is_file())


def scratch(root: Path) -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(prefix="copilot-linked-", dir=root)
