"""Gate: GC1 from the acquisition log, GC2 from the entry document, GC3 from paper relation."""
from __future__ import annotations

import re

from ...acquire.location import publication_record
from ...models import Evidence, EvidenceLevel, Flag, PhasePacket
from ...tools import PhaseTools
from ..base import PhaseContext, cited, item

NOT_MATERIAL = re.compile(r"(^|/)(readme|license|licence|copying|citation|authors|contributing|changelog|"
                          r"\.gitignore|\.gitattributes)[^/]*$", re.I)
TEXTUAL = (".md", ".txt", ".tex", ".rst", ".html")


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]{4,}", text.lower()))


def run_gate(ctx: PhaseContext, tools: PhaseTools) -> PhasePacket:
    acq, acq_ev = tools.acquire_artifact()
    gc1 = acq.ok
    checklist = [item("GC1", gc1, [acq_ev.id],
                      f"{acq.kind or 'source'}: {len(acq.files)} files" if gc1 else (acq.error or "no files"))]
    flags: list[Flag] = []
    if gc1:
        checklist[0], location, flags = _location(tools, acq, acq_ev.id, checklist[0])
    if not gc1:
        checklist += [item("GC2", False, [acq_ev.id], "not assessed: the artifact could not be acquired"),
                      item("GC3", False, [acq_ev.id], "not assessed: the artifact could not be acquired")]
        return _packet(checklist, {"GC1": False, "GC2": False, "GC3": False}, {}, acq_ev.id)

    entry = tools.locate_entry()
    entry_text = tools.read_file(entry) if entry else None
    gc2 = bool(entry_text and entry_text.strip())
    entry_ev = _entry_evidence(tools, entry, entry_text, gc2)
    checklist.append(item("GC2", gc2, [entry_ev.id, acq_ev.id],
                          f"entry: {entry}" if gc2 else "no readable entry document"))

    paper_words = _words(tools.paper.text)
    material, copies, texts = [], [], [entry_text or ""]
    for rel in acq.files:
        if NOT_MATERIAL.search(rel):
            continue
        if rel.lower().endswith(".pdf"):
            copies.append(rel)  # a PDF next to code is usually the paper itself
            continue
        text = tools.read_file(rel, 200_000) if len(texts) < 400 else None
        if text and rel.lower().endswith(TEXTUAL) and paper_words:
            words = _words(text)
            if words and len(words & paper_words) / max(1, len(words)) >= 0.8 and len(words) > 50:
                copies.append(rel)
                continue
        material.append(rel)
        if text:
            texts.append(text)
    relation = tools.paper_terms("\n".join(texts + acq.files))
    thresholds = ctx.rubric.gc3
    related = relation["shared_count"] >= thresholds.get("min_shared_terms", 3)
    has_material = len(material) >= thresholds.get("min_material_files", 1)
    relation.update({"material_files": material[:200], "material_count": len(material), "paper_copies": copies})
    rel_ev = tools.record_evidence("relation", "paper-relation", relation,
                                   f"{relation['shared_count']} shared distinctive terms; "
                                   f"{len(material)} material files", EvidenceLevel.E1)
    gc3 = related and has_material
    unreachable = [r for r in acq.linked if not r.get("ok")]
    checklist.append(item("GC3", gc3, [rel_ev.id, acq_ev.id] if unreachable else [rel_ev.id],
                          _gc3_note(relation, related, len(material), unreachable)))
    facts = {"entry": entry if gc2 else None, "files": len(acq.files), "skipped": acq.skipped, "location": location,
             "linked": acq.linked}
    return _packet(checklist, {"GC1": True, "GC2": gc2, "GC3": gc3}, facts, acq_ev.id, flags)


def _gc3_note(relation: dict, related: bool, material: int, unreachable: list[dict]) -> str:
    """GC3 in words: the terms shared with the paper and the material beyond its text — or, when the artifact holds
    only documentation and says its material lives in repositories that could not be fetched, not established."""
    note = (f"shares {relation['shared_count']} distinctive terms with the paper "
            f"({', '.join(relation['shared_terms'][:8])})"
            if related else f"only {relation['shared_count']} distinctive paper terms appear in the artifact")
    if material:
        return note + f"; {material} files beyond the paper text"
    if unreachable:
        why = list(dict.fromkeys(str(r.get("error") or "not fetched")[:80] for r in unreachable))
        return ("not established: the material is in linked repositories that could not be fetched ("
                + ", ".join(str(r.get("url")) for r in unreachable[:3]) + f": {'; '.join(why[:2])}); the artifact "
                f"itself holds documentation only ({note})")
    return note + "; nothing beyond a copy of the paper"


def _entry_evidence(tools: PhaseTools, entry: str | None, entry_text: str | None, gc2: bool) -> Evidence:
    """Where the entry document is (or where it was looked for), as GC2's evidence."""
    if entry:
        return tools.record_evidence("entry", "entry-location",
                                     {"entry": entry, "bytes": len(entry_text or ""), "readable": gc2},
                                     f"entry document {entry}" + ("" if gc2 else " (empty or unreadable)"),
                                     EvidenceLevel.E1)
    return tools.record_evidence("entry", "entry-location",
                                 {"entry": None, "searched": "README*, docs/index, INSTALL, top-level notebook"},
                                 "no README, docs index, INSTALL or notebook found", EvidenceLevel.E1)


def _location(tools: PhaseTools, acq, acq_id: str, gc1):
    """Where the artifact is published and whether the paper links it: GC1's evidence beyond the download."""
    entry = tools.locate_entry()
    record = publication_record(tools.source, tools.paper.links,
                                (tools.read_file(entry, 200_000) or "") if entry else "")
    ev = tools.record_evidence("location", "publication", record,
                               f"published at {record['public_location'] or 'no public location known'}"
                               + (f" ({record['location_kind']})" if record["location_kind"] else ""), EvidenceLevel.E1)
    where = record["public_location"]
    note = f"{gc1.note}; " + (f"published at {where} ({record['location_kind']}"
                              + (", archival" if record["archival"] else "") + ")" if where else "no public location")
    note += ("; the paper links it" if record["paper_links_location"]
             else ("; the paper does not link it" if where else ""))
    flags = []
    if record["reviewed_copy"] == "local":
        severity, code = ("info", "availability-local-copy") if where else ("medium", "availability-unverified")
        flags.append(Flag(severity=severity, code=code, phase="gate", message=record["note"]))
    return item("GC1", True, [acq_id, ev.id], note), record, flags


def _packet(checklist, gate: dict[str, bool], facts: dict, acq_id: str, flags: list[Flag] | None = None) -> PhasePacket:
    passed = all(gate.values())
    failed = [k for k, v in gate.items() if not v]
    summary = "All gate checks pass." if passed else f"Gate failed: {', '.join(failed)}. The review stops here."
    return PhasePacket(phase="gate", gate=gate, checklist=checklist, evidence=cited(checklist, acq_id),
                       evidence_level=EvidenceLevel.E1, facts=facts, summary=summary, flags=flags or [])
