"""Artifacts whose data or code lives elsewhere, reviewed in both sandboxes against the stand-in web: the documented
fetch runs (whatever heading it sits under), with network for that step only, and the fetched data gives the paper's
table; a run that downloads at run time is rerun once with network (I1); a clone, a submodule and a linked code
repository are acquired; an unreachable host and an offline review are named in "Not established"."""
from __future__ import annotations

import hashlib

import pytest

from . import shapes
from .conftest import need_backend

SANDBOXES = [pytest.param("local", id="local"), pytest.param("docker", id="docker", marks=pytest.mark.docker)]
REPRODUCED = {
    "wget-under-data": lambda root, web: shapes.documented_download(root, "wget", "Data"),
    "curl-under-usage": lambda root, web: shapes.documented_download(root, "curl", "Usage"),
    "archive-to-unpack": lambda root, web: shapes.documented_archive(root),
    "download-script": lambda root, web: shapes.download_script(root),
    "run-time-download": lambda root, web: shapes.runtime_download(root),
    "documented-clone": lambda root, web: shapes.documented_clone(root),
    "submodule": lambda root, web: shapes.submodule(root),
    "linked-code": lambda root, web: shapes.linked_code(root, web),
    "step-table": lambda root, web: shapes.table_pipeline(root),
}
MEASURED = hashlib.sha256(shapes.MEASUREMENTS.encode()).hexdigest()


def _review(review, tmp_path, make, web, sandbox, **kw):
    need_backend(sandbox)
    art = make(tmp_path / "case", web)
    return review(tmp_path / "case" / "paper.md", art, timeout=120, sandbox_name=sandbox, **kw)


@pytest.mark.parametrize("sandbox", SANDBOXES)
@pytest.mark.parametrize("shape", list(REPRODUCED))
def test_the_fetched_data_gives_the_papers_table(shape, sandbox, web, review, tmp_path):
    report, run_dir = _review(review, tmp_path, REPRODUCED[shape], web, sandbox)
    assert report.badges["functional"] and report.badges["reproduced"], "\n".join(report.not_established)
    assert web.seen, "the stand-in web saw no request"
    fetched = [f for f in report.network.fetches if f.status == "fetched"]
    if shape == "run-time-download":
        fix = next(i for i in report.interventions if "downloads at run time" in i.purpose)
        assert fix.level.value == "I1" and web.fetched(shapes.DATA_HOST)
        return
    assert fetched, report.network
    fetch = fetched[0]
    if shape in ("submodule", "linked-code"):
        assert fetch.step.startswith("submodule" if shape == "submodule" else "linked")
        return
    assert fetch.host in (shapes.DATA_HOST, shapes.GIT_HOST) and fetch.bytes > 0 and fetch.seconds >= 0
    if shape in ("wget-under-data", "curl-under-usage", "download-script", "step-table"):
        assert (fetch.url, fetch.sha256) == (shapes.DATA_URL, MEASURED)
    record = (run_dir / next(e.path for e in report.evidence if e.id == fetch.evidence)).read_text()
    assert '"network": true' in record and '"final_host"' in record


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_an_unreachable_host_is_named_with_the_steps_it_blocked(sandbox, web, review, tmp_path):
    report, run_dir = _review(review, tmp_path, lambda root, _: shapes.unreachable(root), web, sandbox)
    assert report.badge == "available" and not report.badges["functional"]
    d3 = next(w for w in report.not_established if w.startswith("D3"))
    url = f"http://{shapes.GONE_HOST}/queue/latency.csv"
    assert f"could not get {url}: host unreachable — {shapes.GONE_HOST}" in d3
    assert "it blocked “python3 analyse.py”" in d3 and f"network access to {shapes.GONE_HOST}" in d3
    assert "is not in the repository" not in d3
    failed = next(f for f in report.network.fetches if f.status == "failed")
    assert (failed.host, failed.error, failed.blocked) == (shapes.GONE_HOST, "host unreachable", ["python3 analyse.py"])
    assert web.fetched(shapes.GONE_HOST)
    assert "## Network" in (run_dir / "report.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_offline_fetches_nothing_and_says_so(sandbox, web, review, tmp_path):
    report, _ = _review(review, tmp_path, lambda root, _: shapes.documented_download(root), web, sandbox,
                        offline=True)
    assert web.seen == [] and report.network.offline and report.badge == "available"
    assert any(f.code == "offline" for f in report.flags)
    d3 = next(w for w in report.not_established if w.startswith("D3"))
    assert "was not run: the review was offline (--offline)" in d3 and shapes.DATA_URL in d3
    assert not any(f.code == "network-enabled" for f in report.flags)


def test_a_file_no_step_makes_is_missing_with_what_the_documentation_says(web, review, tmp_path):
    report, _ = _review(review, tmp_path, lambda root, _: shapes.undocumented_source(root), web, "local")
    d3 = next(w for w in report.not_established if w.startswith("D3"))
    assert "a file it needs (data/latency.csv) is not in the repository; no documented step makes it" in d3
    assert "available from the authors on request" in d3
    assert web.seen == []
