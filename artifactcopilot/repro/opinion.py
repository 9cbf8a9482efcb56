"""A chat model's opinion on a reproduction method, and the rule that it can only lower trust in a verdict.

The model sees the script, the artifact's file list and what the run read and wrote; never the
expected values. Its "copy" or "undetermined" turns an accepted verdict into undetermined (not
accepted, no hard evidence either way); its "last_mile" turns full into last-mile. It never accepts
a copy and never raises a verdict.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

from .provenance import RunProvenance
from .signals import Signal
from .static import StaticFindings

if TYPE_CHECKING:
    from .method import MethodVerdict

OPINION_PROMPT = Path(__file__).parent / "prompts" / "method.md"


def apply_opinion(verdict: MethodVerdict, script: str, static: StaticFindings, files: list[str] | None,
             prov: RunProvenance | None, opinion: str | None, model) -> None:
    why = None
    if opinion is None and model is not None:
        opinion, why = llm_opinion(model, script, static, files, prov)
    if not opinion:
        return
    verdict.llm_opinion, verdict.llm_reason = opinion, why
    verdict.signals.append(Signal(source="model", finding=opinion, detail=why or ""))
    if verdict.method in ("full", "last_mile") and opinion in ("copy", "undetermined"):
        verdict.reasons.append(f"the model sees {'copied results' if opinion == 'copy' else 'no experiment'}"
                               + (f" ({why})" if why else "") + "; no hard evidence either way, so not accepted")
        verdict.method, verdict.confidence = "undetermined", "low"
    elif verdict.method == "full" and opinion == "last_mile":
        verdict.reasons.append("the model sees only the last step run" + (f" ({why})" if why else ""))
        verdict.method = "last_mile"


def llm_opinion(model, script: str, static: StaticFindings, files: list[str] | None = None,
                prov: RunProvenance | None = None) -> tuple[str | None, str | None]:
    """(classification, reason) from a chat model that sees the script, the file list and what the run read and wrote
    — never the expected values. (None, None) when the model cannot be asked."""
    listing = "\n".join((files or [])[:300]) or "(no artifact folder)"
    run = ("not run" if prov is None else json.dumps({"exit_code": prov.exit_code, "read_first": prov.read_first[:80],
                                                      "written": prov.written[:80], "programs": prov.programs[:30]}))
    findings = json.dumps({"language": static.language, "reader": static.flow.method,
                           "reasons": static.flow.reasons[:4], "reads_paper": static.reads_paper,
                           "displayed": static.displayed[:10]})
    try:
        prompt = OPINION_PROMPT.read_text(encoding="utf-8").format(script=script[-20000:], files=listing, run=run,
                                                                  findings=findings)
        answer = str(model.invoke(prompt).content).strip()
    except Exception:  # noqa: BLE001 - an opinion is optional
        return None, None
    return parse_opinion(answer)


def parse_opinion(answer: str) -> tuple[str | None, str | None]:
    """The classification and reason in a model's answer (JSON or a word and a sentence)."""
    text = answer.strip()
    try:
        data = json.loads(text[text.index("{"):text.rindex("}") + 1]) if "{" in text else None
    except ValueError:
        data = None
    if isinstance(data, dict) and isinstance(data.get("method"), str):
        text = f"{data['method']} {data.get('reason', '')}"
    word_re = re.compile(r"\b(cop(?:y|ied|ies|ying)|last[_ -]mile|full|undetermined)\b", re.IGNORECASE)
    # the answer's first word, else its first mention
    m = word_re.match(text.strip(" *#`\"'")) or word_re.search(text[:400])
    if not m:
        return None, None
    word = m.group(1).lower().replace("-", "_").replace(" ", "_")
    word = "copy" if word.startswith("cop") else word
    rest = text.strip(" *#`\"'")[m.end():] if m.string != text else text[m.end():]
    reason = rest.strip(" :.-\n*") or None
    return word, reason[:300] if reason else None
