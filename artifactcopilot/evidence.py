"""Run directory and append-only, tamper-evident evidence store.

Layout of a run directory:
  run.json                 who/what was reviewed (paper and artifact, hashes, run id)
  evidence/index.jsonl     one Evidence record per line, append-only (plus `redacted: n` when secrets were cut)
  evidence/<id>-<name>     evidence files, content-hashed, never rewritten
  packets/<phase>.json     committed phase packets, written once
  commits.jsonl            one line per committed packet: phase, packet hash, the path and hash of every
                           evidence file of the phase, the index length (the commit point)
  interventions.jsonl      the intervention ledger, append-only
  checkpoints.sqlite       the phase graph's checkpoints (resume)
  working/<phase>/...      working memory: attempts, rejected packets, scratch (never cited)
  logs/review.log          progress log
Writes are atomic (temp file + link/rename) so a crash never leaves half a file. Evidence files, index lines and
ledger entries become durable by group commit: fsynced together, files then folders, just before the commit line
of their phase is appended and fsynced. A killed process loses nothing it wrote; a power loss can only cut into
the phase that had not committed. Everything written passes the secret redactor. Packets are only read after the
run directory was checked against commits.jsonl (`verify_run`): a file the review did not write, or a committed
file that changed, stops the review.
"""
from __future__ import annotations

import json
import os
import re
import uuid
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from pathlib import Path

from pydantic import ValidationError

from .errors import EvidenceError, UsageError
from .fileio import append_line, atomic_write, read_jsonl, sha256_bytes, sha256_file, sync_files
from .models import Evidence, EvidenceLevel, Intervention, PhasePacket, utcnow
from .redact import Redactor, default_redactor

_TEMP = re.compile(r"^\..+\.tmp$")  # a temp file of an atomic write (in flight, or left by a crash)
_SEQ = re.compile(r"^[^-]+-(\d+)-")


class RunDirTampered(EvidenceError):
    """The run directory holds files the review did not write, or committed files changed."""

    exit_code = 2

    def __init__(self, problems: list[str]):
        n = len(problems) - 1
        more = f" (and {n} more problem{'s' if n > 1 else ''})" if n > 0 else ""
        super().__init__(f"cannot use run directory: {problems[0]}{more}; start a new review in another --out")
        self.problems = list(problems)


def _slug(text: str, limit: int = 40) -> str:
    """File-name-safe text, cut to `limit` but keeping a short extension such as .log or .json."""
    stem, dot, ext = text.rpartition(".")
    if not dot or len(ext) > 5 or not stem:
        stem, ext = text, ""
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", stem).strip("-")[: max(8, limit - len(ext) - 1)] or "item"
    return f"{slug}.{ext}" if ext else slug


def _parse_index(lines: list[dict]) -> tuple[dict[str, Evidence], dict[str, int], list[str]]:
    """Evidence records of index lines, their redaction counts, and the lines that are not records."""
    records: dict[str, Evidence] = {}
    redacted: dict[str, int] = {}
    problems = []
    for n, line in enumerate(lines, 1):
        count = line.pop("redacted", 0)
        try:
            record = Evidence(**line)
        except (ValidationError, TypeError):
            problems.append(f"evidence/index.jsonl record {n} is not an evidence record")
            continue
        parts = Path(record.path).parts
        if len(parts) != 2 or parts[0] != "evidence" or parts[1].startswith(".") or parts[1] == "index.jsonl":
            problems.append(f"evidence/index.jsonl record {record.id} points outside the evidence folder")
        elif record.id in records:
            problems.append(f"evidence/index.jsonl records {record.id} twice")
        else:
            records[record.id] = record
            redacted[record.id] = count if isinstance(count, int) else 0
    return records, redacted, problems


_COMMIT_KEYS = {"phase": str, "sha256": str, "files": dict, "index_len": int}


def _is_commit(line: dict) -> bool:
    return all(isinstance(line.get(k), t) for k, t in _COMMIT_KEYS.items()) and \
        all(isinstance(k, str) and isinstance(v, str) for k, v in line["files"].items())


