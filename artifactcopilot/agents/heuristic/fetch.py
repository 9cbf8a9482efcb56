"""D3's first stage: the documented fetches, before anything that needs them.

Every documented download step (`wget`, `curl -O/-o`, `gdown`, `zenodo_get`, `kaggle … download`,
`huggingface-cli download`, `git clone`, `git submodule update --init`, `dvc pull`, `bash download*.sh`,
`python download*.py`) runs in documentation order, whatever heading it sits under, with network for that step only
(flagged), within a time cap; what it fetched is evidence (URL, final host, bytes, sha256, seconds). An archive the
documentation then says to unpack is unpacked on the host with the acquisition's extraction rules. A fetch that
fails says why in words (unreachable, 404, login or token required, quota) and which later steps it blocked; with
`--offline` none runs and each says so. The step graph (discovery/graph.py) ties every missing input to the step
that makes it; an input no documented step makes is reported with what the documentation says of it.
"""
from __future__ import annotations

import hashlib
import re

from ...acquire.location import same_place
from ...acquire.unpack import strip_of, unpack_into
from ...discovery import Step
from ...discovery.graph import GraphNode, StepGraph, build_graph, said_about
from ...errors import AcquisitionError
from ...models import EvidenceLevel
from ...sandbox.networds import fetch_error, final_url, host_of, next_step, urls_in
from ...tools import PhaseTools
from .common import Deadline
from .runsteps import ENGINE, command_of

FETCH_TIMEOUT_S = 600.0
"""Time cap of one documented fetch (the command's own --timeout is the cap when smaller)."""
HASH_MAX_BYTES = 256 * 1024**2
"""Files larger than this are listed with their size but not hashed."""
MAX_LISTED = 50
SELF_CLONE = "clones the artifact itself"


def fetch_stage(tools: PhaseTools, steps: list[Step], deadline: Deadline, env_vars: dict) -> dict:
    """Run the documented fetches and the unpacks that follow them; the record D3 keeps (`reach`)."""
    files = tools.list_files()
    graph = build_graph(steps, files, lambda rel: tools.read_file(rel, 500_000))
    nodes = {n.order: n for n in graph.nodes}
    acquired = _acquired_submodules(tools)
    records = []
    for step in (s for s in steps if s.kind == "download"):
        node = nodes.get(step.order) or GraphNode(step.order, step.cmd, step.source, step.kind, step.cwd)
        why = _not_run(tools, step, acquired)
        timeout = deadline.timeout(min(tools.options.timeout_s, FETCH_TIMEOUT_S)) if why is None else None
        if why is None and timeout is None:
            why = "the phase's time budget was used up"
        record = _record(step, node)
        if why is not None or timeout is None:
            record.update(status="not run", why=why)
        else:
            record.update(_run(tools, step, node, {**env_vars, **step.env}, timeout))
        if record["status"] != "fetched":
            record["blocked"] = [{"cmd": n.cmd, "source": n.source} for n in graph.blocked_by(node)][:8]
        ev = tools.record_evidence("fetch", "download", record, _summary(record), EvidenceLevel.E1)
        record["evidence"] = ev.id
        records.append(record)
    unpacked = _unpack(tools, steps, graph, {r["order"] for r in records if r["status"] == "fetched"})
    return {"offline": tools.options.offline, "fetches": records, "unpacked": unpacked, "graph": graph.to_dict(),
            "unproduced": _unproduced(tools, graph)}


def _record(step: Step, node: GraphNode) -> dict:
    url = next((u for u in node.urls if "://" in u), node.urls[0] if node.urls else "")
    return {"cmd": step.cmd, "source": step.source, "order": step.order, "section": step.section, "url": url,
            "host": host_of(url), "writes": node.writes}


def _not_run(tools: PhaseTools, step: Step, acquired: list[str]) -> str | None:
    inner = step.inner
    if any(SELF_CLONE in n for n in step.notes) or (
            re.match(r"^git\s+clone\b", inner) and any(same_place(u, tools.source) for u in urls_in(inner))):
        return "it clones the artifact itself, which the review already has"
    if re.match(r"^git\s+submodule\b", inner) and acquired:
        return f"the submodules ({', '.join(acquired)}) were acquired with the artifact"
    if ENGINE.match(inner) or re.match(r"^(docker|singularity|apptainer)\s+pull\b", inner):
        return "it pulls a container image, which needs a container engine inside the sandbox"
    if not step.runnable:
        return "no concrete value for " + ", ".join(p.token for p in step.placeholders if not p.resolved)
    if step.interactive:
        return "it waits for a user (interactive)"
    if tools.options.offline:
        return "the review is offline (--offline): no step gets network"
    return None


def _acquired_submodules(tools: PhaseTools) -> list[str]:
    gate = tools.store.packets().get("gate")
    linked = (gate.facts.get("linked") or []) if gate else []
    return [r["placed"] for r in linked if r.get("kind") == "submodule" and r.get("ok")]


