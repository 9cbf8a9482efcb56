"""claims.figures: real figures vs stubs, and documented output paths against what a run produced."""
from __future__ import annotations

import io
import json
import struct
import zlib
from pathlib import Path

import pytest
from pypdf import PdfWriter

from artifactcopilot.claims import check_figure, match_documented_outputs


def png_bytes(w: int = 24, h: int = 16) -> bytes:
    raw = b"".join(b"\x00" + bytes((x * 37 + y * 11) % 256 for x in range(3 * w)) for y in range(h))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def pdf_bytes(pages: int = 1) -> bytes:
    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(width=200, height=100)
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


SVG = (b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20">\n'
       b'<g><rect x="1" y="1" width="10" height="10"/><path d="M0 0 L10 10"/></g>\n</svg>\n')
EPS = b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\nnewpath 0 0 moveto 10 10 lineto stroke\n" \
      b"showpage\n%%EOF\n"
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00" + b"\x00" * 120 + b"\xff\xd9"
GIF = b"GIF89a" + struct.pack("<HH", 5, 5) + b"\x80\x00\x00" + b"\x00" * 120 + b";"


@pytest.mark.parametrize("name, data, fmt", [
    ("fig.png", png_bytes(), "png"), ("fig.pdf", pdf_bytes(2), "pdf"), ("fig.svg", SVG, "svg"),
    ("fig.eps", EPS, "eps"), ("fig.jpg", JPEG, "jpeg"), ("fig.gif", GIF, "gif"),
])
def test_valid_figures(tmp_path, name, data, fmt):
    f = tmp_path / name
    f.write_bytes(data)
    r = check_figure(f)
    assert r.valid, r.reason
    assert r.format == r.declared == fmt
    json.dumps(r.to_dict())


def test_figure_details(tmp_path):
    (tmp_path / "a.png").write_bytes(png_bytes(640, 480))
    (tmp_path / "b.pdf").write_bytes(pdf_bytes(3))
    assert (check_figure(tmp_path / "a.png").width, check_figure(tmp_path / "a.png").height) == (640, 480)
    assert check_figure(tmp_path / "b.pdf").pages == 3


@pytest.mark.parametrize("name, data, why", [
    ("empty.png", b"", "empty file"),
    ("fake.pdf", b"Figure could not be drawn: no display\n" * 10, "not a figure"),
    ("lfs.png", b"version https://git-lfs.github.com/spec/v1\noid sha256:" + b"a" * 64 + b"\nsize 12345\n",
     "not a figure"),
    ("head.png", png_bytes()[:40], "truncated PNG"),
    ("dot.png", png_bytes(1, 1), "too small"),
    ("zero.png", png_bytes(0, 0), "size 0x0"),
    ("cut.png", png_bytes(200, 200)[:-30], "truncated PNG"),
    ("cut.pdf", pdf_bytes(1)[:-60], "truncated PDF"),
    ("nopage.pdf", pdf_bytes(0), "without any page"),
    ("cut.svg", SVG[:-10], "truncated SVG"),
    ("cut.jpg", JPEG[:-2], "truncated JPEG"),
])
def test_invalid_figures(tmp_path, name, data, why):
    f = tmp_path / name
    f.write_bytes(data)
    r = check_figure(f)
    assert not r.valid
    assert why in r.reason, r.reason


def test_content_decides_format_not_name(tmp_path):
    f = tmp_path / "plot.pdf"
    f.write_bytes(png_bytes())
    r = check_figure(f)
    assert r.valid and r.format == "png" and r.declared == "pdf" and "named as pdf" in r.reason


def test_missing_and_directory(tmp_path):
    assert check_figure(tmp_path / "nope.pdf").reason == "no such file"
    (tmp_path / "d.png").mkdir()
    assert check_figure(tmp_path / "d.png").reason == "not a regular file"


# ---------------------------------------------------------------------------------- documented outputs