class EvidenceStore:
    """Persistent memory of one review. Only what is committed here can be cited by the report."""

    def __init__(self, root: Path, redactor: Redactor | None = None):
        self.root = Path(root).resolve()
        self.evidence_dir = self.root / "evidence"
        self.packets_dir = self.root / "packets"
        self.working_dir = self.root / "working"
        self.logs_dir = self.root / "logs"
        for folder in (self.evidence_dir, self.packets_dir, self.working_dir, self.logs_dir):
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError:
                raise RunDirTampered([f"{folder.relative_to(self.root)} is not a folder"]) from None
        self.redactor = redactor or default_redactor()
        self._index = self.evidence_dir / "index.jsonl"
        self._ledger = self.root / "interventions.jsonl"
        self._commits = self.root / "commits.jsonl"
        lines, self._load_problems = read_jsonl(self._index, "evidence/index.jsonl")
        self._records, self._redacted, problems = _parse_index(lines)
        self._load_problems += problems
        self._commit_lines, problems = read_jsonl(self._commits, "commits.jsonl")
        self._load_problems += problems + [f"commits.jsonl record {n} is not a commit record"
                                           for n, line in enumerate(self._commit_lines, 1) if not _is_commit(line)]
        self._written: set[str] = set()  # evidence ids this process wrote
        self._unsynced: dict[Path, None] = {}  # written without fsync: made durable by the next commit (`sync`)
        self._hash_cache: dict[str, tuple[tuple, str]] = {}

    @classmethod
    def load_verified(cls, root: Path, redactor: Redactor | None = None) -> EvidenceStore:
        """Open a run directory and check it (see `verify_run`); RunDirTampered when it fails."""
        store = cls(root, redactor)
        store.check_run()
        return store

    # ---- run metadata -------------------------------------------------------------
    def init_run(self, paper: str, artifact: str, resume: bool, extra: dict | None = None) -> dict:
        """Create run.json, or check it matches when resuming. Returns the metadata."""
        meta_path = self.root / "run.json"
        identity = {"paper": self.redactor.redact(paper), "artifact": self.redactor.redact(artifact)}
        if meta_path.exists():
            try:
                meta = json.loads(meta_path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError):
                meta = None
            if not isinstance(meta, dict):
                raise RunDirTampered(["run.json does not parse"])
            if not resume:
                raise UsageError(f"{self.root} already holds a review (run {meta.get('run_id')})",
                                 "pass --resume to continue it, or choose another --out")
            if {k: meta.get(k) for k in identity} != identity:
                raise UsageError(f"{self.root} holds a review of {meta.get('paper')} / {meta.get('artifact')}, "
                                 "not of these inputs", "choose another --out")
            return meta
        if resume:
            raise UsageError(f"--resume: {self.root} holds no review to resume", "drop --resume to start one")
        meta = {"run_id": uuid.uuid4().hex[:12], "created_at": utcnow(), **identity,
                **self.redactor.redact_obj(extra or {})}
        atomic_write(meta_path, json.dumps(meta, indent=2), exclusive=True)
        return meta

    # ---- evidence --------------------------------------------------------------------
    def add(self, phase: str, kind: str, name: str, data: bytes | str, summary: str = "",
            level: EvidenceLevel = EvidenceLevel.E0) -> Evidence:
        """Persist one evidence file (secrets redacted) and index it. Returns its record (id, hash of what
        was written)."""
        if isinstance(data, str):
            text, redacted = self.redactor.redact_count(data)
            return self._add(phase, kind, name, text.encode("utf-8", errors="replace"), redacted, summary, level)
        return self._add(phase, kind, name, *self.redactor.redact_bytes_count(data), summary, level)

    def add_json(self, phase: str, kind: str, name: str, obj, summary: str = "",
                 level: EvidenceLevel = EvidenceLevel.E0) -> Evidence:
        obj, redacted = self.redactor.redact_obj_count(obj)
        text, more = self.redactor.redact_count(json.dumps(obj, indent=2, sort_keys=True, default=str))
        return self._add(phase, kind, name if name.endswith(".json") else name + ".json",
                         text.encode("utf-8", errors="replace"), redacted + more, summary, level)

    def _add(self, phase: str, kind: str, name: str, data: bytes, redacted: int, summary: str,
             level: EvidenceLevel) -> Evidence:
        """The index line goes first: a crash leaves a record without its file, never a file nobody recorded."""
        seq = 1 + max((int(m.group(1)) for i in self._records if (m := _SEQ.match(i))), default=0)
        ev_id = f"{phase}-{seq:03d}-{_slug(kind, 16)}"
        rel = Path("evidence") / f"{ev_id}-{_slug(self.redactor.redact(name))}"
        record = Evidence(id=ev_id, phase=phase, kind=kind, path=rel.as_posix(), sha256=sha256_bytes(data),
                          size=len(data), summary=self.redactor.redact(summary)[:300], level=level)
        append_line(self._index, {**record.model_dump(mode="json"), **({"redacted": redacted} if redacted else {})},
                    sync=False)
        self._unsynced[self._index] = None
        try:
            atomic_write(self.root / rel, data, exclusive=True, sync=False)
            self._unsynced[self.root / rel] = None
        except BaseException as exc:
            self._rewrite_index()  # take the record back: its file was never written
            if isinstance(exc, EvidenceError):
                raise RunDirTampered([f"{rel.as_posix()} existed before the review wrote it"]) from None
            raise
        self._records[ev_id], self._redacted[ev_id] = record, redacted
        self._written.add(ev_id)
        return record

    def _rewrite_index(self) -> None:
        lines = [{**r.model_dump(mode="json"), **({"redacted": n} if (n := self._redacted.get(i)) else {})}
                 for i, r in self._records.items()]
        atomic_write(self._index, "".join(json.dumps(line, sort_keys=True) + "\n" for line in lines))

    def sync(self) -> None:
        """Make every evidence file, index line and ledger entry written so far durable (group commit)."""
        if self._unsynced:
            sync_files(list(self._unsynced))
            self._unsynced.clear()

    def get(self, ev_id: str) -> Evidence | None:
        return self._records.get(ev_id)

    def all(self) -> list[Evidence]:
        return list(self._records.values())

    def redactions(self, ev_id: str) -> int:
        """How many secrets were cut from an evidence file before it was written."""
        return self._redacted.get(ev_id, 0)

    def read(self, ev_id: str) -> str:
        record = self._records[ev_id]
        return (self.root / record.path).read_text(encoding="utf-8", errors="replace")

    def verify(self, ev_id: str) -> str | None:
        """None when the evidence exists and its hash matches; otherwise the problem."""
        record = self._records.get(ev_id)
        if record is None:
            return f"evidence '{ev_id}' does not exist"
        path = self.root / record.path
        if path.is_symlink() or (path.exists() and not path.is_file()):
            return f"evidence file {record.path} is not a regular file"
        if not path.exists():
            return f"evidence file {record.path} is missing"
        if self._hash(path) != record.sha256:
            return f"evidence file {record.path} was changed after it was recorded (hash mismatch)"
        return None

    def _hash(self, path: Path) -> str:
        """sha256 of a file, cached while its inode, size and times stay the same (ctime cannot be set back)."""
        st = path.stat()
        key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        cached = self._hash_cache.get(str(path))
        if cached and cached[0] == key:
            return cached[1]
        digest = sha256_file(path)
        self._hash_cache[str(path)] = (key, digest)
        return digest

    # ---- packets ---------------------------------------------------------------------
    def commit_packet(self, packet: PhasePacket) -> Path:
        """Commit a packet (secrets redacted): first the commit line — packet hash, the hash of every evidence
        file of its phase, the index length — then the packet file. The run directory is checked first.
        Re-committing the same packet (a resumed run replaying the commit step) is a no-op; a different one
        is refused."""
        packet = self._redacted_packet(packet)
        data = packet.model_dump_json(indent=2).encode("utf-8")
        phase, path = packet.phase, self.packets_dir / f"{packet.phase}.json"
        problems, packets = self._inspect()
        if problems:
            raise RunDirTampered(problems)
        if phase in packets:
            if path.read_bytes() == data:
                return path
            raise EvidenceError(f"refusing to rewrite committed packet packets/{phase}.json")
        line = {"phase": phase, "sha256": sha256_bytes(data), "evidence": packet.evidence,
                "files": {r.path: r.sha256 for r in self._records.values() if r.phase == phase},
                "index_len": len(self._records)}
        interrupted = self._effective().get(phase)
        self.sync()  # the phase's evidence is on disk before the commit line that vouches for it
        if interrupted is None or {k: interrupted[1].get(k) for k in line} != line:
            line["committed_at"] = utcnow()
            append_line(self._commits, line)
            self._commit_lines.append(line)
        try:
            atomic_write(path, data, exclusive=True)
        except EvidenceError:
            raise RunDirTampered([f"packets/{phase}.json appeared before the packet was committed"]) from None
        return path

    def _redacted_packet(self, packet: PhasePacket) -> PhasePacket:
        dumped = packet.model_dump(mode="json")
        redacted = self.redactor.redact_obj(dumped)
        return packet if redacted == dumped else PhasePacket.model_validate(redacted)

    def _effective(self) -> dict[str, tuple[int, dict]]:
        """phase -> (position, line) of its last well-formed commit line."""
        return {line["phase"]: (pos, line) for pos, line in enumerate(self._commit_lines) if _is_commit(line)}

    def committed_phases(self) -> list[str]:
        """Phases whose commit completed (commit line and packet file), in commit order; no hashes checked."""
        done = sorted(self._effective().items(), key=lambda item: item[1][0])
        return [phase for phase, _ in done if (self.packets_dir / f"{phase}.json").is_file()]

    def packets(self) -> dict[str, PhasePacket]:
        """The committed packets, only after the run directory was checked (RunDirTampered otherwise)."""
        problems, packets = self._inspect()
        if problems:
            raise RunDirTampered(problems)
        return dict(sorted(packets.items()))

    def check_run(self) -> None:
        problems = self.verify_run()
        if problems:
            raise RunDirTampered(problems)

    def verify_run(self) -> list[str]:
        """Problems with the run directory: a packet not committed or changed, evidence changed, missing or
        not recorded, unknown files in packets/ or evidence/, lines that do not parse, records this review
        did not write. Empty when the directory is what the review wrote."""
        return self._inspect()[0]

    def _inspect(self) -> tuple[list[str], dict[str, PhasePacket]]:
        problems = [f"{d.name}/ is a link" for d in (self.evidence_dir, self.packets_dir) if d.is_symlink()]
        problems += self._load_problems + self._changed_since_loaded()
        effective = self._effective()
        last = max((pos for pos, _ in effective.values()), default=-1)
        packets, packet_problems = self._check_packets(effective, last)
        problems += packet_problems
        problems += self._check_evidence({p: effective[p][1] for p in packets})
        return problems + self._ledger_problems(), packets

    def _changed_since_loaded(self) -> list[str]:
        """The index and commits.jsonl on disk must be what this store loaded or wrote."""
        problems = []
        lines, _ = read_jsonl(self._index, "evidence/index.jsonl")
        on_disk, _, _ = _parse_index(lines)
        for ev_id in on_disk.keys() - self._records.keys():
            problems.append(f"evidence/index.jsonl lists {ev_id}, which this review did not record")
        for ev_id, record in self._records.items():
            seen = on_disk.get(ev_id)
            if seen is None:
                problems.append(f"evidence/index.jsonl lost the record of {ev_id}")
            elif (seen.path, seen.sha256, seen.phase) != (record.path, record.sha256, record.phase):
                problems.append(f"evidence/index.jsonl record {ev_id} was changed")
        if read_jsonl(self._commits, "commits.jsonl")[0] != self._commit_lines:
            problems.append("commits.jsonl was changed outside this review")
        return problems

    def _check_packets(self, effective: dict, last: int) -> tuple[dict[str, PhasePacket], list[str]]:
        packets, problems, seen = {}, [], set()
        for path in sorted(self.packets_dir.iterdir()):
            name, rel = path.name, f"packets/{path.name}"
            if _TEMP.match(name) and not path.is_symlink():
                continue
            phase = name[:-5] if name.endswith(".json") else ""
            seen.add(phase)
            if phase not in effective:
                problems.append(f"{rel} is not a committed packet")
            elif path.is_symlink() or not path.is_file():
                problems.append(f"{rel} is not a regular file")
            elif self._hash(path) != effective[phase][1]["sha256"]:
                problems.append(f"{rel} was changed after it was committed (hash mismatch)")
            else:
                try:
                    packet = PhasePacket.model_validate_json(path.read_bytes())
                except ValidationError:
                    problems.append(f"{rel} is not a packet")
                    continue
                if packet.phase != phase:
                    problems.append(f"{rel} holds a packet of phase {packet.phase}")
                else:
                    packets[phase] = packet
        for phase, (pos, line) in effective.items():
            # only the last commit can have been cut short by a crash, and then nothing was recorded after it
            if phase not in seen and (pos != last or len(self._records) > line["index_len"]):
                problems.append(f"packets/{phase}.json is missing although it was committed")
        return packets, problems

    def _check_evidence(self, commits: dict[str, dict]) -> list[str]:
        """Evidence of committed phases against their commit lines; every indexed file against its record;
        no file in evidence/ that the index does not list."""
        problems = []
        by_path = {r.path: r for r in self._records.values()}
        for phase, line in commits.items():
            for path, digest in line["files"].items():
                record = by_path.get(path)
                if record is None:
                    problems.append(f"{path} of committed phase {phase} is no longer in the evidence index")
                elif record.sha256 != digest:
                    problems.append(f"evidence/index.jsonl changed the hash of {path} after {phase} was committed")
        if commits and len(self._records) < max(line["index_len"] for line in commits.values()):
            problems.append("evidence/index.jsonl holds fewer records than when the last phase was committed")
        last_id = next(reversed(self._records), None)
        for record in self._records.values():
            if record.phase in commits and record.path not in commits[record.phase]["files"]:
                problems.append(f"{record.path} was added to phase {record.phase} after it was committed")
            problem = self.verify(record.id)
            interrupted = (record.id == last_id and record.id not in self._written and record.phase not in commits
                           and not (self.root / record.path).exists())
            if problem and not interrupted:  # a crash between the index line and the file of the last record
                problems.append(problem)
        known = {Path(r.path).name for r in self._records.values()} | {"index.jsonl"}
        for path in sorted(self.evidence_dir.iterdir()):
            if path.name not in known and not (_TEMP.match(path.name) and not path.is_symlink()):
                problems.append(f"evidence/{path.name} is not a recorded evidence file")
        return problems

    def discard_uncommitted(self, keep: AbstractSet[str] = frozenset()) -> list[str]:
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
            del self._records[record.id]
            self._redacted.pop(record.id, None)
        self._rewrite_index()
        return [r.id for r in stale]

    # ---- intervention ledger -------------------------------------------------------------
    def log_intervention(self, intervention: Intervention) -> Intervention:
        if any(i.id == intervention.id for i in self.interventions()):
            raise EvidenceError(f"intervention {intervention.id} is already logged; entries are never rewritten")
        intervention = Intervention.model_validate(self.redactor.redact_obj(intervention.model_dump(mode="json")))
        append_line(self._ledger, intervention.model_dump(mode="json"), sync=False)
        self._unsynced[self._ledger] = None
        return intervention

    def interventions(self) -> list[Intervention]:
        """The ledger's entries; a line that is not an entry is skipped (and reported by verify_run)."""
        return self._read_ledger()[0]

    def _read_ledger(self) -> tuple[list[Intervention], list[str]]:
        lines, problems = read_jsonl(self._ledger, "interventions.jsonl")
        out = []
        for n, line in enumerate(lines, 1):
            try:
                out.append(Intervention(**line))
            except (ValidationError, TypeError):
                problems.append(f"interventions.jsonl entry {n} is not an intervention")
        return out, problems

    def _ledger_problems(self) -> list[str]:
        return self._read_ledger()[1]

    def next_intervention_id(self) -> str:
        return f"INT-{len(self.interventions()) + 1:03d}"

    # ---- working memory ----------------------------------------------------------------------
    def working(self, phase: str) -> Path:
        folder = self.working_dir / phase
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def write_working(self, phase: str, name: str, text: str, append: bool = False) -> Path:
        """Working memory (attempts, rejected packets, replay logs): never cited, but redacted like evidence; atomic,
        not fsynced (nothing trusts it after a crash)."""
        path = self.working(phase) / name
        if append:
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(self.redactor.redact(text))
        else:
            atomic_write(path, self.redactor.redact(text), sync=False)
        return path

    def log(self, line: str) -> None:
        with open(self.logs_dir / "review.log", "a", encoding="utf-8") as fh:
            fh.write(f"{utcnow()} {self.redactor.redact(line)}\n")

    def cited(self, ids: Iterable[str]) -> list[Evidence]:
        return [self._records[i] for i in ids if i in self._records]
