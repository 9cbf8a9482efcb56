"""What the review fetched from elsewhere and what it could not: the report's network record, the "Not established"
words for a fetch that failed or was not run (the URL, the host, the error in words, the step and the later steps
it blocked, what a reviewer with network would do next), and where the documentation says a file comes from that
no documented step makes.

Read from the gate's `linked` acquisitions and D3's `reach` record (agents/heuristic/fetch.py).
"""
from __future__ import annotations

from ..models import Fetch, NetworkUse, PhasePacket
from ..sandbox.networds import fetch_error, host_of, urls_in

OFFLINE = "the review was offline (--offline)"


def _records(packets: dict[str, PhasePacket]) -> tuple[list[dict], list[dict]]:
    gate, d3 = packets.get("gate"), packets.get("D3")
    linked = list((gate.facts.get("linked") or []) if gate else [])
    reach = (d3.facts.get("reach") or {}) if d3 else {}
    return linked, list(reach.get("fetches") or [])


def network_use(packets: dict[str, PhasePacket], offline: bool = False, containment: str = "") -> NetworkUse:
    linked, fetches = _records(packets)
    out = []
    for r in linked:
        error = str(r.get("error") or "")
        out.append(Fetch(step=f"{r.get('kind', 'linked')} {r.get('placed', '')}".strip(), source="acquisition",
                         url=str(r.get("url") or ""), host=_host(str(r.get("url") or "")),
                         status="fetched" if r.get("ok") else ("not run" if "offline" in error else "failed"),
                         error=error, seconds=float(r.get("seconds") or 0.0),
                         bytes=sum(int(d.get("bytes") or 0) for d in r.get("downloads") or [])))
    for r in fetches:
        files = r.get("files") or []
        out.append(Fetch(step=str(r.get("cmd") or ""), source=str(r.get("source") or ""), url=str(r.get("url") or ""),
                         host=str(r.get("host") or ""), final_host=str(r.get("final_host") or ""),
                         status=r.get("status") if r.get("status") in ("fetched", "failed") else "not run",
                         error=str(r.get("error") or r.get("why") or ""), bytes=int(r.get("bytes") or 0),
                         sha256=str(files[0].get("sha256") or "") if files else "",
                         seconds=float(r.get("seconds") or 0.0),
                         blocked=[str(b.get("cmd")) for b in r.get("blocked") or []],
                         evidence=str(r.get("evidence") or "")))
    return NetworkUse(offline=offline, containment="" if offline else containment, fetches=out)


def _host(url: str) -> str:
    from urllib.parse import urlsplit

    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


def _quoted(cmd: str) -> str:
    cmd = " ".join(cmd.split())
    return f"“{cmd[:100]}{'…' if len(cmd) > 100 else ''}”"


def reach_causes(packets: dict[str, PhasePacket]) -> list[tuple[str, str, str, str, str]]:
    """(code, what blocked, what a reviewer would do, evidence id, command) for each fetch that failed or was not
    run and that a later step needed, first the documented ones; [] when every fetch succeeded."""
    linked, fetches = _records(packets)
    out = []
    for r in fetches:
        if r.get("status") == "fetched" or r.get("status") == "not run" and not _matters(r):
            continue
        blocked = [b["cmd"] for b in r.get("blocked") or []]
        after = f"; it blocked {', '.join(_quoted(c) for c in blocked[:3])}" if blocked else ""
        where, cmd = f"{_quoted(r['cmd'])} ({r.get('source')})", _quoted(blocked[0] if blocked else r["cmd"])
        url, host = r.get("url") or "", r.get("host") or "its host"
        if r.get("status") == "not run":
            offline = "offline" in str(r.get("why"))
            text = (f"the documented download {where} was not run: " + (OFFLINE if offline else str(r.get("why")))
                    + (f"; it fetches {url} from {host}" if url else "") + after)
            nxt = (f"A reviewer with network access to {host} would run it" if offline else
                   "A reviewer would run it by hand") + (f" and rerun {cmd}." if blocked else ".")
            out.append(("offline" if offline else "fetch-not-run", text, nxt, str(r.get("evidence", "")), cmd))
            continue
        line = str(r.get("error_line") or "").strip()
        text = (f"the documented download {where} could not get {url or 'its data'}: {r.get('error')} — {host}"
                + (f" (“{line[:140]}”)" if line else "") + after)
        nxt = str(r.get("next") or f"A reviewer with network access would run {where}") + (
            f", then rerun {cmd}." if blocked else ".")
        out.append(("unreachable", text, nxt, str(r.get("evidence", "")), cmd))
    for r in linked:
        if r.get("ok"):
            continue
        kind = "submodule" if r.get("kind") == "submodule" else "repository the documentation links"
        error = str(r.get("error") or "")
        tried = next(iter(urls_in(error)), str(r.get("url") or ""))
        words = "not fetched: " + OFFLINE if "offline" in error else f"{fetch_error(error).words} — {host_of(tried)}"
        text = (f"the {kind} {r.get('url')} (for {r.get('placed')}/) could not be acquired: {words} "
                f"(“{error[:200]}”)")
        nxt = (f"A reviewer with network access would fetch {r.get('url')} into {r.get('placed')}/ and rerun the "
               "workflow.")
        out.append(("linked", text, nxt, "", ""))
    return out