def _run(tools: PhaseTools, step: Step, node: GraphNode, env: dict, timeout: float) -> dict:
    script, action, purpose, cwd = command_of(step)
    res = tools.run_setup(script, action, f"documented fetch ({step.source}): network on for this step only",
                          env=env, network=True, cwd=cwd, timeout=timeout)
    rec = res.record
    output = f"{rec.stdout}\n{rec.stderr}"
    url = next((u for u in node.urls if "://" in u), "") or next(iter(urls_in(output)), "")
    final = final_url(url, output) if url else ""
    out = {"log": res.evidence.id, "exit": rec.exit_code, "seconds": rec.duration_s, "network": rec.network,
           "url": url, "host": host_of(url), "final_url": final, "final_host": host_of(final),
           "caps": {"time_s": round(timeout), "file_mb": getattr(getattr(tools.ctx.sandbox, "limits", None),
                                                                   "max_file_mb", None)},
           "files": _files(tools, rec.files_created + rec.files_modified)}
    out["bytes"] = sum(f["bytes"] for f in out["files"])
    if rec.ok:
        out["status"] = "fetched"
        return out
    error = fetch_error(output, rec.timed_out, rec.limits_hit)
    cap = next((n for n in rec.limits_hit if "timeout" in n or "file size" in n), "")
    out.update(status="failed", error=error.words, error_line=error.line, cap_hit=cap,
               next=next_step(error.words, url or step.cmd))
    return out


def _files(tools: PhaseTools, rels: list[str]) -> list[dict]:
    session = tools.ctx.session
    root = session.root if session is not None else None
    out = []
    for rel in rels[:MAX_LISTED]:
        path = (root / rel) if root else None
        if path is None or not path.is_file():
            continue
        size = path.stat().st_size
        entry: dict = {"path": rel, "bytes": size}
        if size <= HASH_MAX_BYTES:
            digest = hashlib.sha256()
            with open(path, "rb") as fh:
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    digest.update(chunk)
            entry["sha256"] = digest.hexdigest()
        out.append(entry)
    return out


def _unpack(tools: PhaseTools, steps: list[Step], graph: StepGraph, fetched: set[int]) -> list[dict]:
    """The documented unzip/tar steps whose archive a fetch made, unpacked on the host with the extraction rules."""
    session = tools.ctx.session
    if session is None or not fetched:
        return []
    made = [w for n in graph.nodes if n.order in fetched for w in n.writes]
    done = []
    for node in graph.nodes:
        step = next((s for s in steps if s.order == node.order), None)
        archive = next((r for r in node.reads if r in made or any(r.startswith(w + "/") for w in made)), None)
        if step is None or step.kind != "data" or archive is None or not node.writes:
            continue
        entry = {"order": node.order, "cmd": node.cmd, "source": node.source, "archive": archive,
                 "into": node.writes[0]}
        try:
            written, skipped = unpack_into(session.root / archive, session.root / node.writes[0], session.root,
                                           strip_of(node.cmd))
            entry.update(ok=True, files=len(written), first=written[:10], skipped=skipped[:10])
        except (AcquisitionError, OSError) as exc:
            entry.update(ok=False, error=str(exc)[:300])
        result = f"{entry['files']} files" if entry["ok"] else str(entry["error"])
        ev = tools.record_evidence("unpack", "unpack", entry, f"unpacked {archive} into {entry['into']}: {result}",
                                   EvidenceLevel.E1)
        entry["evidence"] = ev.id
        done.append(entry)
    return done


def _unproduced(tools: PhaseTools, graph: StepGraph) -> list[dict]:
    """Inputs of documented commands that the repository lacks and no documented step makes, with what the
    documentation says of where they come from."""
    docs = []
    d1 = tools.store.packets().get("D1")
    for path in (d1.facts.get("docs") or [])[:12] if d1 else []:
        if not str(path).startswith("paper:"):
            docs.append((path, tools.read_file(path, 300_000) or ""))
    out = []
    for node, path in graph.unproduced()[:10]:
        said = said_about(path, docs)
        out.append({"path": path, "cmd": node.cmd, "source": node.source,
                    "said": said[0] if said else None, "doc": said[1] if said else None})
    return out


def _summary(record: dict) -> str:
    if record["status"] == "not run":
        return f"fetch `{record['cmd']}` not run: {record['why']}"
    if record["status"] == "fetched":
        return (f"fetched {record['url'] or record['cmd']} from {record['final_host'] or record['host'] or '?'}: "
                f"{len(record['files'])} files, {record['bytes']} bytes in {record['seconds']:.1f}s")
    return f"fetch of {record['url'] or record['cmd']} failed: {record['error']} ({record['error_line'][:120]})"


def fetched_files(reach: dict | None) -> set[str]:
    """Paths the fetch stage wrote (to tell a fetched input from one missing from the repository)."""
    return {f["path"] for r in (reach or {}).get("fetches", []) for f in r.get("files", [])}


__all__ = ["FETCH_TIMEOUT_S", "fetch_stage", "fetched_files"]
