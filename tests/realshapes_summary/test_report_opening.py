"""The report opens with what a reviewer needs: the paper's title (its path stays in the run's facts), then the badge
and why in one sentence, what ran, the paper objects covered and not, and what to try next — in report.json,
report.md and report.html (read in headless Chromium). Before, the title was 'ArtifactCopilot review — <path>' and
nothing summed the review up; a paper without a readable title is named by its file name, and the report says so."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from artifactcopilot.review import ReviewRequest, run_review
from artifactcopilot.rubric import default_rubric
from artifactcopilot.sandbox.commandlog import STDOUT, parse_log

from .shapes import TITLE, shard_cache

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_browser import OUTPUT, chromium  # noqa: E402


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory):
    """One review of the fixture, shared by the checks of report.json, report.md and report.html."""
    root = tmp_path_factory.mktemp("opening")
    paper, artifact = shard_cache(root / "case")
    report, _ = run_review(ReviewRequest(paper=paper, artifact=str(artifact), out=root / "run", timeout_s=60,
                                         sandbox="local"))
    return report, root / "run", paper


def _command_logs(run_dir: Path) -> list:
    logs = [p.read_text(encoding="utf-8") for p in sorted((run_dir / "evidence").glob("*.log"))]
    return [parse_log(t) for t in logs if t.startswith("$ ") and f"\n{STDOUT}\n" in t]


def test_report_json_carries_the_papers_title_and_the_summary(reviewed):
    report, run_dir, paper = reviewed
    data = json.loads((run_dir / "report.json").read_text(encoding="utf-8"))
    assert data["title"] == report.title == TITLE and data["title_note"] == ""
    assert data["paper"] == str(paper)  # the path is kept
    summary = report.summary
    assert set(data["summary"]) == {"verdict", "commands", "valid", "seconds", "ran", "covered", "not_covered",
                                    "next_step"}
    # what ran: every command log the review committed, those that ended valid, and the route's outcomes
    logs = _command_logs(run_dir)
    failed = [log for log in logs if not log.ok or log.outcome.startswith(("failed", "invalid"))]
    assert summary.commands == len(logs) >= 3 and summary.valid == len(logs) - len(failed) and failed
    assert "of the route's 2 documented commands, 1 gave valid output, 1 failed" in summary.ran
    assert summary.seconds == pytest.approx(report.timing["commands_s"], abs=0.1)
    assert (summary.covered, summary.not_covered) == (["Table 1"], ["Figure 2"])
    # the badge and why: the first failed condition of the next badge, from the derivation, in words
    assert (report.badge, report.badges["reusable"]) == ("functional", False)
    first = next(s for s in report.derivation if s.rule == "reusable" and not s.result
                 and not s.condition.startswith("badge."))
    dim = first.condition.split(".")[0]
    assert summary.verdict.startswith("Artifacts Evaluated — Functional: not Artifacts Evaluated — Reusable, because ")
    assert f"{dim} ({default_rubric().dimensions[dim].title}) scored {first.value}" in summary.verdict
    # what to try next: a reviewer's step from what was not established, not advice to the authors
    assert summary.next_step.startswith("A reviewer would") and summary.next_step in " ".join(report.not_established)


def test_report_md_opens_with_the_title_then_the_summary_then_the_sections(reviewed):
    report, run_dir, paper = reviewed
    md = (run_dir / "report.md").read_text(encoding="utf-8")
    assert md.splitlines()[0] == f"# {TITLE}" and "ArtifactCopilot review —" not in md
    order = [f"**{report.summary.verdict}**", "* **What ran:** ",
             "* **Paper objects:** covered: Table 1; not covered: Figure 2", "* **Try next:** A reviewer would",
             f"- **Paper:** {paper}", "**Contents:**", "## Reproduced results", "## Badge verdict"]
    at = [md.find(piece) for piece in order]
    assert -1 not in at and at == sorted(at), list(zip(order, at))


@pytest.mark.browser
def test_report_html_opens_with_the_title_and_the_summary_card_in_chromium(reviewed, tmp_path):
    report, run_dir, _ = reviewed
    url = (run_dir / "report.html").as_uri()
    dom = chromium(tmp_path, url, "--dump-dom")
    OUTPUT.mkdir(exist_ok=True)
    chromium(tmp_path, url, "--window-size=1400,900", f"--screenshot={OUTPUT / 'review-report-opening.png'}")
    assert (OUTPUT / "review-report-opening.png").stat().st_size > 10_000
    assert f"<title>{TITLE} — ArtifactCopilot review</title>" in dom
    h1 = re.search(r"<h1[^>]*>(.*?)</h1>", dom)
    assert h1 and h1.group(1) == TITLE and dom.find("<h1") < dom.find('id="badge"') < dom.find('id="contents"')
    card = dom.split('id="badge"')[1].split("</section>")[0]
    assert "Artifacts Evaluated — Functional" in card
    assert "Not Artifacts Evaluated — Reusable, because" in card  # the card names the badge once, then why
    assert "<strong>What ran:</strong>" in card and "covered: Table 1; not covered: Figure 2" in card
    assert "<strong>Try next:</strong> A reviewer would" in card
    assert dom.count("What ran:") == 1  # the summary is in the card, not a second time below it
    facts = dom.split("</section>")[1].split('id="contents"')[0]
    assert "<strong>Paper:</strong>" in facts and str(run_dir.parent / "case" / "paper.md") in facts


def test_a_paper_without_a_title_heading_is_named_by_its_file_name_and_the_report_says_so(tmp_path, review):
    paper, artifact = shard_cache(tmp_path / "case", heading=False)
    report, run_dir = review(paper, artifact, sandbox_name="local")
    assert report.title == "paper.md"
    assert report.title_note == ("No title could be read from the paper (the Markdown file has no title heading); "
                                 "the title is its file name.")
    md = (run_dir / "report.md").read_text(encoding="utf-8")
    assert md.splitlines()[:3] == ["# paper.md", "", f"*{report.title_note}*"]
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "<h1" in html and f"<p><em>{report.title_note}</em></p>" in html
    assert html.find(report.title_note) < html.find('id="badge"')  # said right under the title, before the card
    assert report.summary.verdict  # the rest of the opening is there all the same
