"""The review's rendering settings never reach a notebook's own backend: a notebook that draws with the kernel's
inline backend (its default, or its own `%matplotlib inline`) still draws under review, its figures are compared
with the stored ones and kept in the evidence. A script's `plt.show()` keeps the review's headless display."""
from __future__ import annotations

import base64
import json

from .support import INTRO, need_local, need_pypi, write_artifact, write_paper

# a 1x1 PNG, standing in for the figure the authors' run stored
STORED_PNG = base64.b64encode(bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082")).decode()


def _notebook(cells: list[tuple[str, bool]]) -> str:
    out = []
    for source, figure in cells:
        outputs = [{"output_type": "display_data", "metadata": {},
                    "data": {"image/png": STORED_PNG, "text/plain": ["<Figure size 640x480 with 1 Axes>"]}}] \
            if figure else []
        out.append({"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": outputs,
                    "source": source})
    return json.dumps({"cells": out, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                                 "language": "python"}},
                       "nbformat": 4, "nbformat_minor": 5})


PLOT = ("import matplotlib.pyplot as plt\nplt.plot([12, 7, 9, 13])\nplt.title('Figure 2: errors per project')\n"
        "plt.show()")
README = "# Table counter\n\n" + INTRO + """
## Installation

```
pip install -r requirements.txt
```

## Figures

* `figure2.ipynb` - draws Figure 2 of the paper (errors per project).
"""


def _comparisons(run) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((run / "evidence").glob("*notebook-figure2*.json"))]


def test_a_notebook_drawing_with_the_kernels_inline_backend_keeps_its_figures(tmp_path, review):
    need_local()
    need_pypi()
    art = write_artifact(tmp_path / "a", {"README.md": README, "requirements.txt": "matplotlib\n",
                                          "figure2.ipynb": _notebook([(PLOT, True)])})
    report, run = review(write_paper(tmp_path / "paper.md"), art, timeout=600, sandbox_name="local")
    found = _comparisons(run)
    assert found and found[0]["figures_stored"] == 1 and found[0]["figures_regenerated"] == 1, found
    figures = list((run / "evidence").glob("D3-*figure*.png"))
    assert figures and figures[0].read_bytes().startswith(b"\x89PNG")


def test_a_notebook_with_its_own_inline_magic_draws_and_a_script_keeps_the_headless_display(tmp_path, review):
    need_local()
    need_pypi()
    readme = README + "\n## Script\n\n```\npython plot.py\n```\n"
    art = write_artifact(tmp_path / "a", {
        "README.md": readme, "requirements.txt": "matplotlib\n", "plot.py": PLOT + "\nprint('errors found')\n",
        "figure2.ipynb": _notebook([("%matplotlib inline", False), (PLOT, True)])})
    report, run = review(write_paper(tmp_path / "paper.md"), art, timeout=600, sandbox_name="local")
    found = _comparisons(run)
    assert found and found[0]["figures_regenerated"] == 1, found
    script_logs = [p.read_text() for p in (run / "evidence").glob("D3-*.log") if "python plot.py" in p.read_text()]
    assert script_logs and "# figures shown: .copilot/figures/" in script_logs[0]