def _matters(record: dict) -> bool:
    """A fetch not run matters when a later step needed it, the review was offline or it pulls the image the
    artifact runs in (the review's own choices, like skipping the clone of the artifact itself, do not)."""
    return bool(record.get("blocked")) or any(w in str(record.get("why")) for w in ("offline", "container image"))


def said_of(path: str, packets: dict[str, PhasePacket]) -> str:
    """What the documentation says of where a file no documented step makes comes from ('' when it says nothing)."""
    d3 = packets.get("D3")
    for entry in ((d3.facts.get("reach") or {}).get("unproduced") or []) if d3 else []:
        if entry.get("path") and (entry["path"] == path or path.endswith("/" + entry["path"])
                                  or entry["path"].endswith("/" + path)) and entry.get("said"):
            return (f"; no documented step makes it, and the documentation says: “{entry['said'][:240]}” "
                    f"({entry['doc']})")
    return ""


def with_reach(causes: list, packets: dict[str, PhasePacket], make) -> list:
    """A dimension's causes with the fetches first: a fetch that failed or was not run comes before the missing file
    or failed connection a run then shows (which follow from it). Without one, a missing file no documented step
    makes gets what the documentation says of where it comes from. `make(code, blocked, next, evidence, cmd)` builds
    a cause (report/unestablished.py's Cause)."""
    reach = [make(*cause) for cause in reach_causes(packets)]
    if reach:
        return reach[:2] + [c for c in causes if c.code not in ("missing-file", "network", "absent")][:1]
    for cause in causes:
        if cause.code == "missing-file":
            cause.blocked += said_of(cause.what, packets)
    return causes


def network_lines(network: NetworkUse) -> list[str]:
    """The report's Network section (Markdown)."""
    lines = ["## Network", ""]
    if network.offline:
        lines.append("Reviewed **offline** (`--offline`): no step had network, nothing was fetched.")
    elif network.containment:
        lines.append(f"Network-on steps: {network.containment}.")
    if not network.fetches:
        return lines + ["", "Nothing was fetched from elsewhere.", ""]
    lines += ["", "| Fetch | URL | Host (final) | Outcome | Bytes | sha256 | Seconds |",
              "|---|---|---|---|---|---|---|"]
    for f in network.fetches:
        outcome = f.status + (f": {f.error}" if f.error else "") + (
            f"; blocked {', '.join(f'`{b}`' for b in f.blocked[:3])}" if f.blocked else "")
        host = f.host + (f" ({f.final_host})" if f.final_host and f.final_host != f.host else "")
        lines.append(f"| `{f.step[:80]}` | {f.url or '–'} | {host or '–'} | {outcome.replace('|', '/')} | {f.bytes} | "
                     f"{f.sha256[:12] or '–'} | {f.seconds:.1f} |")
    return lines + [""]
