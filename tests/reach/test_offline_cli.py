"""`--offline` on the command line: `copilot review` turns every step's network off and report.json says so; `copilot
batch` passes it to every review."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from artifactcopilot.batch.manifest import load_manifest
from artifactcopilot.batch.runners import plan_jobs

from . import shapes
from .conftest import need_backend

REPO = Path(__file__).resolve().parents[2]


def test_review_offline_from_the_command_line(web, tmp_path):
    need_backend("local")
    art = shapes.documented_download(tmp_path / "case")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", "artifactcopilot.cli", "review", str(tmp_path / "case" / "paper.md"),
                           str(art), "--out", str(tmp_path / "run"), "--sandbox", "local", "--agent", "heuristic",
                           "--offline", "--json"], capture_output=True, text=True, env=env, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["network"]["offline"] is True and report["network"]["containment"] == ""
    assert [f["status"] for f in report["network"]["fetches"]] == ["not run"]
    assert web.seen == []
    assert "Reviewed **offline**" in (tmp_path / "run" / "report.md").read_text(encoding="utf-8")


def test_batch_offline_reaches_every_review(tmp_path):
    manifest = tmp_path / "m.csv"
    manifest.write_text("id,paper,artifact\na,p.md,art\n", encoding="utf-8")
    (tmp_path / "p.md").write_text("# p\n", encoding="utf-8")
    (tmp_path / "art").mkdir()
    jobs, _ = plan_jobs(load_manifest(manifest), tmp_path / "out", 1, "heuristic", 60, False, "local", offline=True)
    assert [j.offline for j in jobs] == [True]
