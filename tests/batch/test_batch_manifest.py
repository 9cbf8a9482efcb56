"""The batch manifest: CSV and JSON Lines, line-numbered errors, and the shipped schemas."""
from __future__ import annotations

import json

import jsonschema
import pytest
from test_batch_support import CASES, copilot, corpus_row, write_manifest

from artifactcopilot.batch.manifest import ManifestError, load_manifest, render_manifest_schema
from artifactcopilot.batch.summary_model import render_summary_schema
from artifactcopilot.resources import data_dir


@pytest.mark.parametrize("name, render", [("batch-manifest", render_manifest_schema), ("batch-summary", render_summary_schema)])
def test_schema_files_match_models(name, render):
    shipped = (data_dir("schemas") / f"{name}.schema.json").read_text(encoding="utf-8")
    assert shipped == render(), f"schemas/{name}.schema.json is stale: regenerate it from the batch models"


def test_summary_schema_requires_the_contract_fields():
    schema = json.loads(render_summary_schema())
    for field in ("n", "exact_match", "macro_f1", "gate", "dimensions", "failures", "artifacts"):
        assert field in schema["required"]
    assert set(schema["$defs"]["Gates"]["required"]) == {"available", "functional", "reusable"}


def test_csv_rows_resolve_relative_paths(tmp_path):
    case = CASES["functional-basic"]
    (tmp_path / "paper.md").write_text((case / "paper.md").read_text())
    manifest = tmp_path / "venue.csv"
    manifest.write_text("id,paper,artifact,human_badge,human_D3\n"
                        f"fb,paper.md,{case / 'artifact'},Functional,wa\n"
                        "# a comment line\n\n"
                        f"remote,paper.md,https://zenodo.org/records/1,,\n")
    rows = load_manifest(manifest)
    assert [r.id for r in rows] == ["fb", "remote"]
    assert rows[0].paper == str(tmp_path / "paper.md")
    assert rows[0].human_badge == "functional" and rows[0].human_D3 == "WA"
    assert rows[1].artifact == "https://zenodo.org/records/1" and rows[1].human_badge is None


def test_every_problem_is_reported_with_its_line(tmp_path):
    good = corpus_row("functional-basic")
    manifest = tmp_path / "venue.csv"
    manifest.write_text(
        "id,paper,artifact,human_badge,human_D1\n"
        f"a,{good['paper']},{good['artifact']},reusable,A\n"            # line 2: fine
        f"a,{good['paper']},{good['artifact']},,\n"                      # line 3: duplicate id
        f"b,{tmp_path / 'nope.md'},{good['artifact']},,\n"               # line 4: missing paper
        f"c,{good['paper']},{tmp_path / 'gone'},,\n"                     # line 5: missing artifact
        f"d,{good['paper']},{good['artifact']},gold,\n"                  # line 6: unknown badge
        f"e,{good['paper']},{good['artifact']},,XL\n"                    # line 7: unknown score
        f"../f,{good['paper']},{good['artifact']},,\n")                  # line 8: id is not a folder name
    with pytest.raises(ManifestError) as caught:
        load_manifest(manifest)
    message = str(caught.value)
    assert "6 problem(s)" in message
    for needle in ("line 3: duplicate id 'a' (first on line 2)", "line 4: paper", "nope.md not found",
                   "line 5: artifact", "line 6: unknown badge 'gold'", "line 7: human_D1: unknown score 'XL'", "line 8: id"):
        assert needle in message, message
    assert "\n" not in message


def test_jsonl_manifest_and_its_errors(tmp_path):
    good = corpus_row("reusable-full")
    manifest = tmp_path / "venue.jsonl"
    manifest.write_text(json.dumps({"id": "r", "paper": good["paper"], "artifact": good["artifact"], "human_badge": "reusable"}) + "\n"
                        + "{not json\n"
                        + json.dumps({"id": "s", "paper": good["paper"], "artifact": good["artifact"], "humanbadge": "none"}) + "\n")
    with pytest.raises(ManifestError) as caught:
        load_manifest(manifest)
    assert "line 2: not valid JSON" in str(caught.value)
    assert "line 3: unknown column(s)" in str(caught.value) and "humanbadge" in str(caught.value)
    manifest.write_text(manifest.read_text().splitlines()[0] + "\n")
    assert load_manifest(manifest)[0].human_badge == "reusable"


def test_schema_file_checks_a_row():
    schema = json.loads((data_dir("schemas") / "batch-manifest.schema.json").read_text())
    jsonschema.validate({"id": "x", "paper": "p.md", "artifact": "a", "human_badge": "none", "human_D5": "WR"}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"id": "x", "paper": "p.md", "artifact": "a", "human_badge": "gold"}, schema)


def test_cli_reports_a_bad_manifest_on_one_line(tmp_path):
    manifest = write_manifest(tmp_path / "m.csv", [], [{"id": "x", "paper": str(tmp_path / "missing.md"), "artifact": str(tmp_path)}])
    proc = copilot("batch", str(manifest), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "line 2: paper" in lines[0] and "missing.md not found" in lines[0]
    assert not (tmp_path / "out").exists()
    proc = copilot("batch", str(tmp_path / "none.csv"), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2 and "none.csv not found" in proc.stderr
