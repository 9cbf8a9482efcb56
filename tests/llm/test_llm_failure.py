"""An agent failure is not a verdict: endpoints that fail at the gate and at D3, reviewed through the real CLI,
HTTP client, graph, checker and rule engine, with `--agent llm` (the review goes on, the failed phase is not
established) and `--agent auto` (the offline reviewer reviews the failed phase, flagged)."""

from __future__ import annotations

import json
from pathlib import Path

from llm_support import CarefulReviewer, FakeOpenAI, call, it, packet, results, steps_taken
from test_llm_http import copilot

from artifactcopilot.batch.manifest import ManifestRow
from artifactcopilot.batch.summary import build_summary
from artifactcopilot.batch.summary_md import render_summary_md
from artifactcopilot.models import Report
from artifactcopilot.rubric import default_rubric

D4_ITEMS = default_rubric().dimensions["D4"].items


def d4_without_a_run(self, messages, attempt):
    """D4 after a D3 that ran nothing: look at the paper's tables, claim nothing."""
    if steps_taken(messages) == 0:
        return call("record_evidence", kind="note", name="no-run", content="D3 ran nothing", summary="no run")
    ev = [r["evidence"] for r in results(messages) if "evidence" in r][-1]
    return packet("D4", [it(i, False, [ev], "no run to compare") for i in D4_ITEMS], "E0")


