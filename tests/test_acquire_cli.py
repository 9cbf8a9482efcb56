"""`copilot review PAPER URL` end to end against a Zenodo-shaped server on 127.0.0.1: the badge comes
from a logged download, a second review downloads nothing, a 404 is a completed review with GC1 failed."""
from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "wordfreq"


def wordfreq_zip() -> bytes:
    buf = io.BytesIO()
    src = EXAMPLE / "artifact"
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for p in sorted(src.rglob("*")):
            if p.is_file() and "__pycache__" not in p.parts:
                zf.write(p, f"wordfreq-v1.0/{p.relative_to(src).as_posix()}")
    return buf.getvalue()


@pytest.fixture
def zenodo():
    server = HTTPServer(host="127.0.0.1", threaded=True)
    server.start()
    yield server
    server.clear()
    server.stop()


def copilot(tmp_path: Path, server: HTTPServer, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "ARTIFACTCOPILOT_", "XDG_"))}
    env.update(ARTIFACTCOPILOT_ZENODO_URL=f"http://127.0.0.1:{server.port}", ARTIFACTCOPILOT_HTTP_BACKOFF="0",
               HOME=str(tmp_path / "home"), TMPDIR=str(tmp_path / "tmp"))
    (tmp_path / "home").mkdir(exist_ok=True)
    (tmp_path / "tmp").mkdir(exist_ok=True)
    return subprocess.run([sys.executable, "-m", "artifactcopilot.cli", "review", *args], capture_output=True,
                          text=True, env=env, timeout=300, stdin=subprocess.DEVNULL, cwd=tmp_path)


def gc1_evidence(run: Path, report: dict) -> dict:
    ev_id = report["gate"]["GC1"]["evidence"][0]
    path = next(e["path"] for e in report["evidence"] if e["id"] == ev_id)
    return json.loads((run / path).read_text(encoding="utf-8"))


def test_review_of_a_zenodo_record_cites_its_download(tmp_path, zenodo):
    data = wordfreq_zip()
    zenodo.expect_request("/api/records/4242").respond_with_json({"id": 4242, "files": [
        {"key": "wordfreq-v1.0.zip", "size": len(data), "checksum": "md5:" + hashlib.md5(data).hexdigest(),
         "links": {"self": "https://zenodo.org/api/records/4242/files/wordfreq-v1.0.zip/content"}}]})
    zenodo.expect_request("/api/records/4242/files/wordfreq-v1.0.zip/content").respond_with_data(
        data, content_type="application/zip")
    cache = tmp_path / "cache"
    proc = copilot(tmp_path, zenodo, str(EXAMPLE / "paper.md"), "https://zenodo.org/records/4242",
                   "--out", str(tmp_path / "r1"), "--cache-dir", str(cache), "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["badge"] == "reusable" and report["badges"]["reproduced"]
    assert report["gate"]["GC1"]["passed"] and report["gate"]["GC2"]["passed"]
    evidence = gc1_evidence(tmp_path / "r1", report)
    [download] = evidence["downloads"]
    assert download["url"].endswith("/api/records/4242/files/wordfreq-v1.0.zip/content")
    assert download["status"] == 200 and download["md5_ok"] is True and download["cache"] == "miss"
    assert download["sha256"] == hashlib.sha256(data).hexdigest()
    assert evidence["entry"] == "README.md" and evidence["kind"] == "zenodo record"
    assert any("/api/records/4242" in step["to"] for step in evidence["resolution"])

    requests_seen = len(zenodo.log)
    again = copilot(tmp_path, zenodo, str(EXAMPLE / "paper.md"), "https://doi.org/10.5281/zenodo.4242",
                    "--out", str(tmp_path / "r2"), "--cache-dir", str(cache), "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["badge"] == "reusable"
    assert len(zenodo.log) == requests_seen  # the second review downloaded nothing
    assert gc1_evidence(tmp_path / "r2", json.loads(again.stdout))["downloads"][0]["cache"] == "hit"
    # nothing lands outside the run dirs and the cache
    assert not any((tmp_path / "home").iterdir()) and not any((tmp_path / "tmp").iterdir())


def test_review_of_a_missing_zenodo_record_fails_gc1_with_the_url(tmp_path, zenodo):
    zenodo.expect_request("/api/records/9").respond_with_json(
        {"status": 404, "message": "PID does not exist."}, status=404)
    proc = copilot(tmp_path, zenodo, str(EXAMPLE / "paper.md"), "https://zenodo.org/records/9",
                   "--out", str(tmp_path / "r"), "--cache-dir", str(tmp_path / "cache"), "--json")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    report = json.loads(proc.stdout)
    assert report["badge"] == "none" and report["gate"]["GC1"]["passed"] is False
    evidence = gc1_evidence(tmp_path / "r", report)
    assert "HTTP 404" in evidence["error"] and f"http://127.0.0.1:{zenodo.port}/api/records/9" in evidence["error"]
    assert evidence["requests"][0]["status"] == 404
    report_md = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    assert f"HTTP 404 NOT FOUND from http://127.0.0.1:{zenodo.port}/api/records/9" in report_md
    assert not (tmp_path / "cache").exists()  # a failed listing caches nothing
