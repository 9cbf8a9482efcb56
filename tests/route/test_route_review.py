"""Reviews that follow the route (local sandbox): the cheap paper-tied commands run and the expensive ones are skipped
with their documented cost; prose prerequisites are done first; output written before a time limit counts as
partial; the review's own failed reduction is the review's."""
from __future__ import annotations

import json

from .shapes import PAPER, script, write_tree
from .test_route_plan import RUNTIME_README

TABLE_2 = """print("Sketch Adult Census")
print("HLL 0.91 0.88")
print("CMS 0.85 0.83")
"""
SLOW = "import time\ntime.sleep(900)\nprint('done')\n"


def _route(report) -> dict:
    return {e.command: e for e in report.route.entries}


def test_the_cheap_paper_tied_scripts_run_and_the_hour_long_ones_are_skipped_with_their_cost(tmp_path, review):
    files = {"README.md": RUNTIME_README, "run_all.sh": "cd reproduction\nfor f in *.py; do python $f; done\n",
             "reproduction/fig_2.py": script("fig_2", "open('fig_2.txt', 'w').write('1 2 3\\n')"),
             "reproduction/table_2.py": TABLE_2, "reproduction/fig_3a.py": SLOW, "reproduction/fig_3b.py": SLOW,
             "reproduction/table_6.py": SLOW}
    artifact = write_tree(tmp_path / "a", files)
    paper = tmp_path / "paper.md"
    paper.write_text(PAPER, encoding="utf-8")
    report, run_dir = review(paper, artifact, timeout=120, sandbox_name="local", max_minutes=3)
    entries = _route(report)
    assert entries["python fig_2.py"].status == "valid" and entries["python table_2.py"].status == "valid"
    assert entries["python fig_2.py"].rank == 1 and entries["python fig_2.py"].cwd == "reproduction"
    for slow in ("python fig_3a.py", "python table_6.py", "bash run_all.sh"):
        assert entries[slow].status == "skipped", (slow, entries[slow])
        assert "beyond the" in entries[slow].detail and entries[slow].cost, entries[slow]
    assert {"Figure 2", "Table 2"} <= set(report.route.covered)
    assert "Table 6" in report.route.not_covered
    assert report.dimensions["D3"].score.value in ("WA", "A"), report.dimensions["D3"].summary
    text = (run_dir / "report.md").read_text(encoding="utf-8")
    assert "## Route" in text and "~1 hour" in text


def test_prose_prerequisites_are_done_first_and_the_edit_is_logged_with_its_value(tmp_path, review):
    readme = """# Measurement study

## Setup

Unzip the data first.

Before running, edit `DATA_ROOT` in `paths.py` to point to the `data` folder.

## Table 2

Start the server with `./serve.sh` before running the experiment (it listens on port 8765).

```
python table_2.py
```
"""
    demo = """import os, urllib.request
from paths import DATA_ROOT
rows = open(os.path.join(DATA_ROOT, 'rows.txt')).read().split()
urllib.request.urlopen('http://127.0.0.1:8765/').read()
print("Sketch Adult Census")
print("HLL", rows[0], rows[1])
print("CMS", rows[2], rows[3])
"""
    import zipfile

    artifact = write_tree(tmp_path / "a", {"README.md": readme, "serve.sh": "exec python3 -m http.server 8765\n",
                                           "paths.py": 'DATA_ROOT = "/home/alice/data"\n', "table_2.py": demo})
    (artifact / "data").mkdir()
    with zipfile.ZipFile(artifact / "data" / "benchmark.zip", "w") as zf:
        zf.writestr("rows.txt", "0.91 0.88 0.85 0.83\n")
    paper = tmp_path / "paper.md"
    paper.write_text(PAPER, encoding="utf-8")
    report, run_dir = review(paper, artifact, timeout=120, sandbox_name="local", max_minutes=4)
    entry = _route(report)["python table_2.py"]
    assert entry.status == "valid", (entry, report.dimensions["D3"].summary)
    edits = [i for i in report.interventions if i.rule == "documented-edit"]
    assert edits and edits[0].level.value == "I2" and "DATA_ROOT" in edits[0].action, report.interventions
    assert not any(i.level.value == "I4" for i in report.interventions)
    assert any("DATA_ROOT" in p and "done" in p for p in report.route.prerequisites)
    log = next(p for p in (run_dir / "evidence").glob("D3-*.log") if "table_2.py" in p.read_text()).read_text()
    assert "( bash serve.sh ) >" in log and "/dev/tcp/127.0.0.1/8765" in log, log[:400]
    wait = next(i for i in report.interventions if i.rule == "startup-order-or-wait")
    assert "waited for port 8765" in wait.purpose and wait.level.value == "I2"


def test_output_written_before_the_time_limit_counts_as_partial(tmp_path, review):
    readme = """# Figures

## Figure 2

```
python fig_2.py
```
"""
    fig = """import os, time
os.makedirs('generated_results', exist_ok=True)
open('generated_results/fig_2.csv', 'w').write('eps,err\\n0.1,0.5\\n1.0,0.2\\n')
print('wrote generated_results/fig_2.csv', flush=True)
time.sleep(900)
"""
    artifact = write_tree(tmp_path / "a", {"README.md": readme, "fig_2.py": fig})
    paper = tmp_path / "paper.md"
    paper.write_text(PAPER, encoding="utf-8")
    report, _ = review(paper, artifact, timeout=15, sandbox_name="local", max_minutes=3)
    entry = _route(report)["python fig_2.py"]
    assert entry.status == "partial" and "generated_results/fig_2.csv" in entry.detail, entry
    rw3 = next(i for i in report.dimensions["D3"].checklist if i.item == "RW3")
    assert rw3.status == "violated" and "timed out" in rw3.note and "partial output" in rw3.note


