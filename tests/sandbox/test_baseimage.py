"""Base image recipe without an engine: suite names, pruning of the root file system, status of an image, the
interpreters a catalogue of images offers, and failures that become errors a user can act on."""
from __future__ import annotations

import pytest

from artifactcopilot.errors import CopilotError
from artifactcopilot.sandbox import baseimage
from artifactcopilot.sandbox.baseimage import (
    NODOC,
    PYTHON_LABEL,
    RECIPE,
    RECIPE_LABEL,
    SUITE_LABEL,
    SUITES,
    BaseImage,
    SuiteImages,
    _prune,
    build_base_image,
    inspect_base,
    minor,
    valid_suite,
)


def test_suite_names_and_versions():
    assert all(valid_suite(s) for s in SUITES) and valid_suite("forky")
    for bad in ("", "Bookworm", "bookworm; rm -rf /", "../x", "a", "x" * 40, None):
        assert not valid_suite(bad)
    assert SUITES["bookworm"] == "3.11" and minor("3.13.5") == "3.13" and minor("none") == ""


def test_prune_drops_docs_lists_and_caches_but_keeps_copyright_and_directories(tmp_path):
    files = ["usr/share/doc/gcc/changelog.gz", "usr/share/doc/gcc/copyright", "usr/share/man/man1/ls.1.gz",
             "usr/share/locale/de/LC_MESSAGES/x.mo", "usr/share/locale/locale.alias", "var/lib/apt/lists/lock",
             "var/lib/apt/lists/deb.debian.org_dists_bookworm_InRelease", "var/cache/apt/archives/x.deb",
             "var/cache/apt/pkgcache.bin", "usr/bin/python3"]
    for rel in files:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    _prune(tmp_path)
    left = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert left == ["etc/dpkg/dpkg.cfg.d/01-nodoc", "usr/bin/python3", "usr/share/doc/gcc/copyright",
                    "usr/share/locale/locale.alias", "var/lib/apt/lists/lock"]
    assert (tmp_path / "usr/share/man/man1").is_dir()  # maintainer scripts (e.g. a JDK's) expect it
    assert (tmp_path / "etc/dpkg/dpkg.cfg.d/01-nodoc").read_text() == NODOC


class _Image:
    def __init__(self, labels, size=300 << 20):
        self.labels, self.attrs, self.id = labels, {"Size": size}, "sha256:1"


class _Images:
    def __init__(self, known):
        self.known = known

    def get(self, name):
        from docker.errors import ImageNotFound

        if name not in self.known:
            raise ImageNotFound(name)
        return self.known[name]


class _Client:
    def __init__(self, known):
        self.images = _Images(known)


def _labels(suite, python, recipe=RECIPE):
    return {SUITE_LABEL: suite, PYTHON_LABEL: python, RECIPE_LABEL: recipe}


def test_status_of_present_missing_and_outdated_images():
    client = _Client({"artifactcopilot/base:bookworm": _Image(_labels("bookworm", "3.11.2")),
                      "artifactcopilot/base:trixie": _Image(_labels("trixie", "3.13.5", recipe="0ld"))})
    current = inspect_base(client, "bookworm")
    assert current == BaseImage("bookworm", "artifactcopilot/base:bookworm", True, True, "3.11.2", 300)
    assert current.describe() == "artifactcopilot/base:bookworm: Python 3.11.2, 300 MB"
    assert "older recipe" in inspect_base(client, "trixie").describe()
    missing = inspect_base(client, "bullseye")
    assert not missing.present and "copilot doctor --build-base --suite bullseye" in missing.describe()


def test_interpreters_come_from_the_base_images_present():
    client = _Client({"artifactcopilot/base:bookworm": _Image(_labels("bookworm", "3.11.2")),
                      "artifactcopilot/base:bullseye": _Image(_labels("bullseye", "3.9.2"))})
    images = SuiteImages(client)
    assert images.interpreters() == {"3.11": "bookworm", "3.9": "bullseye"}
    assert images.image_for("bullseye") == ("artifactcopilot/base:bullseye", "")
    image, why = images.image_for("trixie")
    assert image is None and "--suite trixie" in why
    assert images.image_for("no such suite")[1] == "'no such suite' is not a Debian suite"


def test_build_failures_are_errors_with_a_hint(monkeypatch):
    with pytest.raises(CopilotError, match="not a Debian suite"):
        build_base_image(_Client({}), suite="Bad Suite")
    monkeypatch.setattr(baseimage.shutil, "which", lambda name: None)
    with pytest.raises(CopilotError, match="debootstrap is not installed") as exc:
        build_base_image(_Client({}), suite="bookworm")
    assert exc.value.hint == "apt-get install debootstrap"
