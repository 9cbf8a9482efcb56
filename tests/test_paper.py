"""acquire.paper: Markdown, LaTeX (file and project), PDF and text papers; bad inputs fail cleanly."""
from __future__ import annotations

import io
from pathlib import Path

import pytest
from pypdf import PdfReader, PdfWriter

from artifactcopilot.acquire.paper import Paper, PaperError, distinctive_terms, load_paper
from artifactcopilot.errors import CopilotError

PAPERS = Path(__file__).parent / "fixtures" / "papers"


def make_pdf(lines: list[tuple[int, int, str]] | None) -> bytes:
    """A minimal valid one-page PDF: Helvetica text at (x, y), or a drawn line only when `lines` is None."""
    def esc(s: str) -> str:
        return s.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")

    if lines is None:  # vector graphics but no text, like a scanned page without OCR
        stream = b"0.5 w 72 72 m 540 720 l S"
    else:
        ops = ["BT", "/F1 10 Tf"] + [f"1 0 0 1 {x} {y} Tm ({esc(t)}) Tj" for x, y, t in lines] + ["ET"]
        stream = "\n".join(ops).encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


PDF_LINES = [
    (72, 740, "Cache-Aware Graph Sampling"),
    (72, 715, "Abstract"),
    (72, 700, "Our sampler achieves a 2.4x speedup over DGL while keeping accuracy within 0.1%."),
    (72, 680, "1 Introduction"),
    (72, 665, "Code and data: https://github.com/example/cags (archived at 10.5281/zenodo.7654321)."),
    (72, 640, "Table 1: Epoch time (s) and accuracy on ogbn-products."),
    (72, 625, "System"), (220, 625, "Epoch time"), (320, 625, "Accuracy"),
    (72, 610, "DGL"), (220, 610, "41.7"), (320, 610, "78.9"),
    (72, 595, "CAGS"), (220, 595, "17.2"), (320, 595, "79.0"),
    (72, 570, "2 Conclusion"),
    (72, 555, "CAGS is faster than DGL on every graph we tried."),
]


# ---------------------------------------------------------------------------------- Markdown

def test_markdown_paper():
    paper = load_paper(PAPERS / "sparse_training.md")
    assert paper.format == "markdown"
    assert paper.title == "SparseFlow: Fast Sparse Training on Commodity GPUs"
    assert paper.abstract.startswith("We present SparseFlow")
    assert [s.title for s in paper.sections][1:] == ["1 Introduction", "2 Evaluation", "3 Conclusion"]
    t1, t2 = paper.tables
    assert (t1.label, t1.caption) == ("Table 1", "Top-1 accuracy (%) on CIFAR-10 and ImageNet.")
    assert t1.header == ["Model", "CIFAR-10", "ImageNet"]
    assert t1.rows == [["Dense", "94.1", "76.2"], ["RigL", "93.6", "75.1"], ["SparseFlow", "94.0", "76.0"]]
    assert (t2.label, t2.caption) == ("Table 2", "Throughput and peak memory on one A100.")  # caption below
    assert t2.header == ["Model", "Throughput (img/s)", "Memory (GB)"]
    assert t2.rows == [["Dense", "1,204", "15.8"], ["SparseFlow", "2,771", "9.4"]]
    assert paper.links == ["https://github.com/example/sparseflow", "https://doi.org/10.5281/zenodo.1234567",
                           "10.1145/3600006.3613139"]
    assert "SparseFlow outperforms the best prior sparse trainer by 12% in throughput." in paper.claims
    assert "SparseFlow reduces memory by 40% compared to dense training." in paper.claims
    assert not any(c.startswith("Table") for c in paper.claims)
    assert len(paper.claims) == len(set(paper.claims))


# ---------------------------------------------------------------------------------- LaTeX

def _check_latex(paper: Paper) -> None:
    assert paper.format == "latex"
    assert paper.title == "Quantized Inference at the Edge"
    assert paper.abstract.startswith("We show that EdgeQ reduces latency by 3.1×")
    assert [s.title for s in paper.sections] == ["Introduction", "Method", "Evaluation", "Conclusion"]
    method = paper.sections[1].text
    assert "calibrates on 512 images" in method and "a comment" not in method  # \input inlined, comments gone
    assert any("missing_section" in n for n in paper.notes)  # the missing \input is noted, not fatal
    t1, t2 = paper.tables
    assert (t1.label, t1.caption, t1.ref) == ("Table 1", "Accuracy of quantized models.", "tab:acc")
    assert t1.header == ["Model", "Accuracy (%) Top-1", "Accuracy (%) Top-5"]
    assert t1.rows == [["FP32", "76.1", "92.9"], ["INT8", "75.8", "92.7"], ["EdgeQ", "75.9", "92.8 ± 0.1"]]
    assert (t2.label, t2.caption) == ("Table 2", "Latency on a Raspberry Pi 4.")
    assert t2.header == ["Model", "Latency (ms)", "Energy (mJ)"]
    assert t2.rows == [["FP32", "182.4", "1,310"], ["EdgeQ", "58.9", "402"]]
    assert "Table 1 lists accuracy; Table 2 lists latency." in paper.text  # \ref resolved
    assert paper.links == ["https://github.com/example/edge_q"]
    assert "EdgeQ is 3.1x faster than FP32 inference." in paper.claims


