"""The artifact as the union of what it ships and what it says lives elsewhere (acquire/linked.py): submodules and
linked repositories are acquired, placed where the documentation expects them and logged on the acquisition
(`linked`), before the gate lists the files. A local folder is copied into the run directory first, so the
reviewer's own folder is never written to. Offline (`--offline`), nothing is fetched and each says so.
"""
from __future__ import annotations

import shutil
import time
from pathlib import Path

from ..errors import AcquisitionError
from .download import Acquisition, acquire, list_files
from .entry import locate_entry
from .linked import git_clone, https_url, is_plain_git, linked_repositories, place_into, scratch, submodules

README_NAMES = ("README.md", "README", "README.rst", "README.txt", "readme.md", "Readme.md")


def wanted(root: Path, source: str) -> list[dict]:
    """What the artifact says lives elsewhere: submodules first, then repositories its README links."""
    out = [{"kind": "submodule", "url": https_url(url), "placed": path} for path, url in submodules(root)]
    readme = next((root / n for n in README_NAMES if (root / n).is_file()), None)
    if readme is not None:
        text = readme.read_text(encoding="utf-8", errors="replace")[:500_000]
        taken = {r["placed"] for r in out}
        out += [{"kind": "linked", "url": url, "placed": place} for url, place in linked_repositories(text, source)
                if place not in taken and not (root / place).exists()]
    return out


def acquire_linked(acq: Acquisition, workdir: Path, cache_dir: Path | None = None, offline: bool = False) -> None:
    """Acquire what `acq`'s artifact says lives elsewhere into it, in place (acq.root, files and linked change)."""
    if not acq.ok or acq.root is None:
        return
    todo = wanted(acq.root, acq.source)
    if not todo:
        return
    if acq.kind == "directory":  # never write into the reviewer's own folder: review a copy
        copy = workdir / "artifact"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(acq.root, copy, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        acq.steps.append(f"copied {acq.root} into {copy} to add what it links")
        acq.root = copy.resolve()
    for item in todo:
        acq.linked.append(_one(item, acq.root, cache_dir, offline))
    acq.files, skipped = list_files(acq.root)
    acq.skipped += skipped
    acq.entry = locate_entry(acq.root, acq.files)
    placed = [r for r in acq.linked if r["ok"]]
    acq.steps.append(f"linked: {len(placed)} of {len(acq.linked)} acquired; listed {len(acq.files)} files")


def _one(item: dict, root: Path, cache_dir: Path | None, offline: bool) -> dict:
    record = {**item, "ok": False}
    dest = (root / item["placed"]).resolve()
    if root.resolve() not in dest.parents:
        return {**record, "error": f"{item['placed']} is outside the artifact"}
    if offline:
        return {**record, "error": "not fetched: the review is offline (--offline)"}
    started = time.monotonic()
    with scratch(root.parent) as tmp:
        if is_plain_git(item["url"]):
            problem = git_clone(item["url"], Path(tmp) / "clone")
            record["how"] = "git clone (git's HTTP protocol)"
            src = Path(tmp) / "clone"
        else:
            sub = acquire(item["url"], Path(tmp), cache_dir=cache_dir)
            problem = "" if sub.ok else (sub.error or "nothing acquired")
            record.update(how=sub.kind, downloads=[{k: d.get(k) for k in ("url", "bytes", "sha256", "final_url")}
                                                   for d in sub.downloads][:5])
            src = sub.root or Path(tmp)
        record["seconds"] = round(time.monotonic() - started, 3)
        if problem:
            return {**record, "error": problem}
        try:
            record["files"] = place_into(src, dest)
        except (OSError, shutil.Error, AcquisitionError) as exc:
            return {**record, "error": f"could not place it in {item['placed']}: {exc}"}
    record["ok"] = True
    return record
