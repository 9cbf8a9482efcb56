"""`copilot paper PAPER [--json]`: what a review reads of a paper, shown before a review starts.

Title, sections, every table (label, caption, page, header, rows, and whether the paper's own words make it a
results table), the numbers the prose states with their sentence, and the figure captions. The review reads the
paper through the same `load_paper`, so this is exactly what D4 and the report compare against.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from ..console import HelpCommand, fail

EPILOG = """Examples:

\b
  copilot paper paper.pdf                  (tables as read, stated numbers, figure captions)
  copilot paper paper.pdf --json | jq '.tables[] | {label, caption, page}'
  copilot paper paper-sources/             (a LaTeX project: the main .tex file is found)

Exit codes: 0 the paper was read; 2 it could not be (missing, encrypted, image-only or corrupt PDF), with one
line saying why."""


def paper_view(path: str | Path) -> dict[str, Any]:
    """The paper as a review reads it, as plain data (the `--json` output)."""
    from ..acquire.paper import load_paper
    from ..claims import claim_numbers, table_role

    paper = load_paper(path)
    tables = []
    for t in paper.tables:
        role = table_role(t, paper.text)
        tables.append({"label": t.label, "caption": t.caption, "page": getattr(t, "page", None), "header": t.header,
                       "rows": t.rows, "role": role.role, "role_reason": role.reason,
                       "marks": getattr(t, "marks", [])})
    numbers = [{"text": n.text, "sentence": n.context, "table": n.table}
               for n in claim_numbers(paper.text, list(paper.tables))]
    return {"path": paper.path, "format": paper.format, "title": paper.title,
            "sections": [s.title for s in paper.sections], "tables": tables, "numbers": numbers,
            "figures": paper.figures, "links": paper.links, "notes": paper.notes}


def _grid(header: list[str], rows: list[list[str]], limit: int = 40) -> list[str]:
    shown = ([header] if any(header) else []) + rows[:limit]
    widths = [max(len(r[k]) if k < len(r) else 0 for r in shown) for k in range(max(map(len, shown), default=0))]
    out = ["    " + "  ".join(c.ljust(widths[k]) for k, c in enumerate(r)).rstrip() for r in shown]
    if any(header) and len(out) > 1:
        out.insert(1, "    " + "  ".join("-" * w for w in widths))
    if len(rows) > limit:
        out.append(f"    … {len(rows) - limit} more rows")
    return out


def render_text(view: dict[str, Any]) -> str:
    lines = [f"{view['path']}: {view['format']}, title: {view['title'] or '(none found)'}",
             f"sections ({len(view['sections'])}): " + "; ".join(view["sections"][:20])]
    lines.append(f"tables ({len(view['tables'])}):")
    for t in view["tables"]:
        where = f", page {t['page']}" if t["page"] else ""
        lines += ["", f"  {t['label'] or '(no label)'}{where}: {t['caption']}",
                  f"    role: {t['role']} ({t['role_reason']})"]
        lines += _grid(t["header"], t["rows"])
        lines += [f"    footnote mark: {m}" for m in t["marks"]]
    lines += ["", f"numbers stated in the text ({len(view['numbers'])}):"]
    lines += [f"  {n['text']}: {n['sentence'][:160]}" for n in view["numbers"][:60]]
    lines += ["", f"figures ({len(view['figures'])}):"] + [f"  {f[:200]}" for f in view["figures"]]
    lines += [f"note: {n}" for n in view["notes"]]
    return "\n".join(lines)


def register(app: typer.Typer) -> None:
    @app.command("paper", cls=HelpCommand, epilog=EPILOG,
                 short_help="Show what a review reads of a paper: tables, stated numbers, figures.")
    def paper_command(
        paper: Annotated[Path, typer.Argument(
            show_default=False, help="The paper: PDF, Markdown, LaTeX (file or project folder) or text.")],
        as_json: Annotated[bool, typer.Option("--json", help="Print it as JSON.")] = False,
    ) -> None:
        """Read PAPER as a review would and show what was read: title, sections, each table with its label,
        caption, page, header and rows, the numbers the text states with their sentence, and figure captions."""
        from ..errors import CopilotError

        try:
            view = paper_view(paper)
        except CopilotError as exc:
            raise fail(exc) from None
        typer.echo(json.dumps(view, indent=1, ensure_ascii=False) if as_json else render_text(view))
