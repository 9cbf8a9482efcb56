"""Remote artifacts through a real HTTP server on 127.0.0.1 that answers like Zenodo, Figshare, GitHub,
a DOI resolver and plain web servers: every host path, the cache, retries, and each bad answer."""
from __future__ import annotations

import hashlib
import io
import tarfile
import time
import zipfile
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Response

from artifactcopilot.acquire.download import acquire
from artifactcopilot.acquire.settings import DownloadSettings

ROOT = Path(__file__).resolve().parent.parent
WORDFREQ = ROOT / "examples" / "wordfreq" / "artifact"
SHA = "0123456789abcdef0123456789abcdef01234567"
HTML = b"<!DOCTYPE html>\n<html><head><title>Page not found</title></head><body>404</body></html>"


def pack(fmt: str, top: str = "wordfreq-1.0", src: Path = WORDFREQ) -> bytes:
    buf = io.BytesIO()
    files = sorted(p for p in src.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    if fmt == "zip":
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            for p in files:
                zf.write(p, f"{top}/{p.relative_to(src).as_posix()}")
    else:
        with tarfile.open(fileobj=buf, mode="w:gz") as tf:
            for p in files:
                tf.add(p, f"{top}/{p.relative_to(src).as_posix()}")
    return buf.getvalue()


ZIP, TGZ = pack("zip"), pack("tar.gz")


@pytest.fixture(scope="module")
def server():
    srv = HTTPServer(host="127.0.0.1", threaded=True)
    srv.start()
    yield srv
    srv.clear()
    srv.stop()


@pytest.fixture
def host(server):
    server.clear()
    yield server
    server.clear()


def base(server) -> str:
    return f"http://127.0.0.1:{server.port}"


@pytest.fixture
def settings(host, tmp_path):
    b = base(host)
    return DownloadSettings(zenodo_url=b, figshare_url=f"{b}/figshare", github_url=f"{b}/gh", doi_url=f"{b}/doi",
                            cache_dir=tmp_path / "cache", backoff_s=0.0, attempts=3, timeout_s=5.0)


def hits(server, path: str) -> int:
    return sum(1 for req, _ in server.log if req.path == path)


def zenodo_record(server, rid: int, files: dict[str, bytes], public_links: bool = True,
                  md5: dict | None = None) -> None:
    entries = []
    for name, data in files.items():
        link = f"{'https://zenodo.org' if public_links else base(server)}/api/records/{rid}/files/{name}/content"
        entries.append({"key": name, "size": len(data), "links": {"self": link},
                        "checksum": "md5:" + (md5 or {}).get(name, hashlib.md5(data).hexdigest())})
        server.expect_request(f"/api/records/{rid}/files/{name}/content").respond_with_data(
            data, content_type="application/octet-stream")
    server.expect_request(f"/api/records/{rid}").respond_with_json({"id": rid, "files": entries,
                                                                     "metadata": {"access_right": "open"}})


def acquired(source: str, tmp_path: Path, settings: DownloadSettings, name: str = "run"):
    return acquire(source, tmp_path / name, settings=settings)


# ---- Zenodo ------------------------------------------------------------------------------------------
def test_zenodo_record_listed_from_configured_base_then_cached(host, tmp_path, monkeypatch):
    monkeypatch.setenv("ARTIFACTCOPILOT_ZENODO_URL", base(host))
    monkeypatch.setenv("ARTIFACTCOPILOT_CACHE_DIR", str(tmp_path / "cache"))
    zenodo_record(host, 123, {"wordfreq-1.0.zip": ZIP})  # links name zenodo.org: they are rebased, never fetched
    acq = acquire("https://zenodo.org/records/123", tmp_path / "first")
    assert acq.ok, acq.error
    assert acq.kind == "zenodo record" and acq.entry == "README.md"
    assert {"README.md", "wordfreq.py"} <= set(acq.files)
    assert acq.root.is_relative_to(tmp_path / "first")
    assert any(step["to"] == f"{base(host)}/api/records/123" for step in acq.resolution)
    [download] = acq.downloads
    assert download["status"] == 200 and download["cache"] == "miss" and download["md5_ok"] is True
    assert download["bytes"] == len(ZIP) and download["sha256"] == hashlib.sha256(ZIP).hexdigest()
    assert download["url"] == f"{base(host)}/api/records/123/files/wordfreq-1.0.zip/content"

    seen = len(host.log)
    again = acquire("https://zenodo.org/records/123", tmp_path / "second")
    assert again.ok and again.downloads[0]["cache"] == "hit" and again.downloads[0]["md5_ok"] is True
    assert len(host.log) == seen  # the second review asked the server nothing
    assert set(again.files) == set(acq.files)
    assert {p.name for p in tmp_path.iterdir()} == {"cache", "first", "second"}


@pytest.mark.parametrize("link", ["https://doi.org/10.5281/zenodo.124", "doi:10.5281/zenodo.124", "10.5281/ZENODO.124",
                                  "https://zenodo.org/record/124", "https://zenodo.org/doi/10.5281/zenodo.124"])
def test_zenodo_dois_and_link_forms(host, tmp_path, settings, link):
    zenodo_record(host, 124, {"artifact.tar.gz": TGZ}, public_links=False)
    acq = acquired(link, tmp_path, settings)
    assert acq.ok, acq.error
    assert "wordfreq.py" in acq.files
    assert hits(host, "/doi/10.5281/zenodo.124") == 0  # recognised by prefix, no resolver round trip


def test_zenodo_record_with_several_files(host, tmp_path, settings):
    zenodo_record(host, 125, {"code.zip": ZIP, "paper.pdf": b"%PDF-1.4 tiny", "NOTES.txt": b"notes"},
                  public_links=False)
    acq = acquired("https://zenodo.org/records/125", tmp_path, settings)
    assert acq.ok, acq.error
    assert {"code/wordfreq-1.0/README.md", "paper.pdf", "NOTES.txt"} <= set(acq.files)
    assert acq.entry == "code/wordfreq-1.0/README.md"
    assert [d["md5_ok"] for d in acq.downloads] == [True, True, True]
    single = acquired("https://zenodo.org/records/125/files/code.zip?download=1", tmp_path, settings, "single")
    assert single.ok and single.entry == "README.md" and len(single.downloads) == 1


def test_zenodo_md5_mismatch_is_refused_and_not_cached(host, tmp_path, settings):
    zenodo_record(host, 126, {"a.zip": ZIP}, public_links=False, md5={"a.zip": "0" * 32})
    for name in ("one", "two"):
        acq = acquired("https://zenodo.org/records/126", tmp_path, settings, name)
        assert not acq.ok and "md5" in acq.error and "/api/records/126/files/a.zip/content" in acq.error
        assert acq.downloads[0]["error"] == acq.error
    assert hits(host, "/api/records/126/files/a.zip/content") == 2


def test_empty_zenodo_record(host, tmp_path, settings):
    host.expect_request("/api/records/127").respond_with_json(
        {"id": 127, "files": [], "metadata": {"access_right": "restricted"}})
    acq = acquired("https://zenodo.org/records/127", tmp_path, settings)
    assert not acq.ok and "lists no files" in acq.error and "restricted" in acq.error
    assert acq.to_dict()["error"] == acq.error


def test_declared_10_gb_is_refused_before_downloading(host, tmp_path, settings):
    listing = {"files": [{"key": "huge.zip", "size": 10 * 1024**3 + 1, "checksum": "md5:" + "0" * 32,
                          "links": {"self": f"{base(host)}/api/records/128/files/huge.zip/content"}}]}
    host.expect_request("/api/records/128").respond_with_json(listing)
    acq = acquired("https://zenodo.org/records/128", tmp_path, settings)
    assert not acq.ok and "download limit" in acq.error and "refused before downloading" in acq.error
    assert hits(host, "/api/records/128/files/huge.zip/content") == 0


def test_content_length_over_the_cap_is_refused(host, tmp_path, settings):
    host.expect_request("/big.zip").respond_with_data(ZIP, content_type="application/zip")
    acq = acquired(f"{base(host)}/big.zip", tmp_path, settings.model_copy(update={"max_download_bytes": 1000}))
    assert not acq.ok and "Content-Length" in acq.error and "download limit" in acq.error
    assert not list((tmp_path / "cache").rglob("blobs/*/*"))


def test_zenodo_file_that_is_an_html_page(host, tmp_path, settings):
    host.expect_request("/api/records/129").respond_with_json(
        {"files": [{"key": "artifact.zip", "links": {"self": f"{base(host)}/records/129/files/artifact.zip"}}]})
    host.expect_request("/records/129/files/artifact.zip").respond_with_data(
        HTML, content_type="text/html; charset=utf-8")
    acq = acquired("https://zenodo.org/records/129", tmp_path, settings)
    assert not acq.ok and "HTML page" in acq.error and f"{base(host)}/records/129/files/artifact.zip" in acq.error
    assert not (tmp_path / "run" / "artifact").exists()


# ---- errors from each host ---------------------------------------------------------------------------
HOST_CASES = {"zenodo": ("https://zenodo.org/records/404", "/api/records/404"),
              "figshare": ("https://figshare.com/articles/dataset/x/404", "/figshare/v2/articles/404/files"),
              "github": ("https://github.com/acme/missing", "/gh/repos/acme/missing"),
              "doi": ("https://doi.org/10.1145/404.404", "/doi/10.1145/404.404"),
              "web": ("{base}/downloads/gone.zip", "/downloads/gone.zip")}


@pytest.mark.parametrize("status", [404, 403, 401, 500])
@pytest.mark.parametrize("name", sorted(HOST_CASES))
def test_host_errors_name_the_failing_url(host, tmp_path, settings, name, status):
    link, path = HOST_CASES[name]
    host.expect_request(path).respond_with_data("no", status=status)
    acq = acquired(link.format(base=base(host)), tmp_path, settings)
    assert not acq.ok
    assert f"HTTP {status}" in acq.error and f"{base(host)}{path}" in acq.error
    expected_tries = settings.attempts if status == 500 else 1  # only 5xx is worth retrying
    assert hits(host, path) == expected_tries
    assert [r["status"] for r in acq.requests if path in r.get("url", "")][-1] == status


def test_github_rate_limit_is_named(host, tmp_path, settings):
    host.expect_request("/gh/repos/acme/tool").respond_with_data(
        "{}", status=403, headers={"X-RateLimit-Remaining": "0"})
    acq = acquired("https://github.com/acme/tool", tmp_path, settings)
    assert not acq.ok and "rate limit" in acq.error


# ---- GitHub ----------------------------------------------------------------------------------------------
def github_repo(server, data: bytes = TGZ, ref: str = "main", kind: str = "tarball") -> None:
    server.expect_request("/gh/repos/acme/wordfreq").respond_with_json(
        {"full_name": "acme/wordfreq", "default_branch": "main"})
    server.expect_request(f"/gh/repos/acme/wordfreq/commits/{ref}").respond_with_json({"sha": SHA})
    # like api.github.com: the archive endpoint redirects to the download host
    server.expect_request(f"/gh/repos/acme/wordfreq/{kind}/{SHA}").respond_with_response(
        Response(status=302, headers={"Location": f"{base(server)}/codeload/acme/wordfreq/{SHA}"}))
    server.expect_request(f"/codeload/acme/wordfreq/{SHA}").respond_with_data(
        data, content_type="application/x-gzip" if kind == "tarball" else "application/zip",
        headers={"Content-Disposition": f"attachment; filename=acme-wordfreq-{SHA[:7]}."
                                        f"{'tar.gz' if kind == 'tarball' else 'zip'}"})


def test_github_repository_pinned_to_a_commit(host, tmp_path, settings):
    github_repo(host)
    acq = acquired("https://github.com/acme/wordfreq", tmp_path, settings)
    assert acq.ok, acq.error
    assert acq.kind == "github repository" and acq.entry == "README.md" and "wordfreq.py" in acq.files
    assert any(step["to"] == f"commit {SHA}" for step in acq.resolution)
    [download] = acq.downloads
    assert download["url"] == f"{base(host)}/gh/repos/acme/wordfreq/tarball/{SHA}"
    assert (download["redirects"][0]["status"] == 302
            and download["final_url"].endswith(f"/codeload/acme/wordfreq/{SHA}"))
    assert download["name"] == f"wordfreq-{SHA[:12]}.tar.gz"  # names the commit reviewed
    for n, link in enumerate(["github.com/acme/wordfreq", "git@github.com:acme/wordfreq.git",
                              "https://github.com/acme/wordfreq.git"]):
        other = acquired(link, tmp_path, settings, f"form{n}")
        assert other.ok and other.downloads[0]["url"] == download["url"], other.error


def test_github_tree_ref_with_subfolder_and_commit_links(host, tmp_path, settings):
    nested = pack("tar.gz", top=f"acme-wordfreq-{SHA[:7]}/artifact")
    github_repo(host, nested, ref="v1.0")
    acq = acquired("https://github.com/acme/wordfreq/tree/v1.0/artifact", tmp_path, settings)
    assert acq.ok, acq.error
    assert acq.root.name == "artifact" and acq.entry == "README.md"
    host.clear()
    github_repo(host, nested, ref="unused")
    acq = acquired(f"https://github.com/acme/wordfreq/commit/{SHA}", tmp_path, settings, "commit")
    assert acq.ok, acq.error
    assert hits(host, "/gh/repos/acme/wordfreq") == 0  # a full commit id needs no lookup
    missing = acquired("https://github.com/acme/wordfreq/tree/v1.0/nope", tmp_path, settings, "missing")
    assert not missing.ok and "'nope' is not in the downloaded source" in missing.error


def test_github_archive_links_use_the_zipball(host, tmp_path, settings):
    github_repo(host, ZIP, ref="v1.0", kind="zipball")
    for n, link in enumerate(["https://github.com/acme/wordfreq/archive/refs/tags/v1.0.zip",
                              "https://github.com/acme/wordfreq/archive/v1.0.zip"]):
        acq = acquired(link, tmp_path, settings, f"r{n}")
        assert acq.ok, acq.error
        assert acq.downloads[0]["url"].endswith(f"/zipball/{SHA}")


def test_github_release_assets_come_through_the_api(host, tmp_path, settings):
    github_repo(host, ref="v1.0")
    data = b"word,count\nfoo,3\n"
    host.expect_request("/gh/repos/acme/wordfreq/releases/tags/v1.0").respond_with_json(
        {"tag_name": "v1.0", "assets": [{"name": "counts.csv", "size": len(data),
                                          "url": "https://api.github.com/repos/acme/wordfreq/releases/assets/7",
                                          "browser_download_url": "https://github.com/acme/wordfreq/releases/download/v1.0/counts.csv"}]})
    host.expect_request("/gh/repos/acme/wordfreq/releases/assets/7",
                        headers={"Accept": "application/octet-stream"}).respond_with_data(data)
    acq = acquired("https://github.com/acme/wordfreq/releases/tag/v1.0", tmp_path, settings)
    assert acq.ok, acq.error
    assert "counts.csv" in acq.files and any(f.endswith("/README.md") for f in acq.files)
    asset = acquired("https://github.com/acme/wordfreq/releases/download/v1.0/counts.csv", tmp_path, settings, "asset")
    assert asset.ok and asset.files == ["counts.csv"] and asset.kind == "github release asset"


def test_github_archive_endpoint_answering_html(host, tmp_path, settings):
    github_repo(host)
    host.clear()
    host.expect_request("/gh/repos/acme/wordfreq").respond_with_json({"default_branch": "main"})
    host.expect_request("/gh/repos/acme/wordfreq/commits/main").respond_with_json({"sha": SHA})
    host.expect_request(f"/gh/repos/acme/wordfreq/tarball/{SHA}").respond_with_data(HTML, content_type="text/html")
    acq = acquired("https://github.com/acme/wordfreq", tmp_path, settings)
    assert not acq.ok and "HTML page" in acq.error and f"/tarball/{SHA}" in acq.error


# ---- Figshare ------------------------------------------------------------------------------------------
def figshare_files(server, data: bytes, name: str = "wordfreq.zip", md5: str | None = None) -> list[dict]:
    server.expect_request("/files/9001").respond_with_data(data, content_type="application/octet-stream")
    return [{"id": 9001, "name": name, "size": len(data), "download_url": f"{base(server)}/files/9001",
             "computed_md5": md5 or hashlib.md5(data).hexdigest(), "is_link_only": False}]


@pytest.mark.parametrize("link, path", [
    ("https://figshare.com/articles/software/wordfreq_tool/777", "/figshare/v2/articles/777/files"),
    ("https://doi.org/10.6084/m9.figshare.777", "/figshare/v2/articles/777/files"),
    ("10.6084/m9.figshare.777.v2", "/figshare/v2/articles/777/versions/2"),
    ("https://figshare.com/articles/dataset/wordfreq_tool/777/2", "/figshare/v2/articles/777/versions/2"),
])
def test_figshare_articles_and_dois(host, tmp_path, settings, link, path):
    files = figshare_files(host, ZIP)
    host.expect_request(path).respond_with_json(files if path.endswith("/files") else {"id": 777, "files": files})
    acq = acquired(link, tmp_path, settings)
    assert acq.ok, acq.error
    assert acq.kind == "figshare article" and acq.entry == "README.md"
    assert acq.downloads[0]["md5_ok"] is True and acq.listing[0]["name"] == "wordfreq.zip"


def test_figshare_api_base_follows_the_env_var(host, tmp_path, monkeypatch):
    monkeypatch.setenv("ARTIFACTCOPILOT_FIGSHARE_URL", base(host))
    monkeypatch.setenv("ARTIFACTCOPILOT_CACHE_DIR", str(tmp_path / "cache"))
    host.expect_request("/v2/articles/778/files").respond_with_json(figshare_files(host, TGZ, "a.tar.gz"))
    acq = acquire("https://figshare.com/articles/778", tmp_path / "run")
    assert acq.ok, acq.error


def test_figshare_link_only_and_md5_mismatch(host, tmp_path, settings):
    host.expect_request("/figshare/v2/articles/779/files").respond_with_json(
        [{"id": 1, "name": "elsewhere", "download_url": "https://example.org/x", "is_link_only": True}])
    acq = acquired("https://figshare.com/articles/779", tmp_path, settings)
    assert not acq.ok and "only external links" in acq.error
    host.expect_request("/figshare/v2/articles/780/files").respond_with_json(figshare_files(host, ZIP, md5="f" * 32))
    acq = acquired("https://figshare.com/articles/780", tmp_path, settings, "md5")
    assert not acq.ok and "md5" in acq.error and "/files/9001" in acq.error


# ---- other DOIs and direct links ----------------------------------------------------------------------------
def test_other_doi_follows_the_resolver_redirect(host, tmp_path, settings):
    host.expect_request("/doi/10.1145/3597926.3598000").respond_with_response(
        Response(status=302, headers={"Location": f"{base(host)}/downloads/artifact.tar.gz"}))
    host.expect_request("/downloads/artifact.tar.gz").respond_with_data(TGZ, content_type="application/gzip")
    acq = acquired("https://doi.org/10.1145/3597926.3598000", tmp_path, settings)
    assert acq.ok, acq.error
    assert [step["how"].split(" (")[0] for step in acq.resolution] == ["DOI resolver redirect", "direct download"]
    assert acq.kind == "http download" and acq.entry == "README.md"


def test_doi_landing_page_is_not_an_artifact(host, tmp_path, settings):
    host.expect_request("/doi/10.1145/1.2").respond_with_response(
        Response(status=302, headers={"Location": f"{base(host)}/landing"}))
    host.expect_request("/landing").respond_with_data(HTML, content_type="text/html")
    acq = acquired("doi:10.1145/1.2", tmp_path, settings)
    assert not acq.ok and "HTML page" in acq.error and f"{base(host)}/landing" in acq.error


def test_direct_archive_truncated_and_corrupt(host, tmp_path, settings):
    host.expect_request("/good.zip").respond_with_data(ZIP, content_type="application/zip")
    host.expect_request("/cut.tar.gz").respond_with_data(TGZ[: len(TGZ) // 2], content_type="application/gzip")
    host.expect_request("/stub.tar.gz").respond_with_data(TGZ[:100], content_type="application/gzip")
    host.expect_request("/noise.zip").respond_with_data(b"PK\x03\x04" + bytes(500), content_type="application/zip")
    good = acquired(f"{base(host)}/good.zip", tmp_path, settings, "good")
    assert good.ok and good.entry == "README.md"
    cut = acquired(f"{base(host)}/cut.tar.gz", tmp_path, settings, "cut")
    assert not cut.ok and "corrupt or truncated" in cut.error and "cut.tar.gz" in cut.error
    stub = acquired(f"{base(host)}/stub.tar.gz", tmp_path, settings, "stub")
    assert not stub.ok and "corrupt or truncated" in stub.error
    noise = acquired(f"{base(host)}/noise.zip", tmp_path, settings, "noise")
    assert not noise.ok and "corrupt or truncated" in noise.error


def test_single_file_download_and_unsupported_scheme(host, tmp_path, settings):
    host.expect_request("/tool.py").respond_with_data(b"print('hello')\n", content_type="text/x-python")
    acq = acquired(f"{base(host)}/tool.py?" + "x" * 300, tmp_path, settings)  # longer than a file name may be
    assert acq.ok and acq.files == ["tool.py"], acq.error
    bad = acquired("ftp://example.org/artifact.zip", tmp_path, settings, "ftp")
    assert not bad.ok and "ftp://" in bad.error


# ---- retries and cache ----------------------------------------------------------------------------------------
def test_retry_after_503_then_success(host, tmp_path, settings):
    host.expect_oneshot_request("/flaky.tar.gz").respond_with_data("busy", status=503)
    host.expect_request("/flaky.tar.gz").respond_with_data(TGZ, content_type="application/gzip")
    acq = acquired(f"{base(host)}/flaky.tar.gz", tmp_path, settings)
    assert acq.ok, acq.error
    assert [r.get("status") for r in acq.requests] == [503, 200]
    assert hits(host, "/flaky.tar.gz") == 2


def test_retry_after_a_timeout_with_backoff(host, tmp_path, settings):
    def slow(request):
        time.sleep(1.5)
        return Response(TGZ)

    host.expect_oneshot_request("/slow.tar.gz").respond_with_handler(slow)
    host.expect_request("/slow.tar.gz").respond_with_data(TGZ, content_type="application/gzip")
    sleeps: list[float] = []
    from artifactcopilot.acquire import download

    client_settings = settings.model_copy(update={"timeout_s": 0.5, "backoff_s": 0.01})
    original = download.HttpClient
    monkey = pytest.MonkeyPatch()
    monkey.setattr(download, "HttpClient", lambda s: original(s, sleep=sleeps.append))
    try:
        acq = acquired(f"{base(host)}/slow.tar.gz", tmp_path, client_settings)
    finally:
        monkey.undo()
    assert acq.ok, acq.error
    assert "timed out" in acq.requests[0]["error"] and acq.requests[1]["status"] == 200
    assert sleeps == [0.01]


def test_damaged_cache_entry_is_downloaded_again(host, tmp_path, settings):
    host.expect_request("/a.zip").respond_with_data(ZIP, content_type="application/zip")
    first = acquired(f"{base(host)}/a.zip", tmp_path, settings, "one")
    blob = Path(first.downloads[0]["path"])
    blob.write_bytes(b"tampered")
    second = acquired(f"{base(host)}/a.zip", tmp_path, settings, "two")
    assert second.ok and second.downloads[0]["cache"] == "miss"
    assert hits(host, "/a.zip") == 2
    third = acquired(f"{base(host)}/a.zip", tmp_path, settings, "three")
    assert third.downloads[0]["cache"] == "hit" and hits(host, "/a.zip") == 2


def test_unusable_cache_dir_is_named(host, tmp_path, settings):
    host.expect_request("/a.zip").respond_with_data(ZIP, content_type="application/zip")
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache should be")
    acq = acquired(f"{base(host)}/a.zip", tmp_path, settings.model_copy(update={"cache_dir": blocker / "cache"}))
    assert not acq.ok and "download cache" in acq.error and "--cache-dir" in acq.error
