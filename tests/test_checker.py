"""Packet checker: schema, evidence existence and hashes, contract, consistency; graph retries."""

from __future__ import annotations

from artifactcopilot.evidence import EvidenceStore
from artifactcopilot.models import ChecklistItem, EvidenceLevel, PhasePacket, Score
from artifactcopilot.rubric import default_rubric
from artifactcopilot.skills import default_skills
from artifactcopilot.verifier.checker import PacketChecker

SKILLS = default_skills()


def d3_packet(store: EvidenceStore, score: Score, rw3: bool = True, level=EvidenceLevel.E2) -> PhasePacket:
    sel = store.add("D3", "selection", "sel.json", "{}")
    run = store.add("D3", "command", "run.log", "$ python3 run.py\nok\n", level=EvidenceLevel.E2)
    items = [
        ChecklistItem(item=i, status="satisfied", evidence=[sel.id]) for i in ("RW1", "RW2", "RW4", "RW5", "D3.stable")
    ]
    items.append(ChecklistItem(item="RW3", status="satisfied" if rw3 else "violated", evidence=[run.id]))
    return PhasePacket(phase="D3", score=score, checklist=items, evidence=[sel.id, run.id], evidence_level=level)


def test_consistent_packet_is_accepted(tmp_path):
    store = EvidenceStore(tmp_path)
    assert PacketChecker(store, default_rubric()).check(d3_packet(store, Score.A), SKILLS["D3"]).accepted


def test_unsupported_score_is_rejected_with_reason(tmp_path):
    store = EvidenceStore(tmp_path)
    result = PacketChecker(store, default_rubric()).check(d3_packet(store, Score.A, rw3=False), SKILLS["D3"])
    assert not result.accepted
    assert any("claims A but" in r for r in result.reasons)
    assert any("RW3" in r for r in result.reasons)


def test_tampered_or_unknown_evidence_is_rejected(tmp_path):
    store = EvidenceStore(tmp_path)
    packet = d3_packet(store, Score.WA)
    (tmp_path / store.get(packet.evidence[1]).path).write_text("edited by hand")
    packet = packet.model_copy(update={"evidence": packet.evidence + ["D3-999-ghost"]})
    reasons = PacketChecker(store, default_rubric()).check(packet, SKILLS["D3"]).reasons
    assert any("hash mismatch" in r for r in reasons) and any("D3-999-ghost" in r for r in reasons)


def test_contract_requires_items_kinds_and_score(tmp_path):
    store = EvidenceStore(tmp_path)
    packet = PhasePacket(phase="D3", checklist=[], evidence=[])
    reasons = PacketChecker(store, default_rubric()).check(packet, SKILLS["D3"]).reasons
    assert any("not judged" in r for r in reasons)
    assert any("'selection'" in r for r in reasons)
    assert any("score is required" in r for r in reasons)


def test_downgrade_commits_supported_score_with_flag(tmp_path):
    store = EvidenceStore(tmp_path)
    checker = PacketChecker(store, default_rubric())
    packet = d3_packet(store, Score.A, rw3=False)
    result = checker.check(packet, SKILLS["D3"])
    down = checker.downgrade(packet, result.reasons)
    assert down.score == Score.WR
    assert down.flags[-1].code == "checker-downgrade" and down.flags[-1].severity == "high"


class OverclaimingAgent:
    """Claims D3 = A on every attempt; the checker must not let that through."""

    name = "overclaiming"

    def __init__(self, inner):
        self.inner, self.d3_attempts = inner, 0

    def run(self, skill, context, tools):
        packet = self.inner.run(skill, context, tools)
        if skill.phase == "D3":
            self.d3_attempts += 1
            assert context.attempt == self.d3_attempts
            if context.attempt > 1:
                assert context.feedback, "a retry must carry the checker's reasons"
            return packet.model_copy(update={"score": Score.A})
        return packet


def test_graph_retries_then_downgrades_an_overclaim(review, tmp_path):
    from conftest import CORPUS, load_case

    from artifactcopilot.agents.heuristic import HeuristicAgent

    _expected, paper, artifact = load_case(CORPUS / "available-crash")
    agent = OverclaimingAgent(HeuristicAgent())
    report, run_dir = review(paper, artifact, agent=agent)
    assert agent.d3_attempts == 3
    assert report.dimensions["D3"].score != Score.A
    assert any(f.code == "checker-downgrade" and f.phase == "D3" for f in report.flags)
    assert report.badge == "available"
    assert len(list((run_dir / "working" / "D3").glob("rejected-*.json"))) == 3
