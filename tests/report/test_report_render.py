"""report.md / report.html as an AE chair reads them: verdict, trace, evidence links, safety."""
from __future__ import annotations

import hashlib
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from artifactcopilot.models import (
    ChecklistItem,
    Cost,
    DimensionResult,
    Evidence,
    EvidenceLevel,
    Flag,
    GateResult,
    Intervention,
    InterventionLevel,
    Report,
    Score,
)
from artifactcopilot.report.html import render_html
from artifactcopilot.report.markdown import render_markdown
from artifactcopilot.rubric import default_rubric
from artifactcopilot.rules import Fact, derive_badges, run_crosschecks

HOSTILE = "Output matched. <script>alert(1)</script> see [click](http://evil)"
COMMAND = "sed -i 's/cuda/cpu/' conf.yaml | tee `pwd`/patch.log"
MISSING = "D4-099-comparison"


class Page(HTMLParser):
    """What a browser would show: table rows under their heading, links, tags, text by element id."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags, self.hrefs, self.rows, self.by_id = [], [], [], {}
        self.heading, self._row, self._cell, self._open = "", None, None, []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        for entry in self._open:
            entry[2] += tag == entry[1]
        if "id" in attrs:
            self.by_id[attrs["id"]] = ""
            self._open.append([attrs["id"], tag, 1])
        if tag == "a":
            self.hrefs.append(attrs.get("href", ""))
        if tag in ("h2", "h3"):
            self.heading = ""
        if tag == "tr":
            self._row = []
        if tag in ("td", "th"):
            self._cell = ""

    def handle_endtag(self, tag):
        for entry in list(self._open):
            entry[2] -= tag == entry[1]
            if entry[2] == 0:
                self._open.remove(entry)
        if tag in ("td", "th"):
            self._row.append(self._cell.strip())
            self._cell = None
        if tag == "tr":
            self.rows.append((self.heading.strip(), self._row))

    def handle_data(self, data):
        for entry in self._open:
            self.by_id[entry[0]] += data
        if self._cell is not None:
            self._cell += data
        if self._open and self._open[-1][1] in ("h2", "h3"):
            self.heading += data

    def rows_under(self, heading_start: str) -> list[list[str]]:
        return [cells for head, cells in self.rows if head.startswith(heading_start)]


def _evidence(run: Path, ev_id: str, name: str, body: str, level: str = "E0") -> Evidence:
    rel = f"evidence/{ev_id}-{name}"
    (run / rel).parent.mkdir(parents=True, exist_ok=True)
    (run / rel).write_text(body)
    return Evidence(id=ev_id, phase=ev_id.split("-")[0], kind=ev_id.split("-")[2], path=rel,
                    sha256=hashlib.sha256(body.encode()).hexdigest(), size=len(body),
                    summary=f"{name} captured", level=EvidenceLevel(level))


@pytest.fixture
def run(tmp_path: Path):
    """A review that stopped during D5: Functional derived, Reusable not established."""
    rubric = default_rubric()
    ev = [_evidence(tmp_path, "gate-001-listing", "files.txt", "README.md\nsrc/\n"),
          _evidence(tmp_path, "gate-002-readme", "README.md", "# FastGraph\n"),
          _evidence(tmp_path, "D1-003-analysis", "docs.json", "{}"),
          _evidence(tmp_path, "D2-004-command", "pip-install.log", "Successfully installed\n", "E1"),
          _evidence(tmp_path, "D2-005-diff", "conf.diff", "-device: cuda\n+device: cpu\n"),
          _evidence(tmp_path, "D3-006-command", "run.log", "accuracy 0.912\n", "E2")]
    gate_ev = {"GC1": ["gate-001-listing"], "GC2": ["gate-002-readme"], "GC3": ["gate-001-listing"]}
    facts = {f"gate.{gc}": Fact(True, ids) for gc, ids in gate_ev.items()}
    dim_ev = {"D1": "D1-003-analysis", "D2": "D2-004-command", "D3": "D3-006-command", "D4": "D3-006-command"}
    facts |= {f"{d}.score": Fact(Score.WA, [ev_id]) for d, ev_id in dim_ev.items()}
    facts |= {"evidence_level": Fact(EvidenceLevel.E2, ["D3-006-command"]),
              "D3.evidence_level": Fact(EvidenceLevel.E2, ["D3-006-command"]),
              "D4.evidence_level": Fact(EvidenceLevel.E2, ["D3-006-command"]),
              "max_intervention": Fact(InterventionLevel.I3, ["INT-002"]),
              "D4.table_reproduced": Fact(False), "D4.copied_results": Fact(False),
              **{f"D1.declines_{b}": Fact(False, ["D1-003-analysis"])
                 for b in ("functional", "reusable", "reproduced")}}
    decision = derive_badges(facts, rubric)  # D5.* stay unset: the trace must say "not established"
    flags, cc_trace = run_crosschecks(facts, decision.badges, rubric)
    dims = {
        "D1": DimensionResult(score=Score.WA, evidence=["D1-003-analysis"], evidence_level=EvidenceLevel.E1,
                              summary="README covers setup and workflow.",
                              checklist=[ChecklistItem(item="D1.setup", status="satisfied",
                                                       evidence=["gate-002-readme"]),
                                         ChecklistItem(item="D1.resources", status="violated",
                                                       note="No RAM estimate.")]),
        "D2": DimensionResult(score=Score.WA, evidence=["D2-004-command"], evidence_level=EvidenceLevel.E1,
                              checklist=[ChecklistItem(item="D2.evaluable", status="satisfied",
                                                       evidence=["D2-004-command"])]),
        "D3": DimensionResult(score=Score.WA, evidence=["D3-006-command"], evidence_level=EvidenceLevel.E2,
                              checklist=[ChecklistItem(item="RW3", status="satisfied", note=HOSTILE,
                                                       evidence=["D3-006-command"]),
                                         ChecklistItem(item="RW5", status="not_applicable")]),
        "D4": DimensionResult(score=Score.WA, evidence=["D3-006-command"], evidence_level=EvidenceLevel.E2,
                              checklist=[ChecklistItem(item="D4.mapping", status="satisfied",
                                                       evidence=["D3-006-command", MISSING])]),
        "D5": DimensionResult(score=None, summary="Transfer run did not finish."),
    }
    report = Report(
        tool_version="0.1.0", run_id="a1b2c3d4e5f6", paper="FastGraph (EuroSys '25)", artifact="fastgraph-ae.zip",
        agent="gpt-4o", sandbox="docker", status="incomplete", badge=decision.badge, badges=decision.badges,
        gate={gc: GateResult(passed=True, evidence=ids) for gc, ids in gate_ev.items()},
        dimensions=dims, evidence_level=EvidenceLevel.E2, derivation=decision.trace + cc_trace,
        interventions=[
            Intervention(id="INT-001", phase="D2", action="pip install torch==2.1", purpose="Pin torch",
                         level=InterventionLevel.I1, rule="install-deps", anticipated_impact="none",
                         evidence=["D2-004-command"]),
            Intervention(id="INT-002", phase="D2", action=COMMAND, purpose="No GPU in sandbox",
                         level=InterventionLevel.I3, rule="config-change", anticipated_impact="Slower run",
                         evidence=["D2-005-diff"])],
        flags=flags + [Flag(severity="info", code="note-only", message="Docs mention a Slack channel."),
                       Flag(severity="low", code="slow-setup", message="Setup took 14 min.", phase="D2"),
                       Flag(severity="high", code="hash-mismatch", message="One log was rewritten.")],
        confidence=0.62, cost=Cost(llm_calls=41, tokens=182_000, usd=1.27),
        timing={"total": 1840.5, "commands": 1210.0}, evidence=ev,
        not_established=["D5 transfer validation (run timed out)", "- 1. nested? <b>no</b>"],
        next_badge=["Document a transfer example with its own input to reach Reusable."])
    md = render_markdown(report, rubric)
    page = render_html(report, rubric, md)
    (tmp_path / "report.md").write_text(md)
    (tmp_path / "report.html").write_text(page)
    return tmp_path, report, md, Page(page), page


def test_badge_verdict_is_shown(run):
    _, _, md, page, _ = run
    assert "Recommended badge: Artifacts Evaluated — Functional" in md
    assert "Functional" in page.by_id["badge"] and "0.62" in page.by_id["badge"]
    verdicts = {cells[0]: cells[1] for cells in page.rows_under("Badge verdict")}
    assert verdicts["Artifacts Available"] == "✓" and verdicts["Artifacts Evaluated — Reusable"] == "✗"


def test_every_badge_condition_is_in_its_derivation_table(run):
    _, report, _, page, _ = run
    for badge in default_rubric().badges:
        rows = page.rows_under(f"Derivation: {badge.title}")
        for step in (s for s in report.derivation if s.rule == badge.id):
            observed = {None: "not established", True: "true", False: "false"}.get(step.value, str(step.value))
            assert [step.condition, observed, "✓" if step.result else "✗"] in [r[:3] for r in rows]
    reusable = page.rows_under("Derivation: Artifacts Evaluated — Reusable")
    assert ["D5.score >= WA", "not established", "✗"] in [r[:3] for r in reusable]
    # cross-checks are flags, not badge conditions
    assert all(not r[0].startswith("crosscheck:") for r in page.rows_under("Derivation"))
    checks = {r[0]: r for r in page.rows_under("Cross-checks")}
    assert checks["heavy-intervention"][5] == "⚠ warning (fired)"  # I3 logged: the check fired and warned
    assert checks["copied-results"][5] == "– not triggered"  # its condition did not hold: no ✗ for it
    assert checks["d3-without-e2"][5] == "✓ passed"


def test_evidence_links_are_relative_and_resolve(run):
    run_dir, report, md, page, _ = run
    md_links = [h for h in re.findall(r"(?<!\\)\]\(([^)]+)\)", md) if not h.startswith("#")]  # contents: anchors
    assert md_links and page.hrefs
    anchors = [h for h in page.hrefs if h.startswith("#")]
    assert anchors and all(h[1:] in page.by_id for h in anchors)  # the table of contents reaches every section
    for href in md_links + [h for h in page.hrefs if not h.startswith("#")]:
        assert not re.match(r"^[a-z]+:|^/", href), href
        assert (run_dir / href).is_file(), href
    assert {e.path for e in report.evidence} <= set(page.hrefs)  # every record is reachable
    assert "[D3-006-command](evidence/D3-006-command-run.log)" in md


def test_cited_evidence_that_does_not_exist_is_marked_missing(run):
    _, _, md, page, _ = run
    assert f"{MISSING} (missing)" in md
    mapping = next(r for r in page.rows_under("D4") if r[0] == "D4.mapping")
    assert mapping[-1] == f"D3-006-command, {MISSING} (missing)"
    assert not any(MISSING in h for h in page.hrefs)
    assert "INT-002 (ledger)" in md and "INT-002 (missing)" not in md  # ledger ids are valid citations


def test_hostile_artifact_text_stays_text(run):
    _, _, md, page, raw = run
    assert "script" not in page.tags and "<script" not in raw
    assert not any("evil" in h for h in page.hrefs)
    assert "[click](http://evil)" not in md  # also inert where report.md is rendered (e.g. GitHub)
    rw3 = next(r for r in page.rows_under("D3") if r[0] == "RW3")
    assert rw3[3] == HOSTILE  # shown verbatim, as text
    ledger = {r[0]: r for r in page.rows_under("Intervention ledger")}
    assert len(ledger["INT-002"]) == 8 and ledger["INT-002"][3] == COMMAND  # the pipe did not split the row
    assert "<li>- 1. nested? &lt;b&gt;no&lt;/b&gt;</li>" in raw  # no list nested inside the item


def test_hostile_evidence_path_cannot_become_a_script_link(run):
    _, report, _, _, _ = run
    bad = report.evidence[0].model_copy(update={"path": "javascript:alert(1)"})
    page = Page(render_html(report, default_rubric(), render_markdown(
        report.model_copy(update={"evidence": [bad] + report.evidence[1:]}), default_rubric())))
    assert not any(re.match(r"^[a-z]+:", h, re.IGNORECASE) for h in page.hrefs)  # at worst a relative file name


def test_incomplete_status_is_visible(run):
    _, report, md, page, _ = run
    assert "Incomplete review" in md and "Incomplete" in page.by_id["badge"]
    done = report.model_copy(update={"status": "complete"})
    assert "Incomplete" not in render_markdown(done, default_rubric())


def test_flags_grouped_by_severity_in_order(run):
    _, report, md, _, _ = run
    heads = [md.index(f"### {s} severity (") for s in ("High", "Medium", "Low", "Info")]
    assert heads == sorted(heads)
    bounds = heads + [md.index("### Cross-checks")]
    for i, sev in enumerate(("high", "medium", "low", "info")):
        for flag in (f for f in report.flags if f.severity == sev):
            assert bounds[i] < md.index(f"**{flag.code}**") < bounds[i + 1], flag.code


def test_dimensions_show_rubric_text_and_gaps(run):
    _, _, md, page, _ = run
    rubric = default_rubric()
    assert rubric.dimensions["D1"].criteria["WA"] in md
    assert "### D5 — Reusability" in md and "not assessed" in md.split("### D5")[1].split("##")[0]
    rw3 = next(r for r in page.rows_under("D3") if r[0] == "RW3")
    assert rw3[1] == rubric.item_text("RW3") and rw3[2] == "✓ satisfied"
    assert "D5 transfer validation (run timed out)" in md.split("## Not established")[1]
    assert "reach Reusable" in md.split("## To reach the next badge")[1]
    assert "I4" in md.split("## Intervention ledger")[1] and "$1.27" in md


def test_html_is_standalone(run):
    _, _, _, page, raw = run
    assert "<title>FastGraph (EuroSys &#x27;25) — ArtifactCopilot review</title>" in raw
    assert not {"link", "script", "img", "iframe"} & set(page.tags)
    assert not re.search(r"(src|href)=\"(https?:)?//", raw)
    assert {"d3-workflow-executability", "high-severity", "info-severity"} <= set(page.by_id)


def test_review_stopped_at_the_gate_still_renders():
    report = Report(tool_version="0.1.0", run_id="r0", paper="P", artifact="https://example.org/a.zip",
                    agent="gpt-4o", sandbox="docker", status="incomplete", badge="none",
                    badges={"available": False, "functional": False, "reusable": False, "reproduced": False},
                    gate={"GC1": GateResult(passed=False)}, dimensions={}, evidence_level=EvidenceLevel.E0,
                    confidence=0.4)
    md = render_markdown(report, default_rubric())
    page = Page(render_html(report, default_rubric(), md))
    assert "Recommended badge: No badge" in md and "No badge" in page.by_id["badge"]
    assert md.count("**Score:** not assessed") == 5 and "No flags raised." in md
    assert [r[2] for r in page.rows_under("Availability gate")[1:]] == ["✗ failed", "not assessed", "not assessed"]
