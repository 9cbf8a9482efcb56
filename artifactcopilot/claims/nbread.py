"""Reading a Jupyter notebook's code cells and their stored outputs (nbformat 4, and the older 3) from JSON text.

Only the standard library's json parser is used; anything malformed becomes an `error` string on the
result. Figures are recorded by kind only (no pixels); the text repr that accompanies a figure
("<Figure size 800x550 with 1 Axes>") is not output text.
"""
from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from pydantic import Field

from ._base import Record, clip

TEXT_LIMIT = 20_000  # characters of text kept per cell: the head and the tail of long outputs
_HEAD = 15_000
_IMAGE_KINDS = {"image/png": "png", "image/jpeg": "jpeg", "image/svg+xml": "svg", "application/pdf": "pdf",
                "image/gif": "gif"}
_V3_KEYS = {"text": "text/plain", "png": "image/png", "jpeg": "image/jpeg", "svg": "image/svg+xml",
            "html": "text/html", "pdf": "application/pdf"}
_FIGURE_REPR = re.compile(r"^\s*<(?:Figure size|matplotlib\.|Axes|IPython\.core\.display)[^>]*>\s*$|^\s*\[?<matplotlib")


class CellError(Record):
    ename: str = ""
    evalue: str = ""


class NotebookCell(Record):
    index: int = Field(description="Position among all cells of the notebook (markdown included).")
    source_head: str = Field("", description="First non-blank source line.")
    source_key: str = Field("", description="Digest of the whitespace-normalised source, for aligning two runs.")
    execution_count: int | None = None
    text: str = Field("", description="stdout and text/plain results, head and tail kept when long.")
    stderr: str = ""
    truncated: bool = False
    images: list[str] = Field(default_factory=list, description="Kinds of figures shown (png, jpeg, svg, pdf, gif).")
    errors: list[CellError] = Field(default_factory=list)

    @property
    def has_outputs(self) -> bool:
        return bool(self.text.strip() or self.stderr.strip() or self.images or self.errors)


class NotebookOutputs(Record):
    cells: list[NotebookCell] = Field(default_factory=list, description="Code cells, in order.")
    code_cells: int = 0
    cells_with_outputs: int = 0
    images: int = 0
    errors: int = 0
    nbformat: int | None = None
    error: str | None = Field(None, description="Why the notebook could not be read, when it could not.")


def _joined(value: Any) -> str:
    if isinstance(value, list):
        return "".join(v for v in value if isinstance(v, str))
    return value if isinstance(value, str) else ""


def _truncate(text: str) -> tuple[str, bool]:
    if len(text) <= TEXT_LIMIT:
        return text, False
    head = text[:_HEAD].rsplit("\n", 1)[0]
    tail = text[-(TEXT_LIMIT - _HEAD):].split("\n", 1)[-1]
    return f"{head}\n...\n{tail}", True


def _bundle(out: dict) -> dict:
    data = out.get("data")
    if isinstance(data, dict):
        return data
    return {_V3_KEYS[k]: v for k, v in out.items() if k in _V3_KEYS}  # nbformat 3 keeps mime data inline


def _read_outputs(outputs: list, cell: NotebookCell) -> None:
    text: list[str] = []
    stderr: list[str] = []
    for out in outputs:
        if not isinstance(out, dict):
            continue
        kind = out.get("output_type")
        if kind == "stream":
            (stderr if out.get("name", out.get("stream")) == "stderr" else text).append(_joined(out.get("text")))
        elif kind in ("execute_result", "display_data", "pyout"):
            data = _bundle(out)
            images = [_IMAGE_KINDS[m] for m in data if m in _IMAGE_KINDS]
            cell.images += images
            plain = _joined(data.get("text/plain"))
            if plain and not images and not _FIGURE_REPR.match(plain):
                text.append(plain if plain.endswith("\n") else plain + "\n")
        elif kind in ("error", "pyerr"):
            cell.errors.append(CellError(ename=str(out.get("ename", ""))[:200],
                                         evalue=clip(out.get("evalue", ""), 300)))
    cell.text, t1 = _truncate("".join(text))
    cell.stderr, t2 = _truncate("".join(stderr))
    cell.truncated = t1 or t2


def _code_cells(nb: dict) -> list[tuple[int, dict]]:
    cells = nb.get("cells")
    if cells is None and isinstance(nb.get("worksheets"), list) and nb["worksheets"]:
        cells = nb["worksheets"][0].get("cells") if isinstance(nb["worksheets"][0], dict) else None
    if not isinstance(cells, list):
        raise TypeError("no list of cells")
    return [(i, c) for i, c in enumerate(cells) if isinstance(c, dict) and c.get("cell_type") == "code"]


def _cell(index: int, raw: dict) -> NotebookCell:
    source = _joined(raw.get("source", raw.get("input", "")))
    head = next((ln.strip() for ln in source.splitlines() if ln.strip()), "")
    key = hashlib.sha1(" ".join(source.split()).encode("utf-8", "replace")).hexdigest()[:16]
    count = raw.get("execution_count", raw.get("prompt_number"))
    cell = NotebookCell(index=index, source_head=clip(head, 120), source_key=key,
                        execution_count=count if isinstance(count, int) and not isinstance(count, bool) else None)
    outputs = raw.get("outputs")
    if isinstance(outputs, list):
        _read_outputs(outputs, cell)
    return cell


def read_notebook(nb_text: str) -> NotebookOutputs:
    """The code cells of a notebook with their stored outputs; never raises."""
    try:
        nb = json.loads(nb_text)
        if not isinstance(nb, dict):
            raise TypeError("top level is not a JSON object")
        cells = [_cell(i, raw) for i, raw in _code_cells(nb)]
    except (ValueError, TypeError, AttributeError, RecursionError) as exc:
        return NotebookOutputs(error=f"not a readable notebook: {type(exc).__name__}: {clip(str(exc), 200)}")
    fmt = nb.get("nbformat")
    return NotebookOutputs(cells=cells, code_cells=len(cells), cells_with_outputs=sum(c.has_outputs for c in cells),
                           images=sum(len(c.images) for c in cells), errors=sum(len(c.errors) for c in cells),
                           nbformat=fmt if isinstance(fmt, int) else None)
