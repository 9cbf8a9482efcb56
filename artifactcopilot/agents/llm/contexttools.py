"""Tools that bring the phase's context into a small window on request, in pages: the paper (`read_paper`),
evidence already recorded and earlier phases' packets (`read_evidence`), and what the opening names but does not
spell out — a tool's full description and arguments, a checklist item's text, what each score needs (`explain`).

A mixin of `LLMToolbox` (toolbox.py). The opening prompt names these sources in a line each; what the model
reads of them comes page by page (`offset`), sized to what is left of the window (llm/paging.py). The paper's
table values stay hidden wherever they appear, as in the opening: the comparison tool checks them.
"""
from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from ...tables.render import hide_numbers

if TYPE_CHECKING:
    from ...llm.paging import Pager
    from ...models import PhasePacket
    from ...rubric import Rubric
    from ...tools import PhaseTools

CONTEXT_TOOLS = ("read_paper", "read_evidence", "explain")
"""Granted in every phase, whatever its Tool Scope: they read only what the phase may already know."""


class ContextTools:
    """Mixed into LLMToolbox: expects `tools`, `phase`, `rubric`, `packets`, `pager`, `out`, `_wrap`, `_described`."""

    tools: PhaseTools
    phase: str
    rubric: Rubric
    packets: dict[str, PhasePacket]
    pager: Pager
    if TYPE_CHECKING:  # defined by LLMToolbox
        @staticmethod
        def out(**fields: Any) -> str: ...
        @staticmethod
        def _wrap(text: str) -> str: ...
        def _described(self) -> dict[str, dict]: ...

    def _paged(self, text: str, offset: int, **fields: Any) -> str:
        page, after = self.pager.page(text, offset)
        more = {"next_offset": after, "hint": "call again with offset=next_offset for the next page"} if after else {}
        return self.out(**fields, chars=len(text), offset=offset, **more, text=self._wrap(page))

    def _hidden(self, text: str) -> str:
        return hide_numbers(text, list(getattr(self.tools.paper, "tables", [])))

    def read_paper(self, section: str = "", offset: int = 0) -> str:
        paper = self.tools.paper
        if not section:
            return self._paged(self._hidden(paper.text), offset, section="the whole paper")
        wanted = section.strip().lower()
        for sec in paper.sections:
            title = sec.title.strip().lower()
            if title == wanted or title.startswith(wanted + " ") or (len(wanted) > 3 and wanted in title):
                return self._paged(self._hidden(sec.text), offset, section=sec.title)
        titles = [s.title for s in paper.sections][:40]
        return self.out(error=f"no section '{section}'", sections=titles)

    def explain(self, topic: str = "score") -> str:
        topic = topic.strip()
        if topic in self._described():
            return self._describe_tool(topic)
        if (text := self._item_text(topic)) is not None:
            return self.out(item=topic, text=text)
        if topic.lower() in ("", "score", "scores", "levels", "gate", "rubric"):
            return self._paged(self._levels(), 0, phase=self.phase)
        return self.out(error=f"nothing to explain about '{topic}'", tools=sorted(self._described()),
                        items=self.rubric.phase_items(self.phase), other=["score"])

    def _item_text(self, item: str) -> str | None:
        if self.phase == self.rubric.registry.gate_phase:
            spec = self.rubric.gate.get(item)
            return f"{spec.get('title', '')}: {spec.get('criterion', spec.get('text', ''))}" if spec else None
        dim = self.rubric.dimensions.get(self.phase)
        return dim.items.get(item) if dim else None

    def _levels(self) -> str:
        """What each score means and needs (the gate: what each check needs)."""
        if self.phase == self.rubric.registry.gate_phase:
            return "\n".join(f"{gc}: {self._item_text(gc)}" for gc in self.rubric.registry.gate_checks)
        dim = self.rubric.dimensions.get(self.phase)
        if dim is None:
            return ""
        lines = [f"{dim.id} {dim.title}"] + [f"{lv}: {text}" for lv, text in dim.criteria.items()]
        for lv, rule in dim.levels.items():
            need = list(rule.all_of) + ([f"at least {rule.at_least[0]} of {', '.join(rule.at_least[1])}"]
                                        if rule.at_least else [])
            need += [c.text for c in rule.facts] + [f"not {i}" for i in rule.none_of]
            lines.append(f"{lv} needs: {'; '.join(need)}")
        return "\n".join(lines)

    def read_evidence(self, evidence_id: str, offset: int = 0) -> str:
        if evidence_id.strip() in self.packets:  # an earlier phase's committed packet
            return self._packet(evidence_id.strip(), offset)
        store = self.tools.store
        record = store.get(evidence_id.strip())
        if record is None:
            return self.out(error=f"no evidence '{evidence_id}' in this review",
                            **({"earlier_phases": list(self.packets)} if self.packets else {}))
        return self._paged(self._hidden(store.read(record.id)), offset, evidence=record.id, kind=record.kind,
                           summary=record.summary)

    def _packet(self, phase: str, offset: int) -> str:
        packet = self.packets[phase]
        body = {"score": packet.score.value if packet.score else None, "gate": packet.gate or None,
                "evidence": packet.evidence, "facts": packet.facts, "summary": packet.summary,
                "not_established": packet.agent_failure if not packet.reviewed_by else None}
        text = json.dumps({k: v for k, v in body.items() if v not in (None, [], {}, "")}, ensure_ascii=False,
                          default=str, indent=0)
        return self._paged(self._hidden(text), offset, phase=phase)

    def _describe_tool(self, name: str) -> str:
        spec = self._described()[name]
        text = json.dumps(spec.get("parameters") or {}, ensure_ascii=False, separators=(",", ":"))
        page, _ = self.pager.page(re.sub(r'"title":"[^"]*",?', "", text), 0)
        return self.out(name=name, description=spec.get("description", ""), arguments=page)
