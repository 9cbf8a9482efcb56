"""Run directory and append-only evidence store.

Layout of a run directory:
  run.json                 who/what was reviewed (paper and artifact, hashes, run id)
  evidence/index.jsonl     one Evidence record per line, append-only
  evidence/<id>-<name>     evidence files, content-hashed, never rewritten
  packets/<phase>.json     committed phase packets, written once
  commits.jsonl            one line per committed packet: phase, packet hash, cited evidence
  interventions.jsonl      the intervention ledger, append-only
  checkpoints.sqlite       the phase graph's checkpoints (resume)
  working/<phase>/...      working memory: attempts, rejected packets, scratch (never cited)
  logs/review.log          progress log
Writes are atomic (temp file + fsync + link/rename) so a crash never leaves half a file.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import uuid
from pathlib import Path
from typing import Iterable

from .errors import EvidenceError, UsageError
from .models import Evidence, EvidenceLevel, Intervention, PhasePacket, utcnow


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes | str, exclusive: bool = False) -> None:
    """Write via a temp file in the same folder; with exclusive=True an existing file is an error."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if exclusive:
            try:
                os.link(tmp, path)  # fails if the target exists: no silent overwrite
            except FileExistsError:
                raise EvidenceError(f"refusing to rewrite committed file {path}") from None
        else:
            os.replace(tmp, path)
        _fsync_dir(path.parent)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def append_line(path: Path, record: dict) -> None:
    """Append one JSON line and fsync, so a committed record survives a crash."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(record, sort_keys=True) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def _read_lines(path: Path) -> list[dict]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:  # a torn last line from a crash is ignored, earlier lines stand
            continue
    return out


def _slug(text: str, limit: int = 40) -> str:
    """File-name-safe text, cut to `limit` but keeping a short extension such as .log or .json."""
    stem, dot, ext = text.rpartition(".")
    if not dot or len(ext) > 5 or not stem:
        stem, ext = text, ""
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", stem).strip("-")[: max(8, limit - len(ext) - 1)] or "item"
    return f"{slug}.{ext}" if ext else slug


class EvidenceStore:
    """Persistent memory of one review. Only what is committed here can be cited by the report."""

    def __init__(self, root: Path):
        self.root = Path(root).resolve()
        self.evidence_dir = self.root / "evidence"
        self.packets_dir = self.root / "packets"
        self.working_dir = self.root / "working"
        self.logs_dir = self.root / "logs"
        for folder in (self.evidence_dir, self.packets_dir, self.working_dir, self.logs_dir):
            folder.mkdir(parents=True, exist_ok=True)
        self._index = self.evidence_dir / "index.jsonl"
        self._ledger = self.root / "interventions.jsonl"
        self._commits = self.root / "commits.jsonl"
        self._records: dict[str, Evidence] = {r["id"]: Evidence(**r) for r in _read_lines(self._index)}

    # ---- run metadata -------------------------------------------------------------
    def init_run(self, paper: str, artifact: str, resume: bool, extra: dict | None = None) -> dict:
        """Create run.json, or check it matches when resuming. Returns the metadata."""
        meta_path = self.root / "run.json"
        identity = {"paper": paper, "artifact": artifact}
        if meta_path.exists():
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            if not resume:
                raise UsageError(f"{self.root} already holds a review (run {meta.get('run_id')})",
                                 "pass --resume to continue it, or choose another --out")
            if {k: meta.get(k) for k in identity} != identity:
                raise UsageError(f"{self.root} holds a review of {meta.get('paper')} / {meta.get('artifact')}, "
                                 "not of these inputs", "choose another --out")
            return meta
        if resume:
            raise UsageError(f"--resume: {self.root} holds no review to resume", "drop --resume to start one")
        meta = {"run_id": uuid.uuid4().hex[:12], "created_at": utcnow(), **identity, **(extra or {})}
        atomic_write(meta_path, json.dumps(meta, indent=2), exclusive=True)
        return meta

    # ---- evidence --------------------------------------------------------------------
    def add(self, phase: str, kind: str, name: str, data: bytes | str, summary: str = "",
            level: EvidenceLevel = EvidenceLevel.E0) -> Evidence:
        """Persist one evidence file and index it. Returns its record (id, hash)."""
        if isinstance(data, str):
            data = data.encode("utf-8", errors="replace")
        seq = len(self._records) + 1
        ev_id = f"{phase}-{seq:03d}-{_slug(kind, 16)}"
        rel = Path("evidence") / f"{ev_id}-{_slug(name)}"
        atomic_write(self.root / rel, data, exclusive=True)
        record = Evidence(id=ev_id, phase=phase, kind=kind, path=rel.as_posix(), sha256=sha256_bytes(data),
                          size=len(data), summary=summary[:300], level=level)
        append_line(self._index, record.model_dump(mode="json"))
        self._records[ev_id] = record
        return record

    def add_json(self, phase: str, kind: str, name: str, obj, summary: str = "",
                 level: EvidenceLevel = EvidenceLevel.E0) -> Evidence:
        return self.add(phase, kind, name if name.endswith(".json") else name + ".json",
                        json.dumps(obj, indent=2, sort_keys=True, default=str), summary, level)

    def get(self, ev_id: str) -> Evidence | None:
        return self._records.get(ev_id)

    def all(self) -> list[Evidence]:
        return list(self._records.values())

    def read(self, ev_id: str) -> str:
        record = self._records[ev_id]
        return (self.root / record.path).read_text(encoding="utf-8", errors="replace")

    def verify(self, ev_id: str) -> str | None:
        """None when the evidence exists and its hash matches; otherwise the problem."""
        record = self._records.get(ev_id)
        if record is None:
            return f"evidence '{ev_id}' does not exist"
        path = self.root / record.path
        if not path.exists():
            return f"evidence file {record.path} is missing"
        if sha256_file(path) != record.sha256:
            return f"evidence file {record.path} was changed after it was recorded (hash mismatch)"
        return None

    # ---- packets ---------------------------------------------------------------------
    def commit_packet(self, packet: PhasePacket) -> Path:
        """Write the packet once; the packet file is the commit point. Re-committing the same packet
        (a resumed run replaying the commit step) is a no-op; a different one is refused."""
        path = self.packets_dir / f"{packet.phase}.json"
        data = packet.model_dump_json(indent=2)
        if path.exists() and path.read_text(encoding="utf-8") == data:
            self._record_commit(packet.phase, path)
            return path
        atomic_write(path, data, exclusive=True)
        self._record_commit(packet.phase, path)
        return path

    def _record_commit(self, phase: str, path: Path) -> None:
        if any(c["phase"] == phase for c in _read_lines(self._commits)):
            return
        packet = PhasePacket.model_validate_json(path.read_text(encoding="utf-8"))
        append_line(self._commits, {"phase": phase, "sha256": sha256_file(path), "evidence": packet.evidence,
                                    "committed_at": utcnow()})

    def committed_phases(self) -> list[str]:
        return [p.stem for p in sorted(self.packets_dir.glob("*.json"))]

    def verify_run(self) -> list[str]:
        """Problems with what was committed (files changed by hand, missing, or truncated)."""
        problems = []
        commits = {c["phase"]: c for c in _read_lines(self._commits)}
        for phase in self.committed_phases():
            path = self.packets_dir / f"{phase}.json"
            commit = commits.get(phase)
            if commit and sha256_file(path) != commit["sha256"]:
                problems.append(f"packets/{phase}.json was changed after it was committed (hash mismatch)")
        committed = set(self.committed_phases())
        for record in self._records.values():
            if record.phase in committed and (problem := self.verify(record.id)):
                problems.append(problem)
        return problems

    def discard_uncommitted(self, keep: set[str] = frozenset()) -> list[str]:
        """Before a resumed phase reruns: move evidence of phases without a committed packet out of
        the evidence store (into working/<phase>/discarded/, kept for audit), except the ids in
        `keep` (cited by a packet already submitted and awaiting its check). Returns the ids moved."""
        committed = set(self.committed_phases())
        stale = [r for r in self._records.values() if r.phase not in committed and r.id not in keep]
        if not stale:
            return []
        for record in stale:
            src = self.root / record.path
            dest = self.working(record.phase) / "discarded" / src.name
            dest.parent.mkdir(parents=True, exist_ok=True)
            if src.exists():
                os.replace(src, dest)
        moved = {r.id for r in stale}
        kept = [r for r in self._records.values() if r.id not in moved]
        atomic_write(self._index, "".join(json.dumps(r.model_dump(mode="json"), sort_keys=True) + "\n" for r in kept))
        self._records = {r.id: r for r in kept}
        return [r.id for r in stale]

    def packets(self) -> dict[str, PhasePacket]:
        out = {}
        for path in sorted(self.packets_dir.glob("*.json")):
            out[path.stem] = PhasePacket.model_validate_json(path.read_text(encoding="utf-8"))
        return out

    # ---- intervention ledger -------------------------------------------------------------
    def log_intervention(self, intervention: Intervention) -> Intervention:
        if any(i.id == intervention.id for i in self.interventions()):
            raise EvidenceError(f"intervention {intervention.id} is already logged; entries are never rewritten")
        append_line(self._ledger, intervention.model_dump(mode="json"))
        return intervention

    def interventions(self) -> list[Intervention]:
        return [Intervention(**r) for r in _read_lines(self._ledger)]

    def next_intervention_id(self) -> str:
        return f"INT-{len(self.interventions()) + 1:03d}"

    # ---- working memory ----------------------------------------------------------------------
    def working(self, phase: str) -> Path:
        folder = self.working_dir / phase
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def log(self, line: str) -> None:
        with open(self.logs_dir / "review.log", "a", encoding="utf-8") as fh:
            fh.write(f"{utcnow()} {line}\n")

    def cited(self, ids: Iterable[str]) -> list[Evidence]:
        return [self._records[i] for i in ids if i in self._records]
