"""Why an artifact could not be acquired, in words a reader can act on: the cause (HTTP status, network,
checksum, archive, size, empty, unsupported link, missing path) and advice that fits it.

The reason comes from the gate's acquisition evidence (its `error`), never from guessing: a review whose
GC1 passed, or whose acquisition record holds no error, has no acquisition failure.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..models import Report
from .reading import Reader, kind_of, read_json

_HTTP = re.compile(r"\bHTTP (\d{3})\b")
_CAUSES: list[tuple[re.Pattern, str, str]] = [
    (re.compile(r"md5 check|bytes but the host|checksum", re.IGNORECASE), "checksum mismatch",
     ("The download does not match the size or checksum the host declares. Run the review again; if it persists, "
     "the file on the host is damaged and should be uploaded again.")),
    (re.compile(r"corrupt or truncated|is not a zip or tar archive|7z archive|exceeds its declared size",
                re.IGNORECASE),
     "archive error",
     ("The archive cannot be unpacked. Re-create it and check that it opens (e.g. `unzip -t` or `tar -tf`) "
     "before publishing it.")),
    (re.compile(r"archive bomb|members \(limit\)|expands to more than|download limit|Content-Length\), over|"
                r"declares .* over the", re.IGNORECASE), "size limit",
     ("The artifact is larger than the review's download or extraction limits. Review a smaller part of it, or "
     "raise the limits (see ARTIFACTCOPILOT_* settings) if the size is expected.")),
    (re.compile(r"contains no files|lists no files|nothing to download|no file named|empty repository", re.IGNORECASE),
     "nothing to download",
     "The location holds no files. Check that the record or repository is the artifact and that its files are public."),
    (re.compile(r"not supported|unsupported link", re.IGNORECASE), "unsupported link",
     "Give the artifact as an https:// link, a DOI, a file:// URL or a local path."),
    (re.compile(r"does not exist|neither a file nor a directory|not readable", re.IGNORECASE), "path not found",
     "Check the artifact path: it does not name a readable folder or archive."),
    (re.compile(r"failed after \d+ attempts|Connection|resolution|unreachable|timed out|Network", re.IGNORECASE),
     "host unreachable",
     "The host could not be reached. Check the link and the machine's network access, then run the review again."),
    (re.compile(r"rate limit", re.IGNORECASE), "rate limited",
     "The host's rate limit is exhausted. Run the review again after it resets (or set a token for the host)."),
]


@dataclass(frozen=True)
class AcquisitionFailure:
    """Why the artifact could not be acquired."""

    reason: str
    """The acquisition error as recorded in the gate evidence."""
    cause: str
    """Short name of the cause, e.g. 'HTTP 404', 'archive error', 'host unreachable'."""
    advice: str
    """What to do about it."""
    evidence: str
    """Id of the acquisition evidence."""


def acquisition_error(report: Report, read: Reader) -> str | None:
    """The recorded acquisition error of a review whose GC1 failed, else None."""
    found = _record(report, read)
    return found[1] if found else None


def acquisition_failure(report: Report, read: Reader) -> AcquisitionFailure | None:
    found = _record(report, read)
    if found is None:
        return None
    ev_id, error = found
    cause, advice = classify(error)
    return AcquisitionFailure(reason=error, cause=cause, advice=advice, evidence=ev_id)


def _record(report: Report, read: Reader) -> tuple[str, str] | None:
    gc1 = report.gate.get("GC1")
    if gc1 is None or gc1.passed:
        return None
    kinds = kind_of(report)
    for ev_id in gc1.evidence:
        if kinds.get(ev_id) != "acquisition":
            continue
        data = read_json(read, ev_id)
        error = data.get("error") if data else None
        if isinstance(error, str) and error.strip():
            return ev_id, " ".join(error.split())[:600]
    return None


def classify(error: str) -> tuple[str, str]:
    """(cause, advice) for an acquisition error message."""
    status = _HTTP.search(error)
    if status:
        code = int(status.group(1))
        if code in (404, 410):
            return f"HTTP {code}", ("The link answers 'not found': check it for a typo, and that the record or "
                                    "repository is public and was not removed.")
        if code in (401, 403):
            return f"HTTP {code}", ("The host refuses access: make the record public (or give the reviewer a "
                                    "token), or check the link.")
        if code == 429 or code >= 500:
            return f"HTTP {code}", ("The host failed or throttled the download; this may pass. Run the review "
                                    "again later.")
        return f"HTTP {code}", "The host did not serve the artifact; check the link."
    for pattern, cause, advice in _CAUSES:
        if pattern.search(error):
            return cause, advice
    return "could not be acquired", "Check the artifact location and run the review again."