def test_latex_project_directory():
    paper = load_paper(PAPERS / "latex_paper")
    _check_latex(paper)
    assert paper.path == str(PAPERS / "latex_paper")
    assert "main file: main.tex" in paper.notes


def test_latex_main_file():
    _check_latex(load_paper(PAPERS / "latex_paper" / "main.tex"))


def test_directory_without_main_tex(tmp_path):
    (tmp_path / "notes.tex").write_text("\\section{Notes}\nnothing here\n")
    with pytest.raises(PaperError, match="no main .tex file"):
        load_paper(tmp_path)


# ---------------------------------------------------------------------------------- PDF

def test_pdf_paper(tmp_path):
    path = tmp_path / "cags.pdf"
    path.write_bytes(make_pdf(PDF_LINES))
    paper = load_paper(path)
    assert paper.format == "pdf"
    assert paper.title == "Cache-Aware Graph Sampling"
    assert paper.abstract.startswith("Our sampler achieves a 2.4x speedup")
    [table] = paper.tables
    assert (table.label, table.caption) == ("Table 1", "Epoch time (s) and accuracy on ogbn-products.")
    assert table.header == ["System", "Epoch time", "Accuracy"]
    assert table.rows == [["DGL", "41.7", "78.9"], ["CAGS", "17.2", "79.0"]]
    assert paper.links == ["https://github.com/example/cags", "10.5281/zenodo.7654321"]
    assert paper.claims[0].startswith("Our sampler achieves a 2.4x speedup")
    assert "CAGS is faster than DGL" in paper.text


def test_pdf_sniffed_without_extension(tmp_path):
    path = tmp_path / "download"
    path.write_bytes(make_pdf(PDF_LINES))
    assert load_paper(path).format == "pdf"


def test_encrypted_pdf_with_empty_user_password_opens(tmp_path):
    writer = PdfWriter()
    writer.append(PdfReader(io.BytesIO(make_pdf(PDF_LINES))))
    writer.encrypt(user_password="", owner_password="owner", algorithm="RC4-128")
    path = tmp_path / "open.pdf"
    writer.write(path)
    assert load_paper(path).tables[0].rows[1] == ["CAGS", "17.2", "79.0"]


# ---------------------------------------------------------------------------------- text

def test_latin1_text_paper(tmp_path):
    path = tmp_path / "old.txt"
    path.write_bytes("Résumé of naïve caching\n\nOur cache achieves 91.2% hit rate, better than 88.0% for LRU.\n"
                     .encode("latin-1"))
    paper = load_paper(path)
    assert (paper.format, paper.title) == ("text", "Résumé of naïve caching")
    assert paper.claims == ["Our cache achieves 91.2% hit rate, better than 88.0% for LRU."]


def test_unknown_extension_is_sniffed(tmp_path):
    (tmp_path / "paper.rst").write_text("# Title\n\nBody.\n")
    (tmp_path / "paper.src").write_text("\\documentclass{article}\\title{T}\\begin{document}x\\end{document}")
    assert load_paper(tmp_path / "paper.rst").format == "markdown"
    assert load_paper(tmp_path / "paper.src").format == "latex"


# ---------------------------------------------------------------------------------- bad input

def _corrupt() -> bytes:
    return b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R\nstream\x00\x01garbage"


@pytest.mark.parametrize("name, content, message", [
    ("missing.pdf", None, "does not exist"),
    ("empty.md", b"", "is empty"),
    ("blank.txt", b"  \n\n\t\n", "is empty"),
    ("weights.bin", bytes(range(256)) * 8, "is not a text, Markdown, LaTeX or PDF file"),
    ("paper.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 20, "is not a text, Markdown, LaTeX or PDF file"),
    ("corrupt.pdf", _corrupt(), "corrupt PDF"),
    ("truncated.pdf", make_pdf(PDF_LINES)[:200], "corrupt PDF"),
    ("renamed.pdf", b"just some text pretending to be a pdf", "corrupt PDF"),
    ("scan.pdf", make_pdf(None), "image-only PDF: no text could be extracted"),
])
def test_bad_inputs_raise_one_line_paper_error(tmp_path, name, content, message):
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(PaperError) as info:
        load_paper(path)
    text = str(info.value)
    assert message in text and name in text and "\n" not in text
    assert isinstance(info.value, CopilotError) and info.value.exit_code == 2


def test_password_protected_pdf(tmp_path):
    writer = PdfWriter()
    writer.append(PdfReader(io.BytesIO(make_pdf(PDF_LINES))))
    writer.encrypt(user_password="secret", owner_password="owner", algorithm="RC4-128")
    path = tmp_path / "locked.pdf"
    writer.write(path)
    with pytest.raises(PaperError, match="locked.pdf is an encrypted PDF that cannot be opened"):
        load_paper(path)


# ---------------------------------------------------------------------------------- distinctive terms

def test_distinctive_terms():
    text = ("Sparse training with sparse kernels. The sparse kernels are faster because they skip zeros. "
            "However, these results would require hardware support. Hardware matters.")
    terms = distinctive_terms(text, limit=3)
    assert terms == {"sparse", "kernels", "hardware"}
    assert not {"because", "however", "these", "results", "would"} & distinctive_terms(text)
    assert all(len(t) >= 5 and t.islower() for t in distinctive_terms(text))
