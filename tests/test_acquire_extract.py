"""Hostile and broken archives: nothing escapes the extraction root, bombs and corrupt files are refused
with a clear message, nested archives are unpacked one level deep, the README is found inside them."""
from __future__ import annotations

import io
import os
import tarfile
import zipfile
from pathlib import Path

import pytest

from artifactcopilot.acquire.download import acquire
from artifactcopilot.acquire.entry import locate_entry
from artifactcopilot.acquire.extract import ExtractLimits, extract

README = b"# Tool\n\nRun `python3 run.py` to reproduce Table 2.\n"


def make_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def make_tar(path: Path, members: list[tarfile.TarInfo | tuple[str, bytes]]) -> Path:
    with tarfile.open(path, "w:gz") as tf:
        for member in members:
            if isinstance(member, tarfile.TarInfo):
                tf.addfile(member)
            else:
                info = tarfile.TarInfo(member[0])
                info.size = len(member[1])
                tf.addfile(info, io.BytesIO(member[1]))
    return path


def link(name: str, target: str, kind=tarfile.SYMTYPE) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info


def every_path(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


def test_zip_slip_and_absolute_paths_stay_inside(tmp_path):
    jail = tmp_path / "jail"
    jail.mkdir()
    archive = make_zip(tmp_path / "evil.zip", {"README.md": README, "../../etc/passwd": b"root:x:0:0",
                                               "/tmp/absolute.txt": b"x", "a/../../escape.txt": b"x",
                                               "ok/run.py": b"print(1)"})
    acq = acquire(str(archive), jail)
    assert acq.ok, acq.error
    assert sorted(acq.files) == ["README.md", "ok/run.py"]
    assert not (tmp_path / "etc").exists() and not (tmp_path / "escape.txt").exists()
    assert every_path(tmp_path) - {"evil.zip"} == {"jail"} | {f"jail/{p}" for p in every_path(jail)}
    notes = "\n".join(acq.skipped)
    for bad in ("../../etc/passwd", "/tmp/absolute.txt", "a/../../escape.txt"):
        assert bad in notes
    assert "../../etc/passwd" in str(acq.to_dict()["skipped"])


def test_tar_links_to_root_and_outside_are_not_materialised(tmp_path):
    archive = make_tar(tmp_path / "evil.tar.gz", [("pkg/README.md", README), link("pkg/rootfs", "/"),
                                                  link("pkg/up", "../../.."),
                                                  link("pkg/hard", "/etc/passwd", tarfile.LNKTYPE),
                                                  ("/etc/evil", b"x"), link("pkg/inside", "README.md")])
    acq = acquire(str(archive), tmp_path / "run")
    assert acq.ok, acq.error
    root = acq.root
    assert not any(p.is_symlink() and not p.resolve().is_relative_to(root) for p in root.rglob("*"))
    assert not (root / "rootfs").exists() and not (root / "up").exists() and not (root / "hard").exists()
    assert (root / "inside").resolve() == (root / "README.md").resolve()  # links within the artifact are fine
    notes = "\n".join(acq.skipped)
    assert "'pkg/rootfs' -> '/'" in notes and "/etc/evil" in notes and "pkg/hard" in notes


def test_zip_bomb_is_refused_before_it_expands(tmp_path):
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf, zf.open("zeros.bin", "w") as out:
        chunk = bytes(1 << 20)
        for _ in range(64):  # 64 MB of zeros packs into ~64 KB
            out.write(chunk)
    assert bomb.stat().st_size < 200_000
    acq = acquire(str(bomb), tmp_path / "run")
    assert not acq.ok and "archive bomb" in acq.error
    assert not (tmp_path / "run" / "artifact").exists()


def test_size_and_member_caps_are_configurable(tmp_path):
    archive = make_zip(tmp_path / "many.zip", {f"f{i}.txt": b"data" * 100 for i in range(30)})
    with pytest.raises(Exception, match="more than 10 members"):
        extract(archive, tmp_path / "a", ExtractLimits(max_files=10))
    with pytest.raises(Exception, match="expands to more than 1000 bytes"):
        extract(archive, tmp_path / "b", ExtractLimits(max_total_bytes=1000))


@pytest.mark.parametrize("suffix", [".zip", ".tar.gz"])
def test_truncated_archive_is_reported_not_unpacked(tmp_path, suffix):
    payload = os.urandom(300_000)  # incompressible, so the cut lands inside member data
    src = tmp_path / f"full{suffix}"
    if suffix == ".zip":
        make_zip(src, {"README.md": README, "data.bin": payload})
    else:
        make_tar(src, [("README.md", README), ("data.bin", payload)])
    cut = tmp_path / f"cut{suffix}"
    cut.write_bytes(src.read_bytes()[: src.stat().st_size // 2])
    acq = acquire(str(cut), tmp_path / "run")
    assert not acq.ok
    assert "corrupt or truncated" in acq.error and f"cut{suffix}" in acq.error


def test_corrupt_and_mislabelled_archives(tmp_path):
    html = tmp_path / "artifact.zip"
    html.write_bytes(b"<!DOCTYPE html><html><body>Page not found</body></html>")
    acq = acquire(str(html), tmp_path / "a")
    assert not acq.ok and "not a zip or tar archive" in acq.error and "html" in acq.error
    garbage = tmp_path / "garbage.tar.gz"
    garbage.write_bytes(b"\x1f\x8b" + os.urandom(2000))
    acq = acquire(str(garbage), tmp_path / "b")
    assert not acq.ok and "corrupt or truncated" in acq.error
    seven = tmp_path / "artifact.7z"
    seven.write_bytes(b"7z\xbc\xaf\x27\x1c" + bytes(100))
    acq = acquire(str(seven), tmp_path / "c")
    assert not acq.ok and "7z" in acq.error


def test_nested_archives_unpacked_one_level_deep(tmp_path):
    inner_inner = io.BytesIO()
    with zipfile.ZipFile(inner_inner, "w") as zf:
        zf.writestr("deep.txt", b"too deep")
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as zf:
        zf.writestr("tool-1.0/README.md", README)
        zf.writestr("tool-1.0/run.py", b"print('table 2')\n")
        zf.writestr("tool-1.0/deeper.zip", inner_inner.getvalue())
    outer = make_zip(tmp_path / "record.zip", {"code.zip": inner.getvalue(), "LICENSE": b"MIT"})
    acq = acquire(str(outer), tmp_path / "run")
    assert acq.ok, acq.error
    assert "code.zip" in acq.files  # the original stays: the artifact's own steps may unpack it
    assert "code.zip.contents/tool-1.0/run.py" in acq.files
    assert "code.zip.contents/tool-1.0/deeper.zip" in acq.files
    assert not any("deep.txt" in f for f in acq.files)  # one level only
    assert acq.entry == "code.zip.contents/tool-1.0/README.md"
    assert any("unpacked into code.zip.contents/" in n for n in acq.skipped)


def test_nested_bomb_is_skipped_with_a_note(tmp_path):
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr("zeros.bin", bytes(40 << 20))
    outer = make_tar(tmp_path / "a.tar.gz", [("README.md", README), ("bomb.zip", bomb.getvalue())])
    acq = acquire(str(outer), tmp_path / "run")
    assert acq.ok, acq.error
    assert any("bomb.zip not unpacked" in n and "archive bomb" in n for n in acq.skipped)


@pytest.mark.parametrize("files, expected", [
    (["README.md", "src/README.md"], "README.md"),
    (["readme.rst", "run.py"], "readme.rst"),
    (["docs/index.md", "x/README.md"], "docs/index.md"),
    (["wrapper/inner/README.md", "wrapper/inner/run.py"], "wrapper/inner/README.md"),
    (["paper.pdf", "code/tool-1.0/README.txt", "code/tool-1.0/run.py"], "code/tool-1.0/README.txt"),
    (["a/b/README.md", "a/run.py"], None),  # a/ is not a single-folder wrapper: no deep guessing
    (["data.zip", "data.zip.contents/pkg/README", "main.c"], "data.zip.contents/pkg/README"),
])
def test_entry_document_in_nested_folders(tmp_path, files, expected):
    assert locate_entry(tmp_path, files) == expected
