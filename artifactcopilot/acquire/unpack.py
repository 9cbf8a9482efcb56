"""Unpack an archive a documented step fetched, where the documentation's `unzip -d` / `tar -C` puts it, with the
acquisition's extraction rules (acquire/extract.py: no path out of the destination, no links out, caps against
bombs); `--strip-components=N` drops the first N folders of every member, as tar does."""
from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

from ..errors import AcquisitionError
from .extract import ExtractLimits, archive_kind, extract


def strip_of(cmd: str) -> int:
    match = re.search(r"--strip(?:-components)?[= ](\d+)", cmd)
    return int(match.group(1)) if match else 0


def unpack_into(archive: Path, dest: Path, root: Path, strip: int = 0,
                limits: ExtractLimits | None = None) -> tuple[list[str], list[str]]:
    """Extract `archive` into `dest` (both inside `root`); (files written relative to root, notes on members skipped).
    Raises AcquisitionError for what is not a zip or tar archive or breaks a rule."""
    root, dest = root.resolve(), dest.resolve()
    if not (dest == root or root in dest.parents):
        raise AcquisitionError(f"the destination {dest} is outside the artifact")
    if archive_kind(archive) is None:
        raise AcquisitionError(f"{archive.name} is not a zip or tar archive")
    with tempfile.TemporaryDirectory(dir=root, prefix=".copilot-unpack-") as tmp:
        notes = extract(archive, Path(tmp) / "x", limits, archive.name)
        written = []
        base = Path(tmp) / "x"
        for path in sorted(p for p in base.rglob("*") if p.is_file() and not p.is_symlink()):
            parts = path.relative_to(base).parts[strip:]
            if not parts:
                continue
            target = dest.joinpath(*parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.is_dir():
                shutil.rmtree(target)
            shutil.move(str(path), target)
            written.append(target.relative_to(root).as_posix())
    return written, notes
