"""An installed (non-editable) wheel carries rubric/, skills/, schemas/ and prompts/ and finds them."""
from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_ships_and_finds_its_data(tmp_path):
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path / "dist"),
                            str(ROOT)], capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr
    wheel = next((tmp_path / "dist").glob("artifactcopilot-*.whl"))
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    for name in ("rubric/badges.yaml", "skills/D3.md", "schemas/report.schema.json", "prompts/agent_system.md"):
        assert (site / "artifactcopilot" / "_data" / name).is_file(), name
    probe = ("import artifactcopilot.resources as r, artifactcopilot.rubric as ru, artifactcopilot.skills as s, "
             "artifactcopilot.schemas as sc; print(r.data_dir('rubric')); ru.load_rubric(); s.load_skills(); "
             "sc.schema_for('report'); print(r.data_dir('prompts'))")
    env = {**os.environ, "PYTHONPATH": str(site)}  # the unpacked wheel comes before the source checkout
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, env=env,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert all(line.startswith(str(site)) for line in out.stdout.split()), out.stdout
