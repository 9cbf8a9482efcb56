"""report.html: report.md rendered as one standalone page, readable straight from the run directory.

Raw HTML in the Markdown is disabled, so artifact text that slipped through is shown as text,
and a Content-Security-Policy forbids scripts and remote loads as a second line of defence.
"""
from __future__ import annotations

import html
import re

from markdown_it import MarkdownIt

from ..models import Report
from ..rubric import Rubric
from .markdown import SEVERITIES

_CSS = """
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
h1{font-size:1.6em}h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:.5em 0 1em;width:100%;font-size:.92em}
th,td{border:1px solid #ccc;padding:.3em .5em;text-align:left;vertical-align:top}
th{background:#f3f3f3}code{background:#f4f4f4;padding:0 .2em;word-break:break-all}
blockquote{margin:0;padding:.5em 1em;background:#fff4e5;border-left:4px solid #e69500}
.card{border:1px solid #bbb;border-radius:6px;padding:.8em 1.2em;margin-bottom:1.5em;background:#fafafa}
.card .badge{font-size:1.3em;font-weight:600}
.card .warn{color:#a15c00;font-weight:600}
.sev{display:inline-block;margin-right:1em}.sev-high{color:#b00020}.sev-medium{color:#a15c00}
"""
_CSP = "default-src 'none'; style-src 'unsafe-inline'"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"


def _md() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    seen: dict[str, int] = {}

    def heading_open(self, tokens, idx, options, env):
        # Stable ids (e.g. #d3-workflow-executability) so chairs and tests can link to a section.
        slug = _slug(re.sub(r"\(\d+\)$", "", tokens[idx + 1].content))  # "High severity (2)" -> high-severity
        seen[slug] = seen.get(slug, 0) + 1
        tokens[idx].attrSet("id", slug if seen[slug] == 1 else f"{slug}-{seen[slug]}")
        return self.renderToken(tokens, idx, options, env)

    md.add_render_rule("heading_open", heading_open)
    return md


def _card(report: Report, rubric: Rubric) -> str:
    titles = {b.id: b.title for b in rubric.badges}
    badge = titles.get(report.badge, "No badge")
    extra = " + Results Reproduced" if report.badges.get("reproduced") else ""
    counts = "".join(
        f'<span class="sev sev-{sev}">{sev}: {sum(f.severity == sev for f in report.flags)}</span>'
        for sev in SEVERITIES)
    warn = ('<p class="warn">⚠ Incomplete review: not every phase finished.</p>'
            if report.status == "incomplete" else "")
    return (f'<section id="badge" class="card">\n<div class="badge">{html.escape(badge + extra)}</div>\n'
            f"{warn}<p>Confidence: <strong>{report.confidence:.2f}</strong> · "
            f"Evidence level: <strong>{html.escape(report.evidence_level.value)}</strong> · "
            f"Status: <strong>{html.escape(report.status)}</strong></p>\n"
            f'<p id="flag-counts">Flags — {counts}</p>\n</section>')


def render_html(report: Report, rubric: Rubric, markdown_text: str) -> str:
    body = _md().render(markdown_text)
    title = html.escape(f"ArtifactCopilot review — {report.paper}")
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{title}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
            f"{_card(report, rubric)}\n<main>\n{body}</main>\n</body>\n</html>\n")
