"""The bundled example (examples/wordfreq) reviewed as the quick start does: its report opens with the paper's title
and a summary that says every badge holds, what ran, and the two tables it covered."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TITLE = "snake_case or camelCase? Identifier Naming Conventions in Open-Source Python Projects"
sys.path.insert(0, str(ROOT / "tests"))
from test_batch_support import copilot_env  # noqa: E402
from test_browser import chromium  # noqa: E402


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    out = tmp_path_factory.mktemp("example") / "wordfreq"
    proc = subprocess.run([sys.executable, "-m", "artifactcopilot.cli", "review", "examples/wordfreq/paper.md",
                           "examples/wordfreq/artifact", "--out", str(out), "--sandbox", "local"], capture_output=True,
                          text=True, cwd=ROOT, env=copilot_env(), timeout=600, stdin=subprocess.DEVNULL, check=False)
    assert proc.returncode == 0, proc.stderr
    return out


def test_the_examples_report_opens_with_its_title_and_summary(example):
    data = json.loads((example / "report.json").read_text(encoding="utf-8"))
    assert data["title"] == TITLE and data["paper"] == "examples/wordfreq/paper.md"
    summary = data["summary"]
    assert summary["verdict"] == ("Artifacts Evaluated — Reusable + Results Reproduced: every condition of every "
                                  "badge holds.")
    assert summary["covered"] == ["Table 2", "Table 3"] and summary["not_covered"] == []
    assert summary["commands"] >= 3 and summary["valid"] == summary["commands"]
    assert "of the route's 2 documented commands, 2 gave valid output" in summary["ran"]
    md = (example / "report.md").read_text(encoding="utf-8")
    assert md.splitlines()[0] == "# snake\\_case or camelCase? Identifier Naming Conventions in Open-Source Python " \
                                 "Projects"
    assert md.index("* **Paper objects:** covered: Table 2, Table 3; not covered: none") < md.index("- **Paper:**")


@pytest.mark.browser
def test_the_examples_report_html_shows_the_title_and_summary_in_chromium(example, tmp_path):
    dom = chromium(tmp_path, (example / "report.html").as_uri(), "--dump-dom")
    assert re.search(r"<h1[^>]*>snake_case or camelCase\? Identifier Naming", dom)
    assert f"<title>{TITLE} — ArtifactCopilot review</title>" in dom
    card = dom.split('id="badge"')[1].split("</section>")[0]
    assert ">Artifacts Evaluated — Reusable + Results Reproduced</div>" in card
    assert "Every condition of every badge holds." in card and "covered: Table 2, Table 3" in card
