"""Tool schemas as the model is sent them: short, with the full text one `explain` call away.

A small window cannot hold a dozen tools described at length beside the phase's prompt. Each tool is bound with
its name, the first sentence of its description and its arguments (types and enumerations, no titles or
defaults); `explain` gives the rest. `submit_packet` is bound with what the model writes — the checklist
(items enumerated), evidence, level, the score or gate checks, the phase's declared facts and the summary —
while the review sets the rest (phase, attempt, interventions, who failed and who stood in).
"""
from __future__ import annotations

import re
from typing import Any

from ...rubric import Rubric
from ...verifier.namespace import phase_packet_model

MODEL_WRITES = ("checklist", "evidence", "evidence_level", "score", "gate", "facts", "summary")
"""The packet fields the model fills in; the review sets the others."""
DROPPED_KEYS = ("title", "description", "default", "examples")


def first_sentence(text: str, most: int = 120) -> str:
    return re.split(r"(?<=[.;:])\s", text or "", maxsplit=1)[0][:most]


def _inline(node: Any, defs: dict) -> Any:
    """`node` with every `$ref` replaced by its definition, and without the prose keys or what an enumeration
    already says (its type)."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            return _inline(defs.get(ref.rsplit("/", 1)[-1], {}), defs)
        drop = DROPPED_KEYS + ("$defs",) + (("type",) if "enum" in node else ())
        return {k: _inline(v, defs) for k, v in node.items() if k not in drop}
    if isinstance(node, list):
        return [_inline(v, defs) for v in node]
    return node


def slim_parameters(schema: dict) -> dict:
    return _inline(schema, schema.get("$defs") or {})


def packet_parameters(phase: str, rubric: Rubric) -> dict:
    """The argument schema of `submit_packet` for `phase`: only what the model writes, items enumerated."""
    full = phase_packet_model(phase, rubric).model_json_schema()
    props = slim_parameters(full)["properties"]
    gate = phase == rubric.registry.gate_phase
    keep = [k for k in MODEL_WRITES if k in props and k != ("score" if gate else "gate")]
    if not rubric.packet_facts(phase):
        keep.remove("facts")
    out = {k: props[k] for k in keep}
    if gate:  # the gate's checks by name, each a boolean
        checks = list(rubric.registry.gate_checks)
        out["gate"] = {"type": "object", "properties": {c: {"type": "boolean"} for c in checks},
                       "required": checks, "additionalProperties": False}
    else:  # a dimension score: one of the levels, not null
        out["score"] = next((o for o in props["score"].get("anyOf", []) if o.get("enum")), props["score"])
    required = ["checklist", "evidence", "evidence_level", "gate" if gate else "score", "summary"]
    return {"type": "object", "properties": out, "required": [r for r in required if r in out],
            "additionalProperties": False}