def review(tmp_path: Path, name: str, fail: dict[str, int], agent: str) -> tuple[dict, Path, str]:
    reviewer = CarefulReviewer()
    if "D3" in fail:
        reviewer.overrides["D4"] = d4_without_a_run
    with FakeOpenAI(reviewer, fail=fail) as server:
        proc = copilot(tmp_path / name, "--max-steps", "6", base_url=server.url, agent=agent, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = tmp_path / name
    return json.loads((out / "report.json").read_text()), out, (out / "report.md").read_text()


def gate_rows(md: str) -> dict[str, str]:
    rows = [line.split("|") for line in md.split("## Availability gate", 1)[1].split("##", 1)[0].splitlines()]
    return {r[1].strip(): r[3].strip() for r in rows if len(r) > 4 and r[1].strip().startswith("GC")}


def test_a_gate_the_model_cannot_fit_is_not_established_and_the_review_goes_on(tmp_path):
    report, out, md = review(tmp_path, "gate-llm", {"gate": 400}, "llm")
    assert [(f["phase"], f["fallback"]) for f in report["agent_failures"]] == [("gate", None)]
    assert "context window" in report["agent_failures"][0]["reason"]
    # what acquisition settles is recorded from its evidence; GC3 needs judgement and is not established
    gate = report["gate"]
    assert gate["GC1"]["passed"] and gate["GC2"]["passed"] and gate["GC1"]["evidence"] and gate["GC2"]["evidence"]
    assert gate["GC3"]["agent_failure"] and gate["GC1"]["agent_failure"] is None
    rows = gate_rows(md)
    assert rows["GC1"] == "✓ passed" and rows["GC3"].startswith("not established — the agent failed")
    assert "✗ failed" not in "".join(rows.values())
    # the review went on to the phases the model could do, and says what is missing
    assert all(report["dimensions"][d]["score"] == "A" for d in ("D1", "D2", "D3", "D5"))
    assert report["badge"] == "none" and set(report["badges_not_established"]) == set(report["badges"])
    assert any(n.startswith("gate (GC3 not established") for n in report["not_established"])
    assert "Not a verdict" in md and "the agent failed" in report["next_badge"][0]


def test_with_auto_the_offline_reviewer_takes_the_failed_gate_flagged(tmp_path):
    report, out, md = review(tmp_path, "gate-auto", {"gate": 400}, "auto")
    assert report["agent"] == "llm" and report["badge"] == "reusable" and not report["badges_not_established"]
    assert [(f["phase"], f["fallback"]) for f in report["agent_failures"]] == [("gate", "heuristic")]
    assert all(g["passed"] and g["agent_failure"] is None for g in report["gate"].values())
    gate_packet = json.loads((out / "packets" / "gate.json").read_text())
    assert gate_packet["reviewed_by"] == "heuristic" and gate_packet["agent_failure"]
    assert any(f["code"] == "agent-fallback" and f["phase"] == "gate" for f in report["flags"])
    assert "reviewed it instead (flagged)" in " ".join(report["not_established"])


def test_an_endpoint_failing_at_d3_leaves_d3_not_established_never_rejected(tmp_path):
    report, out, md = review(tmp_path, "d3-llm", {"D3": 500}, "llm")
    d3 = report["dimensions"]["D3"]
    assert d3["score"] is None and "500" in d3["agent_failure"] and d3["checklist"] == []
    # D4, with no run to compare, never submits a packet that cites a comparison: its agent failed too
    failures = {f["phase"]: f["reason"] for f in report["agent_failures"]}
    assert set(failures) == {"D3", "D4"} and failures["D4"].startswith("no valid packet in 3 attempts")
    assert report["dimensions"]["D5"]["score"] is not None  # the review went on
    # the badge is what the evidence supports (Available); the ones D3 and D4 decide are not established
    assert report["badge"] == "available"
    assert report["badges_not_established"] == ["functional", "reusable", "reproduced"]
    section = md.split("### D3", 1)[1].split("###", 1)[0]
    assert "**Score:** not established — the agent failed" in section and "R —" not in section
    # the console says the same, in a line of its own
    from artifactcopilot.cli import outcome_lines

    lines = outcome_lines(Report.model_validate(report), out, {"md": out / "report.md", "html": out / "report.html",
                                                               "json": out / "report.json"})
    assert any(line.startswith("D3: the agent failed") and "not established" in line for line in lines)
    assert not any(line.startswith("gate failed") for line in lines)
    assert any(line.startswith("not a verdict: functional, reusable, reproduced") for line in lines)


def test_with_auto_a_failed_d3_is_reviewed_offline_flagged(tmp_path):
    report, out, md = review(tmp_path, "d3-auto", {"D3": 500}, "auto")
    d3 = report["dimensions"]["D3"]
    assert d3["reviewed_by"] == "heuristic" and d3["score"] in ("WA", "A") and d3["agent_failure"]
    assert not report["badges_not_established"] and report["badge"] in ("functional", "reusable")
    assert "**Reviewed by:** the heuristic reviewer — the agent failed" in md.split("### D3", 1)[1]


def _outcome(badge: str, failed: dict | None = None, blocked: list | None = None, fallback: list | None = None):
    return {"status": "ok", "badge": badge, "reproduced": False, "dimensions": {}, "confidence": 0.8, "flags": {},
            "flag_codes": [], "cost_usd": 0.0, "time_s": 1.0, "agent_failed": failed or {},
            "agent_fallback": fallback or [], "badges_not_established": blocked or []}


def test_the_batch_summary_counts_agent_failures_apart_from_badge_none(tmp_path):
    cases = {
        "refused": _outcome("none", {"gate": "context window"}, ["available", "functional"]),
        "nothing": _outcome("none"),  # a verdict: badge none from evidence
        "partial": _outcome("available", {"D3": "endpoint"}, ["functional"]),
        "covered": _outcome("reusable", fallback=["D3"]),
    }
    entries = []
    for name, outcome in cases.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "outcome.json").write_text(json.dumps({"id": name, **outcome}))
        entries.append(ManifestRow(id=name, paper="p.md", artifact="a", human_badge="reusable"))
    summary = build_summary(entries, tmp_path, 1, "manifest.csv")
    assert summary["agent_failures"] == {"reviews": 2, "not_a_verdict": 2, "fallback": 1,
                                         "phases": {"gate": 1, "D3": 1}}
    # reviews whose badge is capped by a failure are no prediction: only 'nothing' and 'covered' are compared
    labels = summary["confusion"]["labels"]
    predicted = [sum(row[i] for row in summary["confusion"]["matrix"]) for i in range(len(labels))]
    assert dict(zip(labels, predicted)) == {"none": 1, "available": 0, "functional": 0, "reusable": 1}
    rows = {r["id"]: r for r in summary["artifacts"]}
    assert rows["refused"]["agent_failed"] == {"gate": "context window"}
    assert any(a.startswith("the agent failed") for a in rows["refused"]["attention"])
    md = render_summary_md(summary)
    assert "## Agent failures (not verdicts)" in md and "| refused | none (agent failed) |" in md
