"""The batch dashboard and a review's report.html in headless Chromium, opened from the file system
as a chair would. Screenshots are kept in test-output/ for people to look at (the README's picture of a report,
docs/images/report.png, is taken the same way by scripts/report-screenshot.sh)."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from test_batch_support import SMALL, copilot_env, corpus_row, write_manifest

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "test-output"
CHROMIUM = next((p for p in ("/usr/bin/chromium", shutil.which("chromium") or "") if p and Path(p).exists()), None)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--hide-scrollbars", "--window-size=1400,1100"]


def chromium(tmp_path: Path, url: str, *args: str) -> str:
    if CHROMIUM is None:
        pytest.skip("headless Chromium is not installed (bash .ci/setup-chromium.sh installs it)")
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    proc = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args, url], capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


class _Page(HTMLParser):
    """Rows of the artifacts table, every link, and element ids, from the DOM Chromium produced."""

    def __init__(self):
        super().__init__()
        self.rows: list[dict] = []
        self.links: list[str] = []
        self.ids: set[str] = set()
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "tr" and "data-id" in attrs:
            self.rows.append({"id": attrs["data-id"], "class": attrs.get("class", ""), "cells": [], "links": []})
        elif tag == "td" and self.rows:
            self._cell = []
        elif tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])
            if self._cell is not None:
                self.rows[-1]["links"].append(attrs["href"])

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)

    def handle_endtag(self, tag):
        if tag == "td" and self._cell is not None:
            self.rows[-1]["cells"].append(" ".join("".join(self._cell).split()))
            self._cell = None


def parse(dom: str) -> _Page:
    page = _Page()
    page.feed(dom)
    return page


@pytest.fixture(scope="module")
def batch_dir(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("browser")
    # functional-basic gets a human 'reusable': a disagreement the dashboard must put first.
    rows = [corpus_row(n) if n != "functional-basic" else corpus_row(n, human_badge="reusable") for n in SMALL]
    write_manifest(tmp / "venue.csv", [], rows)
    proc = subprocess.run([sys.executable, "-m", "artifactcopilot.cli", "batch", "venue.csv", "--out", "batch",
                           "--workers", "2", "--sandbox", "local"], capture_output=True, text=True, cwd=tmp,
                          env=copilot_env(), timeout=600, stdin=subprocess.DEVNULL, check=False)
    assert proc.returncode == 0, proc.stderr
    OUTPUT.mkdir(exist_ok=True)
    return tmp / "batch"


@pytest.fixture(scope="module")
def example_report(tmp_path_factory):
    """The bundled example reviewed as the README's quick start does (relative paths, from the repository)."""
    out = tmp_path_factory.mktemp("example") / "wordfreq"
    proc = subprocess.run([sys.executable, "-m", "artifactcopilot.cli", "review", "examples/wordfreq/paper.md",
                           "examples/wordfreq/artifact", "--out", str(out), "--sandbox", "local"], capture_output=True,
                          text=True, cwd=ROOT, env=copilot_env(), timeout=600, stdin=subprocess.DEVNULL, check=False)
    assert proc.returncode == 0, proc.stderr
    OUTPUT.mkdir(exist_ok=True)
    return out / "report.html"


def test_dashboard_lists_every_artifact_needing_a_human_first(batch_dir, tmp_path):
    url = (batch_dir / "index.html").as_uri()
    page = parse(chromium(tmp_path, url, "--dump-dom"))
    chromium(tmp_path, url, f"--screenshot={OUTPUT / 'batch-dashboard.png'}")
    assert (OUTPUT / "batch-dashboard.png").stat().st_size > 10_000
    assert sorted(r["id"] for r in page.rows) == sorted(SMALL)
    first = page.rows[0]
    assert first["id"] == "functional-basic" and "predicted functional, human reusable" in first["cells"][0]
    assert "attn" in first["class"]
    by_id = {r["id"]: r["cells"] for r in page.rows}
    for name in SMALL:  # Predicted and Human columns
        expected = json.loads((batch_dir / name / "outcome.json").read_text())["badge"]
        assert by_id[name][2] == expected
    assert by_id["functional-basic"][3] == "reusable" and by_id["functional-basic"][4] == "no"
    for row in page.rows:  # each row links to its review, and the file is there
        assert row["links"] == [f"{row['id']}/report.html"]
        assert (batch_dir / row["links"][0]).is_file()
    assert {"confusion", "dimension-agreement", "artifacts"} <= page.ids


def test_dashboard_sorts_in_the_browser(batch_dir, tmp_path):
    page = parse(chromium(tmp_path, (batch_dir / "index.html").as_uri() + "#sort=id-desc", "--dump-dom"))
    assert [r["id"] for r in page.rows] == sorted(SMALL, reverse=True)
    page = parse(chromium(tmp_path, (batch_dir / "index.html").as_uri() + "#sort=predicted-asc", "--dump-dom"))
    order = ["none", "available", "functional", "reusable"]
    predicted = [r["cells"][2] for r in page.rows]
    assert predicted == sorted(predicted, key=order.index)


def test_report_html_shows_contents_results_and_verdicts(example_report, tmp_path):
    report = example_report
    dom = chromium(tmp_path, report.as_uri(), "--dump-dom")
    chromium(tmp_path, report.as_uri(), "--window-size=1400,1500", f"--screenshot={OUTPUT / 'review-report.png'}")
    assert (OUTPUT / "review-report.png").stat().st_size > 10_000
    page = parse(dom)
    sections = ("badge-verdict", "reproduced-results", "availability-gate", "dimensions", "confidence-and-flags",
                "evidence-index")
    assert set(sections) <= page.ids and "contents" in page.ids
    assert all(f"#{s}" in page.links for s in sections)  # the table of contents reaches each section
    results = dom.split('id="reproduced-results"')[1].split("<h2")[0]
    assert "<th>Paper</th><th>Run</th><th>Verdict</th>" in results.replace("\n", "")
    assert results.count('class="v-ok">✓ match') == 30  # Tables 2 and 3: each paper cell beside the run's value
    assert "Table 2: reproduced (full reproduction)" in results
    assert re.search(r'<code class="hash">[0-9a-f]{12}</code>', dom)
    confidence = dom.split('id="confidence-and-flags"')[1].split("<h3")[0]
    assert "Confidence:" in confidence
    crosschecks = dom.split('id="cross-checks"')[1].split("</table>")[0]
    assert "not triggered" in crosschecks and "passed" in crosschecks


def test_report_html_quotes_the_crash_in_d3(batch_dir, tmp_path):
    report = batch_dir / "available-crash" / "report.html"
    dom = chromium(tmp_path, report.as_uri(), "--dump-dom")
    chromium(tmp_path, report.as_uri(), f"--screenshot={OUTPUT / 'review-report-crash.png'}")
    d3 = dom.split('id="d3-workflow-executability"')[1].split('id="d4-')[0]
    assert "Failing command:" in d3 and "<pre><code" in d3 and "Traceback" in d3
    assert 'class="score-' in d3


def test_report_html_evidence_links_resolve(batch_dir, tmp_path):
    report = batch_dir / "reusable-full" / "report.html"
    page = parse(chromium(tmp_path, report.as_uri(), "--dump-dom"))
    evidence = [href for href in page.links if href.startswith("evidence/")]
    assert len(set(evidence)) >= 5
    for href in set(page.links):
        target = urlparse(href)
        if target.scheme or href.startswith("#"):
            continue
        assert (report.parent / unquote(target.path)).is_file(), href
    assert "badge" in page.ids
