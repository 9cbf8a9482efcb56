"""The batch manifest: CSV and JSON Lines, line-numbered errors, and the shipped schemas."""
from __future__ import annotations

import json

import jsonschema
import pytest
from test_batch_support import CASES, copilot, corpus_row, write_manifest

from artifactcopilot.batch.manifest import ManifestError, load_manifest, render_manifest_schema
from artifactcopilot.batch.summary_model import render_summary_schema
from artifactcopilot.resources import data_dir


@pytest.mark.parametrize("name, render", [("batch-manifest", render_manifest_schema),
                                          ("batch-summary", render_summary_schema)])
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
    lines = message.splitlines()
    assert lines[0] == f"manifest {manifest} has 6 problem(s):"
    for needle in ("line 3: duplicate id 'a' (first on line 2)", "line 4: paper", "nope.md not found",
                   "line 5: artifact", "line 6: unknown badge 'gold'", "line 7: human_D1: unknown score 'XL'",
                   "line 8: id"):
        assert needle in message, message
    assert len(lines) == 7 and all(ln.startswith("  line ") for ln in lines[1:])  # one problem a line
    assert "relative paths" not in message  # every path here was absolute


def test_relative_paths_are_read_from_the_manifests_folder(tmp_path):
    (tmp_path / "venue").mkdir()
    (tmp_path / "paper.md").write_text("# A paper\n")  # next to the current directory, not the manifest
    manifest = tmp_path / "venue" / "venue.csv"
    manifest.write_text("id,paper,artifact\nx,paper.md,artifact\n")
    with pytest.raises(ManifestError) as caught:
        load_manifest(manifest)
    message = str(caught.value)
    assert f"line 2: paper {tmp_path / 'venue' / 'paper.md'} not found" in message
    assert f"(relative paths are read from the manifest's folder, {tmp_path / 'venue'})" in message


def test_many_problems_are_cut_short(tmp_path):
    manifest = tmp_path / "venue.csv"
    rows = "".join(f"x{i},{tmp_path}/p{i}.md,https://x.org/a\n" for i in range(30))
    manifest.write_text("id,paper,artifact\n" + rows)
    lines = str(pytest.raises(ManifestError, load_manifest, manifest).value).splitlines()
    assert lines[0].endswith("has 30 problem(s):") and lines[-1] == "  … and 10 more" and len(lines) == 22


def test_jsonl_manifest_and_its_errors(tmp_path):
    good = corpus_row("reusable-full")
    manifest = tmp_path / "venue.jsonl"
    paths = {"paper": good["paper"], "artifact": good["artifact"]}
    manifest.write_text(json.dumps({"id": "r", **paths, "human_badge": "reusable"}) + "\n"
                        + "{not json\n"
                        + json.dumps({"id": "s", **paths, "humanbadge": "none"}) + "\n")
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


def test_cli_reports_a_bad_manifest_one_problem_a_line(tmp_path):
    rows = [{"id": "x", "paper": str(tmp_path / "missing.md"), "artifact": str(tmp_path)},
            {"id": "y", "paper": str(tmp_path / "other.md"), "artifact": str(tmp_path)}]
    manifest = write_manifest(tmp_path / "m.csv", [], rows)
    proc = copilot("batch", str(manifest), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert lines[0] == f"error: manifest {manifest} has 2 problem(s):"
    assert "line 2: paper" in lines[1] and "missing.md not found" in lines[1] and "line 3: paper" in lines[2]
    assert lines[-1] == "fix the manifest and run again" and len(lines) == 4
    assert not (tmp_path / "out").exists()


def test_cli_usage_errors_exit_2_on_one_line(tmp_path):
    manifest = write_manifest(tmp_path / "m.csv", ["functional-basic"])
    (tmp_path / "file").write_text("x")
    for args, needle in ((["--workers", "0"], "--workers must be a positive whole number, not 0"),
                         (["--timeout", "-1"], "--timeout must be a positive number, not -1"),
                         (["--engine", "spark"], "unknown engine 'spark'"),
                         (["--out", str(tmp_path / "file")], "is a file, not a folder")):
        proc = copilot("batch", str(manifest), "--out", str(tmp_path / "out"), *args)
        lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
        assert proc.returncode == 2 and len(lines) == 1 and needle in lines[0], (args, proc.stderr)
    proc = copilot("batch", str(tmp_path / "none.csv"), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2 and "none.csv not found" in proc.stderr
    assert not (tmp_path / "out").exists()
