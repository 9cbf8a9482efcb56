"""Bad input never raises: binary or huge READMEs, corrupt markdown/TOML/notebooks, a view that fails."""
from __future__ import annotations

import json

from artifactcopilot.discovery import discover

from .helpers import MemoryView


def test_binary_readme_is_listed_with_a_note():
    found = discover(MemoryView({"README.md": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 50, "run.py": ""}))
    assert [(d.path, d.words, d.note) for d in found.docs] == [("README.md", 0, "binary content: not read")]
    assert found.steps == [] and "README.md: binary content: not read" in found.notes
    assert found.signals["entry"] is False


def test_no_readme_at_all():
    found = discover(MemoryView({"main.py": "print(1)\n"}))
    assert found.docs == [] and "no README found" in found.notes
    assert found.requested_badges is None and not found.signals["workflow"]


def test_failing_view_and_failing_file_list():
    view = MemoryView({"README.md": "```\npython a.py\n```\n", "STATUS.md": "x", "a.ipynb": "{}", "Makefile": "x:\n"},
                      fail={"STATUS.md", "a.ipynb", "Makefile"})
    found = discover(view)
    assert [s.cmd for s in found.steps] == ["python a.py"]
    assert {"STATUS.md: could not be read", "a.ipynb: could not be read",
            "Makefile: could not be read"} <= set(found.notes)

    class NoFiles:
        @property
        def files(self):
            raise RuntimeError("listing failed")

        def read(self, rel, max_bytes=2_000_000):
            return None

    broken = discover(NoFiles())
    assert broken.steps == [] and broken.notes == ["the artifact's file list could not be read (RuntimeError)"]


def test_hostile_markdown_and_corrupt_toml():
    nested = "".join("  " * i + "- item\n" for i in range(200)) + "[" * 5000 + "`" * 3000 + "\n"
    long_line = "python x.py " + "--flag " * 50_000
    files = {"README.md": nested + "```\n" + long_line + "\n$ python ok.py\n```\n" + "<" * 10_000,
             "pyproject.toml": "[project\nname = ", "ok.py": "", "x.py": "",
             "nb.ipynb": json.dumps({"cells": "nope"}), "docs/guide.md": "\x00\x01\x02" * 100}
    found = discover(MemoryView(files))
    assert "python ok.py" in [s.cmd for s in found.steps]
    assert any(n.startswith("pyproject.toml: not valid TOML") for n in found.notes)
    assert any(n.startswith("nb.ipynb: not a valid notebook") for n in found.notes)
    json.dumps(found.to_dict())


def test_huge_readme_is_cut_and_says_so():
    text = "# Big\n\n```\npython first.py\n```\n" + ("word " * 200 + "\n") * 2500
    found = discover(MemoryView({"README.md": text, "first.py": ""}))
    assert found.steps[0].cmd == "python first.py"
    assert any("only the first" in n for n in found.notes)


def test_paper_text_of_any_shape():
    view = MemoryView({"README.md": "# T\n"})
    for paper in (None, "", "x" * 100_000, "# Artifact Appendix\n", "\x00" * 50):
        assert [d.role for d in discover(view, paper).docs] == ["readme"]
