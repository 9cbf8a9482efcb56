"""How many tokens the answer of a conversation needs: the completion reserve (and `max_tokens`) of every call.

The answer that ends a conversation is a call of its final tool (a phase's `submit_packet`, the verifier's
`verdict`), so its size follows from that tool's argument schema: a full sample of the arguments — every
checklist item judged with a note and evidence, every declared fact set, a paragraph of summary — is built from
the schema and counted with the review's token counter, with a margin. A larger schema reserves more; nothing
is a fixed share of the window.
"""
from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

STRING_CHARS = {"summary": 400, "note": 80, "reason": 200, "purpose": 120, "item": 24, "command": 200, "path": 80}
"""Characters a sample string has, by property name."""
LISTED_CHARS = 24
"""A string in a list: an evidence id, a file name."""
FREE_CHARS = 800
"""Any other string: free text of unknown length (a script, an answer)."""
PROSE = ("The README documents the setup and the workflow command; the run exits 0 and writes results/table2.csv, "
         "which the paper's Table 2 reports. ")
"""What sample prose reads like (real text, so that the tokenizer counts it as it counts an answer)."""
IDENTIFIER = "D3-014-workflow-command-log-results-table-2-"
LIST_ITEMS = 2
"""Entries a sample list has, unless its entries are keyed by an enumeration (a checklist: one per item)."""
CALL_OVERHEAD = 24
"""Tokens around the arguments: the tool's name and the chat template's call markers."""
MARGIN = 1.15
NO_FINAL_TOOL = 512
"""The reserve of a conversation whose end is not a tool call."""


def _resolve(node: dict, defs: dict) -> dict:
    ref = node.get("$ref")
    return _resolve(defs.get(ref.rsplit("/", 1)[-1], {}), defs) if isinstance(ref, str) else node


def _enum_key(node: dict, defs: dict) -> tuple[str, list] | None:
    """The property of an object whose values are enumerated (e.g. a checklist entry's `item`)."""
    for key, prop in (node.get("properties") or {}).items():
        prop = _resolve(prop, defs)
        if isinstance(prop.get("enum"), list) and key in node.get("required", []) and len(prop["enum"]) > 3:
            return key, prop["enum"]
    return None


def sample(node: dict, defs: dict, name: str = "", listed: bool = False) -> Any:
    """A full value of `node`: the largest a careful answer would write."""
    node = _resolve(node, defs)
    options = node.get("anyOf") or node.get("oneOf")
    if options:
        values = [sample(o, defs, name, listed) for o in options if _resolve(o, defs).get("type") != "null"]
        return max(values, key=lambda v: len(json.dumps(v, default=str)), default=None)
    if "enum" in node:
        return max(node["enum"], key=lambda v: len(str(v)))
    kind = node.get("type")
    if kind == "object" or "properties" in node:
        out = {k: sample(v, defs, k) for k, v in (node.get("properties") or {}).items()}
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) and not out:
            out = {f"{name or 'key'}{i}": sample(extra, defs) for i in range(1, LIST_ITEMS + 1)}
        return out
    if kind == "array":
        items = _resolve(node.get("items") or {}, defs)
        keyed = _enum_key(items, defs)
        if keyed:
            key, values = keyed
            return [{**sample(items, defs), key: value} for value in values]
        return [sample(items, defs, name, True) for _ in range(LIST_ITEMS)]
    if kind == "boolean":
        return True
    if kind in ("integer", "number"):
        return 12345
    if listed or name in ("item", "path"):
        return IDENTIFIER[: LISTED_CHARS if listed else STRING_CHARS[name]]
    chars = STRING_CHARS.get(name, FREE_CHARS)
    return (PROSE * (1 + chars // len(PROSE)))[:chars]


def answer_tokens(parameters: dict | None, count: Callable[[str], int]) -> int:
    """Completion tokens a call of a tool with argument schema `parameters` needs (None: no final tool)."""
    if not parameters:
        return NO_FINAL_TOOL
    text = json.dumps(sample(parameters, parameters.get("$defs") or {}), ensure_ascii=False, default=str)
    return math.ceil(count(text) * MARGIN) + CALL_OVERHEAD