def test_a_run_cut_before_it_wrote_anything_is_not_partial(tmp_path, review):
    readme = "# Figures\n\n## Figure 2\n\n```\npython fig_2.py\n```\n"
    artifact = write_tree(tmp_path / "a", {"README.md": readme, "fig_2.py": SLOW})
    paper = tmp_path / "paper.md"
    paper.write_text(PAPER, encoding="utf-8")
    report, _ = review(paper, artifact, timeout=10, sandbox_name="local", max_minutes=2)
    assert _route(report)["python fig_2.py"].status == "failed"
    assert report.dimensions["D3"].score.value in ("R", "WR")


def test_the_reviews_own_reduction_that_fails_is_the_reviews_not_the_artifacts(tmp_path, review):
    readme = """# Simulation

## Figure 3

The full simulation takes about 3 hours:

```
python simulate.py
```
"""
    simulate = """NUM_TRIALS = 1000
results = [t * 0.001 for t in range(NUM_TRIALS)]
print("trial 500:", results[500])
"""
    artifact = write_tree(tmp_path / "a", {"README.md": readme, "simulate.py": simulate})
    paper = tmp_path / "paper.md"
    paper.write_text(PAPER, encoding="utf-8")
    report, run_dir = review(paper, artifact, timeout=60, sandbox_name="local", max_minutes=3)
    d3 = report.dimensions["D3"]
    assert d3.summary.startswith("Not established: only the review's own reductions"), d3.summary
    selection = json.loads(next((run_dir / "evidence").glob("D3-*selection*")).read_text())
    attempt = selection["attempts"][0]
    assert attempt["reduced"] and "the review's own reduction failed" in attempt["blocker"], attempt


SIMULATION = """RD = 1000000000  # rounds of simulation
total = 0
for rd in range(RD):
    total += rd % 7
print("Sketch Adult Census")
print("HLL 0.91 0.88")
print("CMS", round(total / RD, 2), 0.83)
"""


def test_the_documented_knob_is_lowered_before_the_run_and_said(tmp_path, review):
    readme = """# Simulation

## Table 2

```
python sim.py
```

If it takes a long time to run, please consider reducing the simulation rounds by changing the parameter RD.
"""
    artifact = write_tree(tmp_path / "a", {"README.md": readme, "sim.py": SIMULATION})
    paper = tmp_path / "paper.md"
    paper.write_text(PAPER, encoding="utf-8")
    report, run_dir = review(paper, artifact, timeout=30, sandbox_name="local", max_minutes=3)
    entry = _route(report)["python sim.py"]
    assert entry.status == "valid" and "RD in sim.py set to 10000000 instead of 1000000000" in entry.detail, entry
    assert "as the documentation offers" in entry.detail
    runs = [p.read_text() for p in (run_dir / "evidence").glob("D3-*command-python-sim*.log")]
    assert runs and all("timed_out: False" in r for r in runs)  # the smaller setting first: no full run cut before it
    assert any(i.rule == "reduced-run" and "RD" in i.action for i in report.interventions)
    # lowering the documented knob is the reduction the rubric classifies (I1), not also a core edit of sim.py
    assert not any(i.level.value == "I4" for i in report.interventions), report.interventions


def test_without_the_documented_knob_the_full_run_comes_first(tmp_path, review):
    readme = "# Simulation\n\n## Table 2\n\n```\npython sim.py\n```\n"
    artifact = write_tree(tmp_path / "a", {"README.md": readme, "sim.py": SIMULATION})
    paper = tmp_path / "paper.md"
    paper.write_text(PAPER, encoding="utf-8")
    report, run_dir = review(paper, artifact, timeout=10, sandbox_name="local", max_minutes=3)
    first = json.loads(next((run_dir / "evidence").glob("D3-*selection*")).read_text())["attempts"][0]
    log = (run_dir / "evidence").glob("D3-*command*.log")
    assert first["runs"] and "as the documentation offers" not in (first.get("reduced") or "")
    assert any("timed_out: True" in p.read_text() for p in log)


def test_a_documented_smaller_setting_that_fails_is_the_artifacts_failure(tmp_path, review):
    readme = """# Simulation

## Figure 3

```
python simulate.py
```

For a quick check, add `--small`.
"""
    simulate = """import sys
if "--small" in sys.argv:
    raise SystemExit("ValueError: the small setting is broken")
print("Sketch Adult Census")
"""
    artifact = write_tree(tmp_path / "a", {"README.md": readme, "simulate.py": simulate})
    paper = tmp_path / "paper.md"
    paper.write_text(PAPER, encoding="utf-8")
    report, run_dir = review(paper, artifact, timeout=60, sandbox_name="local", max_minutes=3)
    attempt = json.loads(next((run_dir / "evidence").glob("D3-*selection*")).read_text())["attempts"][0]
    assert "the documentation's smaller setting `--small`" in (attempt["reduced"] or ""), attempt
    assert not (attempt["blocker"] or "").startswith("the review's own reduction")
    assert report.dimensions["D3"].summary.startswith("The documented workflow did not produce valid output")
