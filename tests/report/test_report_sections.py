"""The report sections read back from evidence: reproduced results, D3's failing command, why an artifact
could not be acquired, the table of contents, verdict colours and hashes in report.html."""
from __future__ import annotations

import re

from report_trees import all_dimensions, command_log, dimension, evidence, report
from test_report_render import Page

from artifactcopilot.models import ChecklistItem, GateResult
from artifactcopilot.report.acquisition import classify
from artifactcopilot.report.extras import extras_for
from artifactcopilot.report.html import render_html
from artifactcopilot.report.markdown import render_markdown
from artifactcopilot.rubric import default_rubric

RUBRIC = default_rubric()


def _render(rep, run):
    extras = extras_for(rep, run)
    md = render_markdown(rep, RUBRIC, extras)
    return md, render_html(rep, RUBRIC, md, extras), extras


def _mapping(cells, **table) -> dict:
    entry = {"table": "Table 2", "role": "results", "source": "stdout of `python3 run.py`", "cmd": "python3 run.py",
             "matched": sum(c["matched"] for c in cells), "total": len(cells), "cells": cells, **table}
    return {"tables": [entry], "documented_output": [], "figures": [], "paper_numbers": {"stated": 0, "found": []}}


def _cell(row, column, expected, produced, kind):
    return {"row": row, "column": column, "expected": expected, "produced": produced, "matched": kind == "match",
            "kind": kind}


def test_reproduced_results_place_each_paper_cell_beside_the_run(tmp_path):
    cells = [_cell("bfs", "time (s)", "1.25", "1.25", "match"), _cell("bfs", "speedup", "3.4", "3.1", "different"),
             _cell("dfs", "time (s)", "7.5", None, "missing"),
             _cell("<b>x</b> | y", "[a](http://evil)", "0.50", "0.5", "match")]
    ev = [evidence(tmp_path, "D4-009-comparison", "claim-mapping.json", _mapping(cells), "E3")]
    rep = report(ev, dimensions=all_dimensions(D4=dimension("WR", ["D4-009-comparison"], "E2")))
    md, html, extras = _render(rep, tmp_path)
    assert [t.label for t in extras.tables] == ["Table 2"]
    section = md.split("## Reproduced results")[1].split("\n## ")[0]
    assert "### Table 2: partly reproduced (2 of 4 cells)" in section
    page = Page(html)
    rows = {(r[0], r[1]): r[2:] for r in page.rows_under("Table 2")}
    assert rows[("bfs", "time (s)")] == ["1.25", "1.25", "✓ match"]
    assert rows[("bfs", "speedup")] == ["3.4", "3.1", "✗ different"]
    assert rows[("dfs", "time (s)")] == ["7.5", "—", "✗ not produced"]
    assert rows[("<b>x</b> | y", "[a](http://evil)")][2] == "✓ match"  # hostile labels stay text in one cell
    assert not any("evil" in h for h in page.hrefs)
    # what an agent may see: the paper values the run did not produce keep no digit
    safe = section.split("Obfuscation-safe view")[1]
    assert "`?.?`" in safe and "`?.?`" in safe and "3.4" not in safe and "7.5" not in safe
    assert re.search(r'<td class="v-ok">✓ match</td>', html) and re.search(r'<td class="v-bad">✗ different</td>', html)


def test_an_agents_single_table_comparisons_keep_the_best(tmp_path):
    weak = {"table": "Table 1", "source": "D3-004-command", "source_kind": "run-output", "matched": 1, "total": 2,
            "success": False, "cells": [_cell("a", "x", "1", "1", "match"), _cell("a", "y", "2", "5", "different")]}
    full = {**weak, "matched": 2, "success": True,
            "cells": [_cell("a", "x", "1", "1", "match"), _cell("a", "y", "2", "2", "match")]}
    ev = [evidence(tmp_path, "D4-005-comparison", "compare-1.json", weak),
          evidence(tmp_path, "D4-006-comparison", "compare-2.json", full)]
    rep = report(ev, dimensions=all_dimensions(D4=dimension("A", ["D4-005-comparison", "D4-006-comparison"], "E3")))
    md, _, extras = _render(rep, tmp_path)
    assert [(t.label, t.matched, t.verdict) for t in extras.tables] == [("Table 1", 2, "reproduced")]
    assert "Obfuscation-safe view" not in md  # everything matched: nothing to hide


def test_no_comparison_says_so_instead_of_an_empty_table(tmp_path):
    md, _, _ = _render(report([], dimensions=all_dimensions()), tmp_path)
    assert "No run's output was compared with a paper table" in md.split("## Reproduced results")[1]


