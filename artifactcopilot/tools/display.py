"""A headless display for artifact commands: figures a plotting script shows are saved, not lost.

Artifacts often end a figure script with `plt.show()` ("will display the corresponding figures"). In a
sandbox there is no screen, and with the non-interactive backend the figure vanishes — the review could not
tell a script that drew Figure 5 from one that drew nothing. So every command runs with matplotlib's backend
set to a small module of ours: it renders like Agg, and its `show()` saves each open figure as a PNG under
`.copilot/figures/<run>/` in the artifact copy (a folder the file-change diff ignores), then closes it, as
closing the window would. The review lists those files after the run: they are what the run *showed*.

This changes nothing in the artifact and nothing it computes, so it is no intervention; the command log names
the files. A notebook is different: its kernel draws figures into the notebook (`%matplotlib inline`, ipykernel's
default), so a notebook runs without the review's backend setting at all, and the figures it showed are read from
the executed copy (`notebook_figures`). Should a command replace PYTHONPATH so the backend cannot be imported,
the run is repeated once with the plain Agg backend (see tools/running.py).
"""
from __future__ import annotations

import os
from pathlib import Path

from ..sandbox.base import ARTIFACT_DIR

MODULE = "copilot_display"
FOLDER = ".copilot/figures"
LIB = ".copilot/display"
KEEP = 6
"""Figures of one command copied into the evidence (the rest are listed in its log)."""
MAX_BYTES = 2_000_000

# Python 2.7 and 3.x, matplotlib 1.5 onwards: only names every Agg backend module has.
BACKEND = '''"""Headless display of the review: Agg rendering; show() saves open figures (20 at most) as PNG files."""
import os

from matplotlib.backends import backend_agg as _agg

for _name in ("FigureCanvas", "FigureManager", "new_figure_manager", "new_figure_manager_given_figure",
              "draw_if_interactive", "backend_version"):
    if hasattr(_agg, _name):
        globals()[_name] = getattr(_agg, _name)
if "FigureCanvas" not in globals():
    FigureCanvas = _agg.FigureCanvasAgg

_shown = [0]


def show(*args, **kwargs):
    from matplotlib import _pylab_helpers
    folder = os.environ.get("COPILOT_FIGURE_DIR")
    for manager in list(_pylab_helpers.Gcf.get_all_fig_managers()):
        if folder and _shown[0] < 20:
            _shown[0] += 1
            try:
                if not os.path.isdir(folder):
                    os.makedirs(folder)
                manager.canvas.figure.savefig(os.path.join(folder, "figure-%d.png" % _shown[0]), dpi=72,
                                              bbox_inches="tight")
            except Exception:
                pass
        _pylab_helpers.Gcf.destroy(manager.num)
'''


def display_env(root: Path, run: str, env: dict[str, str] | None) -> dict[str, str]:
    """Write the backend into the artifact copy at `root` and return `env` with it selected for run `run`.
    A PYTHONPATH the command sets keeps its place in front."""
    _write_inside(root, f"{LIB}/{MODULE}.py", BACKEND.encode())
    merged = dict(env or {})
    ours = f"{ARTIFACT_DIR}/{LIB}"
    merged["PYTHONPATH"] = f"{merged['PYTHONPATH']}:{ours}" if merged.get("PYTHONPATH") else ours
    merged["MPLBACKEND"] = f"module://{MODULE}"
    merged["COPILOT_FIGURE_DIR"] = f"{ARTIFACT_DIR}/{FOLDER}/{run}"
    return merged


def _write_inside(root: Path, rel: str, data: bytes) -> None:
    """Write a file of the review into the artifact copy. The artifact's commands write there too: a folder or
    file they replaced with a link is removed first, so the write never follows it out of the copy."""
    here = root
    for part in rel.split("/")[:-1]:
        here = here / part
        if here.is_symlink() or (here.exists() and not here.is_dir()):
            here.unlink()
        here.mkdir(exist_ok=True)
    target = here / rel.rsplit("/", 1)[-1]
    if target.is_symlink() or target.exists():
        target.unlink()
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    with os.fdopen(fd, "wb") as out:
        out.write(data)


def _inside(root: Path, path: Path) -> bool:
    try:
        return path.resolve().is_relative_to(root.resolve())
    except OSError:
        return False


def shown_figures(root: Path, run: str) -> list[str]:
    """The PNG files run `run` showed, relative to the artifact copy, in the order shown (never through a link
    that leaves the copy)."""
    folder = root / FOLDER / run
    if not _inside(root, folder):
        return []
    try:
        found = [p for p in folder.iterdir() if p.suffix == ".png" and p.is_file() and not p.is_symlink()]
    except OSError:
        return []
    return [p.relative_to(root).as_posix()
            for p in sorted(found, key=lambda p: int(p.stem.rsplit("-", 1)[-1]) if p.stem[-1:].isdigit() else 0)]


def backend_missing(stderr: str) -> bool:
    """The command could not import the display backend (it replaced PYTHONPATH)."""
    return MODULE in stderr and ("No module named" in stderr or "ImportError" in stderr)


def read_figure(root: Path, rel: str) -> bytes | None:
    """A shown figure's bytes when it is a PNG of sensible size (the artifact can write into that folder too)."""
    path = root / rel
    try:
        if not _inside(root, path) or path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    return data if data.startswith(b"\x89PNG") else None


def notebook_figures(root: Path, executed: str, run: str) -> list[str]:
    """The figures an executed notebook shows (its PNG outputs, as the kernel's inline backend drew them), written
    as files of run `run` like the figures a script shows; relative paths, in the order shown."""
    import base64
    import json

    path = root / executed
    try:
        if not _inside(root, path) or path.is_symlink() or not path.is_file() or path.stat().st_size > 50 * MAX_BYTES:
            return []
        notebook = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    images = [o.get("data", {}).get("image/png") for c in notebook.get("cells", []) if isinstance(c, dict)
              for o in c.get("outputs", []) if isinstance(o, dict) and isinstance(o.get("data"), dict)]
    shown = []
    for n, image in enumerate((i for i in images if i), start=1):
        try:
            data = base64.b64decode("".join(image) if isinstance(image, list) else str(image))
        except ValueError:
            continue
        if not data.startswith(b"\x89PNG") or len(data) > MAX_BYTES:
            continue
        rel = f"{FOLDER}/{run}/figure-{n}.png"
        _write_inside(root, rel, data)
        shown.append(rel)
        if len(shown) >= 20:
            break
    return shown
