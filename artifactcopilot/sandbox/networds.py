"""What a command's output says about the network, in words: whether it failed for want of network (a run that
downloads at run time), and why a fetch failed — the host unreachable, the file not found, a login or token
required, a quota used up, too slow — read from the messages of urllib, requests, pip, git, wget, curl, gdown,
kaggle and the Hugging Face hub, and from what a proxy answers for a host it cannot reach.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

NO_NETWORK = re.compile(
    r"temporary failure in name resolution|name or service not known|nodename nor servname|no address associated|"
    r"could not resolve (?:host|proxy)|unable to resolve host|getaddrinfo failed|failed to resolve|"
    r"network is unreachable|no route to host|connection refused|errno 111\b|errno -[235]\b|"
    r"failed to establish a new connection|max retries exceeded with url|urlopen error|"
    r"unable to access '[a-z]+://|could not connect to server|failed to connect to|"
    r"resolving [\w.\-]+ \([\w.\-]+\)\.\.\. failed|unable to establish ssl connection|"
    r"connectionerror|newconnectionerror|httpsconnectionpool|httpconnectionpool|dial tcp|no such host|"
    r"could not fetch url|we couldn't connect to|cannot reach|offline mode is enabled",
    re.I)
"""Messages of a program that could not reach the network at all (what a run without network prints)."""

# (words, pattern): the first that matches the output of a failed fetch says why it failed.
REASONS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("login or token required", re.compile(
        r"\b401\b|unauthori[sz]ed|authentication (?:required|failed)|login required|requires? (?:a )?login|"
        r"access token|api token|kaggle\.json|could not find kaggle|hf_token|gated repo|"
        r"permission denied \(publickey\)|could not read username|terminal prompts disabled|\b403\b|forbidden",
        re.I)),
    ("quota or rate limit reached", re.compile(
        r"\b429\b|too many requests|rate limit|quota|too many users have viewed or downloaded|"
        r"download quota|bandwidth limit", re.I)),
    ("not found (404)", re.compile(r"\b404\b|not found(?! in)|does not exist on|repository .* not found|"
                                   r"no such file or directory on the server|\b410\b|\bgone\b", re.I)),
    ("host unreachable", re.compile(
        NO_NETWORK.pattern + r"|\b502\b|\b503\b|\b504\b|bad gateway|service unavailable|gateway time-?out|"
        r"err_dns_fail|err_connect_fail", re.I)),
    ("too slow: cut by the time limit", re.compile(r"timed out|timeout|operation too slow", re.I)),
    ("too large: over the size limit", re.compile(r"file size limit|file too large|exceeds the size", re.I)),
)
URL = re.compile(r"\b(?:https?|ftp)://[^\s'\"<>`)\]]+", re.I)
REDIRECT = re.compile(r"^(?:Location|< location):\s*(\S+)", re.I | re.M)


def wants_network(text: str) -> bool:
    """The output shows a program that could not reach the network (name resolution, refused, unreachable)."""
    return bool(NO_NETWORK.search(text))


@dataclass
class FetchError:
    words: str
    """unreachable, not found (404), login or token required, quota or rate limit reached, too slow, too large."""
    line: str
    """The output line that says so."""


def fetch_error(text: str, timed_out: bool = False, limits: list[str] | None = None) -> FetchError:
    """Why a fetch failed, in words, with the line of its output that says so."""
    if timed_out:
        return FetchError("too slow: cut by the time limit", next((n for n in limits or [] if "timeout" in n), ""))
    if any("file size limit" in n for n in limits or []):
        return FetchError("too large: over the size limit", next(n for n in limits or [] if "file size" in n))
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for words, pattern in REASONS:
        for line in reversed(lines):
            if pattern.search(URL.sub(" ", line)):  # a host named "gone" or a path with 404 in it says nothing
                return FetchError(words, line[:240])
    return FetchError("failed", (lines[-1] if lines else "")[:240])


def urls_in(text: str) -> list[str]:
    return list(dict.fromkeys(u.rstrip(".,;:") for u in URL.findall(text)))


def host_of(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


def final_url(url: str, output: str) -> str:
    """Where a fetch of `url` ended after redirects, as its output tells (wget's and curl -v's Location lines)."""
    hops = REDIRECT.findall(output)
    return hops[-1] if hops else url


def next_step(words: str, url: str) -> str:
    """What a reviewer with network would do about a fetch that failed for this reason."""
    host = host_of(url) or url
    if words.startswith("login"):
        return f"A reviewer with an account on {host} (or the token the documentation names) would fetch {url}"
    if words.startswith("quota"):
        return f"A reviewer would fetch {url} again once the quota of {host} resets (or from a mirror the authors name)"
    if words.startswith("not found"):
        return f"A reviewer would ask the authors where the file now lives ({url} answers 404)"
    if words.startswith("too"):
        return f"A reviewer with more time and disk would fetch {url} as documented"
    return f"A reviewer with network access to {host} would fetch {url} as documented"