def test_d3_quotes_the_failing_commands_stderr_tail(tmp_path):
    stderr = ("\n".join(f"warning {i}" for i in range(40))
              + "\n```\n# not a heading\nZeroDivisionError: division by zero")
    selection = {"attempts": [{"cmd": "python3 prepare.py", "runs": ["D3-004-command"]},
                              {"cmd": "python3 evaluate.py", "runs": ["D3-005-command"]}], "chosen": None}
    ev = [evidence(tmp_path, "D3-004-command", "prepare.log", command_log("python3 prepare.py", 2, stderr="bad flag")),
          evidence(tmp_path, "D3-005-command", "evaluate.log", command_log("python3 evaluate.py", 1, stderr=stderr)),
          evidence(tmp_path, "D3-006-selection", "workflow-selection.json", selection)]
    d3 = dimension("WR", ["D3-006-selection", "D3-004-command", "D3-005-command"])
    md, html, extras = _render(report(ev, dimensions=all_dimensions(D3=d3)), tmp_path)
    assert extras.failed.cmd == "python3 evaluate.py" and extras.failed.status == "exit 1"
    d3_text = md.split("### D3")[1].split("### D4")[0]
    assert "**Failing command:** `python3 evaluate.py` → exit 1" in d3_text
    assert "ZeroDivisionError: division by zero" in d3_text and "warning 39" in d3_text and "warning 5\n" not in d3_text
    page = Page(html)
    assert "# not a heading" in html and "not-a-heading" not in page.by_id  # the stderr stayed inside its block
    assert "<pre><code" in html.split('id="d3-workflow-executability"')[1].split('id="d4')[0]


def test_d3_chosen_command_that_succeeded_quotes_nothing(tmp_path):
    selection = {"attempts": [{"cmd": "make bad", "runs": ["D3-004-command"]},
                              {"cmd": "make", "runs": ["D3-005-command"]}],
                 "chosen": "make"}
    ev = [evidence(tmp_path, "D3-004-command", "bad.log", command_log("make bad", 2, stderr="no rule")),
          evidence(tmp_path, "D3-005-command", "make.log", command_log("make", 0, stdout="done")),
          evidence(tmp_path, "D3-006-selection", "workflow-selection.json", selection)]
    d3 = dimension("A", ["D3-006-selection", "D3-004-command", "D3-005-command"], "E2")
    md, _, extras = _render(report(ev, dimensions=all_dimensions(D3=d3)), tmp_path)
    assert extras.failed is None and "Failing command" not in md


def test_a_timed_out_command_is_named_as_such(tmp_path):
    log = command_log("sh run.sh", None, stdout="epoch 1\nepoch 2", timed_out=True)
    ev = [evidence(tmp_path, "D3-004-command", "run.log", log)]
    md, _, extras = _render(report(ev, dimensions=all_dimensions(D3=dimension("R", ["D3-004-command"]))), tmp_path)
    assert extras.failed is not None
    assert extras.failed.status == "timed out" and extras.failed.stream == "stdout"
    assert "Last lines of its stdout" in md and "epoch 2" in md


def _gate_failure(tmp_path, error: str):
    acq = evidence(tmp_path, "gate-001-acquisition", "acquisition.json",
                   {"source": "x", "error": error, "file_count": 0})
    gate = {"GC1": GateResult(passed=False, evidence=[acq.id]), "GC2": GateResult(passed=False, evidence=[acq.id]),
            "GC3": GateResult(passed=False, evidence=[acq.id])}
    return report([acq], gate=gate)


def test_acquisition_failure_opens_the_report(tmp_path):
    rep = _gate_failure(tmp_path, "zenodo record 42: HTTP 404 Not Found from https://zenodo.org/api/records/42")
    md, html, extras = _render(rep, tmp_path)
    assert extras.acquisition.evidence == "gate-001-acquisition"
    first = md.split("\n- **Paper:**")[0]
    assert "The artifact could not be acquired (HTTP 404)" in first and "HTTP 404 Not Found" in first
    assert "check it for a typo" in first
    assert "HTTP 404" in Page(html).by_id["acquisition-failure"]
    assert '<blockquote class="failure">' in html


def test_each_cause_gets_its_own_advice():
    cases = {"archive art.zip is corrupt or truncated: File is not a zip file": ("archive error", "unzip -t"),
             "download http://h/x.zip: http://h/x.zip failed after 4 attempts: [Errno 111] Connection refused":
                 ("host unreachable", "network"),
             "zenodo: a.tgz from https://z/a.tgz fails its md5 check (expected 1, got 2)":
                 ("checksum mismatch", "checksum"),
             "github: HTTP 403 Forbidden from https://api.github.com/repos/a/b": ("HTTP 403", "public"),
             "figshare: HTTP 503 Service Unavailable from https://f/x (the host kept failing (4 attempts))":
                 ("HTTP 503", "again"),
             "archive big.zip expands 900x — treated as an archive bomb": ("size limit", "limits"),
             "ftp:// artifact links are not supported: ftp://x": ("unsupported link", "https://")}
    for error, (cause, advice) in cases.items():
        got_cause, got_advice = classify(error)
        assert got_cause == cause and advice in got_advice, error


def test_html_has_contents_colours_and_unbroken_hashes(tmp_path):
    ev = [evidence(tmp_path, "gate-001-listing", "files.txt", "README.md\n")]
    checklist = [ChecklistItem(item="D1.setup", status="satisfied"),
                 ChecklistItem(item="D1.resources", status="violated")]
    rep = report(ev, dimensions=all_dimensions(D1=dimension("WR", [], "E1", checklist)))
    md, html, _ = _render(rep, tmp_path)
    page = Page(html)
    nav = page.by_id["contents"]
    for section in ("Badge verdict", "Reproduced results", "Dimensions", "Confidence and flags", "Evidence index"):
        assert section in nav
    assert "**Contents:**" in md and "**Contents:**" not in html  # the page has its own <nav>
    assert '<li class="score-WR">' in html and 'class="v-bad">✗ violated' in html and 'class="v-ok">✓ satisfied' in html
    assert re.search(r'<code class="hash">[0-9a-f]{12}</code>', html)
    assert "code.hash{white-space:nowrap" in html
