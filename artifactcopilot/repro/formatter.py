"""The format tool (Artisan §2.4.2): fill an obfuscated table's `?` cells from execution output.

It sees only the obfuscated table, never the expected values. The heuristic aligns output tables,
`key: value` logs and JSON with the obfuscated table by row and column labels and prints each
value at the precision the `?` pattern shows (`?.??` -> two decimals). With a chat model it asks
the model instead, caching answers by input hash so identical inputs give identical tables.
"""
from __future__ import annotations

import hashlib
import json
import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from pathlib import Path

from ..tables import Table, compare_tables, json_table, kv_anywhere, parse_number, parse_tables, render_markdown

PROMPT = Path(__file__).parent / "prompts" / "format.md"


def _shape(obfuscated: Table) -> Table:
    """The obfuscated table with `?` as 0: parseable numbers that keep the printed precision, no values."""
    out = obfuscated.model_copy(deep=True)
    out.rows = [[c.replace("?", "0") for c in row] for row in out.rows]
    return out


def _pattern(cell: str) -> tuple[int, int, bool] | None:
    """(integer digits, decimals, thousands separators) of the `?` run in a cell."""
    m = re.search(r"\?[?,]*(?:\.\?+)?", cell)
    if not m:
        return None
    whole, _, frac = m.group(0).partition(".")
    return whole.count("?"), len(frac), "," in whole


def _digits(text: str) -> int:
    return len(text.split(".")[0].lstrip("-").replace(",", ""))


def _render(cell: str, value: str) -> str | None:
    """`cell` with its `?` run replaced by `value` printed at the cell's precision (None: no number)."""
    pat, num = _pattern(cell), parse_number(value)
    if pat is None or num is None:
        return None
    digits, decimals, commas = pat
    signed = re.search(r"[-\u2212]\s*\?", cell) is not None  # the sign is already printed in the cell
    options = []
    for scale in (1, 100):  # 0.452 printed as ??.?% is 45.2
        try:
            q = Decimal(repr(num.value * scale)).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
        except InvalidOperation:
            continue
        text = f"{abs(q):,.{decimals}f}" if commas else f"{abs(q):.{decimals}f}"
        options.append(text if signed or q >= 0 else "-" + text)
    if not options:
        return None
    text = next((t for t in options if _digits(t) == digits), options[0])
    return _HIDDEN_RUN.sub(lambda _m: text, cell, count=1)


_HIDDEN_RUN = re.compile(r"\?[?,]*(?:\.\?+)?")


def _fits(cell: str, value: str) -> bool:
    out = _render(cell, value)
    pat = _pattern(cell)
    return out is not None and pat is not None and any(_digits(m) == pat[0]
                                                       for m in re.findall(r"-?[\d,]+(?:\.\d+)?", out))


_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?%?(?![\w.])")


def _by_row_label(obfuscated: Table, text: str) -> Table:
    """Rows from log lines that name a row label; numbers taken in order ("afl: 1307 branches, 8.2 bugs")."""
    rows = []
    for row in obfuscated.rows:
        wanted = sum("?" in c for c in row[1:])
        if not row or not row[0].strip() or not wanted:
            continue
        label = re.compile(r"(?<!\w)" + r"\s*".join(map(re.escape, row[0].split())) + r"(?!\w)", re.I)
        lines = [label.sub(" ", ln) for ln in text.splitlines() if label.search(ln)]
        numbers = [_NUMBER.findall(ln) for ln in lines]
        numbers = [n for n in numbers if len(n) >= wanted] or numbers
        if not numbers:
            continue
        values = iter(numbers[-1])  # the last report of a row wins (final epoch, final summary)
        rows.append([row[0]] + [next(values, "") if "?" in c else c for c in row[1:]])
    return Table(header=list(obfuscated.header), rows=rows)


def _candidates(text: str, obfuscated: Table) -> list[Table]:
    found = parse_tables(text) + [kv_anywhere(text), _by_row_label(obfuscated, text)]
    if text.lstrip()[:1] in ("{", "["):
        found.append(json_table(text) or Table())
    return [t for t in found if t.rows]


def fill_heuristic(obfuscated: Table, outputs: str) -> Table:
    """Fill every `?` cell a produced table provides by label; cells nothing provides stay `?`."""
    shape = _shape(obfuscated)
    positions = shape.numeric_cells()  # compare_tables reports cells in this order
    best: list[tuple[tuple[int, int], str]] = []
    best_score = (0, 0)
    for cand in _candidates(outputs, obfuscated):
        comp = compare_tables(shape, cand)
        values = [(pos, c.produced) for pos, c in zip(positions, comp.cells)
                  if c.produced is not None and parse_number(c.produced) is not None]
        score = (sum(_fits(obfuscated.rows[r][c], v) for (r, c), v in values), len(values))
        if score > best_score:
            best, best_score = values, score
    out = obfuscated.model_copy(deep=True)
    for (r, c), value in best:
        if "?" in out.rows[r][c]:
            out.rows[r][c] = _render(out.rows[r][c], value) or out.rows[r][c]
    return out


def _cache_key(model_name: str, obfuscated: Table, outputs: str) -> str:
    payload = json.dumps([model_name, render_markdown(obfuscated), outputs], ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()


def fill_with_model(obfuscated: Table, outputs: str, model, cache_dir: Path | None = None) -> tuple[Table, bool]:
    """Ask a chat model to fill the table; returns (table, served_from_cache)."""
    name = str(getattr(model, "model_name", None) or getattr(model, "model", None) or type(model).__name__)
    key = _cache_key(name, obfuscated, outputs)
    hit = cache_dir / f"{key}.md" if cache_dir else None
    if hit and hit.is_file():
        answer, cached = hit.read_text(encoding="utf-8"), True
    else:
        prompt = PROMPT.read_text(encoding="utf-8").format(table=render_markdown(obfuscated), outputs=outputs[-30000:])
        answer, cached = str(model.invoke(prompt).content), False
        if hit:
            hit.parent.mkdir(parents=True, exist_ok=True)
            hit.write_text(answer, encoding="utf-8")
    tables = [t for t in parse_tables(answer) if t.rows]
    if not tables:
        return obfuscated.model_copy(deep=True), cached
    filled = tables[0]
    filled.label, filled.caption = obfuscated.label, obfuscated.caption
    return filled, cached


def format_table(obfuscated: Table, outputs: str, model=None, cache_dir: Path | None = None) -> Table:
    """The format tool: the heuristic first; a model (when given) for what the heuristic left as `?`."""
    filled = fill_heuristic(obfuscated, outputs)
    if model is None or not any("?" in c for row in filled.rows for c in row):
        return filled
    try:
        answer = fill_with_model(obfuscated, outputs, model, cache_dir)[0]
    except Exception:  # noqa: BLE001 - a failing model leaves the heuristic answer
        return filled
    if [len(r) for r in answer.rows] != [len(r) for r in filled.rows]:
        return filled  # the model changed the layout: not usable cell by cell
    for r, row in enumerate(filled.rows):  # the model fills only what the heuristic left hidden
        for c, cell in enumerate(row):
            if "?" in cell and "?" not in answer.rows[r][c]:
                row[c] = answer.rows[r][c]
    return filled