@pytest.fixture
def artifact(tmp_path) -> Path:
    """An artifact after a run: regenerated figures, result files, and figures that were already checked in."""
    root = tmp_path / "artifact"
    (root / "Resources" / "Output").mkdir(parents=True)
    (root / "Resources" / "Output" / "perYear.pdf").write_bytes(pdf_bytes())
    (root / "Resources" / "Output" / "topChanged.pdf").write_bytes(pdf_bytes())  # shipped, not regenerated
    (root / "results").mkdir()
    (root / "results" / "table5.csv").write_text("method,guesses\nbaseline,1204\n", encoding="utf-8")
    (root / "results" / "empty.csv").write_text("", encoding="utf-8")
    (root / "results" / "header.csv").write_text("method,guesses\n", encoding="utf-8")
    (root / "graphs").mkdir()
    (root / "graphs" / "fig4.png").write_bytes(png_bytes())
    (root / "graphs" / "fig5.png").write_bytes(png_bytes()[:-20])
    (root / "graphs" / "old.png").write_bytes(png_bytes())
    return root


CREATED = ["Resources/Output/perYear.pdf", "./results/table5.csv", "results/empty.csv", "graphs/fig4.png",
           "graphs/fig5.png", "logs/run.log"]


def test_documented_file_with_dot_slash_prefix(artifact):
    [r] = match_documented_outputs([("./Resources/Output/perYear.pdf", ["Figure 2"])], CREATED, artifact)
    assert r.kind == "file" and r.verdict == "produced" and r.objects == ["Figure 2"]
    assert r.produced == ["Resources/Output/perYear.pdf"] and r.checks[0].role == "figure"


def test_documented_file_relative_to_a_subfolder(artifact):
    [r] = match_documented_outputs([("Output/perYear.pdf.", ["Figure 2"])], CREATED, artifact)
    assert r.verdict == "produced" and r.normalized == "Output/perYear.pdf"


def test_shipped_figure_not_regenerated(artifact):
    [r] = match_documented_outputs([("Resources/Output/topChanged.pdf", ["Figure 9"])], CREATED, artifact)
    assert r.verdict == "not_produced" and r.preexisting == 1
    assert "already in the artifact" in r.reason


def test_documented_folder(artifact):
    [r] = match_documented_outputs([("results/", ["Table 5"])], CREATED, artifact)
    assert r.kind == "folder" and r.verdict == "partial"
    assert r.valid == 1 and r.invalid == 1
    assert "empty file" in r.reason


def test_documented_glob(artifact):
    [r] = match_documented_outputs([("graphs/*.png", ["Figure 4", "Figure 5"])], CREATED, artifact)
    assert r.kind == "glob" and r.verdict == "partial"
    assert sorted(r.produced) == ["graphs/fig4.png", "graphs/fig5.png"]
    assert r.preexisting == 1  # old.png was there and was not touched
    assert "truncated PNG" in r.reason


def test_header_only_csv_is_not_a_result(artifact):
    [r] = match_documented_outputs([("results/header.csv", [])], CREATED + ["results/header.csv"], artifact)
    assert r.verdict == "invalid" and "only a header line" in r.reason


def test_parent_relative_and_unusable_paths(artifact):
    res = match_documented_outputs([("../results/table5.csv", ["Table 5"]), ("./", []), ("`graphs/fig4.png`", [])],
                                   CREATED, artifact)
    assert [r.verdict for r in res] == ["produced", "not_established", "produced"]


def test_created_file_escaping_the_artifact(artifact, tmp_path):
    secret = tmp_path / "outside.csv"
    secret.write_text("a,b\n1,2\n", encoding="utf-8")
    (artifact / "results" / "link.csv").symlink_to(secret)
    [r] = match_documented_outputs([("results/link.csv", [])], ["results/link.csv"], artifact)
    assert r.verdict == "invalid" and "outside the artifact" in r.reason


def test_nothing_created_is_never_positive(artifact):
    res = match_documented_outputs([("graphs", ["Figures 4-7"]), ("results/*.csv", ["Table 5"])], [], artifact)
    assert [r.verdict for r in res] == ["not_produced", "not_produced"]
    json.dumps([r.to_dict() for r in res])
