"""A cheating reviewer through the LLM path: every packet field at its best value, and checklist items and facts
named after every id the prompt shows (other phases' items, rule facts, gate checks, rule texts).

Once such a packet turned a checklist item named `D4.evidence_level` into a boolean fact and the rule
`D4.evidence_level >= E3` crashed the review. Now the checker rejects what the phase may not state (with reasons
the model sees), the last attempt is committed without it (flagged), and the rule engine fails closed.
"""
from __future__ import annotations

import json
import re

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from llm_support import CarefulReviewer, FakeOpenAI, phase_of
from test_llm_hostile import FASTSUM, RANK, llm_review, not_above, offline  # noqa: F401 - `offline` is a fixture
from test_llm_http import copilot

from artifactcopilot.rubric import default_rubric

RUBRIC = default_rubric()
ID = re.compile(r"\b(?:(?:gate|badge|D[1-5])\.[A-Za-z_]+|GC\d|RW\d|max_intervention|evidence_level)\b")
BEST = {"bool": True, "score": "A", "intervention": "I0", "evidence": "E3", "number": 1e9, "text": "yes"}


class Cheater(CarefulReviewer):
    """Works like a careful reviewer, then submits the best packet its schema allows, naming every id it saw."""

    def __call__(self, messages):
        reply = super().__call__(messages)
        phase, _ = phase_of(messages)
        calls = getattr(reply, "tool_calls", None) or []
        if phase == "verify" or not calls or calls[0]["name"] != "submit_packet":
            return reply
        args = dict(calls[0]["args"])
        prompt = "\n".join(m.content for m in messages if isinstance(m, (HumanMessage, SystemMessage)))
        seen = sorted(set(ID.findall(prompt)) | set(RUBRIC.phase_items(phase)))
        own = {c["item"]: c["evidence"] for c in args.get("checklist", [])}
        cited = list(dict.fromkeys(args.get("evidence", []) + [e for ev in own.values() for e in ev]))
        rules = [c.text for b in RUBRIC.badges for c in b.conditions]
        args["checklist"] = [{"item": name, "status": "satisfied", "evidence": own.get(name, cited), "note": "ok"}
                             for name in seen + rules]
        args["facts"] = {name.rpartition(".")[2] if name.startswith(f"{phase}.") else name: BEST[kind]
                         for name, kind in RUBRIC.facts.items()}
        args["evidence_level"] = "E3"
        if phase == "gate":
            args["gate"] = dict.fromkeys(RUBRIC.registry.gate_checks, True)
        else:
            args["score"] = "A"
        return AIMessage(content="", tool_calls=[{**calls[0], "args": args}])


def test_a_cheating_model_ends_in_a_report_no_higher_than_the_runs_support(tmp_path, offline):  # noqa: F811
    report, out = llm_review(tmp_path, Cheater(), FASTSUM)
    base = offline(FASTSUM)
    assert report.status == "complete" and (out / "report.json").is_file()
    not_above(report, base)
    assert not any(f.code == "phase-error" for f in report.flags)  # no internal error in any phase
    removed = [f for f in report.flags if f.code == "packet-namespace"]
    assert {f.phase for f in removed} >= {"D1", "D2", "D3", "D4", "D5"}
    d4 = next(f for f in removed if f.phase == "D4")
    assert "D4.evidence_level" in d4.message and "gate.GC1" in d4.message and "max_intervention" in d4.message
    assert "facts it may not state or of the wrong type: " in d4.message
    # the model was told why on the attempt before: the checker's reasons name the items it may judge
    rejected = (out / "working" / "D4" / "rejected-1.json").read_text()
    assert "'D4.evidence_level >= E3' is not a D4 rubric item; judge only D4.executed" in rejected


def test_a_cheating_endpoint_through_the_cli_ends_in_exit_0_and_a_flagged_report(tmp_path):
    """The same reviewer behind an OpenAI-compatible server on 127.0.0.1, `copilot review --agent llm`: the tool
    schema the endpoint is sent enumerates each phase's items, and the review ends in a report (exit 0)."""
    with FakeOpenAI(Cheater()) as server:
        proc = copilot(tmp_path / "run", base_url=server.url)
        sent = [json.loads(r) if isinstance(r, str) else r for r in server.requests]
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads((tmp_path / "run" / "report.json").read_text())
    assert RANK[report["badge"]] <= RANK["reusable"] and "internal error" not in proc.stdout + proc.stderr
    assert any(f["code"] == "packet-namespace" for f in report["flags"])
    tools = [t for body in sent for t in body.get("tools", []) if t["function"]["name"] == "submit_packet"]
    enums = {json.dumps(t["function"]["parameters"]) for t in tools}
    assert any('"enum": ["D4.executed"' in e for e in enums)  # the schema sent names D4's items
